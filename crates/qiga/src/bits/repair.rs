//! The optional repair step of QIGA on a bit-string problem (step 3): [`BitRepair`] makes an observed row
//! feasible in place before it is evaluated, on the CPU row by row and on the GPU through a [`RowRepairer`]
//! over the whole population; the repaired row is kept as the individual (it is what b copies and what the
//! rotation of step 7 compares). [`KnapsackRepair`], the paper's index-order repair, is one implementation;
//! a repair written only in Rust runs on the GPU engine through [`HostRepairer`] (the rows copied to the
//! host, repaired there on the current rayon pool, copied back).
//!
//! ```
//! use evo_qiga::bits::{BitRepair, HostRepairer, RowRepairer};
//! use evo_gpu_runtime::Gpu;
//!
//! /// At most `limit` ones: clears the highest set bits until the row fits.
//! #[derive(Clone)]
//! struct AtMost { bits: usize, limit: u32 }
//!
//! impl BitRepair for AtMost {
//!     fn name(&self) -> &str { "at-most" }
//!     fn bit_count(&self) -> usize { self.bits }
//!     fn repair(&self, row: &mut [u32]) {
//!         let mut ones: u32 = row.iter().map(|w| w.count_ones()).sum();
//!         for i in (0..self.bits).rev() {
//!             if ones <= self.limit { break; }
//!             if row[i / 32] >> (i % 32) & 1 == 1 { row[i / 32] &= !(1 << (i % 32)); ones -= 1; }
//!         }
//!     }
//!     fn device_repairer(&self, _gpu: &Gpu) -> evo_core::Result<Box<dyn RowRepairer>> {
//!         Ok(Box::new(HostRepairer::new(self.clone())))
//!     }
//! }
//!
//! let mut row = [0b1111_0110u32];
//! AtMost { bits: 8, limit: 3 }.repair(&mut row);
//! assert_eq!(row, [0b0001_0110]);
//! ```

use evo_benchmarks::Knapsack;
use evo_benchmarks::cuda::EvalSettings;
use evo_benchmarks::cuda::knapsack::CudaKnapsack;
use evo_core::{Bits, Error, Result, catch_problem_panic};
use evo_gpu_runtime::{DeviceBuffer, Gpu};
use rayon::prelude::*;

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

/// The device half of any [`BitRepair`], run on the host: each call waits for the population, copies it to
/// the host, repairs every row with [`BitRepair::repair`] on the current rayon pool and copies it back (module
/// docs). It gives the CPU engine's bits by construction.
pub struct HostRepairer<R> {
    repair: R,
    rows: Vec<u32>,
}

impl<R: BitRepair> HostRepairer<R> {
    /// `repair`, run on the host for the CUDA engine.
    pub fn new(repair: R) -> Self {
        Self {
            repair,
            rows: Vec::new(),
        }
    }
}

impl<R: BitRepair> RowRepairer for HostRepairer<R> {
    /// # Errors
    /// As [`RowRepairer::repair`]; [`Error::ProblemPanicked`] when the repair panics (nothing is copied back).
    fn repair(
        &mut self,
        population: &mut DeviceBuffer<u32>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let words = Bits::word_count(self.repair.bit_count());
        if !population.len().is_multiple_of(words) {
            return Err(Error::invalid_parameter(
                "HostRepairer",
                "population length",
                format!("{} (repair `{}`)", population.len(), self.repair.name()),
                format!("whole rows of {words} words"),
            ));
        }
        self.rows.resize(population.len(), 0);
        population.copy_to_host(&mut self.rows)?;
        let (repair, rows) = (&self.repair, &mut self.rows);
        catch_problem_panic(repair.name(), || {
            rows.par_chunks_mut(words)
                .for_each(|row| repair.repair(row));
            Ok(())
        })?;
        population.copy_from_host(&self.rows)
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
