//! One typed launch function per kernel of `kernels/cuda/de.cu`.
//!
//! Each function checks the buffer lengths against the parameters, derives the launch shape from them, and
//! is the only place its kernel is launched. The one-launch generation (`launch/generation.rs`), its twin in a
//! user's DE module (`launch/user_generation.rs`) and the local search (`launch/local_search.rs`), each with
//! its own parameter struct, have files of their own; their items are re-exported here.

use crate::params::{ALGORITHM, Crossover, DeParams, Selection, Strategy};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::de;
use evo_rng::Stream;

mod generation;
mod local_search;
mod user_generation;

pub use generation::{
    CHUNKED_FROM, ChunkSums, DeGenerationParams, DeviceBest, FUSED_MAX_MACHINES, FusedInputs,
    FusedPlan, FusedProblem, RESIDENT_THREADS_PER_MULTIPROCESSOR, SlottedPopulation,
    TICKET_COUNTERS, fused_block, fused_items, fused_plan, generation, generation_kernel,
};
pub use local_search::{
    DeLocalSearchParams, KickScratch, LOCAL_SEARCH_BLOCK, PHASE_KICKS, PHASE_PICK, PHASE_SEARCH,
    SearchedPopulation, kicked_local_search, local_search, local_search_kernel,
};
pub use user_generation::{
    DeUserGenerationParams, SHARED_TRIAL_MAX, USER_GENERATION_F32, UserInputs, UserPlan,
    user_generation, user_plan,
};

// The kernel hard-codes the DE stream ids of evo-rng's table.
const _: () = assert!(Stream::DeInit.id() == 0x0400);
const _: () = assert!(Stream::DeIndices.id() == 0x0401);
const _: () = assert!(Stream::DeJrand.id() == 0x0402);
const _: () = assert!(Stream::DeCross.id() == 0x0403);
const _: () = assert!(Stream::DeJde.id() == 0x0404);

/// Scalar arguments of every de kernel; mirrors `DeKernelParams` in `kernels/cuda/de.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DeKernelParams {
    /// The run's seed.
    pub seed: u64,
    /// `M`.
    pub population: u64,
    /// `D`.
    pub dimension: u64,
    /// The Philox step of this generation.
    pub generation: u32,
    /// 0 DE/rand/1, 1 DE/best/1, 2 DE/current-to-best/1.
    pub strategy: u32,
    /// 0 binomial, 1 paper-literal, 2 exponential.
    pub crossover: u32,
    /// 1 under jDE.
    pub jde: u32,
    /// 1 when an equal trial replaces its parent.
    pub accept_equal: u32,
    /// Padding to a multiple of 8 bytes.
    pub pad: u32,
}
const _: () = assert!(size_of::<DeKernelParams>() == 48);
// SAFETY: repr(C), integers only, the layout of `DeKernelParams` (48 bytes, asserted on both sides).
unsafe impl KernelParams for DeKernelParams {}

impl DeKernelParams {
    /// The parameters of a run with `M × D` vectors.
    pub(crate) fn new(params: &DeParams, seed: u64, dimension: usize) -> Self {
        Self {
            seed,
            population: params.population() as u64,
            dimension: dimension as u64,
            generation: 0,
            strategy: match params.strategy() {
                Strategy::Rand1 => 0,
                Strategy::Best1 => 1,
                Strategy::CurrentToBest1 => 2,
            },
            crossover: match params.crossover() {
                Crossover::Binomial => 0,
                Crossover::PaperLiteral => 1,
                Crossover::Exponential => CROSSOVER_EXPONENTIAL,
            },
            jde: u32::from(params.adaptation() == crate::Adaptation::Jde),
            accept_equal: u32::from(params.selection() == Selection::BetterOrEqual),
            pad: 0,
        }
    }

    /// `M` as a host length.
    fn rows(&self, site: LaunchSite) -> Result<usize> {
        host_len(site, "population M", self.population)
    }

    /// `D` as a host length.
    fn columns(&self, site: LaunchSite) -> Result<usize> {
        host_len(site, "dimension D", self.dimension)
    }

    /// `M · D` as a host length.
    fn coordinates(&self, site: LaunchSite) -> Result<usize> {
        let coordinates = self.population.checked_mul(self.dimension).ok_or_else(|| {
            Error::invalid_parameter(
                ALGORITHM,
                "coordinates M × D",
                format!(
                    "{} × {} (in {})",
                    self.population,
                    self.dimension,
                    site.entry()
                ),
                format!("at most {}", u64::MAX),
            )
        })?;
        host_len(site, "coordinates M × D", coordinates)
    }
}

fn site(entry: evo_kernels::EntryPoint) -> LaunchSite {
    LaunchSite::new(ALGORITHM, entry)
}

/// A 64-bit count of the kernel parameters as a host length (`usize` may be narrower).
fn host_len(site: LaunchSite, what: &'static str, value: u64) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            ALGORITHM,
            what,
            format!("{value} (in {})", site.entry()),
            format!("at most {}", usize::MAX),
        )
    })
}

/// Threads per block and compile profile of a launch.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Threads per block (a power of two in 32..=1024).
    pub block: u32,
    /// The compile profile.
    pub profile: Profile,
}

/// The search box on the device.
pub struct DeviceBounds<'a> {
    /// Lower limits, one per coordinate.
    pub lower: &'a DeviceBuffer<f32>,
    /// Upper limits, one per coordinate.
    pub upper: &'a DeviceBuffer<f32>,
}

/// The most blocks a launch of these kernels uses (the kernels loop over the rest).
const MAX_GRID: u32 = 65_535;

/// The kernels' code of the exponential crossover (`DeKernelParams::crossover`, `DE_CROSSOVER_EXPONENTIAL`).
const CROSSOVER_EXPONENTIAL: u32 = 2;

/// Blocks for one block per vector: `M`, capped at the grid limit (the kernels loop over the rest).
fn grid_for_rows(rows: u64) -> u32 {
    // A count beyond u32 is beyond the cap as well.
    u32::try_from(rows).map_or(MAX_GRID, |rows| rows.clamp(1, MAX_GRID))
}

/// Blocks the trial kernel aims at: a few per SM of a large GPU, so that loads stay in flight.
const TRIAL_TARGET_BLOCKS: u64 = 1024;

/// The fewest coordinates per thread in a slice of a vector: each slice redraws its vector's partners and
/// rates, which this many coordinates per thread outweigh.
const TRIAL_MIN_COORDINATES_PER_THREAD: u64 = 8;

/// Blocks of the trial kernel: one per vector, or, for a few long vectors under a per-coordinate crossover,
/// `s ≥ 2` per vector (the kernel reads `s = gridDim.x / M`): as many as bring the grid to about
/// [`TRIAL_TARGET_BLOCKS`] while every thread keeps [`TRIAL_MIN_COORDINATES_PER_THREAD`] coordinates.
/// Slicing changes no value (every coordinate is the same function of the same draws).
fn trial_grid(p: &DeKernelParams, block: u32) -> u32 {
    let rows = grid_for_rows(p.population);
    if p.crossover == CROSSOVER_EXPONENTIAL || p.population == 0 {
        return rows;
    }
    let by_target = TRIAL_TARGET_BLOCKS.div_ceil(p.population);
    let by_length = p.dimension / (u64::from(block.max(1)) * TRIAL_MIN_COORDINATES_PER_THREAD);
    let by_grid = u64::from(MAX_GRID) / p.population;
    let slices = by_target.min(by_length).min(by_grid);
    if slices < 2 {
        return rows;
    }
    // slices · M ≤ MAX_GRID, so the product fits.
    u32::try_from(slices * p.population).unwrap_or(rows)
}

/// Step 1: the initial population on the device (twin: `cpu::initial_row`).
pub fn init(
    gpu: &Gpu,
    population: &mut DeviceBuffer<f32>,
    bounds: &DeviceBounds<'_>,
    p: &DeKernelParams,
    settings: Settings,
) -> Result<()> {
    let site = site(de::INIT_F32);
    let (lower, upper, block) = (bounds.lower, bounds.upper, settings.block);
    let coordinates = p.coordinates(site)?;
    site.check_len("population buffer", population.len(), coordinates)?;
    site.check_len("lower bounds buffer", lower.len(), p.columns(site)?)?;
    site.check_len("upper bounds buffer", upper.len(), p.columns(site)?)?;
    let kernel = site.kernel(gpu, settings.profile)?;
    // At most 32 blocks per multiprocessor; the kernel loops over the rest.
    let cap = gpu.info().multiprocessors.max(1).saturating_mul(32);
    let grid = coordinates.div_ceil(block as usize).clamp(1, cap as usize);
    let grid = site.to_u32("grid", grid)?;
    // SAFETY: arguments follow `de_init_f32(float*, const float*, const float*, DeKernelParams)`; the kernel
    // writes indices below M·D = population.len() and reads bounds below D, lengths checked above.
    unsafe {
        kernel
            .launch()
            .output(population)
            .input(lower)
            .input(upper)
            .params(p)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

/// The device buffers of one generation's trials.
pub struct Trials<'a> {
    /// The trial vectors, `M × D`.
    pub vectors: &'a mut DeviceBuffer<f32>,
    /// The `F` each trial used.
    pub weights: &'a mut DeviceBuffer<f32>,
    /// The `CR` each trial used.
    pub rates: &'a mut DeviceBuffer<f32>,
}

/// The device buffers of the parent population.
pub struct Parents<'a> {
    /// The vectors, `M × D`.
    pub vectors: &'a DeviceBuffer<f32>,
    /// Every vector's `F_i`.
    pub weights: &'a DeviceBuffer<f32>,
    /// Every vector's `CR_i`.
    pub rates: &'a DeviceBuffer<f32>,
    /// The index of the best vector (one element).
    pub best: &'a DeviceBuffer<u32>,
}

/// Steps 3.1–3.3 for the whole population (twin: `cpu::TrialContext::build`).
pub fn trial(
    gpu: &Gpu,
    trials: Trials<'_>,
    parents: Parents<'_>,
    bounds: &DeviceBounds<'_>,
    p: &DeKernelParams,
    settings: Settings,
) -> Result<()> {
    let (lower, upper) = (bounds.lower, bounds.upper);
    let site = site(de::TRIAL_F32);
    let (m, d, coordinates) = (p.rows(site)?, p.columns(site)?, p.coordinates(site)?);
    site.check_len("trial buffer", trials.vectors.len(), coordinates)?;
    site.check_len("trial F buffer", trials.weights.len(), m)?;
    site.check_len("trial CR buffer", trials.rates.len(), m)?;
    site.check_len("population buffer", parents.vectors.len(), coordinates)?;
    site.check_len("F buffer", parents.weights.len(), m)?;
    site.check_len("CR buffer", parents.rates.len(), m)?;
    site.check_len("best index buffer", parents.best.len(), 1)?;
    site.check_len("lower bounds buffer", lower.len(), d)?;
    site.check_len("upper bounds buffer", upper.len(), d)?;
    let kernel = site.kernel(gpu, settings.profile)?;
    // SAFETY: arguments follow `de_trial_f32(float* trials, float* trial_weights, float* trial_rates, const
    // float* population, const float* weights, const float* rates, const unsigned int* best, const float*
    // lower, const float* upper, DeKernelParams)`; rows below M and coordinates below D only, lengths checked
    // above; `best` holds an index below M (written by `best_index`).
    unsafe {
        kernel
            .launch()
            .output(trials.vectors)
            .output(trials.weights)
            .output(trials.rates)
            .input(parents.vectors)
            .input(parents.weights)
            .input(parents.rates)
            .input(parents.best)
            .input(lower)
            .input(upper)
            .params(p)
            .run(LaunchConfig::linear(
                trial_grid(p, settings.block),
                settings.block,
                0,
            ))
    }
}

/// The merge buffers: the population that receives winners.
pub struct Population<'a> {
    /// The vectors, `M × D`.
    pub vectors: &'a mut DeviceBuffer<f32>,
    /// Their fitness.
    pub fitness: &'a mut DeviceBuffer<f64>,
    /// Every vector's `F_i`.
    pub weights: &'a mut DeviceBuffer<f32>,
    /// Every vector's `CR_i`.
    pub rates: &'a mut DeviceBuffer<f32>,
}

/// The trials after their evaluation.
#[derive(Clone, Copy)]
pub struct EvaluatedTrials<'a> {
    /// The trial vectors, `M × D`.
    pub vectors: &'a DeviceBuffer<f32>,
    /// Their fitness.
    pub fitness: &'a DeviceBuffer<f64>,
    /// The `F` each used.
    pub weights: &'a DeviceBuffer<f32>,
    /// The `CR` each used.
    pub rates: &'a DeviceBuffer<f32>,
}

/// Step 3.4: every trial that wins replaces its parent.
pub fn merge(
    gpu: &Gpu,
    population: Population<'_>,
    evaluated: &EvaluatedTrials<'_>,
    p: &DeKernelParams,
    settings: Settings,
) -> Result<()> {
    let EvaluatedTrials {
        vectors: trials,
        fitness: trial_fitness,
        weights: trial_weights,
        rates: trial_rates,
    } = *evaluated;
    let site = site(de::MERGE_F32);
    let (m, coordinates) = (p.rows(site)?, p.coordinates(site)?);
    site.check_len("population buffer", population.vectors.len(), coordinates)?;
    site.check_len("fitness buffer", population.fitness.len(), m)?;
    site.check_len("F buffer", population.weights.len(), m)?;
    site.check_len("CR buffer", population.rates.len(), m)?;
    site.check_len("trial buffer", trials.len(), coordinates)?;
    site.check_len("trial fitness buffer", trial_fitness.len(), m)?;
    site.check_len("trial F buffer", trial_weights.len(), m)?;
    site.check_len("trial CR buffer", trial_rates.len(), m)?;
    let kernel = site.kernel(gpu, settings.profile)?;
    // SAFETY: arguments follow `de_merge_f32(float*, double*, float*, float*, const float*, const double*,
    // const float*, const float*, DeKernelParams)`; rows below M and coordinates below D, lengths checked.
    unsafe {
        kernel
            .launch()
            .output(population.vectors)
            .output(population.fitness)
            .output(population.weights)
            .output(population.rates)
            .input(trials)
            .input(trial_fitness)
            .input(trial_weights)
            .input(trial_rates)
            .params(p)
            .run(LaunchConfig::linear(
                grid_for_rows(p.population),
                settings.block,
                0,
            ))
    }
}

/// The best vector's index and fitness under the total order, by one block (twin: `ops::best_index`):
/// `best = [index]` for the trial kernel, `best_fitness = [fitness, index as f64]` for one host read.
pub fn best_index(
    gpu: &Gpu,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    fitness: &DeviceBuffer<f64>,
    p: &DeKernelParams,
    settings: Settings,
) -> Result<()> {
    let site = site(de::BEST_INDEX_F64);
    site.check_len("best index buffer", best.len(), 1)?;
    site.check_len("best fitness buffer", best_fitness.len(), 2)?;
    site.check_len("fitness buffer", fitness.len(), p.rows(site)?)?;
    let kernel = site.kernel(gpu, settings.profile)?;
    // SAFETY: arguments follow `de_best_index_f64(unsigned int*, double*, const double*, DeKernelParams)`;
    // one block of a power of two ≤ 1024 threads (the kernel's shared arrays) reads fitness below M.
    unsafe {
        kernel
            .launch()
            .output(best)
            .output(best_fitness)
            .input(fitness)
            .params(p)
            .run(LaunchConfig::linear(1, settings.block, 0))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn params(population: usize, dimension: usize, crossover: Crossover) -> DeKernelParams {
        let params = DeParams::default()
            .with_population(population)
            .unwrap()
            .with_crossover(crossover);
        DeKernelParams::new(&params, 1, dimension)
    }

    #[test]
    fn short_vectors_keep_one_block_each() {
        for (m, d) in [(64u32, 128), (1024, 512), (512, 128), (64, 4095)] {
            let p = params(m as usize, d, Crossover::Binomial);
            assert_eq!(trial_grid(&p, 256), m, "{m} x {d}");
        }
    }

    #[test]
    fn a_few_long_vectors_are_cut_to_fill_the_grid() {
        // 100 × 10^6: ⌈1024 / 100⌉ = 11 slices per vector.
        assert_eq!(
            trial_grid(&params(100, 1_000_000, Crossover::Binomial), 256),
            1100
        );
        // 64 × 4096: each slice keeps 8 coordinates per thread of 256, so 2 slices.
        assert_eq!(trial_grid(&params(64, 4096, Crossover::Binomial), 256), 128);
        // 8 × 65 536: 32 slices of 2048 coordinates.
        assert_eq!(
            trial_grid(&params(8, 65_536, Crossover::Binomial), 256),
            256
        );
        assert_eq!(
            trial_grid(&params(8, 65_536, Crossover::PaperLiteral), 256),
            256
        );
    }

    #[test]
    fn the_exponential_crossover_keeps_one_block_per_vector() {
        let p = params(100, 1_000_000, Crossover::Exponential);
        assert_eq!(trial_grid(&p, 256), 100);
    }

    #[test]
    fn the_grid_stays_within_its_limit() {
        let mut p = params(100, 1_000_000, Crossover::Binomial);
        p.population = 40_000;
        assert_eq!(trial_grid(&p, 32), 40_000);
        p.population = 20_000;
        // ⌈1024 / 20 000⌉ = 1 slice: one block per vector.
        assert_eq!(trial_grid(&p, 32), 20_000);
        p.population = 100_000;
        assert_eq!(trial_grid(&p, 32), MAX_GRID);
    }
}
