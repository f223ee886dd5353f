//! Typed launch functions, one per kernel of `kernels/cuda/dpga.cu`. Each checks its buffers against the
//! parameters (run-major: run `r` owns slice `r` of every buffer) and derives the launch shape;
//! [`super::DpgaBatchCuda`] composes them.

use evo_core::{Error, Result};
use evo_gpu_runtime::{
    DeviceBuffer, Gpu, Kernel, KernelParams, Launch, LaunchConfig, LaunchSite, Profile,
};
use evo_kernels::EntryPoint;
use evo_kernels::entry::dpga;

use crate::params::ALGORITHM;

/// The largest grid asked for in x; the kernels stride over the rest.
const MAX_GRID: u32 = 65_535;

/// Scalar arguments of every dpga kernel; mirrors `DpgaKernelParams` in `kernels/cuda/dpga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DpgaKernelParams {
    /// Seed of run 0; run `r` uses `seed + r` (wrapping).
    pub seed: u64,
    /// Init: candidates drawn at most (`m` for random init).
    pub max_draws: u64,
    /// The problem's equality tolerance ε.
    pub tolerance: f64,
    /// η of the δ adaptation.
    pub learning_rate: f64,
    /// δ_min.
    pub delta_min: f64,
    /// δ_max.
    pub delta_max: f64,
    /// Runs K.
    pub runs: u32,
    /// m.
    pub main_size: u32,
    /// n.
    pub reserve_size: u32,
    /// L = D·b.
    pub length: u32,
    /// b.
    pub bits: u32,
    /// D.
    pub dimension: u32,
    /// CEC 2006 problem number 1..=24.
    pub number: u32,
    /// Inequality constraints.
    pub inequalities: u32,
    /// Equality constraints.
    pub equalities: u32,
    /// |C|.
    pub crossbreed: u32,
    /// e_M.
    pub main_elites: u32,
    /// e_R.
    pub reserve_elites: u32,
    /// Tournament size k.
    pub tournament: u32,
    /// 0 one-point, 1 two-point, 2 uniform.
    pub crossover: u32,
    /// 0 MCSM, 1 Deb.
    pub handling: u32,
    /// The Philox step (the generation; init: 0 for M0's candidates, 1 for R0).
    pub step: u32,
    /// Init merge: 1 on the first batch; finish: 1 adapts δ.
    pub phase: u32,
    /// Selection: candidates of the first segment per run.
    pub select_a: u32,
    /// Selection: candidates of the second segment per run.
    pub select_b: u32,
    /// Selection: how many to keep per run.
    pub select_count: u32,
    /// `Stream::DpgaInit`.
    pub stream_init: u32,
    /// `Stream::DpgaTournamentMain`.
    pub stream_tournament_main: u32,
    /// `Stream::DpgaTournamentReserve`.
    pub stream_tournament_reserve: u32,
    /// `Stream::DpgaCross`.
    pub stream_cross: u32,
    /// `Stream::DpgaCrossbreed`.
    pub stream_crossbreed: u32,
    /// `Stream::DpgaMutate`.
    pub stream_mutate: u32,
    /// Row kernels: rows per run.
    pub rows: u32,
    /// 0 binary, 1 reflected Gray code (`Encoding`).
    pub encoding: u32,
    /// P_c.
    pub crossover_rate: f32,
    /// p_m per bit.
    pub mutation_rate: f32,
}
const _: () = assert!(size_of::<DpgaKernelParams>() == 168);
// SAFETY: repr(C), plain numbers only, the layout of the CUDA struct `DpgaKernelParams` (168 bytes, asserted
// on both sides).
unsafe impl KernelParams for DpgaKernelParams {}

/// The evaluations of a set of rows, run-major (objective, violation, satisfied count).
pub struct DeviceValues {
    /// `f(x)`.
    pub objective: DeviceBuffer<f64>,
    /// `V(x)`.
    pub violation: DeviceBuffer<f64>,
    /// Satisfied constraints.
    pub satisfied: DeviceBuffer<u32>,
}

impl DeviceValues {
    /// Buffers for `len` evaluations.
    ///
    /// # Errors
    /// GPU allocation errors.
    pub fn alloc(gpu: &Gpu, len: usize) -> Result<Self> {
        Ok(Self {
            objective: gpu.alloc_zeroed(len)?,
            violation: gpu.alloc_zeroed(len)?,
            satisfied: gpu.alloc_zeroed(len)?,
        })
    }

    /// Entries held.
    pub fn entries(&self) -> usize {
        self.objective.len()
    }

    fn check(&self, site: LaunchSite, what: &'static str, want: usize) -> Result<()> {
        site.check_len(what, self.objective.len(), want)?;
        site.check_len(what, self.violation.len(), want)?;
        site.check_len(what, self.satisfied.len(), want)
    }
}

/// Pushes the three arrays of a [`DeviceValues`] as the next three kernel arguments, in the order every dpga
/// kernel declares them: objective (`double*`), violation (`double*`), satisfied (`unsigned*`).
trait ValueArgs<'a> {
    /// The arrays as inputs (`const`).
    fn values(self, values: &'a DeviceValues) -> Self;
    /// The arrays as outputs.
    fn values_mut(self, values: &'a mut DeviceValues) -> Self;
}

impl<'a> ValueArgs<'a> for Launch<'a> {
    fn values(self, values: &'a DeviceValues) -> Self {
        self.input(&values.objective)
            .input(&values.violation)
            .input(&values.satisfied)
    }

    fn values_mut(self, values: &'a mut DeviceValues) -> Self {
        self.output(&mut values.objective)
            .output(&mut values.violation)
            .output(&mut values.satisfied)
    }
}

/// The shape checks of one launch function against its parameters (run-major buffers: every run owns the
/// same number of entries); errors name the kernel and the buffer.
#[derive(Clone, Copy)]
struct Shape<'p> {
    site: LaunchSite,
    p: &'p DpgaKernelParams,
}

impl<'p> Shape<'p> {
    fn of(entry: EntryPoint, p: &'p DpgaKernelParams) -> Self {
        Self {
            site: LaunchSite::new(ALGORITHM, entry),
            p,
        }
    }

    /// Runs K.
    fn runs(self) -> usize {
        self.p.runs as usize
    }

    /// `got` is `want`.
    fn len(self, what: &'static str, got: usize, want: usize) -> Result<()> {
        self.site.check_len(what, got, want)
    }

    /// `got` holds `per_run` entries for every run.
    fn per_run(self, what: &'static str, got: usize, per_run: usize) -> Result<()> {
        self.len(what, got, self.runs() * per_run)
    }

    /// `got` holds `rows` rows of L bits for every run.
    fn rows(self, what: &'static str, got: usize, rows: usize) -> Result<()> {
        self.per_run(what, got, rows * length(self.p))
    }

    /// `values` holds `rows` evaluations for every run.
    fn values(self, what: &'static str, values: &DeviceValues, rows: usize) -> Result<()> {
        values.check(self.site, what, self.runs() * rows)
    }

    /// A selection of `p.select_count` indices per run into `out` from the segments `a` (`p.select_a`
    /// candidates per run) and `b` (`p.select_b`, not read when 0); `false` when there is nothing to select
    /// (no launch).
    fn selection<S: Segment>(self, a: &S, b: &S, out: usize) -> Result<bool> {
        let p = self.p;
        a.check_segment(self, "first segment", p.select_a as usize)?;
        if p.select_b > 0 {
            b.check_segment(self, "second segment", p.select_b as usize)?;
        }
        self.per_run("selection", out, p.select_count as usize)?;
        if p.select_count > p.select_a + p.select_b {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "selection size",
                p.select_count,
                format!("at most the {} candidates", p.select_a + p.select_b),
            ));
        }
        Ok(p.select_count > 0)
    }

    /// The kernel, compiled for the Exact profile.
    fn kernel(self, gpu: &Gpu) -> Result<Kernel> {
        self.site.kernel(gpu, Profile::Exact)
    }
}

/// The candidates of one selection segment: their evaluations (`dpga_select_main`) or their reserve
/// fitness `f_r` (`dpga_select_reserve`).
trait Segment {
    /// Holds `per_run` candidates for every run.
    fn check_segment(&self, shape: Shape<'_>, what: &'static str, per_run: usize) -> Result<()>;
    /// Pushes the segment's arrays as the kernel's next arguments (inputs).
    fn push<'a>(&'a self, launch: Launch<'a>) -> Launch<'a>;
}

impl Segment for DeviceValues {
    fn check_segment(&self, shape: Shape<'_>, what: &'static str, per_run: usize) -> Result<()> {
        shape.values(what, self, per_run)
    }

    fn push<'a>(&'a self, launch: Launch<'a>) -> Launch<'a> {
        launch.values(self)
    }
}

impl Segment for DeviceBuffer<f64> {
    fn check_segment(&self, shape: Shape<'_>, what: &'static str, per_run: usize) -> Result<()> {
        shape.per_run(what, self.len(), per_run)
    }

    fn push<'a>(&'a self, launch: Launch<'a>) -> Launch<'a> {
        launch.input(self)
    }
}

fn grid(work: usize) -> u32 {
    // A count beyond u32::MAX is beyond the cap too.
    u32::try_from(work).map_or(MAX_GRID, |work| work.clamp(1, MAX_GRID))
}

fn runs(p: &DpgaKernelParams) -> usize {
    p.runs as usize
}

fn length(p: &DpgaKernelParams) -> usize {
    p.length as usize
}

/// A grid of (pairs or rows) × runs blocks; runs must fit the y dimension (checked by the engine).
fn grid_2d(x: usize, p: &DpgaKernelParams, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (grid(x), p.runs.max(1), 1),
        block: (block, 1, 1),
        shared_bytes: 0,
    }
}

/// One warp per selection candidate: (candidates / warps per block) × runs blocks.
fn selection_grid(p: &DpgaKernelParams, block: u32) -> LaunchConfig {
    let warps = (block / 32).max(1) as usize;
    grid_2d(
        (p.select_a as usize + p.select_b as usize).div_ceil(warps),
        p,
        block,
    )
}

/// One thread per `work` item, `block` threads per block.
fn linear_grid(work: usize, block: u32) -> LaunchConfig {
    LaunchConfig::linear(grid(work.div_ceil(block as usize)), block, 0)
}

fn row_grid(p: &DpgaKernelParams, block: u32) -> LaunchConfig {
    linear_grid(runs(p) * p.rows as usize, block)
}

/// `dpga_draw_rows`: rows `i < count[r]` of run `r` (`p.rows` per run) get the bits of draw `base[r] + i`.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn draw_rows(
    gpu: &Gpu,
    rows: &mut DeviceBuffer<u8>,
    base: &DeviceBuffer<u64>,
    count: &DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::DRAW_ROWS, p);
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.per_run("draw bases", base.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_draw_rows(unsigned char*, const unsigned long long*, const unsigned*, DpgaKernelParams)`;
    // thread t < runs · rows writes row t (L bytes; runs · rows · L checked) and reads base[run], count[run]
    // (runs entries each, checked).
    unsafe {
        kernel
            .launch()
            .output(rows)
            .input(base)
            .input(count)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The box of the problem, one entry per variable.
pub struct DeviceBounds {
    /// Lower bounds.
    pub lower: DeviceBuffer<f32>,
    /// Upper bounds.
    pub upper: DeviceBuffer<f32>,
}

/// `dpga_evaluate`: decodes and evaluates rows `i < count[r]` (`p.rows` per run) into `values`; a non-finite
/// objective or violation records its lowest row in `status[r]`.
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    gpu: &Gpu,
    rows: &DeviceBuffer<u8>,
    bounds: &DeviceBounds,
    values: &mut DeviceValues,
    status: &mut DeviceBuffer<u32>,
    count: &DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::EVALUATE, p);
    let dimension = p.dimension as usize;
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.len("bounds", bounds.lower.len(), dimension)?;
    shape.len("bounds", bounds.upper.len(), dimension)?;
    shape.len("bits", length(p), dimension * p.bits as usize)?;
    shape.values("values", values, p.rows as usize)?;
    shape.per_run("status", status.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: the arguments follow `dpga_evaluate(const unsigned char* rows, const float* lower, const float*
    // upper, double* objective, double* violation, unsigned* satisfied, unsigned* status, const unsigned*
    // count, DpgaKernelParams)`; thread t reads row t (L = D·b bytes) and D bounds and writes entry t of the
    // three value arrays and status[run] (all lengths checked); number, D, m and p come from a valid
    // `Cec2006Problem`, within the kernel's local arrays.
    unsafe {
        kernel
            .launch()
            .input(rows)
            .input(&bounds.lower)
            .input(&bounds.upper)
            .values_mut(values)
            .output(status)
            .input(count)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The kept rows of the initialisation and the draw number of each.
pub struct InitPool {
    /// `runs × m × L` bits.
    pub rows: DeviceBuffer<u8>,
    /// Their evaluations.
    pub values: DeviceValues,
    /// Their draw numbers.
    pub draws: DeviceBuffer<u64>,
}

/// `dpga_init_merge`: the m best of `kept` (none when `p.phase == 1`) and the new candidates into `next`;
/// advances `draws` and sets `count` to the next batch (0: done).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn init_merge(
    gpu: &Gpu,
    kept: &InitPool,
    candidates: &DeviceBuffer<u8>,
    candidate_values: &DeviceValues,
    next: &mut InitPool,
    draws: &mut DeviceBuffer<u64>,
    count: &mut DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::INIT_MERGE, p);
    let m = p.main_size as usize;
    for pool in [kept, &*next] {
        shape.rows("kept rows", pool.rows.len(), m)?;
        shape.values("kept values", &pool.values, m)?;
        shape.per_run("kept draws", pool.draws.len(), m)?;
    }
    shape.rows("candidates", candidates.len(), m)?;
    shape.values("candidate values", candidate_values, m)?;
    shape.per_run("draws", draws.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let shared = u32::try_from(2 * m * size_of::<u32>())
        .ok()
        .filter(|&bytes| bytes <= 48 * 1024)
        .ok_or_else(|| {
            Error::invalid_parameter(
                ALGORITHM,
                "main population size for the CUDA init",
                m,
                "at most 6144 (2m indices in 48 KiB of shared memory)",
            )
        })?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: the arguments follow `dpga_init_merge(kept, kept_objective, kept_violation, kept_satisfied,
    // kept_draw, candidates, objective, violation, satisfied, next, next_objective, next_violation,
    // next_satisfied, next_draw, draws, count, DpgaKernelParams)`; block r reads and writes the m rows of run
    // r in each pool (runs · m rows, checked) and entry r of draws and count; the shared memory holds 2m
    // indices, the largest pool (m kept + at most m candidates).
    unsafe {
        kernel
            .launch()
            .input(&kept.rows)
            .values(&kept.values)
            .input(&kept.draws)
            .input(candidates)
            .values(candidate_values)
            .output(&mut next.rows)
            .values_mut(&mut next.values)
            .output(&mut next.draws)
            .output(draws)
            .output(count)
            .params(p)
            .run(LaunchConfig::linear(p.runs, block, shared))
    }
}

/// `dpga_mean_vector`: the main mean vector of every run.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn mean_vector(
    gpu: &Gpu,
    main: &DeviceBuffer<u8>,
    mean: &mut DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::MEAN_VECTOR, p);
    shape.rows("main rows", main.len(), p.main_size as usize)?;
    shape.rows("mean vector", mean.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_mean_vector(const unsigned char*, double*, DpgaKernelParams)`; thread t < runs · L reads
    // bit t mod L of the m rows of its run and writes mean[t] (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main)
            .output(mean)
            .params(p)
            .run(linear_grid(runs(p) * length(p), block))
    }
}

/// `dpga_reserve_fitness`: `f_r` of `p.rows` rows per run against each run's mean vector and δ.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn reserve_fitness(
    gpu: &Gpu,
    rows: &DeviceBuffer<u8>,
    mean: &DeviceBuffer<f64>,
    delta: &DeviceBuffer<f64>,
    fitness: &mut DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::RESERVE_FITNESS, p);
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.rows("mean vector", mean.len(), 1)?;
    shape.per_run("target distances", delta.len(), 1)?;
    shape.per_run("reserve fitness", fitness.len(), p.rows as usize)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_reserve_fitness(const unsigned char*, const double*, const double*, double*,
    // DpgaKernelParams)`; thread t reads row t, its run's mean (L) and δ, and writes fitness[t] (checked).
    unsafe {
        kernel
            .launch()
            .input(rows)
            .input(mean)
            .input(delta)
            .output(fitness)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The three row sets of step 8 and their reserve fitness: R_t and O_r (`n` rows per run), C (`|C|` rows per
/// run).
pub struct SurvivalSets<'a> {
    /// R_t.
    pub reserve: &'a DeviceBuffer<u8>,
    /// O_r.
    pub offspring: &'a DeviceBuffer<u8>,
    /// C.
    pub crossbred: &'a DeviceBuffer<u8>,
    /// `f_r` of R_t (written).
    pub reserve_fr: &'a mut DeviceBuffer<f64>,
    /// `f_r` of O_r (written).
    pub offspring_fr: &'a mut DeviceBuffer<f64>,
    /// `f_r` of C (written).
    pub crossbred_fr: &'a mut DeviceBuffer<f64>,
}

/// `dpga_reserve_fitness_survival`: step 8's `f_r` of R_t, O_r and C against each run's mean vector (of
/// M_{t+1}) and δ in one launch (the three `dpga_reserve_fitness` launches it replaces give the same values).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn reserve_fitness_survival(
    gpu: &Gpu,
    sets: SurvivalSets<'_>,
    mean: &DeviceBuffer<f64>,
    delta: &DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::RESERVE_FITNESS_SURVIVAL, p);
    let (n, c) = (p.reserve_size as usize, p.crossbreed as usize);
    shape.rows("reserve rows", sets.reserve.len(), n)?;
    shape.rows("offspring rows", sets.offspring.len(), n)?;
    shape.rows("crossbred rows", sets.crossbred.len(), c)?;
    shape.per_run("reserve fitness", sets.reserve_fr.len(), n)?;
    shape.per_run("offspring fitness", sets.offspring_fr.len(), n)?;
    shape.per_run("crossbred fitness", sets.crossbred_fr.len(), c)?;
    shape.rows("mean vector", mean.len(), 1)?;
    shape.per_run("target distances", delta.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_reserve_fitness_survival(const unsigned char*, const unsigned char*, const unsigned char*,
    // const double*, const double*, double*, double*, double*, DpgaKernelParams)`; thread t < runs · (2n + |C|)
    // reads one row of R_t, O_r or C (n, n, |C| rows of L bits per run), its run's mean (L) and δ, and writes
    // that row's fitness (every length checked).
    unsafe {
        kernel
            .launch()
            .input(sets.reserve)
            .input(sets.offspring)
            .input(sets.crossbred)
            .input(mean)
            .input(delta)
            .output(sets.reserve_fr)
            .output(sets.offspring_fr)
            .output(sets.crossbred_fr)
            .params(p)
            .run(linear_grid(runs(p) * (2 * n + c), block))
    }
}

/// `dpga_breed_main`: O_m from M by tournaments under the comparator (step 4).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn breed_main(
    gpu: &Gpu,
    main: &DeviceBuffer<u8>,
    values: &DeviceValues,
    offspring: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::BREED_MAIN, p);
    let m = p.main_size as usize;
    shape.rows("main rows", main.len(), m)?;
    shape.values("main values", values, m)?;
    shape.rows("offspring rows", offspring.len(), m)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_breed_main(const unsigned char* main, const double*, const double*, const unsigned*,
    // unsigned char* offspring, DpgaKernelParams)`; block (pair, run) reads rows and values of its run below
    // m (tournament indices are below(·, m)) and writes its two offspring rows (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main)
            .values(values)
            .output(offspring)
            .params(p)
            .run(grid_2d(m / 2, p, block))
    }
}

/// `dpga_breed_reserve`: O_r from R by tournaments on `f_r` (step 5).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn breed_reserve(
    gpu: &Gpu,
    reserve: &DeviceBuffer<u8>,
    fitness: &DeviceBuffer<f64>,
    offspring: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::BREED_RESERVE, p);
    let n = p.reserve_size as usize;
    shape.rows("reserve rows", reserve.len(), n)?;
    shape.per_run("reserve fitness", fitness.len(), n)?;
    shape.rows("offspring rows", offspring.len(), n)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_breed_reserve(const unsigned char*, const double*, unsigned char*, DpgaKernelParams)`;
    // block (pair, run) reads rows and f_r of its run below n and writes its two offspring rows (checked).
    unsafe {
        kernel
            .launch()
            .input(reserve)
            .input(fitness)
            .output(offspring)
            .params(p)
            .run(grid_2d(n / 2, p, block))
    }
}

/// `dpga_crossbreed`: C from the k-th best of O_m and O_r (step 6).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn crossbreed(
    gpu: &Gpu,
    offspring_main: &DeviceBuffer<u8>,
    offspring_reserve: &DeviceBuffer<u8>,
    best_main: &DeviceBuffer<u32>,
    best_reserve: &DeviceBuffer<u32>,
    crossbred: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::CROSSBREED, p);
    let half = p.crossbreed as usize / 2;
    shape.rows("main offspring", offspring_main.len(), p.main_size as usize)?;
    shape.rows(
        "reserve offspring",
        offspring_reserve.len(),
        p.reserve_size as usize,
    )?;
    shape.per_run("best of O_m", best_main.len(), half)?;
    shape.per_run("best of O_r", best_reserve.len(), half)?;
    shape.rows("crossbred rows", crossbred.len(), p.crossbreed as usize)?;
    if half == 0 {
        return Ok(());
    }
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_crossbreed(const unsigned char*, const unsigned char*, const unsigned*, const unsigned*,
    // unsigned char*, DpgaKernelParams)`; block (pair, run) reads the indices of its pair (below m and n, from
    // the selections) and writes its two rows of C (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(offspring_main)
            .input(offspring_reserve)
            .input(best_main)
            .input(best_reserve)
            .output(crossbred)
            .params(p)
            .run(grid_2d(half, p, block))
    }
}

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
