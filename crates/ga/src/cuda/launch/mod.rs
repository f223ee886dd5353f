//! Typed launch functions, one per kernel of `kernels/cuda/ga.cu`, by the engine they serve: here the
//! per-step kernels of [`super::GaCuda`]; [`batch`] those of [`super::GaBatchCuda`]; [`paper`] paper RNG mode's;
//! [`fused`] those of the fused engines. Each checks its buffers against the parameters through one
//! [`LaunchSite`] (errors name the kernel and the buffer) and derives the launch shape.

mod batch;
mod fused;
mod paper;

pub use batch::{batch_best, batch_reproduce};
pub use fused::{
    FUSED_CLUSTER, FUSED_MAX_VARIABLES, FUSED_STAGED, FusedDraws, GaFusedParams, fused_block,
    fused_cluster_shared_bytes, fused_cluster_slice, fused_draws, fused_entry_capacity, fused_run,
    fused_shared_bytes,
};
pub use paper::{crossover_paper, mutate_paper, tournament_paper, xor128_fill};

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::ga;

use crate::params::COMPONENT;

/// The largest grid asked for; the kernels loop over the rest.
const MAX_GRID: u32 = 65_535;

/// Scalar arguments of every ga kernel; mirrors `GaKernelParams` in `kernels/cuda/ga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct GaKernelParams {
    /// The run's seed (Philox key).
    pub seed: u64,
    /// Decode: lower end of the range.
    pub lo: f64,
    /// Decode: upper end of the range.
    pub hi: f64,
    /// N.
    pub population: u32,
    /// W = ⌈L/32⌉.
    pub words: u32,
    /// L.
    pub bits: u32,
    /// Decode: the number of 16-bit variables n.
    pub variables: u32,
    /// The generation being produced (0: initialisation), read by the batched kernels; the single-run
    /// kernels read the device step counter instead (`GaCuda`'s recorded generation replays unchanged).
    pub step: u32,
    /// Tournament size.
    pub tournament: u32,
    /// Elite size.
    pub elite: u32,
    /// p_c.
    pub crossover_rate: f32,
    /// p_m.
    pub mutation_rate: f32,
    /// Batched kernels: runs in this launch (run r has seed `seed + r`); 1 for the single-run kernels.
    pub runs: u32,
    /// Paper RNG mode: words of the per-generation random array.
    pub array_len: u64,
    /// Paper RNG mode: xor128 generator threads T.
    pub xor_threads: u32,
    /// Padding to 80 bytes.
    pub pad: u32,
}
const _: () = assert!(size_of::<GaKernelParams>() == 80);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct `GaKernelParams` (80 bytes, asserted on both
// sides).
unsafe impl KernelParams for GaKernelParams {}

/// The elite rows must leave at least one row to reproduce (the kernels copy rows below `elite`).
fn check_elite(p: &GaKernelParams) -> Result<()> {
    if p.elite < p.population {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            "elite size",
            p.elite,
            format!("below the population size {}", p.population),
        ))
    }
}

fn rows(p: &GaKernelParams) -> usize {
    p.population as usize * p.words as usize
}

fn grid(work: usize) -> u32 {
    // A count beyond u32::MAX is beyond the cap too.
    u32::try_from(work).map_or(MAX_GRID, |work| work.clamp(1, MAX_GRID))
}

/// One block per individual, at least one block (the kernels loop over the individuals beyond the grid).
fn per_individual(p: &GaKernelParams, block: u32) -> LaunchConfig {
    LaunchConfig::linear(grid(p.population as usize), block, 0)
}

/// One block per pair of individuals, at least one block (the kernels loop over the pairs beyond the grid).
fn per_pair(p: &GaKernelParams, block: u32) -> LaunchConfig {
    LaunchConfig::linear(grid(p.population as usize / 2), block, 0)
}

/// One thread per item of a grid-stride loop over `items` items, at least one block.
fn per_thread(items: usize, block: u32) -> LaunchConfig {
    LaunchConfig::linear(grid(items.div_ceil(block as usize)), block, 0)
}

/// Checks the sorted population a launch reads and the next population it writes: `rows` words each.
fn check_populations(site: LaunchSite, sorted: usize, next: usize, rows: usize) -> Result<()> {
    site.check_len("population length", sorted, rows)?;
    site.check_len("next population length", next, rows)
}

/// Checks the one-word device step counter.
fn check_step(site: LaunchSite, step: &DeviceBuffer<u32>) -> Result<()> {
    site.check_len("step counter length", step.len(), 1)
}

/// `ga_init_u32`: the initial population (steps 0–1).
pub fn init(
    gpu: &Gpu,
    population: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::INIT_U32);
    site.check_len("population length", population.len(), rows(p))?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_init_u32(unsigned*, GaKernelParams)`; the grid-stride loop writes words below
    // population · words, the buffer's length (checked).
    unsafe {
        kernel
            .launch()
            .output(population)
            .params(p)
            .run(per_thread(rows(p), block))
    }
}

/// `ga_decode_f32`: decodes every row into `n` f32 variables (step 2).
pub fn decode(
    gpu: &Gpu,
    population: &DeviceBuffer<u32>,
    x: &mut DeviceBuffer<f32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::DECODE_F32);
    site.check_len("population length", population.len(), rows(p))?;
    site.check_len(
        "decoded length",
        x.len(),
        p.population as usize * p.variables as usize,
    )?;
    if p.variables as usize * 16 > p.bits as usize || !block.is_multiple_of(32) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "decode shape",
            format!(
                "{} variables of 16 bits in {} bits, block {block}",
                p.variables, p.bits
            ),
            "16 n ≤ L and a block that is a multiple of 32",
        ));
    }
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_decode_f32(const unsigned*, float*, GaKernelParams)`; block b reads rows below population
    // and writes x entries below population · variables (both lengths checked); no shared memory; the block
    // is a multiple of 32 (checked), so every warp is whole for the kernel's full-mask shuffles.
    unsafe {
        kernel
            .launch()
            .input(population)
            .output(x)
            .params(p)
            .run(per_individual(p, block))
    }
}

/// `ga_exchange_best_u32`: sorted row r = next row order\[r\] (step 3's exchange), the best so far from sorted
/// row 0 (step 8), and the step counter advanced by one.
#[allow(clippy::too_many_arguments)]
pub fn exchange_best(
    gpu: &Gpu,
    next: &DeviceBuffer<u32>,
    order: &DeviceBuffer<u32>,
    sorted_fitness: &DeviceBuffer<f64>,
    sorted: &mut DeviceBuffer<u32>,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    step: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::EXCHANGE_BEST_U32);
    site.check_len("population length", next.len(), rows(p))?;
    site.check_len("sorted population length", sorted.len(), rows(p))?;
    site.check_len("order length", order.len(), p.population as usize)?;
    site.check_len(
        "fitness length",
        sorted_fitness.len(),
        p.population as usize,
    )?;
    site.check_len("best length", best.len(), p.words as usize)?;
    site.check_len("best fitness length", best_fitness.len(), 1)?;
    check_step(site, step)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_exchange_best_u32(const unsigned*, const unsigned*, const double*, unsigned*, unsigned*,
    // double*, unsigned*, GaKernelParams)`; block b copies rows b, b + grid, ... below population from the
    // rows order[r] of next (the kernel skips an index at or above population), all within population · words
    // (lengths checked); block 0 reads fitness 0 and writes `words` words of best, one fitness and the one-word
    // step counter (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(next)
            .input(order)
            .input(sorted_fitness)
            .output(sorted)
            .output(best)
            .output(best_fitness)
            .output(step)
            .params(p)
            .run(per_individual(p, block))
    }
}

/// `ga_select_copy_u32`: next row i = sorted row of slot i's tournament champion (steps 4 and 5).
pub fn select_copy(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    step: &DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::SELECT_COPY_U32);
    check_populations(site, sorted.len(), next.len(), rows(p))?;
    check_step(site, step)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_select_copy_u32(const unsigned*, unsigned*, const unsigned*, GaKernelParams)`; champions
    // are positions below population (`below(population)`), so every row read and written is below
    // population · words (lengths checked); one word of the step counter read.
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .output(next)
            .input(step)
            .params(p)
            .run(per_individual(p, block))
    }
}

/// `ga_copy_u32`: next row i = sorted row champions\[i\] (step 5).
pub fn copy(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    champions: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::COPY_U32);
    check_populations(site, sorted.len(), next.len(), rows(p))?;
    site.check_len("champions length", champions.len(), p.population as usize)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_copy_u32(const unsigned*, const unsigned*, unsigned*, GaKernelParams)`; champions are
    // positions below population (written by ga_tournament_u32 with `below(population)`), so every row read
    // and written is in bounds (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .input(champions)
            .output(next)
            .params(p)
            .run(per_individual(p, block))
    }
}

/// `ga_crossover_u32`: one-point crossover of the pairs (step 6).
pub fn crossover(
    gpu: &Gpu,
    next: &mut DeviceBuffer<u32>,
    step: &DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::CROSSOVER_U32);
    site.check_len("next population length", next.len(), rows(p))?;
    check_step(site, step)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_crossover_u32(unsigned*, const unsigned*, GaKernelParams)`; pair k touches rows 2k and
    // 2k + 1 < population (length checked); each word is read and written by one thread; one word of the
    // step counter read.
    unsafe {
        kernel
            .launch()
            .output(next)
            .input(step)
            .params(p)
            .run(per_pair(p, block))
    }
}

/// `ga_mutate_elite_u32`: bit mutation (step 7) of rows elite.., rows 0..elite = rows 0..elite of sorted
/// (elitism).
pub fn mutate_elite(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    step: &DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::MUTATE_ELITE_U32);
    check_populations(site, sorted.len(), next.len(), rows(p))?;
    check_step(site, step)?;
    check_elite(p)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_mutate_elite_u32(const unsigned*, unsigned*, const unsigned*, GaKernelParams)`; rows below
    // population of next and rows below elite < population of sorted (lengths checked), one thread per word;
    // one word of the step counter read.
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .output(next)
            .input(step)
            .params(p)
            .run(per_individual(p, block))
    }
}

/// `ga_elite_u32`: rows 0..elite of next = rows 0..elite of sorted (elitism).
pub fn elite(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::ELITE_U32);
    check_populations(site, sorted.len(), next.len(), rows(p))?;
    if p.elite == 0 {
        return Ok(());
    }
    check_elite(p)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_elite_u32(const unsigned*, unsigned*, GaKernelParams)`; rows below elite < population
    // (checked) of two buffers of population · words words (checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .output(next)
            .params(p)
            .run(LaunchConfig::linear(grid(p.elite as usize), block, 0))
    }
}
