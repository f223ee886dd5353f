//! Typed launch functions, one per kernel of `kernels/cuda/ma.cu`. Each checks its buffers against the
//! parameters and derives the launch shape; [`super::MaCuda`] composes them.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::EntryPoint;
use evo_kernels::entry::ma;

use crate::ops::SwState;
use crate::params::ALGORITHM;

pub use crate::memory::{BLOCK, TILE, TILE_VARIABLES, sw_rows};

/// The largest grid y (rows, pairs, children of one launch).
const MAX_GRID_Y: usize = 65_535;

/// Scalar arguments of every `ma_*` kernel; mirrors `MaKernelParams` in `kernels/cuda/ma.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MaKernelParams {
    /// The run's seed.
    pub seed: u64,
    /// D.
    pub dimension: u64,
    /// `ma_copy_f32`: first element read.
    pub src_offset: u64,
    /// `ma_copy_f32`: first element written.
    pub dst_offset: u64,
    /// Philox stream id.
    pub stream: u32,
    /// Philox step.
    pub step: u32,
    /// Rows, pairs or children of the launch; `ma_sw_step_f32`: the state slot read (0 or 1).
    pub count: u32,
    /// Distance tiles per pair.
    pub tiles: u32,
    /// The Philox lane of variable 0 of the rows: 0 for whole vectors, `first / 4` for a dimension slice of
    /// variables `first ..` (`ma_init_rows_f32`, `ma_crossover_f32`, `ma_sw_step_f32`; the mutated gene is
    /// compared with the whole vector's index `4·lane_offset + i`).
    pub lane_offset: u32,
    /// BLX-α.
    pub alpha: f32,
    /// BGA range fraction.
    pub range: f32,
    /// `ma_sw_step_f32`: the look-ahead (1 or 2).
    pub flag: u32,
}
const _: () = assert!(size_of::<MaKernelParams>() == 64);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct `MaKernelParams` (64 bytes, asserted on both
// sides).
unsafe impl KernelParams for MaKernelParams {}

/// One child of a crossover step; mirrors `MaChild` in `kernels/cuda/ma.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ChildGpu {
    /// Mother's slot.
    pub mother: u32,
    /// Father's slot.
    pub father: u32,
    /// The child's global index.
    pub counter: u32,
    /// The mutated variable.
    pub gene: u32,
    /// The BGA sum.
    pub s: f32,
    /// 1: plus.
    pub plus: u32,
    /// 1: mutate.
    pub mutate: u32,
    /// Padding.
    pub pad: u32,
}
const _: () = assert!(size_of::<ChildGpu>() == 32);
// SAFETY: repr(C), plain numbers, the layout of `MaChild` (32 bytes, asserted on both sides); any bit pattern
// is a valid value.
unsafe impl evo_gpu_runtime::DeviceCopy for ChildGpu {}

fn site(entry: EntryPoint) -> LaunchSite {
    LaunchSite::new(ALGORITHM, entry)
}

/// A check that is not a buffer length (a range, a slot, a divisibility), in the words of
/// [`LaunchSite::check_len`]: the value with the kernel, and what is allowed.
fn check(site: LaunchSite, what: &'static str, ok: bool, got: u64, want: String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            what,
            format!("{got} (in {})", site.entry()),
            want,
        ))
    }
}

/// `value` as the `u32` the kernel takes for `what` (a 64-bit count: D, tiles, blocks).
fn to_u32(site: LaunchSite, what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            ALGORITHM,
            what,
            format!("{value} (in {})", site.entry()),
            format!("at most {}", u32::MAX),
        )
    })
}

/// D as a host length.
fn dimension(site: LaunchSite, params: &MaKernelParams) -> Result<usize> {
    usize::try_from(params.dimension).map_err(|_| {
        Error::invalid_parameter(
            ALGORITHM,
            "dimension D",
            format!("{} (in {})", params.dimension, site.entry()),
            format!("at most {}", usize::MAX),
        )
    })
}

/// Blocks of `BLOCK` threads covering the ⌈D/4⌉ lanes of one row.
fn lanes_grid(site: LaunchSite, dimension: u64) -> Result<u32> {
    to_u32(
        site,
        "lane blocks",
        dimension.div_ceil(4).div_ceil(u64::from(BLOCK)),
    )
}

/// `grid_y` is at most [`MAX_GRID_Y`] (checked by each caller before it launches).
fn config(site: LaunchSite, grid_x: u32, grid_y: usize, shared_bytes: u32) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid: (grid_x.max(1), site.to_u32("grid rows", grid_y)?, 1),
        block: (BLOCK, 1, 1),
        shared_bytes,
    })
}

#[allow(clippy::too_many_arguments)]
/// `ma_init_rows_f32`: fills `rows` of `population` with uniform genes.
pub fn init_rows(
    gpu: &Gpu,
    population: &mut DeviceBuffer<f32>,
    rows: &DeviceBuffer<u32>,
    lower: &DeviceBuffer<f32>,
    upper: &DeviceBuffer<f32>,
    params: MaKernelParams,
    slots: usize,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::INIT_ROWS_F32);
    let d = dimension(site, &params)?;
    check(
        site,
        "population length",
        population.len() == slots * d,
        population.len() as u64,
        format!("{slots} x {d}"),
    )?;
    site.check_len("bounds length", lower.len(), d)?;
    site.check_len("bounds length", upper.len(), d)?;
    check(
        site,
        "rows",
        rows.len() <= MAX_GRID_Y && !rows.is_empty(),
        rows.len() as u64,
        format!("1..={MAX_GRID_Y}"),
    )?;
    let config = config(site, lanes_grid(site, params.dimension)?, rows.len(), 0)?;
    // Row indices are checked on the host by the caller (every index < slots).
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match `ma_init_rows_f32`; the grid covers ceil(D/4) lanes per row and
    // the kernel writes only variables < D of rows < slots (the caller's rows), within `population`.
    unsafe {
        kernel
            .launch()
            .output(population)
            .input(rows)
            .input(lower)
            .input(upper)
            .params(&params)
            .run(config)
    }
}

/// `ma_distance_tiles_f64` then `ma_distance_finish_f64`: the squared distances of `pairs.len() / 2`
/// pairs of slots into `distances`.
pub fn squared_distances(
    gpu: &Gpu,
    population: &DeviceBuffer<f32>,
    pairs: &DeviceBuffer<u32>,
    partials: &mut DeviceBuffer<f64>,
    distances: &mut DeviceBuffer<f64>,
    params: MaKernelParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::DISTANCE_TILES_F64);
    let finish_site = self::site(ma::DISTANCE_FINISH_F64);
    let d = params.dimension;
    let count = pairs.len() / 2;
    let tiles = d.div_ceil(TILE);
    check(
        site,
        "pairs",
        pairs.len().is_multiple_of(2) && (1..=MAX_GRID_Y).contains(&count),
        count as u64,
        format!("1..={MAX_GRID_Y}"),
    )?;
    check(
        site,
        "population length",
        (population.len() as u64).is_multiple_of(d),
        population.len() as u64,
        format!("a multiple of {d}"),
    )?;
    check(
        site,
        "partials length",
        partials.len() as u64 >= tiles * count as u64,
        partials.len() as u64,
        format!("at least {}", tiles * count as u64),
    )?;
    site.check_len_at_least("distances length", distances.len(), count)?;
    let tiles = to_u32(site, "tiles", tiles)?;
    let params = MaKernelParams {
        tiles,
        count: site.to_u32("pairs", count)?,
        ..params
    };
    let shared = BLOCK * 8;
    let config = config(site, tiles, count, shared)?;
    let finish_config = LaunchConfig::linear(params.count, BLOCK, shared);
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match; pair slots are < N (checked by the caller), the grid is
    // (tiles, pairs) and thread leaves beyond D read nothing; partials holds tiles x pairs doubles.
    unsafe {
        kernel
            .launch()
            .input(population)
            .input(pairs)
            .output(partials)
            .params(&params)
            .run(config)?;
    }
    let finish = finish_site.kernel(gpu, profile)?;
    // SAFETY: one block per pair reads its `tiles` partials and writes distances[pair]; shared memory holds
    // one double per thread.
    unsafe {
        finish
            .launch()
            .input(partials)
            .output(distances)
            .params(&params)
            .run(finish_config)
    }
}

/// `ma_crossover_f32`: the `plans.len()` children of one step into the first rows of `children`.
#[allow(clippy::too_many_arguments)]
pub fn crossover(
    gpu: &Gpu,
    population: &DeviceBuffer<f32>,
    children: &mut DeviceBuffer<f32>,
    plans: &DeviceBuffer<ChildGpu>,
    lower: &DeviceBuffer<f32>,
    upper: &DeviceBuffer<f32>,
    params: MaKernelParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::CROSSOVER_F32);
    let d = dimension(site, &params)?;
    let k = plans.len();
    check(
        site,
        "children",
        (1..=MAX_GRID_Y).contains(&k) && children.len() >= k * d,
        k as u64,
        format!("1..={MAX_GRID_Y} rows of the children area"),
    )?;
    site.check_len("bounds length", lower.len(), d)?;
    site.check_len("bounds length", upper.len(), d)?;
    check(
        site,
        "population length",
        population.len().is_multiple_of(d),
        population.len() as u64,
        format!("a multiple of {d}"),
    )?;
    let config = config(site, lanes_grid(site, params.dimension)?, k, 0)?;
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match; parent slots are < N (drawn below N on the host), child rows
    // < plans.len() fit in `children`, variables < D.
    unsafe {
        kernel
            .launch()
            .input(population)
            .output(children)
            .input(plans)
            .input(lower)
            .input(upper)
            .params(&params)
            .run(config)
    }
}

/// Copies row `from_row` of `from` into row `to_row` of `to`, rows of `params.dimension` values (D for the
/// whole engine, a slice's length for a dimension split).
pub fn copy_row(
    gpu: &Gpu,
    profile: Profile,
    params: MaKernelParams,
    from: &DeviceBuffer<f32>,
    from_row: usize,
    to: &mut DeviceBuffer<f32>,
    to_row: usize,
) -> Result<()> {
    let d = params.dimension;
    let params = MaKernelParams {
        src_offset: from_row as u64 * d,
        dst_offset: to_row as u64 * d,
        ..params
    };
    copy(gpu, from, to, params, profile)
}

/// `ma_copy_f32`: D values from `src[src_offset..]` to `dst[dst_offset..]`.
pub fn copy(
    gpu: &Gpu,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
    params: MaKernelParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::COPY_F32);
    let d = params.dimension;
    check(
        site,
        "source range",
        params.src_offset + d <= src.len() as u64,
        src.len() as u64,
        format!("at least {}", params.src_offset + d),
    )?;
    check(
        site,
        "destination range",
        params.dst_offset + d <= dst.len() as u64,
        dst.len() as u64,
        format!("at least {}", params.dst_offset + d),
    )?;
    // The kernel strides over D, so a grid of at most 65 535 blocks covers any length.
    let blocks = to_u32(
        site,
        "blocks",
        d.div_ceil(u64::from(BLOCK)).clamp(1, 65_535),
    )?;
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match; both ranges were checked against the buffer lengths.
    unsafe {
        kernel
            .launch()
            .input(src)
            .output(dst)
            .params(&params)
            .run(LaunchConfig::linear(blocks, BLOCK, 0))
    }
}

const _: () = assert!(size_of::<SwState>() == 88);
// SAFETY: `SwState` is repr(C) with two f64 then eighteen 4-byte numbers (no padding; 88 bytes, asserted here
// and for `MaSwState` in ma.cu); every bit pattern is a valid value.
unsafe impl evo_gpu_runtime::DeviceCopy for SwState {}

#[allow(clippy::too_many_arguments)]
/// `ma_sw_step_f32`: decides the group whose probe fitness is in `fitness` (when `states[params.count]` says
/// one was probed), writes the decided state into the other slot of `states`, applies the decided
/// iterations to `x` and `bias`, and writes the probes of the next `params.flag` (look-ahead, 1 or 2)
/// iterations into the rows of `probes` (stream and seed from `params`).
pub fn sw_step(
    gpu: &Gpu,
    x: &mut DeviceBuffer<f32>,
    bias: &mut DeviceBuffer<f32>,
    probes: &mut DeviceBuffer<f32>,
    lower: &DeviceBuffer<f32>,
    upper: &DeviceBuffer<f32>,
    fitness: &DeviceBuffer<f64>,
    states: &mut DeviceBuffer<SwState>,
    params: MaKernelParams,
    profile: Profile,
) -> Result<()> {
    let site = site(ma::SW_STEP_F32);
    let d = dimension(site, &params)?;
    check(
        site,
        "look-ahead",
        params.flag == 1 || params.flag == 2,
        u64::from(params.flag),
        "1 or 2".to_string(),
    )?;
    check(
        site,
        "state slot",
        params.count < 2,
        u64::from(params.count),
        "0 or 1".to_string(),
    )?;
    for len in [x.len(), bias.len(), lower.len(), upper.len()] {
        site.check_len("vector length", len, d)?;
    }
    let rows = sw_rows(params.flag);
    check(
        site,
        "probe rows",
        probes.len() == rows * d,
        probes.len() as u64,
        format!("{rows} x {d}"),
    )?;
    site.check_len("probe fitness", fitness.len(), rows)?;
    site.check_len("states", states.len(), 2)?;
    let config = config(site, lanes_grid(site, params.dimension)?, 1, 0)?;
    let kernel = site.kernel(gpu, profile)?;
    // SAFETY: argument order and types match; every vector holds D values, `probes` rows·D and `fitness` rows
    // values for the look-ahead in `params.flag` (checked), `states` two `MaSwState`s of which the launch reads
    // slot `params.count` and thread 0 writes the other; lanes touch only variables < D of each row.
    unsafe {
        kernel
            .launch()
            .output(x)
            .output(bias)
            .output(probes)
            .input(lower)
            .input(upper)
            .input(fitness)
            .output(states)
            .params(&params)
            .run(config)
    }
}
