//! The optional repair step of QIGA on a bit-string problem (step 3): [`BitRepair`] makes an observed row
//! feasible in place before it is evaluated, on the CPU row by row and on the GPU through a [`RowRepairer`]
//! over the whole population; the repaired row is kept as the individual (it is what b copies and what the
//! rotation of step 7 compares). [`KnapsackRepair`], the paper's index-order repair, is one implementation.

use evo_benchmarks::Knapsack;
use evo_benchmarks::cuda::EvalSettings;
use evo_benchmarks::cuda::knapsack::CudaKnapsack;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

/// A repair of step 3 (module docs). Under the Exact profile the device repair must give the bits of
/// [`repair`](Self::repair), so that the CPU and CUDA engines hold the same snapshots; both must be
/// deterministic.
pub trait BitRepair: Send + Sync {
    /// A short name for reports, errors and the run's fingerprint.
    fn name(&self) -> &str;

    /// `L`, the bits per row this repair accepts.
    fn bit_count(&self) -> usize;

    /// Repairs one row (`⌈L/32⌉` words in the [`Bits`](evo_core::Bits) layout) in place; padding bits must stay zero.
    fn repair(&self, row: &mut [u32]);

    /// What the CUDA engine runs on `gpu` (uploads and compiled modules done here).
    ///
    /// # Errors
    /// Compile errors of user source, GPU errors.
    fn device_repairer(&self, gpu: &Gpu) -> Result<Box<dyn RowRepairer>>;
}

/// The device half of a [`BitRepair`]: repairs every row of the engine's population in place, queued on the
/// runtime's stream of the repairer's GPU (a user kernel, a library call, or a copy to the host and back).
pub trait RowRepairer: Send {
    /// Repairs the `population.len() / ⌈L/32⌉` rows of `population` in place.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `population.len()` is not a whole number of rows; GPU errors.
    fn repair(&mut self, population: &mut DeviceBuffer<u32>, settings: EvalSettings) -> Result<()>;
}

/// The knapsack's index-order repair ([`Knapsack::repair_row`]) as a [`BitRepair`]: with it and the
/// knapsack's fitness (minus the repaired profit), QIGA on bit strings runs the paper's QIGA bit for bit.
#[derive(Debug, Clone)]
pub struct KnapsackRepair {
    knapsack: Knapsack,
}

impl KnapsackRepair {
    /// The index-order repair of `knapsack`.
    pub fn new(knapsack: &Knapsack) -> Self {
        Self {
            knapsack: knapsack.clone(),
        }
    }
}

impl BitRepair for KnapsackRepair {
    fn name(&self) -> &str {
        "knapsack index-order repair"
    }

    fn bit_count(&self) -> usize {
        self.knapsack.len()
    }

    fn repair(&self, row: &mut [u32]) {
        self.knapsack.repair_row(row);
    }

    /// evo-benchmarks' `benchmarks_discrete_knapsack_repair`, the CUDA twin of [`Knapsack::repair_row`].
    fn device_repairer(&self, gpu: &Gpu) -> Result<Box<dyn RowRepairer>> {
        Ok(Box::new(KnapsackRowRepairer {
            gpu: gpu.clone(),
            knapsack: self.knapsack.cuda_evaluator(gpu)?,
            profit: gpu.alloc_zeroed(1)?,
            weight: gpu.alloc_zeroed(1)?,
        }))
    }
}

/// The device repair of a knapsack; the repaired profit and weight it also writes are scratch here.
struct KnapsackRowRepairer {
    gpu: Gpu,
    knapsack: CudaKnapsack,
    profit: DeviceBuffer<f64>,
    weight: DeviceBuffer<f64>,
}

impl RowRepairer for KnapsackRowRepairer {
    fn repair(&mut self, population: &mut DeviceBuffer<u32>, settings: EvalSettings) -> Result<()> {
        let words = self.knapsack.words();
        if !population.len().is_multiple_of(words) {
            return Err(Error::invalid_parameter(
                "KnapsackRepair",
                "population length",
                population.len(),
                format!("whole rows of {words} words"),
            ));
        }
        let rows = population.len() / words;
        if self.profit.len() != rows {
            self.profit = self.gpu.alloc_zeroed(rows)?;
            self.weight = self.gpu.alloc_zeroed(rows)?;
        }
        self.knapsack.repair_evaluate(
            population,
            &mut self.profit,
            &mut self.weight,
            settings.profile,
            settings.block,
        )
    }
}

/// Checks that `repair` works on rows of `bits` bits.
pub(crate) fn check_repair_length(
    repair: &dyn BitRepair,
    problem: &str,
    bits: usize,
) -> Result<()> {
    if repair.bit_count() == bits {
        return Ok(());
    }
    Err(Error::invalid_parameter(
        crate::params::ALGORITHM,
        "repair bit count",
        format!("{} (repair `{}`)", repair.bit_count(), repair.name()),
        format!("{bits}, the bit count of problem `{problem}`"),
    ))
}
