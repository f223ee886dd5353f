//! One typed launch function per kernel of `kernels/cuda/de.cu`.
//!
//! Each function checks the buffer lengths against the parameters, derives the launch shape from them, and
//! is the only place its kernel is launched.

use crate::params::{ALGORITHM, Crossover, DeParams, Selection, Strategy};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::de;
use evo_rng::Stream;

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
                Crossover::Exponential => 2,
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

/// Blocks for one block per vector: `M`, capped at the grid limit (the kernels loop over the rest).
fn grid_for_rows(rows: u64) -> u32 {
    // A count beyond u32 is beyond the cap as well.
    u32::try_from(rows).map_or(65_535, |rows| rows.clamp(1, 65_535))
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
                grid_for_rows(p.population),
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

/// Which fused evaluation `de_generation_f32` runs (`DE_PROBLEM_*` in `kernels/cuda/de.cu`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FusedProblem {
    /// evo-benchmarks' `DeRastrigin` (the canonical tree of the Rastrigin terms).
    Rastrigin,
    /// ETC scheduling of `n ≤ 2B` tasks on `m ≤` [`FUSED_MAX_MACHINES`] machines with weight `λ`.
    Etc {
        /// `m`.
        machines: u32,
        /// `λ`.
        lambda: f64,
    },
}

/// The most machines of the fused ETC evaluation (`DE_FUSED_MAX_MACHINES`).
pub const FUSED_MAX_MACHINES: u32 = 32;

/// Scalar arguments of `de_generation_f32`; mirrors `DeGenerationParams` in `kernels/cuda/de.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DeGenerationParams {
    /// The generation's DE parameters.
    pub de: DeKernelParams,
    /// 0 Rastrigin, 1 ETC.
    pub problem: u32,
    /// ETC: `m`; Rastrigin: 0.
    pub machines: u32,
    /// ETC: `λ`; Rastrigin: 0.
    pub lambda: f64,
    /// Adjacent coordinates per thread in a tile: 2, or 8 for Rastrigin with `D > 2048`.
    pub items: u32,
    /// Blocks per vector (1 for ETC).
    pub chunks: u32,
    /// Coordinates per chunk: a power of two, a multiple of the tile (one chunk: at least `D`).
    pub chunk_len: u32,
    /// 1 when every coordinate has the same box (the kernel reads `lower[0]`, `upper[0]` once per block
    /// instead of two loads per mutant coordinate).
    pub uniform_bounds: u32,
}
const _: () = assert!(size_of::<DeGenerationParams>() == 80);
// SAFETY: repr(C), integers and one f64 without padding, the layout of `DeGenerationParams` (80 bytes,
// asserted on both sides).
unsafe impl KernelParams for DeGenerationParams {}

impl DeGenerationParams {
    /// The parameters of a fused generation of `problem` with `plan`'s chunks; `uniform_bounds` when every
    /// coordinate's box is the first one's (bit for bit).
    pub(crate) fn new(
        de: DeKernelParams,
        problem: FusedProblem,
        plan: FusedPlan,
        uniform_bounds: bool,
    ) -> Self {
        let (problem_id, machines, lambda) = match problem {
            FusedProblem::Rastrigin => (0, 0, 0.0),
            FusedProblem::Etc { machines, lambda } => (1, machines, lambda),
        };
        Self {
            de,
            problem: problem_id,
            machines,
            lambda,
            items: plan.items,
            chunks: plan.chunks,
            chunk_len: plan.chunk_len,
            uniform_bounds: u32::from(uniform_bounds),
        }
    }
}

/// The launch shape of the fused generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FusedPlan {
    /// Threads per block.
    pub block: u32,
    /// Adjacent coordinates per thread in a tile ([`fused_items`]).
    pub items: u32,
    /// Blocks per vector.
    pub chunks: u32,
    /// Coordinates per chunk (a power of two, a multiple of `items · block`; one chunk: at least `D`).
    pub chunk_len: u32,
}

/// Vectors' coordinates from which Rastrigin may split a vector over several blocks.
pub const CHUNKED_FROM: usize = 1 << 16;
/// Threads per block when a vector is split (several blocks per multiprocessor).
const CHUNKED_BLOCK: u32 = 256;

/// The fused generation's shape for `M` vectors of `D` coordinates on a device with `multiprocessors`:
/// [`fused_block`] threads, one block per vector, except Rastrigin from [`CHUNKED_FROM`] coordinates when
/// `M` blocks would leave the device short of work (fewer than 4 per multiprocessor): then vectors split
/// into chunks of 256-thread blocks, a power-of-two number of coordinates each, at least 4 blocks per
/// multiprocessor in all. `None` where the fused generation does not apply (see [`fused_block`]) or where
/// a chunk's length or the chunk count passes the kernel's `u32` (beyond 2^31 coordinates).
pub fn fused_plan(
    problem: FusedProblem,
    population: usize,
    dimension: usize,
    cap: u32,
    multiprocessors: u32,
) -> Option<FusedPlan> {
    let items = fused_items(problem, dimension);
    let block = fused_block(problem, dimension, cap)?;
    let wanted = (4 * multiprocessors.max(1) as usize).div_ceil(population.max(1));
    if matches!(problem, FusedProblem::Rastrigin) && dimension >= CHUNKED_FROM && wanted > 1 {
        let block = block.min(CHUNKED_BLOCK);
        let tile = (items * block) as usize;
        // The largest power of two not above D / wanted, so that there are at least `wanted` chunks.
        let target = dimension.div_ceil(wanted);
        let below = if target.is_power_of_two() {
            target
        } else {
            target.next_power_of_two() / 2
        };
        let chunk_len = below.max(tile);
        let chunks = dimension.div_ceil(chunk_len);
        return Some(FusedPlan {
            block,
            items,
            chunks: u32::try_from(chunks).ok()?,
            chunk_len: u32::try_from(chunk_len).ok()?,
        });
    }
    let tile = (items * block) as usize;
    Some(FusedPlan {
        block,
        items,
        chunks: 1,
        chunk_len: u32::try_from(dimension.next_power_of_two().max(tile)).ok()?,
    })
}

/// Coordinates per thread in a tile of the fused generation: 8 for Rastrigin beyond 2048 coordinates (more
/// loads in flight between the tile's barriers), else 2.
pub fn fused_items(problem: FusedProblem, dimension: usize) -> u32 {
    match problem {
        FusedProblem::Rastrigin if dimension > 2048 => 8,
        _ => 2,
    }
}

/// The threads per block of the fused generation: `B = 2^k ≥ D/K` (one tile of `K·B` coordinates, `K` from
/// [`fused_items`]), at least 32, at most `cap` for Rastrigin (several tiles beyond), exactly that for ETC
/// (one tile), `None` when ETC would need more than 1024.
pub fn fused_block(problem: FusedProblem, dimension: usize, cap: u32) -> Option<u32> {
    let items = fused_items(problem, dimension) as usize;
    let tile_half = dimension.div_ceil(items).max(32).next_power_of_two();
    match problem {
        // A tile beyond u32 is beyond the cap as well.
        FusedProblem::Rastrigin => Some(u32::try_from(tile_half).map_or(cap, |half| half.min(cap))),
        FusedProblem::Etc { machines, .. } => u32::try_from(tile_half)
            .ok()
            .filter(|&half| half <= 1024 && (1..=FUSED_MAX_MACHINES).contains(&machines)),
    }
}

/// The double-buffered population of the fused generation: vector `i` is row `i` of `buffers[slots[i]]`.
pub struct SlottedPopulation<'a> {
    /// The two `M × D` buffers.
    pub buffers: [&'a mut DeviceBuffer<f32>; 2],
    /// Where every vector is now (`M` entries, 0 or 1).
    pub slots_in: &'a DeviceBuffer<u32>,
    /// Where every vector is after this generation (`M` entries).
    pub slots_out: &'a mut DeviceBuffer<u32>,
    /// Every vector's fitness, replaced in place on a win.
    pub fitness: &'a mut DeviceBuffer<f64>,
    /// Every vector's `F_i`, replaced in place on a win.
    pub weights: &'a mut DeviceBuffer<f32>,
    /// Every vector's `CR_i`, replaced in place on a win.
    pub rates: &'a mut DeviceBuffer<f32>,
}

/// The per-chunk sums of a split vector.
pub struct ChunkSums<'a> {
    /// One sum per (vector, chunk), `M · chunks` entries.
    pub partials: &'a mut DeviceBuffer<f64>,
    /// Every vector's chunk ticket counter (`M` entries, 0 between launches).
    pub done: &'a mut DeviceBuffer<u32>,
}

/// The best vector, kept on the device from one generation to the next.
pub struct DeviceBest<'a> {
    /// Its index (one element): read at the start of the generation, written by the last block.
    pub index: &'a mut DeviceBuffer<u32>,
    /// `[fitness, index as f64]` for one host read.
    pub fitness: &'a mut DeviceBuffer<f64>,
    /// The last block's ticket counter (one element, 0 between launches).
    pub done: &'a mut DeviceBuffer<u32>,
}

/// The entry point of the one-launch generation (`de_generation_f32`), compiled under `profile`.
///
/// # Errors
/// As [`Gpu::kernel`].
pub fn generation_kernel(gpu: &Gpu, profile: Profile) -> Result<Kernel> {
    gpu.entry_point(de::GENERATION_F32, profile)
}

/// The read-only inputs of the fused generation.
pub struct FusedInputs<'a> {
    /// The search box.
    pub bounds: DeviceBounds<'a>,
    /// The task-major ETC matrix (`n × m`) for ETC, any one-element buffer for Rastrigin.
    pub etc: &'a DeviceBuffer<f32>,
}

/// One whole generation (steps 3.1–3.4 and the best vector) in one launch (twin: `DeCpu::step`).
/// `kernel` is [`generation_kernel`], looked up once by the engine (a lookup per launch costs a driver call).
pub fn generation(
    kernel: &Kernel,
    population: SlottedPopulation<'_>,
    chunk_sums: ChunkSums<'_>,
    best: DeviceBest<'_>,
    inputs: &FusedInputs<'_>,
    p: &DeGenerationParams,
    settings: Settings,
) -> Result<()> {
    let site = site(de::GENERATION_F32);
    let de = &p.de;
    let (m, d, coordinates) = (de.rows(site)?, de.columns(site)?, de.coordinates(site)?);
    let (bounds, etc) = (&inputs.bounds, inputs.etc);
    let [buffer0, buffer1] = population.buffers;
    site.check_len("population buffer 0", buffer0.len(), coordinates)?;
    site.check_len("population buffer 1", buffer1.len(), coordinates)?;
    site.check_len("slot buffer", population.slots_in.len(), m)?;
    site.check_len("next slot buffer", population.slots_out.len(), m)?;
    site.check_len("fitness buffer", population.fitness.len(), m)?;
    site.check_len("F buffer", population.weights.len(), m)?;
    site.check_len("CR buffer", population.rates.len(), m)?;
    site.check_len("best index buffer", best.index.len(), 1)?;
    site.check_len("best fitness buffer", best.fitness.len(), 2)?;
    site.check_len("ticket buffer", best.done.len(), 1)?;
    let chunks = p.chunks as usize;
    site.check_len("chunk sums buffer", chunk_sums.partials.len(), m * chunks)?;
    site.check_len("chunk ticket buffer", chunk_sums.done.len(), m)?;
    site.check_len("lower bounds buffer", bounds.lower.len(), d)?;
    site.check_len("upper bounds buffer", bounds.upper.len(), d)?;
    let block = settings.block;
    let block_ok = block.is_power_of_two() && (32..=1024).contains(&block);
    let tile = p.items as usize * block as usize;
    let chunk_len = p.chunk_len as usize;
    let chunks_ok = chunks >= 1
        && chunk_len.is_power_of_two()
        && chunk_len.is_multiple_of(tile)
        && chunks * chunk_len >= d
        && (chunks == 1 || (chunks - 1) * chunk_len < d);
    let shape_ok = chunks_ok
        && matches!(p.items, 2 | 8)
        && match p.problem {
            0 => true,
            _ => {
                etc.len() == d * p.machines as usize
                    && (1..=FUSED_MAX_MACHINES).contains(&p.machines)
                    && d <= 2 * block as usize
                    && chunks == 1
                    && p.items == 2
            }
        };
    if !(block_ok && shape_ok) {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "fused generation shape",
            format!(
                "block {block}, D = {d}, m = {}, ETC of {}, {} items, {chunks} chunks of {chunk_len}",
                p.machines,
                etc.len(),
                p.items
            ),
            "a power-of-two block in 32..=1024, 2 or 8 items, power-of-two chunks of whole tiles \
             covering D; ETC: one chunk, 2 items, D ≤ 2·block, 1 ≤ m ≤ 32, an n × m matrix",
        ));
    }
    // SAFETY: arguments follow `de_generation_f32(float* buffer0, float* buffer1, const unsigned int*
    // slot_in, unsigned int* slot_out, double* fitness, float* weights, float* rates, unsigned int* best,
    // double* best_fitness, double* partials, unsigned int* vector_done, unsigned int* done, const float*
    // lower, const float* upper, const float* etc, DeGenerationParams)`; lengths checked above: rows below M
    // of both buffers, slots, fitness, F, CR and chunk tickets below M, partials below M·chunks, bounds below
    // D, ETC entries t·m + s with t < n and s < m; chunks of whole tiles cover D; `slots_in` holds 0 or 1
    // and `best` an index below M (both written by the engine or this kernel); the block is a power of two
    // ≤ 1024 (the argmin's shared arrays) and covers the ETC tile.
    unsafe {
        kernel
            .launch()
            .output(buffer0)
            .output(buffer1)
            .input(population.slots_in)
            .output(population.slots_out)
            .output(population.fitness)
            .output(population.weights)
            .output(population.rates)
            .output(best.index)
            .output(best.fitness)
            .output(chunk_sums.partials)
            .output(chunk_sums.done)
            .output(best.done)
            .input(bounds.lower)
            .input(bounds.upper)
            .input(etc)
            .params(p)
            .run(LaunchConfig::linear(
                grid_for_rows(de.population * u64::from(p.chunks)),
                block,
                0,
            ))
    }
}

/// Scalar arguments of the local search kernel `de_local_search_etc_f32` (all three phases); mirrors
/// `DeLocalSearchParams` in `kernels/cuda/de.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DeLocalSearchParams {
    /// `M`.
    pub population: u64,
    /// `n` (at most [`MAX_TASKS`](crate::local_search::MAX_TASKS)).
    pub tasks: u32,
    /// `m` (at most [`MAX_MACHINES`](crate::local_search::MAX_MACHINES)).
    pub machines: u32,
    /// `λ`.
    pub lambda: f64,
    /// The most moves or swaps one search applies.
    pub max_moves: u32,
    /// 0: one block searches the best vector ([`Scope::Best`](crate::Scope::Best)); 1: block `i` searches
    /// vector `i` ([`Scope::All`](crate::Scope::All)).
    pub all_vectors: u32,
    /// The run's seed (the Philox key of the kicks).
    pub seed: u64,
    /// `K`, the kicks of one search ([`LocalSearch::kicks`](crate::LocalSearch::kicks)).
    pub kicks: u32,
    /// Random task moves of one kick.
    pub kick_moves: u32,
    /// The Philox step word of this search's kicks ([`kick_step`](crate::local_search::kick_step) of the
    /// generation).
    pub step: u32,
    /// What the launch does: [`PHASE_SEARCH`], [`PHASE_KICKS`] or [`PHASE_PICK`] (set by the launch functions).
    pub phase: u32,
}

/// `DE_LS_PHASE_SEARCH`: steps 1–3 without kicks.
pub const PHASE_SEARCH: u32 = 0;
/// `DE_LS_PHASE_KICKS`: step 4's first launch, the `K + 1` candidates.
pub const PHASE_KICKS: u32 = 1;
/// `DE_LS_PHASE_PICK`: step 4's second launch, the winner.
pub const PHASE_PICK: u32 = 2;
const _: () = assert!(size_of::<DeLocalSearchParams>() == 56);
// SAFETY: repr(C), integers and one f64 without padding, the layout of `DeLocalSearchParams` (56 bytes,
// asserted on both sides).
unsafe impl KernelParams for DeLocalSearchParams {}

/// Threads of each block of the local search (`DE_LS_BLOCK`, the size of its shared arrays).
pub const LOCAL_SEARCH_BLOCK: u32 = 256;

/// The entry point of the local search (`de_local_search_etc_f32`), compiled under `profile`.
///
/// # Errors
/// As [`Gpu::kernel`].
pub fn local_search_kernel(gpu: &Gpu, profile: Profile) -> Result<Kernel> {
    gpu.entry_point(de::LOCAL_SEARCH_ETC_F32, profile)
}

/// The population the local search reads and improves: vector `i` is row `i` of `buffers[slots[i]]`.
pub struct SearchedPopulation<'a> {
    /// The two `M × n` buffers (the four-launch path passes the population and the trials, with all slots 0).
    pub buffers: [&'a mut DeviceBuffer<f32>; 2],
    /// Where every vector is (`M` entries, 0 or 1).
    pub slots: &'a DeviceBuffer<u32>,
    /// Every vector's fitness (a searched one's is replaced on an improvement).
    pub fitness: &'a mut DeviceBuffer<f64>,
    /// The best index (one element, read by scope Best).
    pub best: &'a DeviceBuffer<u32>,
    /// `[fitness, index as f64]` of the best (scope Best replaces the fitness on an improvement; scope All
    /// leaves it to the best-index launch that follows).
    pub best_fitness: &'a mut DeviceBuffer<f64>,
}

impl SearchedPopulation<'_> {
    /// The same buffers for a shorter borrow (one launch of several).
    fn reborrow(&mut self) -> SearchedPopulation<'_> {
        let [buffer0, buffer1] = &mut self.buffers;
        SearchedPopulation {
            buffers: [&mut **buffer0, &mut **buffer1],
            slots: self.slots,
            fitness: &mut *self.fitness,
            best: self.best,
            best_fitness: &mut *self.best_fitness,
        }
    }
}

/// The local search of the best vector's schedule without kicks, one block on the engine's stream, or with
/// `p.all_vectors` of every vector's, one block per vector in one launch (twin:
/// [`ScheduleSearch::improve_vector`](crate::ScheduleSearch::improve_vector)); after scope All the caller
/// recomputes the best ([`best_index`]). `kernel` is [`local_search_kernel`], looked up once by the engine;
/// `scratch` is passed through untouched (the kernel's signature has it for the kicked search).
pub fn local_search(
    kernel: &Kernel,
    population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let site = site(de::LOCAL_SEARCH_ETC_F32);
    let m = host_len(site, "population M", p.population)?;
    check_searched(site, &population, etc, p)?;
    let grid = if p.all_vectors == 0 {
        1
    } else {
        u32::try_from(m)
            .ok()
            .filter(|&g| (1..=i32::MAX as u32).contains(&g))
            .ok_or_else(|| {
                Error::invalid_parameter(
                    ALGORITHM,
                    "local search of every vector: population",
                    m,
                    "1 ..= 2^31 − 1 (one block per vector)",
                )
            })?
    };
    let p = DeLocalSearchParams {
        phase: PHASE_SEARCH,
        ..*p
    };
    // SAFETY: arguments follow `de_local_search_etc_f32(float* buffer0, float* buffer1, const unsigned int*
    // slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double*
    // values, unsigned char* schedules, DeLocalSearchParams)`, whose search phase does not touch values and
    // schedules; lengths checked above: the searched index (scope Best: the best index, below M,
    // written by the engine's best kernels; scope All: the block index, below the grid of M blocks) selects
    // a row below M of either buffer and entries below M of slots and fitness, each block its own; the slots
    // hold 0 or 1; ETC entries t·m + s with t < n and s < m; n and m fit the kernel's shared arrays (checked
    // above) and every block is `DE_LS_BLOCK` threads.
    unsafe { launch_phase(kernel, population, etc, scratch, &p, grid) }
}

/// One launch of `de_local_search_etc_f32` with `grid` blocks of [`LOCAL_SEARCH_BLOCK`] threads, the
/// buffers in the kernel's argument order `(float* buffer0, float* buffer1, const unsigned int* slots,
/// double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double* values,
/// unsigned char* schedules, DeLocalSearchParams)`.
///
/// # Safety
/// The lengths checked by [`check_searched`] (and the scratch lengths for the kicks and pick phases) must
/// hold, and `grid` must be the phase's block count, as each caller's SAFETY note states.
unsafe fn launch_phase(
    kernel: &Kernel,
    population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
    grid: u32,
) -> Result<()> {
    let [buffer0, buffer1] = population.buffers;
    // SAFETY: the caller's contract above.
    unsafe {
        kernel
            .launch()
            .output(buffer0)
            .output(buffer1)
            .input(population.slots)
            .output(population.fitness)
            .input(population.best)
            .output(population.best_fitness)
            .input(etc)
            .output(scratch.values)
            .output(scratch.schedules)
            .params(p)
            .run(LaunchConfig::linear(grid, LOCAL_SEARCH_BLOCK, 0))
    }
}

/// The lengths of the searched population's buffers and of the ETC matrix for `p`, and the instance shape.
fn check_searched(
    site: LaunchSite,
    population: &SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let m = host_len(site, "population M", p.population)?;
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let [buffer0, buffer1] = &population.buffers;
    site.check_len("population buffer 0", buffer0.len(), m * n)?;
    site.check_len("population buffer 1", buffer1.len(), m * n)?;
    site.check_len("slot buffer", population.slots.len(), m)?;
    site.check_len("fitness buffer", population.fitness.len(), m)?;
    site.check_len("best index buffer", population.best.len(), 1)?;
    site.check_len("best fitness buffer", population.best_fitness.len(), 2)?;
    site.check_len("ETC buffer", etc.len(), n * machines)?;
    check_search_shape(p)
}

/// The instance shape of `p` against the kernels' shared arrays.
fn check_search_shape(p: &DeLocalSearchParams) -> Result<()> {
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let sizes_ok = (1..=crate::local_search::MAX_TASKS).contains(&n)
        && (1..=crate::local_search::MAX_MACHINES).contains(&machines);
    if sizes_ok {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            "local search shape",
            format!("{n} tasks × {machines} machines"),
            format!(
                "1 ..= {} tasks and 1 ..= {} machines",
                crate::local_search::MAX_TASKS,
                crate::local_search::MAX_MACHINES
            ),
        ))
    }
}

/// The candidates of a kicked search on the device: `K + 1` exact values and `K + 1` schedules of `n` bytes.
pub struct KickScratch<'a> {
    /// Candidate `r`'s exact fitness at `r`.
    pub values: &'a mut DeviceBuffer<f64>,
    /// Candidate `r`'s schedule at `r·n .. (r + 1)·n`, one machine per byte.
    pub schedules: &'a mut DeviceBuffer<u8>,
}

impl KickScratch<'_> {
    /// The same buffers for a shorter borrow (one launch of several).
    fn reborrow(&mut self) -> KickScratch<'_> {
        KickScratch {
            values: &mut *self.values,
            schedules: &mut *self.schedules,
        }
    }
}

/// The kicked local search of the best vector (step 4 of [`local_search`](crate::local_search), scope Best):
/// `K + 1` blocks search the best's schedule and its kicks into `scratch`, then one block picks the best
/// candidate and writes it when strictly better (twin:
/// [`ScheduleSearch::improve_vector`](crate::ScheduleSearch::improve_vector) with kicks). `kernel` is
/// [`local_search_kernel`], looked up once by the engine.
pub fn kicked_local_search(
    kernel: &Kernel,
    mut population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    mut scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let site = site(de::LOCAL_SEARCH_ETC_F32);
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let candidates = p.kicks as usize + 1;
    check_searched(site, &population, etc, p)?;
    site.check_len("kick value buffer", scratch.values.len(), candidates)?;
    site.check_len(
        "kick schedule buffer",
        scratch.schedules.len(),
        candidates * n,
    )?;
    let kicks_ok = (1..=crate::local_search::MAX_KICKS).contains(&p.kicks)
        && (1..=crate::local_search::MAX_KICK_MOVES).contains(&p.kick_moves)
        && machines >= 2
        && p.all_vectors == 0;
    if !kicks_ok {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "local search kicks",
            format!(
                "{} kicks of {} moves on {machines} machines (scope flag {})",
                p.kicks, p.kick_moves, p.all_vectors
            ),
            format!(
                "1 ..= {} kicks of 1 ..= {} moves, at least 2 machines, scope Best",
                crate::local_search::MAX_KICKS,
                crate::local_search::MAX_KICK_MOVES
            ),
        ));
    }
    let kicks = DeLocalSearchParams {
        phase: PHASE_KICKS,
        ..*p
    };
    // SAFETY: arguments follow `de_local_search_etc_f32(float* buffer0, float* buffer1, const unsigned int*
    // slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double*
    // values, unsigned char* schedules, DeLocalSearchParams)`; its kicks phase writes no population buffer,
    // fitness or best fitness. Lengths checked above: the best index (below M, written by the engine's best
    // kernels) selects a row below M of either buffer and an entry of slots, which hold 0 or 1; ETC entries
    // t·m + s with t < n and s < m; block r < K + 1 writes values[r] and schedules[r·n .. (r + 1)·n) only;
    // n and m fit the kernel's shared arrays and every block is `DE_LS_BLOCK` threads.
    unsafe {
        launch_phase(
            kernel,
            population.reborrow(),
            etc,
            scratch.reborrow(),
            &kicks,
            p.kicks + 1,
        )?;
    }
    let pick = DeLocalSearchParams {
        phase: PHASE_PICK,
        ..*p
    };
    // SAFETY: the same arguments; the pick phase reads values[0 ..= K] and the winner's schedule (K + 1
    // entries of n bytes), written by the launch before on the same stream, and writes the best's row
    // (below M), fitness entry and best_fitness[0]; one block of `DE_LS_BLOCK` threads.
    unsafe { launch_phase(kernel, population, etc, scratch, &pick, 1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_plans_cover_the_vector_with_power_of_two_chunks_of_whole_tiles() {
        let etc = FusedProblem::Etc {
            machines: 16,
            lambda: 0.75,
        };
        let plan = fused_plan(etc, 1024, 512, 64, 132).unwrap();
        assert_eq!((plan.block, plan.items, plan.chunks), (256, 2, 1));
        assert!(fused_plan(etc, 64, 4096, 256, 132).is_none());
        let small = fused_plan(FusedProblem::Rastrigin, 64, 128, 1024, 132).unwrap();
        assert_eq!((small.block, small.items, small.chunks), (64, 2, 1));
        for (m, d, cap) in [
            (100, 1_000_000, 1024),
            (8, 100_000, 64),
            (4, 10_000_000, 1024),
        ] {
            let plan = fused_plan(FusedProblem::Rastrigin, m, d, cap, 132).unwrap();
            let (chunks, len) = (plan.chunks as usize, plan.chunk_len as usize);
            assert!(
                len.is_power_of_two() && len.is_multiple_of((plan.items * plan.block) as usize)
            );
            assert!(chunks * len >= d && (chunks - 1) * len < d, "{plan:?}");
            assert!(m * chunks >= 4 * 132, "{plan:?}");
        }
        let huge = fused_plan(FusedProblem::Rastrigin, 100, 1_000_000, 1024, 132).unwrap();
        assert_eq!((huge.block, huge.items, huge.chunks), (256, 8, 8));
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_chunk_length_beyond_u32_leaves_the_fused_generation_off() {
        // One chunk (M blocks fill the device) of the next power of two: 2^31 still fits the kernel's u32,
        // 2^32 would have wrapped to 0.
        let fits = fused_plan(FusedProblem::Rastrigin, 1000, 1 << 31, 1024, 132).unwrap();
        assert_eq!((fits.chunks, fits.chunk_len), (1, 1 << 31));
        assert_eq!(
            fused_plan(FusedProblem::Rastrigin, 1000, (1 << 31) + 1, 1024, 132),
            None
        );
    }
}
