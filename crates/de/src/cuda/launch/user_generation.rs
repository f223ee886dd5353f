//! The one-launch generation of a user's problem (`de_generation_user_f32` in the user's DE module,
//! `kernels/common/problems/de_user_generation.cuh`): its parameters, its launch shape and its launch.

use super::{
    ChunkSums, DeviceBest, RESIDENT_THREADS_PER_MULTIPROCESSOR, SlottedPopulation, TICKET_COUNTERS,
};
use super::{DeGenerationParams, DeKernelParams, DeviceBounds, Settings, grid_for_rows};
use crate::params::ALGORITHM;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Kernel, KernelParams, LaunchConfig};

/// The entry point of a user's DE module.
pub const USER_GENERATION_F32: &str = "de_generation_user_f32";

/// The longest trial the terms read from shared memory: 32 KiB, which with the kernel's 13 KiB of static
/// shared memory stays below the 48 KiB a launch gets without opting in to more.
pub const SHARED_TRIAL_MAX: usize = 8192;

/// Adjacent terms per thread in a tile at most (the thread's stack of `de_user_thread_tree` holds 4 levels).
const MAX_USER_ITEMS: u64 = 8;

/// Scalar arguments of `de_generation_user_f32`; mirrors `DeUserGenerationParams` in
/// `kernels/common/problems/de_user_generation.cuh`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DeUserGenerationParams {
    /// The generation (one chunk; `problem`, `machines`, `lambda` and `items` unused).
    pub g: DeGenerationParams,
    /// `n`, the terms of a row.
    pub terms: u64,
    /// Adjacent terms per thread in a tile (a power of two, at most 8).
    pub items: u32,
    /// Threads of a tile's tree (a power of two, at most the block).
    pub leaves: u32,
    /// 1 when the terms read a copy of the trial in `4·D` bytes of dynamic shared memory (`D ≤`
    /// [`SHARED_TRIAL_MAX`]).
    pub shared_trial: u32,
    /// Padding to a multiple of 8 bytes.
    pub pad: u32,
}
const _: () = assert!(size_of::<DeUserGenerationParams>() == 104);
// SAFETY: repr(C), the 80-byte `DeGenerationParams`, a u64 and four u32 without padding: the layout of
// `DeUserGenerationParams` (104 bytes, asserted on both sides).
unsafe impl KernelParams for DeUserGenerationParams {}

/// The launch shape of a user's fused generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserPlan {
    /// Threads per block.
    pub block: u32,
    /// Adjacent terms per thread in a tile.
    pub items: u32,
    /// Threads of a tile's tree.
    pub leaves: u32,
}

/// The shape for `population` rows of `dimension` genes and `terms` terms with blocks of at most `cap`
/// threads on `multiprocessors`: the block is the power of two covering the genes and the terms, one term per
/// thread (a user's term may be long, a cosine through `evo_cos_f64` alone is a long dependent chain, so a
/// block's latency grows with its terms per thread), at least a warp and at most `cap`, halved (down to a
/// warp, while the genes and the terms stay within 8 per thread) where the `population` blocks would not all
/// be resident at once ([`RESIDENT_THREADS_PER_MULTIPROCESSOR`]: one wave of blocks instead of two or more,
/// each wave paying a block's whole latency); with `P` the terms padded to a power of two, a row of
/// `P ≤ block` terms is one tile of `P` threads of one term, a longer row takes tiles of `block` threads of
/// `min(8, P / block)` terms. A tile never spans more than `P` terms, so every tile is an aligned subtree of
/// the canonical tree.
pub fn user_plan(
    population: usize,
    dimension: usize,
    terms: usize,
    cap: u32,
    multiprocessors: u32,
) -> UserPlan {
    let widest = dimension.max(terms);
    let full = widest.max(32).next_power_of_two();
    // A width beyond u32 is beyond the cap as well.
    let mut block = u32::try_from(full).map_or(cap, |full| full.min(cap));
    let resident = RESIDENT_THREADS_PER_MULTIPROCESSOR * multiprocessors.max(1) as usize;
    while block > 32
        && population.saturating_mul(block as usize) > resident
        && widest <= 8 * (block as usize / 2)
    {
        block /= 2;
    }
    let padded = (terms.max(1) as u64).next_power_of_two();
    let (items, leaves) = if padded <= u64::from(block) {
        (1, padded)
    } else {
        (
            (padded / u64::from(block)).min(MAX_USER_ITEMS),
            u64::from(block),
        )
    };
    UserPlan {
        block,
        // Both at most the block or 8 (u32).
        items: u32::try_from(items).unwrap_or(1),
        leaves: u32::try_from(leaves).unwrap_or(block),
    }
}

impl DeUserGenerationParams {
    /// The parameters of a user's fused generation of `terms` terms with `plan`'s shape; `uniform_bounds`
    /// when every coordinate's box is the first one's (bit for bit). The terms read the trial from shared
    /// memory up to [`SHARED_TRIAL_MAX`] coordinates.
    pub(crate) fn new(
        de: DeKernelParams,
        terms: usize,
        plan: UserPlan,
        uniform_bounds: bool,
    ) -> Self {
        Self {
            g: DeGenerationParams {
                de,
                chunks: 1,
                uniform_bounds: u32::from(uniform_bounds),
                ..DeGenerationParams::default()
            },
            terms: terms as u64,
            items: plan.items,
            leaves: plan.leaves,
            shared_trial: u32::from(de.dimension <= SHARED_TRIAL_MAX as u64),
            pad: 0,
        }
    }
}

/// The read-only inputs and the non-finite report of a user's fused generation.
pub struct UserInputs<'a> {
    /// The search box.
    pub bounds: DeviceBounds<'a>,
    /// The user's `f32` data arrays, concatenated (one placeholder value without any).
    pub data32: &'a DeviceBuffer<f32>,
    /// The user's `f64` data arrays, concatenated (one placeholder value without any).
    pub data64: &'a DeviceBuffer<f64>,
    /// A non-finite trial fitness of vector `i` lands in entry `i` (`M` entries).
    pub nonfinite: &'a mut DeviceBuffer<f64>,
    /// The lowest vector with a non-finite trial fitness (one entry, `u32::MAX` when none).
    pub status: &'a mut DeviceBuffer<u32>,
}

/// One whole generation of a user's problem (steps 3.1–3.4 and the best vector) in one launch (twin:
/// `DeCpu::step`). `kernel` is the user module's [`USER_GENERATION_F32`], looked up once by the engine.
pub fn user_generation(
    kernel: &Kernel,
    population: SlottedPopulation<'_>,
    chunk_sums: ChunkSums<'_>,
    best: DeviceBest<'_>,
    inputs: UserInputs<'_>,
    p: &DeUserGenerationParams,
    settings: Settings,
) -> Result<()> {
    // The built-in generation's site converts M and D: the same parameters, the same limits.
    let site = super::site(evo_kernels::entry::de::GENERATION_F32);
    let de = &p.g.de;
    let (m, d, coordinates) = (de.rows(site)?, de.columns(site)?, de.coordinates(site)?);
    let [buffer0, buffer1] = population.buffers;
    let bounds = &inputs.bounds;
    let check = |what, len, expected| {
        evo_gpu_runtime::check_len(ALGORITHM, USER_GENERATION_F32, what, len, expected)
    };
    for (what, len, expected) in [
        ("population buffer 0", buffer0.len(), coordinates),
        ("population buffer 1", buffer1.len(), coordinates),
        ("slot buffer", population.slots_in.len(), m),
        ("next slot buffer", population.slots_out.len(), m),
        ("fitness buffer", population.fitness.len(), m),
        ("F buffer", population.weights.len(), m),
        ("CR buffer", population.rates.len(), m),
        ("best index buffer", best.index.len(), 1),
        ("best fitness buffer", best.fitness.len(), 2),
        ("ticket buffer", best.done.len(), TICKET_COUNTERS),
        ("chunk sums buffer", chunk_sums.partials.len(), m),
        ("chunk ticket buffer", chunk_sums.done.len(), m),
        ("lower bounds buffer", bounds.lower.len(), d),
        ("upper bounds buffer", bounds.upper.len(), d),
        ("non-finite fitness buffer", inputs.nonfinite.len(), m),
        ("status buffer", inputs.status.len(), 1),
    ] {
        check(what, len, expected)?;
    }
    let block = settings.block;
    let (items, leaves) = (u64::from(p.items), u64::from(p.leaves));
    let shape_ok = block.is_power_of_two()
        && (32..=1024).contains(&block)
        && p.g.chunks == 1
        && items.is_power_of_two()
        && items <= MAX_USER_ITEMS
        && leaves.is_power_of_two()
        && leaves <= u64::from(block)
        && items * leaves <= p.terms.max(1).next_power_of_two()
        && (p.shared_trial == 0 || d <= SHARED_TRIAL_MAX);
    if !shape_ok {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "fused user generation shape",
            format!(
                "block {block}, {} chunks, {} terms in tiles of {items} × {leaves}, D = {d}{}",
                p.g.chunks,
                p.terms,
                if p.shared_trial == 0 {
                    ""
                } else {
                    " in shared memory"
                }
            ),
            "a power-of-two block in 32..=1024, one chunk, power-of-two tiles of at most 8 terms per \
             thread on at most the block's threads, no wider than the terms padded to a power of two, \
             a trial in shared memory of at most 8192 coordinates",
        ));
    }
    let shared_bytes = if p.shared_trial == 0 {
        0
    } else {
        site.to_u32("shared trial bytes", 4 * d)?
    };
    // Overlapping the previous kernel: the kernel waits for it (evo_wait_previous_grid) before it touches
    // global memory, so only its launch and its memory-free draws run during that kernel's tail.
    // SAFETY: arguments follow `de_generation_user_f32(float* buffer0, float* buffer1, const unsigned int*
    // slot_in, unsigned int* slot_out, double* fitness, float* weights, float* rates, unsigned int* best,
    // double* best_fitness, double* partials, unsigned int* vector_done, unsigned int* done, const float*
    // lower, const float* upper, const float* data32, const double* data64, double* nonfinite, unsigned int*
    // status, DeUserGenerationParams)`; lengths checked above: rows below M of both buffers, slots, fitness,
    // F, CR, chunk sums, tickets and non-finite entries below M, bounds below D; the data arrays at the
    // offsets and lengths the module's prelude was generated from (the buffers uploaded from the same
    // arrays); `slots_in` holds 0 or 1 and `best` an index below M (both written by the engine or this
    // kernel); one chunk per vector; the block is a power of two ≤ 1024 (the argmin's shared arrays) and
    // the tree's leaves are at most the block; with `shared_trial` the kernel writes and reads D floats of
    // dynamic shared memory, 4·D bytes launched (D ≤ 8192: 32 KiB beside 13 KiB of static shared memory).
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
            .input(inputs.data32)
            .input(inputs.data64)
            .output(inputs.nonfinite)
            .output(inputs.status)
            .params(p)
            .run(LaunchConfig::linear(
                grid_for_rows(de.population),
                block,
                shared_bytes,
            ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_plans_never_let_a_tile_span_more_terms_than_the_padded_row() {
        for (d, terms, cap) in [
            (30, 29, 64),
            (30, 30, 256),
            (128, 128, 1024),
            (512, 512, 256),
            (3000, 2999, 256),
            (3, 100_000, 256),
            (1, 1, 32),
            (5000, 3, 1024),
        ] {
            for m in [4, 64, 1024, 100_000] {
                let plan = user_plan(m, d, terms, cap, 132);
                let padded = (terms as u64).next_power_of_two();
                let tile = u64::from(plan.items) * u64::from(plan.leaves);
                assert!(tile <= padded, "{m} × {d}, {terms}: {plan:?}");
                assert!(plan.block.is_power_of_two() && (32..=cap).contains(&plan.block));
                assert!(plan.items.is_power_of_two() && u64::from(plan.items) <= MAX_USER_ITEMS);
                assert!(plan.leaves.is_power_of_two() && plan.leaves <= plan.block);
            }
        }
        // 64 × 128: 128 threads of one term.
        assert_eq!(
            user_plan(64, 128, 128, 256, 132),
            UserPlan {
                block: 128,
                items: 1,
                leaves: 128
            }
        );
        // At 1024 × 512, blocks of 256 would take two waves on 132 multiprocessors: 128 threads of 4 terms,
        // the built-in Rastrigin's shape there.
        assert_eq!(
            user_plan(1024, 512, 512, 256, 132),
            UserPlan {
                block: 128,
                items: 4,
                leaves: 128
            }
        );
        // 10^5 data points on 3 genes: tiles of 8 × 256 terms.
        assert_eq!(
            user_plan(64, 3, 100_000, 256, 132),
            UserPlan {
                block: 256,
                items: 8,
                leaves: 256
            }
        );
    }
}
