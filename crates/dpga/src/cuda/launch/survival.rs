//! Selection, survival and the end of a generation (steps 6 to 9): `dpga_select_main`,
//! `dpga_select_reserve`, `dpga_gather_main`, `dpga_gather_reserve` and `dpga_finish`.

use evo_core::Result;
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig};
use evo_kernels::EntryPoint;
use evo_kernels::entry::dpga;

use super::{DeviceValues, DpgaKernelParams, Segment, Shape, ValueArgs, grid_2d, selection_grid};

/// `dpga_select_main`: the `p.select_count` best of `a` (`p.select_a` per run) then `b` (`p.select_b` per
/// run) under the comparator, as indices into the concatenation.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn select_main(
    gpu: &Gpu,
    a: &DeviceValues,
    b: &DeviceValues,
    out: &mut DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    select(gpu, dpga::SELECT_MAIN, a, b, out, p, block)
}

/// `dpga_select_reserve`: as [`select_main`] under the reserve order (higher `f_r`, then lower index).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn select_reserve(
    gpu: &Gpu,
    a: &DeviceBuffer<f64>,
    b: &DeviceBuffer<f64>,
    out: &mut DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    select(gpu, dpga::SELECT_RESERVE, a, b, out, p, block)
}

/// The launch of [`select_main`] (`S` = [`DeviceValues`]) and [`select_reserve`] (`S` = `f_r`).
fn select<S: Segment>(
    gpu: &Gpu,
    entry: EntryPoint,
    a: &S,
    b: &S,
    out: &mut DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(entry, p);
    if !shape.selection(a, b, out.len())? {
        return Ok(());
    }
    let kernel = shape.kernel(gpu)?;
    let launch = b.push(a.push(kernel.launch()));
    // SAFETY: the arguments follow `dpga_select_main(const double*, const double*, const unsigned*, const
    // double*, const double*, const unsigned*, unsigned*, DpgaKernelParams)` (S = DeviceValues: objective,
    // violation, satisfied of each segment) and `dpga_select_reserve(const double*, const double*, unsigned*,
    // DpgaKernelParams)` (S = the f_r buffer); the blocks of grid row r (one warp per candidate, the block size
    // a power of two of at least 32) read entries of run r below select_a (a) and select_b (b, not read when
    // 0) and write out[r · count + rank] for rank < count (lengths checked; the ranks under a total order are
    // distinct).
    unsafe { launch.output(out).params(p).run(selection_grid(p, block)) }
}

/// The rows and values of one main-side set (M, O_m or C).
pub struct MainSet<'a> {
    /// Rows.
    pub rows: &'a DeviceBuffer<u8>,
    /// Their evaluations.
    pub values: &'a DeviceValues,
}

/// `dpga_gather_main`: M_{t+1} from the elites of M_t and the chosen of O_m ∪ C (step 7).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn gather_main(
    gpu: &Gpu,
    main: MainSet<'_>,
    offspring: MainSet<'_>,
    crossbred: MainSet<'_>,
    elites: &DeviceBuffer<u32>,
    chosen: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u8>,
    next_values: &mut DeviceValues,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::GATHER_MAIN, p);
    let (m, e, c) = (
        p.main_size as usize,
        p.main_elites as usize,
        p.crossbreed as usize,
    );
    for (set, rows) in [(&main, m), (&offspring, m), (&crossbred, c)] {
        shape.rows("main-side rows", set.rows.len(), rows)?;
        shape.values("main-side values", set.values, rows)?;
    }
    shape.per_run("elites", elites.len(), e)?;
    shape.per_run("chosen", chosen.len(), m - e)?;
    shape.rows("next rows", next.len(), m)?;
    shape.values("next values", next_values, m)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: the arguments follow `dpga_gather_main(main, objective, violation, satisfied, offspring, ...,
    // crossbred, ..., elites, chosen, next, next_objective, next_violation, next_satisfied, DpgaKernelParams)`;
    // block (i, run) reads the source row named by the selections (elites below m, chosen below m + |C|) and
    // writes row i of its run and its values (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main.rows)
            .values(main.values)
            .input(offspring.rows)
            .values(offspring.values)
            .input(crossbred.rows)
            .values(crossbred.values)
            .input(elites)
            .input(chosen)
            .output(next)
            .values_mut(next_values)
            .params(p)
            .run(grid_2d(m, p, block))
    }
}

/// `dpga_gather_reserve`: R_{t+1} from the elites of R_t and the chosen of O_r ∪ C (step 8).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn gather_reserve(
    gpu: &Gpu,
    reserve: &DeviceBuffer<u8>,
    offspring: &DeviceBuffer<u8>,
    crossbred: &DeviceBuffer<u8>,
    elites: &DeviceBuffer<u32>,
    chosen: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::GATHER_RESERVE, p);
    let (n, e, c) = (
        p.reserve_size as usize,
        p.reserve_elites as usize,
        p.crossbreed as usize,
    );
    shape.rows("reserve rows", reserve.len(), n)?;
    shape.rows("offspring rows", offspring.len(), n)?;
    shape.rows("crossbred rows", crossbred.len(), c)?;
    shape.per_run("elites", elites.len(), e)?;
    shape.per_run("chosen", chosen.len(), n - e)?;
    shape.rows("next rows", next.len(), n)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_gather_reserve(const unsigned char*, const unsigned char*, const unsigned char*, const
    // unsigned*, const unsigned*, unsigned char*, DpgaKernelParams)`; block (i, run) copies the source row
    // named by the selections (elites below n, chosen below n + |C|) into row i of its run (checked).
    unsafe {
        kernel
            .launch()
            .input(reserve)
            .input(offspring)
            .input(crossbred)
            .input(elites)
            .input(chosen)
            .output(next)
            .params(p)
            .run(grid_2d(n, p, block))
    }
}

/// The best-so-far of every run.
pub struct DeviceBest {
    /// `runs × L` bits.
    pub rows: DeviceBuffer<u8>,
    /// Their evaluations.
    pub values: DeviceValues,
}

/// `dpga_finish`: δ adaptation (when `p.phase == 1`) and the best-so-far update of every run, then
/// `report[4r..4r + 4]` = (best objective, best violation, best satisfied count, `status[r]`) as `f64`s (the
/// host's one read-back per generation).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn finish(
    gpu: &Gpu,
    main: MainSet<'_>,
    chosen: &DeviceBuffer<u32>,
    delta: &mut DeviceBuffer<f64>,
    best: &mut DeviceBest,
    status: &DeviceBuffer<u32>,
    report: &mut DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::FINISH, p);
    let m = p.main_size as usize;
    shape.rows("main rows", main.rows.len(), m)?;
    shape.values("main values", main.values, m)?;
    if p.phase == 1 {
        shape.per_run("chosen", chosen.len(), m - p.main_elites as usize)?;
    }
    shape.per_run("target distances", delta.len(), 1)?;
    shape.rows("best rows", best.rows.len(), 1)?;
    shape.values("best values", &best.values, 1)?;
    shape.per_run("status", status.len(), 1)?;
    shape.per_run("report", report.len(), 4)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_finish(const unsigned char*, const double*, const double*, const unsigned*, const
    // unsigned*, double*, unsigned char*, double*, double*, unsigned*, const unsigned*, double*,
    // DpgaKernelParams)`; block r reads the m rows and values of run r, (phase 1) its m − e_M chosen indices
    // and status[r], and writes delta[r], best row r, its values and report[4r..4r + 4] (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main.rows)
            .values(main.values)
            .input(chosen)
            .output(delta)
            .output(&mut best.rows)
            .values_mut(&mut best.values)
            .input(status)
            .output(report)
            .params(p)
            .run(LaunchConfig::linear(p.runs, block, 0))
    }
}
