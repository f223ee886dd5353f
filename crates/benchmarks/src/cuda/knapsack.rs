//! GPU repair and evaluation of the 0/1 knapsack (`benchmarks_discrete_knapsack_repair`): one thread per
//! individual runs the index-order repair of [`Knapsack::repair_row`] on its packed row in place and writes
//! minus the repaired profit (the fitness) and the repaired weight. Bit-identical to
//! [`Knapsack::repair_batch`] (no transcendental functions; the profile only selects the compiled module).

use super::discrete::{MODULE, check_block, grid, site};
use crate::knapsack::Knapsack;
use evo_core::{Bits, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};
use evo_kernels::entry::benchmarks_discrete as entry;

/// Scalar arguments of `benchmarks_discrete_knapsack_repair`; mirrors `KnapsackParams` in the `.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KnapsackParams {
    /// Items `n`.
    pub items: u32,
    /// Packed words per row.
    pub words: u32,
    /// Individuals.
    pub rows: u32,
    /// Padding to 8 bytes.
    pub pad: u32,
    /// Capacity `C`.
    pub capacity: f64,
}
const _: () = assert!(size_of::<KnapsackParams>() == 24);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (24 bytes, asserted on both sides).
unsafe impl KernelParams for KnapsackParams {}

/// A knapsack instance uploaded to one GPU.
pub struct CudaKnapsack {
    gpu: Gpu,
    items: u32,
    capacity: f64,
    weights: DeviceBuffer<f32>,
    profits: DeviceBuffer<f32>,
}

impl Knapsack {
    /// Uploads the instance's weights and profits to `gpu`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for more than `u32::MAX` items; GPU errors.
    pub fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaKnapsack> {
        let items = u32::try_from(self.len()).map_err(|_| {
            Error::invalid_parameter(MODULE, "item count", self.len(), "at most 2^32 - 1")
        })?;
        Ok(CudaKnapsack {
            gpu: gpu.clone(),
            items,
            capacity: self.capacity(),
            weights: gpu.upload(self.weights())?,
            profits: gpu.upload(self.profits())?,
        })
    }
}

impl CudaKnapsack {
    /// Packed words per individual.
    pub fn words(&self) -> usize {
        Bits::word_count(self.items as usize)
    }

    /// Repairs every row of `population` (`fitness.len()` rows of [`words`](Self::words) words) in place,
    /// writes minus the repaired profit to `fitness` and the repaired weight to `weight`, with blocks of
    /// `block` threads.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a shape mismatch or a bad block size; GPU errors.
    pub fn repair_evaluate(
        &self,
        population: &mut DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        weight: &mut DeviceBuffer<f64>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let site = site(entry::KNAPSACK_REPAIR);
        check_block(block)?;
        let rows = site.to_u32("individuals per launch", fitness.len())?;
        site.check_len("population", population.len(), fitness.len() * self.words())?;
        site.check_len("weight", weight.len(), fitness.len())?;
        if rows == 0 {
            return Ok(());
        }
        let params = KnapsackParams {
            items: self.items,
            words: site.to_u32("words per individual", self.words())?,
            rows,
            pad: 0,
            capacity: self.capacity,
        };
        let kernel = site.kernel(&self.gpu, profile)?;
        let blocks = grid(&self.gpu, rows, block);
        // SAFETY: the arguments follow `(const float* weights, const float* profits, unsigned int* population,
        // double* fitness, double* packed_weight, KnapsackParams)`; thread r < rows touches row r of
        // `population` (rows·words elements, checked), fitness[r] and weight[r] (rows elements, checked) and
        // items below n of weights and profits (n elements each).
        unsafe {
            kernel
                .launch()
                .input(&self.weights)
                .input(&self.profits)
                .output(population)
                .output(fitness)
                .output(weight)
                .params(&params)
                .run(LaunchConfig::linear(blocks, block, 0))
        }
    }

    /// [`repair_evaluate`](Self::repair_evaluate) on host data: uploads `population`, repairs it on the GPU,
    /// copies the repaired rows back into it and the fitness into `fitness`; returns the repaired weights.
    ///
    /// # Errors
    /// As [`repair_evaluate`](Self::repair_evaluate).
    pub fn repair_evaluate_host(
        &self,
        population: &mut [u32],
        fitness: &mut [f64],
        profile: Profile,
        block: u32,
    ) -> Result<Vec<f64>> {
        let mut device_population = self.gpu.upload(population)?;
        let mut device_fitness = self.gpu.alloc::<f64>(fitness.len())?;
        let mut device_weight = self.gpu.alloc::<f64>(fitness.len())?;
        self.repair_evaluate(
            &mut device_population,
            &mut device_fitness,
            &mut device_weight,
            profile,
            block,
        )?;
        device_population.copy_to_host(population)?;
        device_fitness.copy_to_host(fitness)?;
        device_weight.to_vec()
    }
}
