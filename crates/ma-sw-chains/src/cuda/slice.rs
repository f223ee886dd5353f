//! Typed launches for a dimension slice (`evo_distributed::dimension`): a slice holds variables
//! `first .. first + len` of every vector, and these kernels compute the nodes of a canonical tree (the sum
//! of [`evo_core::reduce`], or the product of `evo_benchmarks::tree`) over its aligned blocks, which the
//! caller joins with the top of the same tree.
//!
//! | kernel | what |
//! | --- | --- |
//! | `ma_slice_terms_f64` | the terms of one [`SliceTerm`] of `rows` rows of the slice, one node per tile of [`TILE`] leaves |
//! | `ma_slice_distance_tiles_f64` | the squared-distance terms of slot pairs, one sum per tile (as `ma_distance_tiles_f64` of [`launch::squared_distances`](super::launch::squared_distances), rows of `stride` values) |
//! | `ma_block_sums_f64` | per row, the subtree of each block of `tiles_per_block` tiles (a sum or a product) |
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
/// `kernels/common/problems/functions.cuh`, twins of [`evo_benchmarks::functions`]. The leaves are added
/// (padding `+0.0`), except [`GriewankFactor`](Self::GriewankFactor)'s, which are multiplied (padding `1.0`;
/// [`is_factor`](Self::is_factor)).
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
}

impl SliceTerm {
    /// Whether the leaves are multiplied (a product tree, padding `1.0`) rather than added.
    pub const fn is_factor(self) -> bool {
        matches!(self, Self::GriewankFactor)
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

/// Scalar arguments of the slice kernels; mirrors `MaSliceParams` in `kernels/cuda/ma.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SliceParams {
    /// Variables of the slice whose terms (leaves) are counted.
    pub dimension: u64,
    /// Values per row in memory: `dimension`, or `dimension + 1` with the halo ([`SliceTerm::halo`]).
    pub stride: u64,
    /// The whole vector's index of the slice's variable 0.
    pub first: u64,
    /// Tile partials per row: ⌈dimension / [`TILE`]⌉ (set by the launches).
    pub tiles: u64,
    /// `ma_block_sums_f64`: tiles per block (a power of two).
    pub tiles_per_block: u64,
    /// `ma_slice_terms_f64`: the [`SliceTerm`] code.
    pub term: u32,
    /// `ma_slice_terms_f64`: 1 when `z = x − shift` (the slice's part of the shift vector, `stride` values).
    pub shifted: u32,
    /// 1: the leaves are multiplied, padding `1.0`; 0: added, padding `+0.0` ([`slice_terms`] sets it from
    /// the term; [`block_sums`] reads it).
    pub product: u32,
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

/// `ma_slice_terms_f64`: the tile nodes (sums, or products for a [factor](SliceTerm::is_factor)) of the
/// terms of `params.term` of the first `rows` rows of `x` (rows of `params.stride` values, the first
/// `params.dimension` of them the slice's variables) into `partials[row·tiles + tile]`; `shift` is read when
/// `params.shifted` is 1 (then it holds `params.stride` values). `params.product` is set from the term.
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
            format!("0..={}", SliceTerm::Rosenbrock as u32),
        )
    })?;
    let cells = to_usize(site, "partials", tiles * rows as u64)?;
    site.check_len_at_least("partials length", partials.len(), cells)?;
    let params = SliceParams {
        tiles,
        product: u32::from(term.is_factor()),
        ..params
    };
    let config = LaunchConfig {
        grid: (to_u32(site, "tiles", tiles)?, site.to_u32("rows", rows)?, 1),
        block: (BLOCK, 1, 1),
        shared_bytes: BLOCK * 8,
    };
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_slice_terms_f64`; block (t, r) reads values t·TILE ..
    // (t+1)·TILE (those below `dimension`, and one more below `stride` for Rosenbrock) of row r < rows of `x`
    // (rows of `stride`) and of `shift` when shifted (both checked), writes partials[r·tiles + t] below
    // rows·tiles (checked); shared memory holds one double per thread.
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

/// `ma_block_sums_f64`: for each of `rows` rows of tile partials (`params.tiles` = ⌈`params.dimension` /
/// [`TILE`]⌉ per row), the canonical subtree of each block of `params.tiles_per_block` tiles (a power of two;
/// tiles past the row are the padding) into `sums[row·blocks + block]`, `blocks` = ⌈tiles /
/// tiles_per_block⌉: a product (padding `1.0`) when `params.product` is 1, a sum (padding `+0.0`) when 0.
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
    if params.product > 1 {
        return Err(invalid(
            site,
            "product flag",
            u64::from(params.product),
            "0 (a sum) or 1 (a product)".to_string(),
        ));
    }
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
        to_usize(site, "partials", tiles * rows as u64)?,
    )?;
    site.check_len_at_least(
        "block sums length",
        sums.len(),
        to_usize(site, "block sums", blocks * rows as u64)?,
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
        shared_bytes: threads * 8,
    };
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_block_sums_f64`; block (b, r) reads partials[r·tiles + leaf]
    // for leaves < tiles of its block and writes sums[r·blocks + b] (both lengths checked); blockDim.x is a
    // power of two dividing tiles_per_block; shared memory holds one double per thread.
    unsafe {
        kernel
            .launch()
            .input(partials)
            .output(sums)
            .params(&params)
            .run(config)
    }
}
