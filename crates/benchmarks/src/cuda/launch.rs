//! Typed launch functions of `kernels/cuda/benchmarks_continuous.cu`, one per kernel (STYLE rule 1): each
//! validates its buffers, derives the launch shape from their lengths and launches through
//! `evo-gpu-runtime`. The kernels' scalar arguments travel in the `#[repr(C)]` params structs below,
//! mirrored in the `.cu` with the same sizes asserted on both sides.

use evo_core::{Error, Result};
use evo_gpu_runtime::{
    DeviceBuffer, DeviceCopy, Gpu, KernelParams, LaunchConfig, Profile, check_len_at_least,
};
use evo_kernels::EntryPoint;
use evo_kernels::entry::benchmarks_continuous as entry;

use super::user::USER_ENTRY;

/// Terms per thread of the tiles kernels (`EVO_ITEMS`).
pub const ITEMS_PER_THREAD: u32 = 8;
/// Terms per thread of the tiles kernels for rows of at most one block's threads of terms (`TilesParams::items`
/// = 1): one tile of `block` terms per individual, one term per lane.
pub const ITEMS_PER_THREAD_SMALL: u32 = 1;
/// Consecutive individuals per block of the tiles and prefix-squares kernels, at most (`block_groups` takes
/// fewer where the grid would be short). The group shares the block's index arithmetic, the tile of the shift
/// vector (read from memory once, then from L1: the rows themselves bypass L1) and Griewank's scale
/// `1/√((i+1)π²)` (14 f64 operations, paid once per coordinate for the whole group). Groups of 10 beat groups
/// of 4 at the largest sizes (`docs/results/eval.md#row-groups`).
pub const ROW_GROUP: u32 = 10;
/// Most (individual, tile) items of one block of the tiles kernels (`EVO_MAX_ITEMS`): their warp subtrees wait
/// in shared memory for the block's single barrier.
const MAX_ITEMS: u32 = 16;
/// Items a block of few individuals takes by also taking consecutive tiles (the tiles of one individual share
/// the block's barrier and index arithmetic), unless that leaves fewer than [`WAVES`] waves of resident
/// blocks.
const TARGET_ITEMS: u32 = 4;
/// Resident blocks per multiprocessor of the tiles and prefix-squares kernels (`EVO_TILES_BOUNDS`,
/// `__launch_bounds__(256, 4)`).
const RESIDENT_BLOCKS: u64 = 4;
/// Resident blocks per multiprocessor of the Rastrigin tiles kernel (`EVO_TILES_BOUNDS_RASTRIGIN`).
const RASTRIGIN_RESIDENT_BLOCKS: u64 = 6;
/// Resident blocks per multiprocessor of the two Griewank tiles kernels, for groups and for one individual
/// (`EVO_TILES_BOUNDS_GRIEWANK`).
const GRIEWANK_RESIDENT_BLOCKS: u64 = 5;
/// Waves of resident blocks that keep a grid's tail short: a tile group shrinks until the grid has this many
/// times the resident blocks of all multiprocessors, counted per kernel, which beat a fixed block count per
/// multiprocessor (`docs/results/eval.md#waves`).
const WAVES: u64 = 4;
/// Fewest waves of resident blocks a tiles grid of several tiles per individual may fill before its row
/// groups shrink ([`block_groups`]): halving the groups of a grid under 2 waves paid, halving them further
/// did not, hence 2 rather than [`WAVES`] (`docs/results/eval.md#minimum-waves`).
const MIN_WAVES: u64 = 2;
// A block holds `group · tile_group` items: at most the largest row group (tile_group 1) or TARGET_ITEMS.
const _: () = assert!(ROW_GROUP <= MAX_ITEMS && TARGET_ITEMS <= MAX_ITEMS);

/// Scalar arguments of `benchmarks_continuous_tiles_*`; mirrors `TilesParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TilesParams {
    /// Coordinates per individual (the row stride).
    pub dimension: u64,
    /// Terms per individual (the dimension, one less for Rosenbrock, or a permuted part's length).
    pub terms: u64,
    /// Term `i` reads coordinate `perm[perm_offset + i]` when `permuted` is 1.
    pub perm_offset: u64,
    /// Individuals (set by [`tiles`]).
    pub rows: u64,
    /// 0: no shift; 1: `f32` shift; 2: `f64` shift.
    pub shift: u32,
    /// 1: coordinates through the permutation.
    pub permuted: u32,
    /// Consecutive individuals per block (set by [`tiles`]: [`ROW_GROUP`], or fewer
    /// individuals).
    pub group: u32,
    /// Consecutive tiles per block (set by [`tiles`]: up to 4 / `group`, at least 1).
    pub tile_group: u32,
    /// Terms per lane: [`ITEMS_PER_THREAD`] (tiles of 8 · block terms) or [`ITEMS_PER_THREAD_SMALL`] (tiles of
    /// `block` terms).
    pub items: u32,
    /// 1: one tile per individual, and the tiles kernel writes the final fitness (the finish kernel's
    /// combination and bias below) to `partials[r]`; needs `items` = 1 and `terms` ≤ block.
    pub finish: u32,
    /// With `finish`: 0 sum, 1 Griewank, 2 Ackley, 3 Salomon (as [`FinishParams::combine`]).
    pub combine: u32,
    /// With `finish`: 1 adds `bias`.
    pub add_bias: u32,
    /// With `finish`: the bias.
    pub bias: f64,
    /// With `finish`: Ackley's coordinate count.
    pub n: u64,
}
const _: () = assert!(size_of::<TilesParams>() == 80);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (80 bytes, asserted on both sides).
unsafe impl KernelParams for TilesParams {}

/// Scalar arguments of `benchmarks_continuous_finish`; mirrors `FinishParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FinishParams {
    /// Tile partials per individual.
    pub tiles: u64,
    /// Ackley's coordinate count.
    pub n: u64,
    /// The bias added when `add_bias` is 1.
    pub bias: f64,
    /// 0 sum, 1 Griewank, 2 Ackley, 3 Salomon.
    pub combine: u32,
    /// 1: add `bias`.
    pub add_bias: u32,
    /// Tile summaries per thread of [`finish_prefix`] ([`prefix_finish_leaves`]: 4 or 8); unused by
    /// [`finish`].
    pub leaves: u64,
}
const _: () = assert!(size_of::<FinishParams>() == 40);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (40 bytes, asserted on both sides).
unsafe impl KernelParams for FinishParams {}

/// The per-coordinate term of a tiles kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TermKind {
    /// `z²` (Sphere, Salomon's sum).
    Sphere,
    /// Rastrigin's term.
    Rastrigin,
    /// Step's term.
    Step,
    /// Schwefel's sine term.
    Schwefel,
    /// Discus' term.
    Discus,
    /// Sum Squares' term.
    SumSquares,
    /// The elliptic term.
    Elliptic,
    /// Griewank's `z²` and cosine factor (sum and product).
    Griewank,
    /// Ackley's `z²` and cosine (two sums).
    Ackley,
    /// Rosenbrock's term (one fewer than coordinates).
    Rosenbrock,
}

/// The kernel of a tiles launch: a built-in term of the registry module, or a user module compiled from a
/// [`UserFunction`](super::UserFunction).
#[derive(Debug, Clone, Copy)]
pub enum TileKernel<'a> {
    /// `benchmarks_continuous_tiles_<term>` of the registry module.
    Builtin(TermKind),
    /// `benchmarks_continuous_tiles_user` of a user module.
    User(&'a evo_gpu_runtime::Kernel),
}

impl TermKind {
    /// The tiles kernel for blocks of `group` individuals. Griewank has its own kernel for blocks of one
    /// individual, which computes each scale `1/√((i+1)π²)` where the term needs it instead of once for the
    /// group (`docs/results/eval.md#griewank-one-row-kernel`).
    fn entry(self, group: u32) -> EntryPoint {
        match self {
            Self::Griewank if group == 1 => entry::TILES_GRIEWANK_ONE_ROW,
            Self::Sphere => entry::TILES_SPHERE,
            Self::Rastrigin => entry::TILES_RASTRIGIN,
            Self::Step => entry::TILES_STEP,
            Self::Schwefel => entry::TILES_SCHWEFEL,
            Self::Discus => entry::TILES_DISCUS,
            Self::SumSquares => entry::TILES_SUM_SQUARES,
            Self::Elliptic => entry::TILES_ELLIPTIC,
            Self::Griewank => entry::TILES_GRIEWANK,
            Self::Ackley => entry::TILES_ACKLEY,
            Self::Rosenbrock => entry::TILES_ROSENBROCK,
        }
    }
}

/// Scalar arguments of `benchmarks_continuous_cec_groups`; mirrors `CecGroupsParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CecGroupsParams {
    /// Coordinates per individual.
    pub dimension: u64,
    /// Groups of 50 per individual.
    pub groups: u64,
    /// 0 elliptic, 1 Rastrigin, 2 Ackley, 3 Schwefel 1.2, 4 Rosenbrock.
    pub base: u32,
    /// 1: groups are multiplied by the rotation.
    pub rotated: u32,
}
const _: () = assert!(size_of::<CecGroupsParams>() == 24);
// SAFETY: repr(C), plain integers, the layout of the CUDA struct (24 bytes, asserted on both sides).
unsafe impl KernelParams for CecGroupsParams {}

/// Scalar arguments of `benchmarks_continuous_cec_compose`; mirrors `CecComposeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CecComposeParams {
    /// Individuals.
    pub individuals: u64,
    /// 1: `10⁶ g + s`; 2: `g + s`; 3: `g`.
    pub structure: u32,
    /// Padding to 8 bytes.
    pub pad: u32,
}
const _: () = assert!(size_of::<CecComposeParams>() == 16);
// SAFETY: repr(C), plain integers, the layout of the CUDA struct (16 bytes, asserted on both sides).
unsafe impl KernelParams for CecComposeParams {}

/// The shift operand of a kernel reading `x`: which buffer holds `o` (the other is a 1-element dummy).
pub struct ShiftArgs<'a> {
    /// The `f32` shift (or a dummy).
    pub shift32: &'a DeviceBuffer<f32>,
    /// The `f64` shift (or a dummy).
    pub shift64: &'a DeviceBuffer<f64>,
    /// 0, 1 or 2 as [`TilesParams::shift`].
    pub mode: u32,
    /// The permutation (or a dummy when no kernel reads it).
    pub perm: &'a DeviceBuffer<u32>,
}

fn grid_u32(what: &'static str, value: u64, allowed: &str) -> Result<u32> {
    u32::try_from(value)
        .map_err(|_| Error::invalid_parameter("benchmarks_continuous", what, value, allowed))
}

fn check_rows(rows: u64) -> Result<u32> {
    u32::try_from(rows)
        .ok()
        .filter(|rows| (1..=65_535).contains(rows))
        .ok_or_else(|| {
            Error::invalid_parameter(COMPONENT, "individuals per launch", rows, "1..=65535")
        })
}

/// The component named by this module's length checks.
const COMPONENT: &str = "benchmarks_continuous";

/// [`check_len_at_least`] for `buffer` of the kernel `kernel`, with the need counted in the params' `u64`.
fn check_at_least<T: DeviceCopy>(
    kernel: &str,
    what: &'static str,
    buffer: &DeviceBuffer<T>,
    needed: u64,
) -> Result<()> {
    // A need beyond the address space is more than any buffer holds.
    let least = usize::try_from(needed).map_err(|_| {
        Error::invalid_parameter(
            COMPONENT,
            what,
            format!("{} (in {kernel})", buffer.len()),
            format!("at least {needed}"),
        )
    })?;
    check_len_at_least(COMPONENT, kernel, what, buffer.len(), least)
}

/// The launch shape shared by [`tiles`] and [`prefix_squares`]: validates the block size, the individuals and
/// the terms per lane (the buffers follow in [`check_tiles_inputs`]); returns the tiles per
/// individual, the linear grid (groups of `tile_group` tiles × groups of at most [`ROW_GROUP`] individuals, as
/// [`block_groups`] sizes them for `resident` blocks per multiprocessor) and the completed params.
fn tiles_shape(
    gpu: &Gpu,
    params: TilesParams,
    rows: u64,
    block: u32,
    resident: u64,
) -> Result<(u64, u32, TilesParams)> {
    if !(block.is_power_of_two() && (32..=256).contains(&block)) {
        return Err(Error::invalid_parameter(
            "benchmarks_continuous_tiles",
            "block size",
            block,
            "a power of two in 32..=256",
        ));
    }
    check_rows(rows)?;
    if params.items != ITEMS_PER_THREAD && params.items != ITEMS_PER_THREAD_SMALL {
        return Err(Error::invalid_parameter(
            "benchmarks_continuous_tiles",
            "terms per lane",
            params.items,
            format!("{ITEMS_PER_THREAD} or {ITEMS_PER_THREAD_SMALL}"),
        ));
    }
    let tile = u64::from(params.items * block);
    let tiles = params.terms.div_ceil(tile).max(1);
    if params.finish == 1 && tiles != 1 {
        return Err(Error::invalid_parameter(
            "benchmarks_continuous_tiles",
            "finish in the tiles kernel",
            format!(
                "{} terms, {} per lane, block {block}",
                params.terms, params.items
            ),
            "at most one tile per row (terms ≤ terms per lane · block)",
        ));
    }
    let slots = u64::from(gpu.info().multiprocessors.max(1)) * resident;
    let (group, tile_group) = block_groups(slots, tiles, rows, u64::from(ROW_GROUP));
    let row_groups = rows.div_ceil(group);
    let params = TilesParams {
        rows,
        group: grid_u32("individuals per block", group, "at most 16")?,
        tile_group: grid_u32("tiles per block", tile_group, "at most 16")?,
        ..params
    };
    let grid = u32::try_from(tiles.div_ceil(tile_group) * row_groups)
        .ok()
        .filter(|&g| g <= i32::MAX as u32)
        .ok_or_else(|| {
            Error::invalid_parameter(
                "benchmarks_continuous_tiles",
                "tiles x individuals",
                tiles * rows,
                "below 2^31",
            )
        })?;
    Ok((tiles, grid, params))
}

/// The population, permutation and shift of a [`tiles_shape`] launch of `kernel` (the group's kernel, known
/// once the shape is).
fn check_tiles_inputs(
    kernel: &str,
    x: &DeviceBuffer<f32>,
    shift: &ShiftArgs<'_>,
    params: &TilesParams,
) -> Result<()> {
    check_at_least(kernel, "population", x, params.rows * params.dimension)?;
    if params.permuted == 1 {
        check_at_least(
            kernel,
            "permutation",
            shift.perm,
            params.perm_offset + params.terms,
        )?;
    }
    if params.shift != 0 {
        let needed = params.dimension;
        if params.shift == 1 {
            check_at_least(kernel, "shift", shift.shift32, needed)?;
        } else {
            check_at_least(kernel, "shift", shift.shift64, needed)?;
        }
    }
    Ok(())
}

/// The individuals and the tiles of one block of a tiles grid, `(group, tile_group)`, for `tiles` tiles per
/// individual, `rows` individuals, groups of at most `row_group` individuals and `slots` resident blocks on the
/// whole GPU:
/// - rows of one tile have no tiles to spread over blocks: their groups shrink until the grid has [`WAVES`]
///   waves of `slots`, so that few individuals do not wait on one warp's sequential rows (a GA population of
///   256: 256 blocks instead of 26 for groups of 10);
/// - otherwise the groups shrink (halving, rounded up) while the grid would fill fewer than [`MIN_WAVES`]
///   waves: Griewank at 20 × 10^6 took 978 blocks of 10 individuals on 528 slots, 1.85 waves;
/// - then a block of few individuals takes the largest power of two of consecutive tiles up to
///   `TARGET_ITEMS / group` that leaves [`WAVES`] waves.
fn block_groups(slots: u64, tiles: u64, rows: u64, row_group: u64) -> (u64, u64) {
    let wanted = slots * WAVES;
    let mut group = row_group.min(rows).max(1);
    let target = if tiles == 1 {
        wanted
    } else {
        slots * MIN_WAVES
    };
    while group > 1 && tiles * rows.div_ceil(group) < target {
        group = group.div_ceil(2);
    }
    let row_groups = rows.div_ceil(group);
    let mut tile_group = (u64::from(TARGET_ITEMS) / group).max(1);
    while tile_group > 1 && tiles.div_ceil(tile_group) * row_groups < wanted {
        tile_group /= 2;
    }
    (group, tile_group)
}

/// Tiles of `items · block` terms for `rows` individuals of `dimension` coordinates: writes the pair of
/// accumulators of tile `t` of row `r` to `partials[2 (r · tiles + leaf_slot(t, tiles)) ..]` ([`leaf_slot`])
/// and returns `tiles`; with `params.finish` = 1 (one tile per row), the final fitness of row `r` to
/// `partials[r]` instead.
/// `block` must be a power of two in 32..=256.
#[allow(clippy::too_many_arguments)]
pub fn tiles(
    gpu: &Gpu,
    kernel: TileKernel<'_>,
    x: &DeviceBuffer<f32>,
    shift: &ShiftArgs<'_>,
    partials: &mut DeviceBuffer<f64>,
    params: TilesParams,
    rows: u64,
    profile: Profile,
    block: u32,
) -> Result<u64> {
    let resident = match kernel {
        TileKernel::Builtin(TermKind::Rastrigin) => RASTRIGIN_RESIDENT_BLOCKS,
        TileKernel::Builtin(TermKind::Griewank) => GRIEWANK_RESIDENT_BLOCKS,
        _ => RESIDENT_BLOCKS,
    };
    let (tiles, grid, params) = tiles_shape(gpu, params, rows, block, resident)?;
    // The built-in entry depends on the row group the shape chose.
    let name = match kernel {
        TileKernel::Builtin(kind) => kind.entry(params.group).name(),
        TileKernel::User(_) => USER_ENTRY,
    };
    check_tiles_inputs(name, x, shift, &params)?;
    if params.finish == 1 {
        check_at_least(name, "fitness", partials, rows)?;
    } else {
        check_at_least(name, "partials", partials, 2 * rows * tiles)?;
    }
    let builtin;
    let kernel = match kernel {
        TileKernel::Builtin(kind) => {
            builtin = gpu.entry_point(kind.entry(params.group), profile)?;
            &builtin
        }
        TileKernel::User(kernel) => kernel,
    };
    // SAFETY: the arguments follow `(const float* x, const float* shift32, const double* shift64,
    // const unsigned int* perm, double* partials, TilesParams)`; the grid is groups of `tile_group` tiles x
    // groups of `group` individuals with the tile count the kernel derives from the same terms and block size
    // and the group count from `rows` and `group`; for each individual r < rows of its group and each tile
    // t < tiles of its tile group, block (tg, g) reads x[r·D .. (r+1)·D] (checked above; the permutation's
    // entries are below D, as `Cec2010Problem` builds it), the shift below D when its mode selects it
    // (checked), the permutation below perm_offset + terms when permuted (checked), and writes
    // partials[2(r·tiles + leaf_slot(t, tiles)) + {0,1}] below 2·rows·tiles, or with finish (tiles = 1)
    // partials[r] below rows (checked); group · tile_group <= MAX_ITEMS items fit the kernel's static shared
    // scratch (2 · 16 · 8 doubles); the kernel touches no global memory before evo_wait_previous_grid(), as an
    // overlapping launch requires.
    unsafe {
        kernel
            .launch()
            .overlapping_previous()
            .input(x)
            .input(shift.shift32)
            .input(shift.shift64)
            .input(shift.perm)
            .output(partials)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))?;
    }
    Ok(tiles)
}

/// Tile partial pairs per thread of [`finish`] (`EVO_FINISH_LEAVES`).
pub const FINISH_LEAVES: u64 = 8;

/// Leaves per chunk of the partials layout ([`leaf_slot`]).
pub const LEAF_CHUNK: u64 = 256;

/// Where leaf `i` of a row of `count` tile partials (pairs of [`tiles`] and [`cec_groups`], summaries of
/// [`prefix_squares`]) is stored relative to the row, in units of one leaf; what [`finish`] and
/// [`finish_prefix`] read (`evo_leaf_slot` in `kernels/common/problems/tree.cuh`). Each complete chunk of
/// [`LEAF_CHUNK`] leaves is stored transposed by 8: leaf `256 c + 8 l + j` (`l` < 32, `j` < 8) at
/// `256 c + 32 j + l`, so that the 32 threads of a finish warp, each reading its 8 adjacent leaves one per load,
/// read 32 adjacent slots per load instead of 32 slots 8 apart. The last, incomplete chunk keeps its leaves in
/// order (`docs/results/eval.md#finish-leaf-layout`). A permutation of `0..count`; the bits of a fitness do not
/// depend on it.
pub const fn leaf_slot(i: u64, count: u64) -> u64 {
    let complete = count / LEAF_CHUNK * LEAF_CHUNK;
    if i < complete {
        (i / LEAF_CHUNK) * LEAF_CHUNK
            + (i % FINISH_LEAVES) * (LEAF_CHUNK / FINISH_LEAVES)
            + (i % LEAF_CHUNK) / FINISH_LEAVES
    } else {
        i
    }
}
/// Tile summaries per thread of [`finish_prefix`] over `tiles` summaries per individual: 4 while one segment
/// of 4 · 1024 covers them, else 8 (one segment up to 8192 summaries, D = 1.6 · 10^7 at tiles of 2048 terms).
/// 8 per thread throughout made the mid sizes slower (`docs/results/eval.md#prefix-finish-leaves`). The bits do
/// not depend on it.
pub fn prefix_finish_leaves(tiles: u64) -> u64 {
    if tiles <= 4 * 1024 { 4 } else { 8 }
}

/// The block size for [`finish`] (`per_thread` = [`FINISH_LEAVES`]) or [`finish_prefix`]
/// ([`prefix_finish_leaves`]) over `tiles` partials per individual: the smallest power of two in 32..=1024
/// whose segment of `per_thread · block` partials holds them all, so that the kernel's serial loop over
/// segments runs once (1024 beyond). The bits do not depend on it.
pub fn finish_block(tiles: u64, per_thread: u64) -> u32 {
    let threads = tiles.div_ceil(per_thread.max(1)).clamp(32, 1024);
    // Clamped to 32..=1024, so the count always fits.
    u32::try_from(threads).map_or(1024, u32::next_power_of_two)
}

/// One block per individual: the tree over its `params.tiles` partial pairs (in the [`leaf_slot`] layout) and
/// the final combination, written to `fitness[r]`. `block` must be a power of two in 32..=1024.
pub fn finish(
    gpu: &Gpu,
    partials: &DeviceBuffer<f64>,
    fitness: &mut DeviceBuffer<f64>,
    params: FinishParams,
    rows: u64,
    profile: Profile,
    block: u32,
) -> Result<()> {
    evo_gpu_runtime::check_block_size(entry::FINISH.name(), block)?;
    let name = entry::FINISH.name();
    let grid = grid_u32("individuals", rows, "below 2^32")?;
    check_at_least(name, "partials", partials, 2 * rows * params.tiles)?;
    check_at_least(name, "fitness", fitness, rows)?;
    let kernel = gpu.entry_point(entry::FINISH, profile)?;
    // SAFETY: `(const double* partials, double* fitness, FinishParams)`; block r reads
    // partials[2 r·tiles .. 2 (r+1)·tiles] and writes fitness[r], both checked above; static shared memory; the
    // kernel touches no global memory before evo_wait_previous_grid(), as an overlapping launch requires.
    unsafe {
        kernel
            .launch()
            .overlapping_previous()
            .input(partials)
            .output(fitness)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

/// The Schwefel 1.2 / Ridge tile summaries `(N, A, B, C)` of [`crate::prefix_squares`] over tiles of
/// `8 · block` terms of `z = x − o`, written to `nodes[4 (r · tiles + leaf_slot(t, tiles)) ..]`
/// ([`leaf_slot`]); returns `tiles`. With `params.finish` = 1 (rows of one tile), the fitness `C` (plus
/// `params.bias` when `params.add_bias` is 1) of row `r` to `nodes[r]` instead, as [`finish_prefix`] would
/// compute it. The same grid, groups and block sizes as [`tiles`]; `params.permuted` must be 0.
#[allow(clippy::too_many_arguments)]
pub fn prefix_squares(
    gpu: &Gpu,
    x: &DeviceBuffer<f32>,
    shift: &ShiftArgs<'_>,
    nodes: &mut DeviceBuffer<f64>,
    params: TilesParams,
    rows: u64,
    profile: Profile,
    block: u32,
) -> Result<u64> {
    if params.permuted != 0 {
        return Err(Error::invalid_parameter(
            entry::PREFIX_SQUARES.name(),
            "permuted",
            params.permuted,
            "0 (the prefix sums run over the coordinates in order)",
        ));
    }
    let name = entry::PREFIX_SQUARES.name();
    let (tiles, grid, params) = tiles_shape(gpu, params, rows, block, RESIDENT_BLOCKS)?;
    check_tiles_inputs(name, x, shift, &params)?;
    if params.finish == 1 {
        check_at_least(name, "fitness", nodes, rows)?;
    } else {
        check_at_least(name, "nodes", nodes, 4 * rows * tiles)?;
    }
    let kernel = gpu.entry_point(entry::PREFIX_SQUARES, profile)?;
    // SAFETY: `(const float* x, const float* shift32, const double* shift64, double* nodes, TilesParams)`;
    // the grid is the tiles kernels' (tile groups x groups, derived by the kernel from the same terms, block
    // size, group and tile group); block (tg, g) reads x[r·D .. (r+1)·D] for its individuals r < rows and the
    // selected shift below D (both checked above) and writes nodes[4(r·tiles + leaf_slot(t, tiles)) + 0..3] for
    // its tiles t < tiles, below 4·rows·tiles, or with finish (tiles = 1, checked by tiles_shape) nodes[r] below rows
    // (checked); group · tile_group <= MAX_ITEMS items fit the static shared scratch (16 · 8 summaries); the
    // kernel touches no global memory before evo_wait_previous_grid(), as an overlapping launch requires.
    unsafe {
        kernel
            .launch()
            .overlapping_previous()
            .input(x)
            .input(shift.shift32)
            .input(shift.shift64)
            .output(nodes)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))?;
    }
    Ok(tiles)
}

/// One block per individual: the canonical tree over its `params.tiles` tile summaries, `fitness[r] = C`
/// (plus `params.bias` when `params.add_bias` is 1). `block` must be a power of two in 32..=1024 and
/// `params.leaves` 4 or 8.
pub fn finish_prefix(
    gpu: &Gpu,
    nodes: &DeviceBuffer<f64>,
    fitness: &mut DeviceBuffer<f64>,
    params: FinishParams,
    rows: u64,
    profile: Profile,
    block: u32,
) -> Result<()> {
    evo_gpu_runtime::check_block_size(entry::FINISH_PREFIX.name(), block)?;
    if params.leaves != 4 && params.leaves != 8 {
        return Err(Error::invalid_parameter(
            entry::FINISH_PREFIX.name(),
            "summaries per thread",
            params.leaves,
            "4 or 8",
        ));
    }
    let name = entry::FINISH_PREFIX.name();
    let grid = grid_u32("individuals", rows, "below 2^32")?;
    check_at_least(name, "nodes", nodes, 4 * rows * params.tiles)?;
    check_at_least(name, "fitness", fitness, rows)?;
    let kernel = gpu.entry_point(entry::FINISH_PREFIX, profile)?;
    // SAFETY: `(const double* nodes, double* fitness, FinishParams)`; block r reads
    // nodes[4 r·tiles .. 4 (r+1)·tiles] and writes fitness[r], both checked above; static shared memory; the
    // kernel touches no global memory before evo_wait_previous_grid(), as an overlapping launch requires.
    unsafe {
        kernel
            .launch()
            .overlapping_previous()
            .input(nodes)
            .output(fitness)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

/// Threads per block of `benchmarks_continuous_cec_groups` (one per leaf of a group's 64-leaf trees).
pub const CEC_GROUP_THREADS: u32 = 64;

/// CEC 2010 group values: one block of [`CEC_GROUP_THREADS`] per (group of 50, individual): gather through
/// the permutation, rotate when `params.rotated` is 1 (one thread per output), base function (one thread
/// per term, a block tree), written as pairs `(value, 0)` to `values[2 (r · groups + leaf_slot(k, groups))]`
/// ([`leaf_slot`]).
#[allow(clippy::too_many_arguments)]
pub fn cec_groups(
    gpu: &Gpu,
    x: &DeviceBuffer<f32>,
    shift: &DeviceBuffer<f64>,
    perm: &DeviceBuffer<u32>,
    rotation: &DeviceBuffer<f64>,
    values: &mut DeviceBuffer<f64>,
    params: CecGroupsParams,
    rows: u64,
    profile: Profile,
) -> Result<()> {
    let grid_y = check_rows(rows)?;
    let grid_x = grid_u32("groups", params.groups, "1..2^32")?;
    if grid_x == 0 {
        return Err(Error::invalid_parameter(
            "benchmarks_continuous",
            "groups",
            0,
            "1..2^32",
        ));
    }
    let name = entry::CEC_GROUPS.name();
    check_at_least(name, "population", x, rows * params.dimension)?;
    check_at_least(name, "shift", shift, params.dimension)?;
    check_at_least(name, "permutation", perm, params.groups * 50)?;
    if params.rotated == 1 {
        check_at_least(name, "rotation", rotation, 2500)?;
    }
    check_at_least(name, "values", values, 2 * rows * params.groups)?;
    let kernel = gpu.entry_point(entry::CEC_GROUPS, profile)?;
    // SAFETY: `(const float* x, const double* shift, const unsigned int* perm, const double* rotation,
    // double* values, CecGroupsParams)`; block (k, r) reads perm[50k .. 50k + 50] (below groups·50,
    // checked), x and shift at those entries (below D: a permutation of 0..D), the 2500 rotation entries
    // when rotated (checked), and writes values[2(r·groups + k) + {0,1}] (checked); 64 threads, as the
    // kernel's `__launch_bounds__`; static shared memory.
    unsafe {
        kernel
            .launch()
            .input(x)
            .input(shift)
            .input(perm)
            .input(rotation)
            .output(values)
            .params(&params)
            .run(LaunchConfig {
                grid: (grid_x, grid_y, 1),
                block: (CEC_GROUP_THREADS, 1, 1),
                shared_bytes: 0,
            })
    }
}

/// `fitness[r]` from the group sums and the separable parts (`structure` as [`CecComposeParams`]).
pub fn cec_compose(
    gpu: &Gpu,
    group_sums: &DeviceBuffer<f64>,
    separable: &DeviceBuffer<f64>,
    fitness: &mut DeviceBuffer<f64>,
    params: CecComposeParams,
    profile: Profile,
) -> Result<()> {
    let name = entry::CEC_COMPOSE.name();
    let rows = params.individuals;
    check_at_least(name, "group sums", group_sums, rows)?;
    check_at_least(name, "fitness", fitness, rows)?;
    if params.structure != 3 {
        check_at_least(name, "separable", separable, rows)?;
    }
    let block = 128u32;
    let grid = grid_u32(
        "individuals",
        rows.div_ceil(u64::from(block)).max(1),
        "below 2^32",
    )?;
    let kernel = gpu.entry_point(entry::CEC_COMPOSE, profile)?;
    // SAFETY: `(const double* group_sums, const double* separable, double* fitness, CecComposeParams)`;
    // thread r < individuals reads entry r of each input (separable only for structures 1 and 2) and writes
    // fitness[r], all checked above.
    unsafe {
        kernel
            .launch()
            .input(group_sums)
            .input(separable)
            .output(fitness)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

/// Scalar arguments of `benchmarks_continuous_decode16`; mirrors `DecodeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DecodeParams {
    /// Variables per individual.
    pub variables: u64,
    /// `u32` words per individual.
    pub words: u64,
    /// Individuals.
    pub rows: u64,
    /// Lower end of the range.
    pub lo: f64,
    /// Upper end of the range.
    pub hi: f64,
}
const _: () = assert!(size_of::<DecodeParams>() == 40);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (40 bytes, asserted on both sides).
unsafe impl KernelParams for DecodeParams {}

/// Decodes `params.rows` packed 16-bit-per-variable rows into `f32` coordinates (one thread per variable).
pub fn decode16(
    gpu: &Gpu,
    bits: &DeviceBuffer<u32>,
    x: &mut DeviceBuffer<f32>,
    params: DecodeParams,
    profile: Profile,
    block: u32,
) -> Result<()> {
    evo_gpu_runtime::check_block_size(entry::DECODE16.name(), block)?;
    if params.words * 32 < 16 * params.variables {
        return Err(Error::invalid_parameter(
            entry::DECODE16.name(),
            "words per row",
            params.words,
            format!("at least {}", (16 * params.variables).div_ceil(32)),
        ));
    }
    let name = entry::DECODE16.name();
    let values = params.rows * params.variables;
    check_at_least(name, "bits", bits, params.rows * params.words)?;
    check_at_least(name, "population", x, values)?;
    if values == 0 {
        return Ok(());
    }
    let grid = grid_u32(
        "decode blocks",
        values.div_ceil(u64::from(block)),
        "below 2^32",
    )?;
    let kernel = gpu.entry_point(entry::DECODE16, profile)?;
    // SAFETY: `(const unsigned int* bits, float* x, DecodeParams)`; thread (r, i) reads words of row r below
    // rows·words (16 i + 15 < 32 words, checked) and writes x[r·variables + i] below rows·variables (checked).
    unsafe {
        kernel
            .launch()
            .input(bits)
            .output(x)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::{
        FINISH_LEAVES, LEAF_CHUNK, ROW_GROUP, block_groups, finish_block, leaf_slot,
        prefix_finish_leaves,
    };

    /// Resident blocks of an H100 (132 multiprocessors) at 4 and 6 blocks per multiprocessor.
    const H100_SLOTS_4: u64 = 132 * 4;
    const H100_SLOTS_6: u64 = 132 * 6;
    const TILES_1E6: u64 = 489;
    const TILES_1E7: u64 = 4883;

    #[test]
    fn block_groups_should_halve_the_row_groups_of_a_grid_under_two_waves() {
        let group = u64::from(ROW_GROUP);
        // 20 x 10^6: 978 blocks of 10 would be 1.85 waves of the 4-resident kernels and 1.23 of Rastrigin's 6;
        // 1956 blocks of 5.
        assert_eq!(block_groups(H100_SLOTS_4, TILES_1E6, 20, group), (5, 1));
        assert_eq!(block_groups(H100_SLOTS_6, TILES_1E6, 20, group), (5, 1));
        // 20 x 10^7: full groups.
        assert_eq!(block_groups(H100_SLOTS_4, TILES_1E7, 20, group), (10, 1));
        assert_eq!(block_groups(H100_SLOTS_6, TILES_1E7, 20, group), (10, 1));
        // One individual: consecutive tiles per block while 4 waves remain (4-resident 2, Rastrigin 1).
        assert_eq!(block_groups(H100_SLOTS_4, TILES_1E7, 1, group), (1, 2));
        assert_eq!(block_groups(H100_SLOTS_6, TILES_1E7, 1, group), (1, 1));
        assert_eq!(block_groups(H100_SLOTS_4, TILES_1E6, 1, group), (1, 1));
        // Rows of one tile: the groups shrink to 4 waves (a GA population of 256: one row per block).
        assert_eq!(block_groups(H100_SLOTS_4, 1, 256, group), (1, 1));
        assert_eq!(block_groups(H100_SLOTS_4, 1, 65_535, group), (10, 1));
        // A group never exceeds the rows, nor falls below one.
        assert_eq!(block_groups(H100_SLOTS_4, TILES_1E6, 3, group), (1, 1));
        assert_eq!(block_groups(1, 2, 7, group), (7, 1));
    }

    #[test]
    fn leaf_slot_should_permute_each_row_and_transpose_only_complete_chunks() {
        for count in [1u64, 7, 255, 256, 257, 300, 489, 512, 4883] {
            let mut seen = vec![false; usize::try_from(count).unwrap()];
            for i in 0..count {
                let slot = leaf_slot(i, count);
                assert!(slot < count, "leaf {i} of {count} at {slot}");
                assert!(
                    !seen[usize::try_from(slot).unwrap()],
                    "slot {slot} of {count} taken twice"
                );
                seen[usize::try_from(slot).unwrap()] = true;
                // Leaves stay in their chunk.
                assert_eq!(slot / LEAF_CHUNK, i / LEAF_CHUNK);
            }
        }
        // Leaf 8 l + j of a complete chunk at 32 j + l; the incomplete chunk in order.
        assert_eq!(leaf_slot(8 * 3 + 5, 256), 32 * 5 + 3);
        assert_eq!(leaf_slot(256 + 8 * 31 + 7, 512), 256 + 32 * 7 + 31);
        assert_eq!(leaf_slot(1, 300), 32);
        assert_eq!(leaf_slot(270, 300), 270);
        // A finish thread's 8 adjacent leaves, one per load j: the warp's 32 threads read 32 adjacent slots.
        for j in 0..8u64 {
            let slots: Vec<u64> = (0..32u64).map(|l| leaf_slot(8 * l + j, 4883)).collect();
            assert!(
                slots.windows(2).all(|w| w[1] == w[0] + 1),
                "load {j}: {slots:?}"
            );
        }
    }

    #[test]
    fn finish_block_should_cover_the_row_in_one_segment_up_to_1024_threads() {
        assert_eq!(finish_block(1, FINISH_LEAVES), 32);
        assert_eq!(finish_block(256, FINISH_LEAVES), 32);
        assert_eq!(finish_block(257, FINISH_LEAVES), 64);
        // D = 10^6 at tiles of 2048 terms: 489 tiles, 62 threads of 8.
        assert_eq!(finish_block(489, FINISH_LEAVES), 64);
        // D = 10^7: 4883 tiles, 611 threads of 8.
        assert_eq!(finish_block(4883, FINISH_LEAVES), 1024);
        assert_eq!(finish_block(8192, FINISH_LEAVES), 1024);
        assert_eq!(finish_block(1 << 20, FINISH_LEAVES), 1024);
        assert_eq!(prefix_finish_leaves(489), 4);
        assert_eq!(finish_block(489, prefix_finish_leaves(489)), 128);
        assert_eq!(prefix_finish_leaves(4096), 4);
        assert_eq!(finish_block(4096, prefix_finish_leaves(4096)), 1024);
        // D = 10^7: 611 threads of 8 summaries, one segment (two with 4 per thread).
        assert_eq!(prefix_finish_leaves(4883), 8);
        assert_eq!(finish_block(4883, prefix_finish_leaves(4883)), 1024);
    }
}
