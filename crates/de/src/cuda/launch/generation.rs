//! The one-launch generation (`de_generation_f32`): its parameters, its launch shape and its launch.

use super::{DeKernelParams, DeviceBounds, Settings, grid_for_rows, site};
use crate::params::ALGORITHM;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};
use evo_kernels::entry::de;

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
    /// Adjacent coordinates per thread in a tile: 2; for Rastrigin 8 with `D > 2048`, and 4 or 8 where the
    /// blocks of 2 would not all be resident at once ([`fused_plan`]).
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
/// [`fused_block`] threads, one block per vector (Rastrigin with 4 or 8 coordinates per thread instead of 2
/// where that makes every block resident at once, [`RESIDENT_THREADS_PER_MULTIPROCESSOR`]), except
/// Rastrigin from [`CHUNKED_FROM`] coordinates when
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
    let (block, items) =
        one_wave(problem, population, dimension, cap, multiprocessors).unwrap_or((block, items));
    let tile = (items * block) as usize;
    Some(FusedPlan {
        block,
        items,
        chunks: 1,
        chunk_len: u32::try_from(dimension.next_power_of_two().max(tile)).ok()?,
    })
}

/// Threads of the fused generation a multiprocessor holds at once: `__launch_bounds__(1024)` lets the
/// kernel take up to 64 registers per thread, and a multiprocessor of compute capability 8.0–9.0 has 64 Ki.
pub const RESIDENT_THREADS_PER_MULTIPROCESSOR: usize = 1024;

/// For Rastrigin of `D ≤ 2048` (2 items per thread) whose `M` blocks of `D/2` threads would not all be
/// resident at once: the block and items (4, else 8; one tile covering `D`) with which they are, so that the
/// generation runs as one wave of blocks instead of two or more, each wave paying a block's whole latency
/// (draws, loads, trees, tickets). `None` where the first shape already fits or no wider one does.
fn one_wave(
    problem: FusedProblem,
    population: usize,
    dimension: usize,
    cap: u32,
    multiprocessors: u32,
) -> Option<(u32, u32)> {
    let resident = RESIDENT_THREADS_PER_MULTIPROCESSOR * multiprocessors.max(1) as usize;
    let fits = |block: u32| population.saturating_mul(block as usize) <= resident;
    if !matches!(problem, FusedProblem::Rastrigin) || fused_items(problem, dimension) != 2 {
        return None;
    }
    let block_of = |items: usize| {
        let half = dimension.div_ceil(items).max(32).next_power_of_two();
        u32::try_from(half).map_or(cap, |half| half.min(cap))
    };
    if fits(block_of(2)) {
        return None;
    }
    [4u32, 8]
        .into_iter()
        .map(|items| (block_of(items as usize), items))
        .find(|&(block, _)| fits(block))
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
    /// The selection's ticket counters ([`TICKET_COUNTERS`] elements, 0 between launches): the groups'
    /// counters and the counter of completed groups, whose last ticket goes to the block that finds the best.
    pub done: &'a mut DeviceBuffer<u32>,
}

/// Ticket counters of the one-launch generation's selection: one per group of vectors (`i mod 32`) and one
/// for the groups (`1 + DE_TICKET_GROUPS` in `kernels/cuda/de.cu`), so that blocks ending together spread
/// their atomic tickets over 32 counters instead of queueing on one.
pub const TICKET_COUNTERS: usize = 33;

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
    site.check_len("ticket buffer", best.done.len(), TICKET_COUNTERS)?;
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
        && matches!(p.items, 2 | 4 | 8)
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
            "a power-of-two block in 32..=1024, 2, 4 or 8 items, power-of-two chunks of whole tiles \
             covering D; ETC: one chunk, 2 items, D ≤ 2·block, 1 ≤ m ≤ 32, an n × m matrix",
        ));
    }
    // Overlapping the previous kernel: the kernel waits for it (evo_wait_previous_grid) before it touches
    // global memory, so only its launch and its memory-free draws run during that kernel's tail.
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
            .overlapping_previous()
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
        // Blocks of D/2 threads would take two waves: 4 or 8 coordinates per thread, one tile over D.
        for (m, d, sms, shape) in [
            (1024, 512, 132, (128, 4)),
            (1024, 512, 114, (64, 8)),
            (1024, 1024, 132, (128, 8)),
            (512, 512, 132, (256, 2)),
            (1024, 128, 132, (64, 2)),
        ] {
            let plan = fused_plan(FusedProblem::Rastrigin, m, d, 256, sms).unwrap();
            assert_eq!(
                (plan.block, plan.items, plan.chunks),
                (shape.0, shape.1, 1),
                "{m} × {d}"
            );
            assert!(plan.chunk_len as usize >= d);
            assert!((plan.chunk_len as usize).is_multiple_of((plan.items * plan.block) as usize));
        }
        let etc_wide = fused_plan(etc, 4096, 512, 256, 132).unwrap();
        assert_eq!((etc_wide.block, etc_wide.items), (256, 2));
        let huge = fused_plan(FusedProblem::Rastrigin, 100, 1_000_000, 1024, 132).unwrap();
        assert_eq!((huge.block, huge.items, huge.chunks), (256, 8, 8));
    }

    #[test]
    fn the_ticket_buffer_holds_the_kernels_groups_and_their_counter() {
        let source = evo_kernels::ModuleId::De.module().source;
        let define = format!("#define DE_TICKET_GROUPS {}u", TICKET_COUNTERS - 1);
        assert!(source.contains(&define), "de.cu lacks `{define}`");
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
