//! Typed launch functions, one per kernel of `kernels/cuda/ga.cu`. Each checks its buffers against the
//! parameters and derives the launch shape; [`super::GaCuda`] composes them.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};
use evo_kernels::ModuleId;

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

fn check_len(kernel: &'static str, what: &'static str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            what,
            format!("{got} (in {kernel})"),
            format!("{want}"),
        ))
    }
}

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

/// `ga_init_u32`: the initial population (steps 0–1).
pub fn init(
    gpu: &Gpu,
    population: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_init_u32";
    check_len(KERNEL, "population length", population.len(), rows(p))?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_init_u32(unsigned*, GaKernelParams)`; the grid-stride loop writes words below
    // population · words, the buffer's length (checked).
    unsafe {
        kernel
            .launch()
            .output(population)
            .params(p)
            .run(LaunchConfig::linear(
                grid(rows(p).div_ceil(block as usize)),
                block,
                0,
            ))
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
    const KERNEL: &str = "ga_decode_f32";
    check_len(KERNEL, "population length", population.len(), rows(p))?;
    check_len(
        KERNEL,
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
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_decode_f32(const unsigned*, float*, GaKernelParams)`; block b reads rows below population
    // and writes x entries below population · variables (both lengths checked); no shared memory; the block
    // is a multiple of 32 (checked), so every warp is whole for the kernel's full-mask shuffles.
    unsafe {
        kernel
            .launch()
            .input(population)
            .output(x)
            .params(p)
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
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
    const KERNEL: &str = "ga_exchange_best_u32";
    check_len(KERNEL, "population length", next.len(), rows(p))?;
    check_len(KERNEL, "sorted population length", sorted.len(), rows(p))?;
    check_len(KERNEL, "order length", order.len(), p.population as usize)?;
    check_len(
        KERNEL,
        "fitness length",
        sorted_fitness.len(),
        p.population as usize,
    )?;
    check_len(KERNEL, "best length", best.len(), p.words as usize)?;
    check_len(KERNEL, "best fitness length", best_fitness.len(), 1)?;
    check_len(KERNEL, "step counter length", step.len(), 1)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
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
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
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
    const KERNEL: &str = "ga_select_copy_u32";
    check_len(KERNEL, "population length", sorted.len(), rows(p))?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    check_len(KERNEL, "step counter length", step.len(), 1)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
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
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
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
    const KERNEL: &str = "ga_copy_u32";
    check_len(KERNEL, "population length", sorted.len(), rows(p))?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    check_len(
        KERNEL,
        "champions length",
        champions.len(),
        p.population as usize,
    )?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
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
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
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
    const KERNEL: &str = "ga_crossover_u32";
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    check_len(KERNEL, "step counter length", step.len(), 1)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_crossover_u32(unsigned*, const unsigned*, GaKernelParams)`; pair k touches rows 2k and
    // 2k + 1 < population (length checked); each word is read and written by one thread; one word of the
    // step counter read.
    unsafe {
        kernel
            .launch()
            .output(next)
            .input(step)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.population as usize / 2).max(1)),
                block,
                0,
            ))
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
    const KERNEL: &str = "ga_mutate_elite_u32";
    check_len(KERNEL, "population length", sorted.len(), rows(p))?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    check_len(KERNEL, "step counter length", step.len(), 1)?;
    check_elite(p)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
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
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
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
    const KERNEL: &str = "ga_elite_u32";
    check_len(KERNEL, "population length", sorted.len(), rows(p))?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    if p.elite == 0 {
        return Ok(());
    }
    check_elite(p)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
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

/// `ga_batch_reproduce_u32`: steps 4–8 and decoding fused, for `p.runs` runs (step 0: initialisation).
pub fn batch_reproduce(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    x: &mut DeviceBuffer<f32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_batch_reproduce_u32";
    let runs = p.runs as usize;
    check_len(KERNEL, "population length", sorted.len(), runs * rows(p))?;
    check_len(KERNEL, "next population length", next.len(), runs * rows(p))?;
    check_len(
        KERNEL,
        "decoded length",
        x.len(),
        runs * p.population as usize * p.variables as usize,
    )?;
    if p.variables as usize * 16 > p.bits as usize || !(1..=MAX_GRID).contains(&p.runs) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "batch shape",
            format!("{runs} runs, {} variables in {} bits", p.variables, p.bits),
            format!("1..={MAX_GRID} runs and 16 n ≤ L"),
        ));
    }
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    let pairs = (p.population as usize).div_ceil(2);
    // SAFETY: `ga_batch_reproduce_u32(const unsigned*, unsigned*, float*, GaKernelParams)`; block (pair, run)
    // touches rows of run `run` < runs only (grid.y = runs), champions and elites are positions below
    // population, and every buffer holds runs · population rows (checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .output(next)
            .output(x)
            .params(p)
            .run(LaunchConfig {
                grid: (grid(pairs), p.runs, 1),
                block: (block, 1, 1),
                shared_bytes: 0,
            })
    }
}

/// `ga_batch_best_u32`: the best so far of each of `p.runs` runs.
pub fn batch_best(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    sorted_fitness: &DeviceBuffer<f64>,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_batch_best_u32";
    let runs = p.runs as usize;
    check_len(KERNEL, "population length", sorted.len(), runs * rows(p))?;
    check_len(
        KERNEL,
        "fitness length",
        sorted_fitness.len(),
        runs * p.population as usize,
    )?;
    check_len(KERNEL, "best length", best.len(), runs * p.words as usize)?;
    check_len(KERNEL, "best fitness length", best_fitness.len(), runs)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_batch_best_u32(const unsigned*, const double*, unsigned*, double*, GaKernelParams)`; block
    // loop over runs < p.runs, each touching its own row 0, fitness 0 and best slot (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .input(sorted_fitness)
            .output(best)
            .output(best_fitness)
            .params(p)
            .run(LaunchConfig::linear(grid(runs), block, 0))
    }
}

/// `ga_xor128_fill_u32`: step 1 of paper RNG mode, the generation's random array from the xor128 states.
pub fn xor128_fill(
    gpu: &Gpu,
    states: &mut DeviceBuffer<u32>,
    array: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_xor128_fill_u32";
    check_len(
        KERNEL,
        "xor128 state length",
        states.len(),
        4 * p.xor_threads as usize,
    )?;
    if u64::try_from(array.len()).ok() != Some(p.array_len) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "random array length",
            format!("{} (in {KERNEL})", array.len()),
            p.array_len,
        ));
    }
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_xor128_fill_u32(unsigned*, unsigned*, GaKernelParams)`; thread t < xor_threads touches
    // states[4t..4t+3] (length 4·xor_threads, checked) and array entries below array_len (checked).
    unsafe {
        kernel
            .launch()
            .output(states)
            .output(array)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.xor_threads as usize).div_ceil(block as usize)),
                block,
                0,
            ))
    }
}

fn check_array(kernel: &'static str, array: &DeviceBuffer<u32>, p: &GaKernelParams) -> Result<()> {
    let want = p.population as usize * p.bits as usize
        + p.tournament as usize * p.population as usize
        + (p.population as usize).div_ceil(2);
    check_len(kernel, "random array length", array.len(), want)
}

/// `ga_tournament_paper_u32`: step 4 from the random array.
pub fn tournament_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    champions: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_tournament_paper_u32";
    check_array(KERNEL, array, p)?;
    check_len(
        KERNEL,
        "champions length",
        champions.len(),
        p.population as usize,
    )?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_tournament_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; slot i reads array
    // entries N·L + k·i .. + k, inside the array's N·L + k·N + ⌈N/2⌉ words (checked), and writes champions[i].
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(champions)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.population as usize).div_ceil(block as usize)),
                block,
                0,
            ))
    }
}

/// `ga_crossover_paper_u32`: step 6 from the random array.
pub fn crossover_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_crossover_paper_u32";
    check_array(KERNEL, array, p)?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_crossover_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; pair q reads array entry
    // N·L + k·N + q (inside the checked length) and rows 2q, 2q + 1 < N of next (checked).
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(next)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.population as usize / 2).max(1)),
                block,
                0,
            ))
    }
}

/// `ga_mutate_paper_u32`: step 7 from the random array.
pub fn mutate_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_mutate_paper_u32";
    check_array(KERNEL, array, p)?;
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_mutate_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; bit g < L of individual
    // i < N reads array entry i·L + g < N·L (inside the checked length); rows below N (checked).
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(next)
            .params(p)
            .run(LaunchConfig::linear(grid(p.population as usize), block, 0))
    }
}

/// Scalar arguments of `ga_fused_run_u32`; mirrors `GaFusedParams` in `kernels/cuda/ga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct GaFusedParams {
    /// Run r of the launch uses seed `seed + r`.
    pub seed: u64,
    /// Lower end of the decoding range.
    pub lo: f64,
    /// Upper end of the decoding range.
    pub hi: f64,
    /// N.
    pub population: u32,
    /// W = ⌈L/32⌉.
    pub words: u32,
    /// L.
    pub bits: u32,
    /// The number of 16-bit variables n.
    pub variables: u32,
    /// 1: build and evaluate the initial population first (step 0).
    pub initialise: u32,
    /// The step of the first generation the launch produces.
    pub first_step: u32,
    /// Generations the launch produces.
    pub generations: u32,
    /// Tournament size.
    pub tournament: u32,
    /// Elite size.
    pub elite: u32,
    /// p_c.
    pub crossover_rate: f32,
    /// p_m.
    pub mutation_rate: f32,
    /// The function, 0..=7 in the paper's order f1..f8 (`GaFunction::ALL`).
    pub function: u32,
    /// Evaluation scratch per warp in doubles: the smallest power of two ≥ n.
    pub scratch: u32,
    /// Generations per run in the precomputed-draw buffers (0: the fused kernel draws itself).
    pub draws: u32,
    /// `ga_fused_draws_u32`: the runs whose draws it computes.
    pub runs: u32,
    /// Padding to 88 bytes.
    pub pad: u32,
}
const _: () = assert!(size_of::<GaFusedParams>() == 88);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct `GaFusedParams` (88 bytes, asserted on both
// sides).
unsafe impl KernelParams for GaFusedParams {}

/// The most variables the fused kernel evaluates (the per-warp shared scratch holds one double per variable).
pub const FUSED_MAX_VARIABLES: usize = 1024;

/// Mutation entries staged in shared memory per offspring by the fused kernels (`GA_FUSED_STAGED`).
pub const FUSED_STAGED: usize = 4;

/// Mutation-entry capacity of one offspring in the precomputed-draw buffers: max(W, [`FUSED_STAGED`]) pairs.
pub fn fused_entry_capacity(words: usize) -> usize {
    words.max(FUSED_STAGED)
}

/// Dynamic shared memory of `ga_fused_run_u32` for `p` and a block of `block` threads, in bytes: 2 N fitness
/// values, N keys, N champions, ⌈N/2⌉ points and the N-word order of the current population (with
/// precomputed draws also N mutation-entry counts and 2 · [`FUSED_STAGED`] · N words of staged entries; the
/// words rounded up to an even count), the warps' scratch and two populations (the layout the kernel
/// computes).
pub fn fused_shared_bytes(p: &GaFusedParams, block: u32) -> usize {
    let n = p.population as usize;
    let pairs = n.div_ceil(2);
    let staged = if p.draws > 0 {
        (1 + 2 * FUSED_STAGED) * n
    } else {
        0
    };
    let small = 2 * n + pairs + staged;
    let words = small + (small & 1);
    3 * 8 * n
        + 4 * words
        + (block as usize / 32) * p.scratch as usize * 8
        + 2 * n * p.words as usize * 4
}

/// Blocks per run of `ga_fused_cluster_run_u32` (its compile-time cluster size, `GA_FUSED_CLUSTER`).
pub const FUSED_CLUSTER: usize = 8;

/// Slots per block of a cluster (`ga_fused_slice_size`): ⌈N / 2C⌉ pairs, so no pair straddles two blocks.
pub fn fused_cluster_slice(population: usize) -> usize {
    population.div_ceil(2 * FUSED_CLUSTER) * 2
}

/// Dynamic shared memory of `ga_fused_cluster_run_u32` for `p` and a block of `block` threads, in bytes (the
/// layout the kernel computes; per = [`fused_cluster_slice`], S = per with precomputed draws, else 0):
/// 2 N fitness values, N keys, 2 S · [`FUSED_STAGED`] staged entries (8 bytes each), the warps' scratch,
/// then words: the N-word order, per ranks, 2 per champions, per points, 2 S counts and two slices of
/// per rows (each block keeps only its slice of the population).
pub fn fused_cluster_shared_bytes(p: &GaFusedParams, block: u32) -> usize {
    let n = p.population as usize;
    let per = fused_cluster_slice(n);
    let staged = if p.draws > 0 { per } else { 0 };
    3 * 8 * n
        + 8 * 2 * staged * FUSED_STAGED
        + (block as usize / 32) * p.scratch as usize * 8
        + 4 * (n + 4 * per + 2 * staged)
        + 4 * 2 * per * p.words as usize
}

fn fused_kernel_name(clustered: bool) -> &'static str {
    if clustered {
        "ga_fused_cluster_run_u32"
    } else {
        "ga_fused_run_u32"
    }
}

/// The block size the fused kernel (`ga_fused_cluster_run_u32` when `clustered`, else `ga_fused_run_u32`) runs
/// with on `gpu`: `block`, halved while it exceeds what the kernel's registers allow. Results do not depend on
/// it.
///
/// # Errors
/// GPU errors (compilation, attribute query); [`Error::InvalidParameter`] when not even a warp fits.
pub fn fused_block(gpu: &Gpu, block: u32, clustered: bool) -> Result<u32> {
    let kernel = gpu.kernel(ModuleId::Ga, fused_kernel_name(clustered), Profile::Exact)?;
    let limit = kernel.max_threads_per_block()?;
    let mut chosen = block;
    while chosen > limit && chosen > 32 {
        chosen /= 2;
    }
    if chosen > limit {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "fused block size",
            chosen,
            format!("at most {limit} threads (the kernel's register limit)"),
        ));
    }
    Ok(chosen)
}

/// The precomputed-draw buffers of the fused kernels for `runs` runs and `generations` generations per run
/// (written by [`fused_draws`], read by [`fused_run`] when `GaFusedParams::draws` is `generations`): per
/// (run, generation) the N champions and ⌈N/2⌉ crossover points, N mutation-entry counts and
/// N · [`fused_entry_capacity`] (word, mask) pairs. With 0 generations the buffers are placeholders (the
/// kernels take them as arguments but do not read them).
pub struct FusedDraws {
    generations: u32,
    runs: usize,
    selection: DeviceBuffer<u32>,
    counts: DeviceBuffer<u32>,
    entries: DeviceBuffer<u32>,
}

impl FusedDraws {
    /// Allocates the buffers (zeroed) for `runs` runs of N = `population` and W = `words`.
    ///
    /// # Errors
    /// GPU errors (allocation).
    pub fn new(
        gpu: &Gpu,
        generations: u32,
        runs: usize,
        population: usize,
        words: usize,
    ) -> Result<Self> {
        let slots = runs * generations as usize;
        let placeholder = |len: usize| if generations == 0 { 2 } else { len };
        Ok(Self {
            generations,
            runs,
            selection: gpu
                .alloc_zeroed(placeholder(slots * (population + population.div_ceil(2))))?,
            counts: gpu.alloc_zeroed(placeholder(slots * population))?,
            entries: gpu.alloc_zeroed(placeholder(
                slots * population * fused_entry_capacity(words) * 2,
            ))?,
        })
    }

    /// Generations per run the buffers hold (0: none).
    pub fn generations(&self) -> u32 {
        self.generations
    }

    fn check(&self, p: &GaFusedParams, runs: usize) -> Result<()> {
        const KERNEL: &str = "ga_fused_draws_u32 / ga_fused_run_u32";
        if p.draws != self.generations
            || (p.draws > 0 && p.generations > p.draws)
            || self.runs != runs
        {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "fused draws",
                format!(
                    "{} generations of {runs} runs (buffers of {} for {})",
                    p.generations, p.draws, self.runs
                ),
                format!(
                    "at most {} generations of {} runs",
                    self.generations, self.runs
                ),
            ));
        }
        if p.draws > 0 {
            let slots = runs * p.draws as usize;
            let n = p.population as usize;
            check_len(
                KERNEL,
                "selection length",
                self.selection.len(),
                slots * (n + n.div_ceil(2)),
            )?;
            check_len(KERNEL, "counts length", self.counts.len(), slots * n)?;
            check_len(
                KERNEL,
                "entries length",
                self.entries.len(),
                slots * n * fused_entry_capacity(p.words as usize) * 2,
            )?;
        }
        Ok(())
    }
}

/// `ga_fused_draws_u32`: the champions, crossover points and mutation entries of generations
/// `p.first_step ..` (`p.generations` of them, at most `p.draws`) of `p.runs` runs into `draws`, warp per
/// (run, generation, slot) over the whole GPU.
///
/// # Errors
/// [`Error::InvalidParameter`] when the buffers do not fit `p`; GPU errors.
pub fn fused_draws(gpu: &Gpu, draws: &mut FusedDraws, p: &GaFusedParams) -> Result<()> {
    let runs = p.runs as usize;
    draws.check(p, runs)?;
    if p.draws == 0 || p.generations == 0 || runs == 0 || p.population == 0 || p.words == 0 {
        return Ok(());
    }
    const BLOCK: u32 = 256;
    let warps = runs * p.generations as usize * p.population as usize;
    let kernel = gpu.kernel(ModuleId::Ga, "ga_fused_draws_u32", Profile::Exact)?;
    // SAFETY: the kernel takes `(unsigned*, unsigned*, uint2*, GaFusedParams)`; warp (r, g, i) writes slot
    // r * p.draws + g (g < p.generations <= p.draws, r < p.runs = the buffers' runs) of each buffer, whose
    // lengths were checked above (the entries as u32 pairs, 8-byte aligned: the allocation is, and every
    // index is even); the block is a multiple of 32.
    unsafe {
        kernel
            .launch()
            .output(&mut draws.selection)
            .output(&mut draws.counts)
            .output(&mut draws.entries)
            .params(p)
            .run(LaunchConfig::linear(
                grid(warps.div_ceil(BLOCK as usize / 32)),
                BLOCK,
                0,
            ))
    }
}

/// `ga_fused_run_u32` (block per run) or, when `clustered`, `ga_fused_cluster_run_u32` (a cluster of
/// [`FUSED_CLUSTER`] blocks per run): `p.generations` generations (after the initial population when
/// `p.initialise` is 1) of `runs` runs, the population in shared memory; with `p.draws > 0` the draws come
/// from `draws` (written by [`fused_draws`] for the same steps).
#[allow(clippy::too_many_arguments)]
pub fn fused_run(
    gpu: &Gpu,
    sorted: &mut DeviceBuffer<u32>,
    sorted_fitness: &mut DeviceBuffer<f64>,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    status: &mut DeviceBuffer<u32>,
    draws: &FusedDraws,
    p: &GaFusedParams,
    runs: usize,
    block: u32,
    clustered: bool,
) -> Result<()> {
    let kernel_name = fused_kernel_name(clustered);
    let per_run = if clustered { FUSED_CLUSTER } else { 1 };
    const KERNEL: &str = "ga_fused_run_u32 / ga_fused_cluster_run_u32";
    let n = p.population as usize;
    let w = p.words as usize;
    check_len(KERNEL, "population length", sorted.len(), runs * n * w)?;
    check_len(KERNEL, "fitness length", sorted_fitness.len(), runs * n)?;
    check_len(KERNEL, "best length", best.len(), runs * w)?;
    check_len(KERNEL, "best fitness length", best_fitness.len(), runs)?;
    check_len(KERNEL, "status length", status.len(), runs)?;
    draws.check(p, runs)?;
    evo_gpu_runtime::check_block_size(COMPONENT, block)?;
    let variables = p.variables as usize;
    if variables == 0
        || variables > FUSED_MAX_VARIABLES
        || variables * 16 > p.bits as usize
        || p.bits as usize > 32 * w
        || p.function > 7
        || (p.scratch as usize) < variables.next_power_of_two()
        || runs == 0
        || runs * per_run > i32::MAX as usize
        || n < 2
    {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "fused shape",
            format!(
                "{runs} runs, N = {n}, {variables} variables in {} bits, function {}, scratch {}",
                p.bits, p.function, p.scratch
            ),
            format!(
                "1..=2^31-1 runs, N ≥ 2, 1..={FUSED_MAX_VARIABLES} variables with 16 n ≤ L ≤ 32 W, function 0..=7, \
                 scratch ≥ the next power of two of n"
            ),
        ));
    }
    let bytes = if clustered {
        fused_cluster_shared_bytes(p, block)
    } else {
        fused_shared_bytes(p, block)
    };
    let limit = gpu.max_shared_bytes_per_block()?;
    // The kernel's static shared memory (the best fitness and the status flag) needs a few more bytes.
    let Some(shared_bytes) = u32::try_from(bytes)
        .ok()
        .filter(|&b| b.checked_add(64).is_some_and(|total| total <= limit))
    else {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "fused shared memory",
            format!("{bytes} bytes (N = {n}, W = {w}, block {block})"),
            format!("at most {} bytes on this device", limit.saturating_sub(64)),
        ));
    };
    // runs · per_run ≤ 2^31 − 1 by the shape check above, so this cannot fail.
    let blocks = super::sizes::kernel_u32("fused blocks", runs * per_run)?;
    let kernel = gpu.kernel(ModuleId::Ga, kernel_name, Profile::Exact)?;
    kernel.allow_dynamic_shared_bytes(shared_bytes)?;
    // SAFETY: both kernels take `(unsigned*, double*, unsigned*, double*, unsigned*, const unsigned*,
    // const unsigned*, const uint2*, GaFusedParams)`; block b serves run b / per_run < runs and touches that
    // run's rows, fitness, best row, best fitness and status only (every length is runs times the per-run size,
    // checked); with p.draws > 0 it reads slots run * p.draws + g, g < p.generations <= p.draws, of the draw
    // buffers (lengths checked by draws.check; entries as 8-byte aligned u32 pairs), else none of them;
    // the grid is a multiple of the cluster size; the dynamic shared memory is the size the kernel lays out
    // (the kernel's formula, allowed above), and the block is a power of two of at least one warp.
    unsafe {
        kernel
            .launch()
            .output(sorted)
            .output(sorted_fitness)
            .output(best)
            .output(best_fitness)
            .output(status)
            .input(&draws.selection)
            .input(&draws.counts)
            .input(&draws.entries)
            .params(p)
            .run(LaunchConfig::linear(blocks, block, shared_bytes))
    }
}
