//! Typed launch functions, one per kernel of `kernels/cuda/dpga.cu`. Each checks its buffers against the
//! parameters (run-major: run `r` owns slice `r` of every buffer) and derives the launch shape;
//! [`super::DpgaBatchCuda`] composes them. This file holds the parameter struct and the shape checks every
//! launch shares; the launch functions live with their step of the generation (`launch/init.rs`,
//! `fitness.rs`, `breed.rs`, `survival.rs`) and are re-exported here.

use evo_core::{Error, Result};
use evo_gpu_runtime::{
    DeviceBuffer, Gpu, Kernel, KernelParams, Launch, LaunchConfig, LaunchSite, Profile,
};
use evo_kernels::EntryPoint;

use crate::params::ALGORITHM;

mod breed;
mod contract;
mod fitness;
mod init;
mod survival;

pub use breed::{breed_main, breed_reserve, crossbreed};
pub use contract::{ContractEvaluation, ContractParams, DECODE_ENTRY, SUMMARISE_ENTRY};
pub use fitness::{SurvivalSets, mean_vector, reserve_fitness, reserve_fitness_survival};
pub use init::{DeviceBounds, InitPool, draw_rows, evaluate, init_merge};
pub use survival::{
    DeviceBest, MainSet, finish, gather_main, gather_reserve, select_main, select_reserve,
};

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
