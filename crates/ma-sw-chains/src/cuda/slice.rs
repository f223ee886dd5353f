//! Typed launches for a dimension slice (`evo_distributed::dimension`): a slice holds variables
//! `first .. first + len` of every vector, and these kernels compute the nodes of a canonical tree
//! ([`SliceTree`]: the sum of [`evo_core::reduce`], the product of `evo_benchmarks::tree`, or the segment
//! summaries of `evo_benchmarks::prefix_squares`) over its aligned blocks, which the caller joins with the
//! top of the same tree. The kernels are in `kernels/cuda/ma_slice.cuh`.
//!
//! | kernel | what |
//! | --- | --- |
//! | `ma_slice_terms_f64` | the leaves of one [`SliceTerm`] of `rows` rows of the slice, one node of its [`SliceTree`] per tile of [`TILE`] variables |
//! | `ma_slice_distance_tiles_f64` | the squared-distance terms of slot pairs, one sum per tile (as `ma_distance_tiles_f64` of [`launch::squared_distances`](super::launch::squared_distances), rows of `stride` values) |
//! | `ma_block_sums_f64` | per row, the subtree of each block of `tiles_per_block` tiles (of the [`SliceTree`] `tree`) |
//!
//! The other slice work runs the engine's own kernels ([`super::launch`]) on slice-local buffers with
//! [`MaKernelParams::lane_offset`](super::launch::MaKernelParams::lane_offset) = `first / 4`. For a term of
//! two neighbours ([`SliceTerm::halo`]) every row of a slice but the last holds one more value, the halo
//! (variable `first + len`), which those kernels compute as the next slice computes its first variable.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::ma;

use crate::memory::{BLOCK, TILE};
use crate::params::ALGORITHM;

/// The largest grid y (rows or pairs of one launch).
const MAX_GRID_Y: usize = 65_535;

/// The leaf of one canonical tree over the variables, `z_i = x_i − o_i` (or `x_i`): the terms of
/// `kernels/common/problems/functions.cuh`, twins of [`evo_benchmarks::functions`], joined by the tree
/// [`tree`](Self::tree) names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceTerm {
    /// `z²`.
    Sphere = 0,
    /// `z² + 10 − 10 cos(2πz)`.
    Rastrigin = 1,
    /// `⌊z + ½⌋²`.
    Step = 2,
    /// `−z sin(√|z|)`.
    Schwefel = 3,
    /// `10⁶ z²` for `i = 0`, `z²` otherwise.
    Discus = 4,
    /// `(i + 1) z²`.
    SumSquares = 5,
    /// `cos(2πz)`, Ackley's second sum.
    AckleyCos = 6,
    /// `cos(z / √(i + 1))`, a factor of Griewank's product (multiplied).
    GriewankFactor = 7,
    /// `100 (z_i² − z_{i+1})² + (z_i − 1)²` for `i < D − 1`, `+0.0` for the last variable (Rosenbrock's
    /// `D − 1` terms, the padding of their tree): reads the next variable, the halo at a slice's end.
    Rosenbrock = 8,
    /// `z` itself, a term of the squared prefix sums `Σ_i (Σ_{j≤i} z_j)²` (Ridge, Schwefel 1.2), summarised
    /// by the segment-summary tree of `evo_benchmarks::prefix_squares` ([`SliceTree::PrefixSquares`]).
    PrefixSquares = 9,
}

/// How the nodes of a tree are joined (`MA_TREE_*` in `kernels/cuda/ma_slice.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SliceTree {
    /// One `f64` per node, added (padding `+0.0`): the tree of [`evo_core::reduce`].
    Sum = 0,
    /// One `f64` per node, multiplied (padding `1.0`): `evo_benchmarks::tree::pairwise_product_by`.
    Product = 1,
    /// The segment summary `(N, A, B, C)` per node, four `f64` in that order, joined as
    /// `evo_benchmarks::prefix_squares::PrefixSquares::then` (padding: the empty segment); leaves are the
    /// groups of 4 variables.
    PrefixSquares = 2,
}

impl SliceTree {
    /// The `f64` values of one node.
    pub const fn node_values(self) -> usize {
        match self {
            Self::PrefixSquares => 4,
            Self::Sum | Self::Product => 1,
        }
    }
}

impl SliceTerm {
    /// The tree that joins this term's leaves.
    pub const fn tree(self) -> SliceTree {
        match self {
            Self::GriewankFactor => SliceTree::Product,
            Self::PrefixSquares => SliceTree::PrefixSquares,
            _ => SliceTree::Sum,
        }
    }

    /// Values a slice's rows hold past its variables for this term: 1 (the next slice's first variable) for
    /// a term of two neighbours, else 0.
    pub const fn halo(self) -> usize {
        match self {
            Self::Rosenbrock => 1,
            _ => 0,
        }
    }
}

/// Scalar arguments of the slice kernels; mirrors `MaSliceParams` in `kernels/cuda/ma_slice.cuh`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SliceParams {
    /// Variables of the slice whose terms (leaves) are counted.
    pub dimension: u64,
    /// Values per row in memory: `dimension`, or `dimension + 1` with the halo ([`SliceTerm::halo`]).
    pub stride: u64,
    /// The whole vector's index of the slice's variable 0.
    pub first: u64,
    /// Tile nodes per row: ⌈dimension / [`TILE`]⌉ (set by the launches).
    pub tiles: u64,
    /// `ma_block_sums_f64`: tiles per block (a power of two).
    pub tiles_per_block: u64,
    /// `ma_slice_terms_f64`: the [`SliceTerm`] code.
    pub term: u32,
    /// `ma_slice_terms_f64`: 1 when `z = x − shift` (the slice's part of the shift vector, `stride` values).
    pub shifted: u32,
    /// The [`SliceTree`] code ([`slice_terms`] sets it from the term; [`block_sums`] reads it).
    pub tree: u32,
    /// Keeps the size a multiple of 8.
    pub pad: u32,
}
const _: () = assert!(size_of::<SliceParams>() == 56);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct `MaSliceParams` (56 bytes, asserted on both
// sides).
unsafe impl KernelParams for SliceParams {}

fn site(entry: evo_kernels::EntryPoint) -> LaunchSite {
    LaunchSite::new(ALGORITHM, entry)
}

fn invalid(site: LaunchSite, what: &'static str, got: u64, want: String) -> Error {
    Error::invalid_parameter(
        ALGORITHM,
        what,
        format!("{got} (in {})", site.entry()),
        want,
    )
}

fn to_u32(site: LaunchSite, what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| invalid(site, what, value, format!("at most {}", u32::MAX)))
}

fn to_usize(site: LaunchSite, what: &'static str, value: u64) -> Result<usize> {
    usize::try_from(value)
        .map_err(|_| invalid(site, what, value, format!("at most {}", usize::MAX)))
}

/// The term of code `code`, if any.
fn term_of(code: u32) -> Option<SliceTerm> {
    [
        SliceTerm::Sphere,
        SliceTerm::Rastrigin,
        SliceTerm::Step,
        SliceTerm::Schwefel,
        SliceTerm::Discus,
        SliceTerm::SumSquares,
        SliceTerm::AckleyCos,
        SliceTerm::GriewankFactor,
        SliceTerm::Rosenbrock,
        SliceTerm::PrefixSquares,
    ]
    .into_iter()
    .find(|&t| t as u32 == code)
}

/// The row stride, checked: `dimension` or `dimension + 1` (the halo), `dimension` at least 1.
fn check_stride(site: LaunchSite, params: &SliceParams) -> Result<u64> {
    let d = params.dimension;
    if d == 0 || params.stride < d || params.stride - d > 1 {
        return Err(invalid(
            site,
            "row stride",
            params.stride,
            format!("the slice's {d} variables (at least 1), or one more with the halo"),
        ));
    }
    Ok(params.stride)
}

/// The tiles of one row of `dimension` variables (at least one).
pub fn tiles_of(dimension: u64) -> u64 {
    dimension.div_ceil(TILE).max(1)
}

fn check_rows(site: LaunchSite, rows: usize) -> Result<()> {
    if (1..=MAX_GRID_Y).contains(&rows) {
        Ok(())
    } else {
        Err(invalid(
            site,
            "rows",
            rows as u64,
            format!("1..={MAX_GRID_Y}"),
        ))
    }
}

/// `ma_slice_terms_f64`: the tile nodes of the tree of `params.term` ([`SliceTerm::tree`]) of the first
/// `rows` rows of `x` (rows of `params.stride` values, the first `params.dimension` of them the slice's
/// variables) into node `row·tiles + tile` of `partials` ([`SliceTree::node_values`] each); `shift` is read
/// when `params.shifted` is 1 (then it holds `params.stride` values). `params.tree` is set from the term.
pub fn slice_terms(
    gpu: &Gpu,
    x: &DeviceBuffer<f32>,
    shift: &DeviceBuffer<f32>,
    partials: &mut DeviceBuffer<f64>,
    rows: usize,
    params: SliceParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::SLICE_TERMS_F64);
    check_rows(site, rows)?;
    let d = params.dimension;
    let stride = check_stride(site, &params)?;
    let tiles = tiles_of(d);
    let values = to_usize(site, "slice values", stride * rows as u64)?;
    site.check_len_at_least("slice rows", x.len(), values)?;
    if params.shifted == 1 {
        site.check_len(
            "shift length",
            shift.len(),
            to_usize(site, "shift", stride)?,
        )?;
    }
    let term = term_of(params.term).ok_or_else(|| {
        invalid(
            site,
            "term",
            u64::from(params.term),
            format!("0..={}", SliceTerm::PrefixSquares as u32),
        )
    })?;
    let tree = term.tree();
    let width = tree.node_values() as u64;
    let cells = to_usize(site, "partials", tiles * rows as u64 * width)?;
    site.check_len_at_least("partials length", partials.len(), cells)?;
    let params = SliceParams {
        tiles,
        tree: tree as u32,
        ..params
    };
    let config = LaunchConfig {
        grid: (to_u32(site, "tiles", tiles)?, site.to_u32("rows", rows)?, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: BLOCK * 8 * to_u32(site, "node values", width)?,
    };
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_slice_terms_f64`; block (t, r) reads values t·TILE ..
    // (t+1)·TILE (those below `dimension`, and one more below `stride` for Rosenbrock) of row r < rows of `x`
    // (rows of `stride`) and of `shift` when shifted (both checked), writes node r·tiles + t of `width`
    // doubles below rows·tiles·width (checked); shared memory holds one node per thread.
    unsafe {
        kernel
            .launch()
            .input(x)
            .input(shift)
            .output(partials)
            .params(&params)
            .run(config)
    }
}

/// `ma_slice_distance_tiles_f64`: the tile sums of the squared distances of the `pairs.len() / 2` slot pairs
/// of `population` (rows of `params.stride` values, the first `params.dimension` counted) into
/// `partials[pair·tiles + tile]`.
pub fn distance_tiles(
    gpu: &Gpu,
    population: &DeviceBuffer<f32>,
    pairs: &DeviceBuffer<u32>,
    partials: &mut DeviceBuffer<f64>,
    params: SliceParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::SLICE_DISTANCE_TILES_F64);
    let stride = check_stride(site, &params)?;
    let count = pairs.len() / 2;
    if !pairs.len().is_multiple_of(2) {
        return Err(invalid(
            site,
            "pair slots",
            pairs.len() as u64,
            "an even count".to_string(),
        ));
    }
    check_rows(site, count)?;
    if !(population.len() as u64).is_multiple_of(stride) {
        return Err(invalid(
            site,
            "population length",
            population.len() as u64,
            format!("a multiple of the row stride {stride}"),
        ));
    }
    let tiles = tiles_of(params.dimension);
    let cells = to_usize(site, "partials", tiles * count as u64)?;
    site.check_len_at_least("partials length", partials.len(), cells)?;
    let params = SliceParams { tiles, ..params };
    let config = LaunchConfig {
        grid: (
            to_u32(site, "tiles", tiles)?,
            site.to_u32("pairs", count)?,
            1,
        ),
        block: (BLOCK, 1, 1),
        shared_bytes: BLOCK * 8,
    };
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_slice_distance_tiles_f64`; pair slots are < N (the caller's
    // pairs), rows of `stride` values (the population a whole number of them, checked), the grid is (tiles,
    // pairs) and leaves at and beyond `dimension` read nothing; partials holds tiles x pairs doubles (checked).
    unsafe {
        kernel
            .launch()
            .input(population)
            .input(pairs)
            .output(partials)
            .params(&params)
            .run(config)
    }
}

/// `ma_block_sums_f64`: for each of `rows` rows of tile nodes (`params.tiles` = ⌈`params.dimension` /
/// [`TILE`]⌉ per row), the canonical subtree of the [`SliceTree`] `params.tree` over each block of
/// `params.tiles_per_block` tiles (a power of two; tiles past the row are the padding) into node
/// `row·blocks + block` of `sums`, `blocks` = ⌈tiles / tiles_per_block⌉ (nodes of
/// [`SliceTree::node_values`] doubles).
pub fn block_sums(
    gpu: &Gpu,
    partials: &DeviceBuffer<f64>,
    sums: &mut DeviceBuffer<f64>,
    rows: usize,
    params: SliceParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::BLOCK_SUMS_F64);
    check_rows(site, rows)?;
    let width = match params.tree {
        0 => SliceTree::Sum,
        1 => SliceTree::Product,
        2 => SliceTree::PrefixSquares,
        other => {
            return Err(invalid(
                site,
                "tree",
                u64::from(other),
                "0 (a sum), 1 (a product) or 2 (prefix-squares summaries)".to_string(),
            ));
        }
    }
    .node_values() as u64;
    let per_block = params.tiles_per_block;
    if !per_block.is_power_of_two() {
        return Err(invalid(
            site,
            "tiles per block",
            per_block,
            "a power of two".to_string(),
        ));
    }
    let tiles = tiles_of(params.dimension);
    let blocks = tiles.div_ceil(per_block);
    site.check_len_at_least(
        "partials length",
        partials.len(),
        to_usize(site, "partials", tiles * rows as u64 * width)?,
    )?;
    site.check_len_at_least(
        "block sums length",
        sums.len(),
        to_usize(site, "block sums", blocks * rows as u64 * width)?,
    )?;
    // A power of two dividing the block's tiles, so every thread's run is an aligned subtree.
    let threads = to_u32(site, "threads", per_block.min(u64::from(BLOCK)))?;
    let params = SliceParams { tiles, ..params };
    let config = LaunchConfig {
        grid: (
            to_u32(site, "blocks", blocks)?,
            site.to_u32("rows", rows)?,
            1,
        ),
        block: (threads, 1, 1),
        shared_bytes: threads * 8 * to_u32(site, "node values", width)?,
    };
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_block_sums_f64`; block (b, r) reads node r·tiles + leaf of
    // `width` doubles for leaves < tiles of its block and writes node r·blocks + b (both lengths checked);
    // blockDim.x is a power of two dividing tiles_per_block; shared memory holds one node per thread.
    unsafe {
        kernel
            .launch()
            .input(partials)
            .output(sums)
            .params(&params)
            .run(config)
    }
}
