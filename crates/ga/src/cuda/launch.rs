//! Typed launch functions, one per kernel of `kernels/cuda/ga.cu`. Each checks its buffers against the
//! parameters and derives the launch shape; [`super::GaCuda`] composes them.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};
use evo_kernels::ModuleId;

use crate::params::COMPONENT;

/// The largest grid asked for; the kernels loop over the rest.
const MAX_GRID: usize = 65_535;

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
    /// The generation being produced (0: initialisation).
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

fn rows(p: &GaKernelParams) -> usize {
    p.population as usize * p.words as usize
}

fn grid(work: usize) -> u32 {
    work.clamp(1, MAX_GRID) as u32
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
    if p.variables as usize * 16 > p.bits as usize || !block.is_multiple_of(16) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "decode shape",
            format!(
                "{} variables of 16 bits in {} bits, block {block}",
                p.variables, p.bits
            ),
            "16 n ≤ L and a block that is a multiple of 16",
        ));
    }
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_decode_f32(const unsigned*, float*, GaKernelParams)`; block b reads rows below population
    // and writes x entries below population · variables (both lengths checked); the shared memory holds
    // blockDim.x unsigned ints as the kernel indexes it.
    unsafe {
        kernel
            .launch()
            .input(population)
            .output(x)
            .params(p)
            .run(LaunchConfig::linear(
                grid(p.population as usize),
                block,
                block * 4,
            ))
    }
}

/// `ga_best_u32`: the best so far from the sorted population (step 8).
pub fn best(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    sorted_fitness: &DeviceBuffer<f64>,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_best_u32";
    check_len(KERNEL, "population length", sorted.len(), rows(p))?;
    check_len(
        KERNEL,
        "fitness length",
        sorted_fitness.len(),
        p.population as usize,
    )?;
    check_len(KERNEL, "best length", best.len(), p.words as usize)?;
    check_len(KERNEL, "best fitness length", best_fitness.len(), 1)?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_best_u32(const unsigned*, const double*, unsigned*, double*, GaKernelParams)`; one block
    // reads row 0 and fitness 0 and writes `words` words and one fitness (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .input(sorted_fitness)
            .output(best)
            .output(best_fitness)
            .params(p)
            .run(LaunchConfig::linear(1, block, 0))
    }
}

/// `ga_tournament_u32`: the champion of every slot (step 4).
pub fn tournament(
    gpu: &Gpu,
    champions: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_tournament_u32";
    check_len(
        KERNEL,
        "champions length",
        champions.len(),
        p.population as usize,
    )?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_tournament_u32(unsigned*, GaKernelParams)`; slot-stride loop below population, the buffer's
    // length (checked).
    unsafe {
        kernel
            .launch()
            .output(champions)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.population as usize).div_ceil(block as usize)),
                block,
                0,
            ))
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
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_crossover_u32";
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_crossover_u32(unsigned*, GaKernelParams)`; pair k touches rows 2k and 2k + 1 < population
    // (length checked); each word is read and written by one thread.
    unsafe {
        kernel
            .launch()
            .output(next)
            .params(p)
            .run(LaunchConfig::linear(
                grid((p.population as usize / 2).max(1)),
                block,
                0,
            ))
    }
}

/// `ga_mutate_u32`: bit mutation (step 7).
pub fn mutate(
    gpu: &Gpu,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "ga_mutate_u32";
    check_len(KERNEL, "next population length", next.len(), rows(p))?;
    let kernel = gpu.kernel(ModuleId::Ga, KERNEL, Profile::Exact)?;
    // SAFETY: `ga_mutate_u32(unsigned*, GaKernelParams)`; rows below population (length checked), one thread
    // per word.
    unsafe {
        kernel
            .launch()
            .output(next)
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
    if p.elite >= p.population {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "elite size",
            p.elite,
            format!("below the population size {}", p.population),
        ));
    }
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
    if p.variables as usize * 16 > p.bits as usize || !(1..=MAX_GRID).contains(&runs) {
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
                grid: (grid(pairs), runs as u32, 1),
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
    check_len(
        KERNEL,
        "random array length",
        array.len(),
        p.array_len as usize,
    )?;
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
