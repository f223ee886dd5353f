//! The launches of the fused engines ([`crate::GaFusedCuda`], [`crate::GaFusedBatchCuda`]): the parameter
//! struct, the shared-memory layouts the kernels compute, the precomputed-draw buffers, and the two kernels.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::EntryPoint;
use evo_kernels::entry::ga;

use super::grid;
use crate::params::COMPONENT;

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

/// The fused kernel: `ga_fused_cluster_run_u32` when `clustered`, else `ga_fused_run_u32`.
fn fused_entry(clustered: bool) -> EntryPoint {
    if clustered {
        ga::FUSED_CLUSTER_RUN_U32
    } else {
        ga::FUSED_RUN_U32
    }
}

/// The block size the fused kernel (`ga_fused_cluster_run_u32` when `clustered`, else `ga_fused_run_u32`) runs
/// with on `gpu`: `block`, halved while it exceeds what the kernel's registers allow. Results do not depend on
/// it.
///
/// # Errors
/// GPU errors (compilation, attribute query); [`Error::InvalidParameter`] when not even a warp fits.
pub fn fused_block(gpu: &Gpu, block: u32, clustered: bool) -> Result<u32> {
    let kernel = gpu.entry_point(fused_entry(clustered), Profile::Exact)?;
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

    /// Checks the buffers against `p` and `runs` for the launch of `site` (`ga_fused_draws_u32`, which
    /// writes them, or a fused kernel, which reads them).
    fn check(&self, site: LaunchSite, p: &GaFusedParams, runs: usize) -> Result<()> {
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
            site.check_len(
                "selection length",
                self.selection.len(),
                slots * (n + n.div_ceil(2)),
            )?;
            site.check_len("counts length", self.counts.len(), slots * n)?;
            site.check_len(
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
    let site = LaunchSite::new(COMPONENT, ga::FUSED_DRAWS_U32);
    let runs = p.runs as usize;
    draws.check(site, p, runs)?;
    if p.draws == 0 || p.generations == 0 || runs == 0 || p.population == 0 || p.words == 0 {
        return Ok(());
    }
    const BLOCK: u32 = 256;
    let warps = runs * p.generations as usize * p.population as usize;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
    let site = LaunchSite::new(COMPONENT, fused_entry(clustered));
    let per_run = if clustered { FUSED_CLUSTER } else { 1 };
    let n = p.population as usize;
    let w = p.words as usize;
    site.check_len("population length", sorted.len(), runs * n * w)?;
    site.check_len("fitness length", sorted_fitness.len(), runs * n)?;
    site.check_len("best length", best.len(), runs * w)?;
    site.check_len("best fitness length", best_fitness.len(), runs)?;
    site.check_len("status length", status.len(), runs)?;
    draws.check(site, p, runs)?;
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
    let blocks = crate::cuda::sizes::kernel_u32("fused blocks", runs * per_run)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
