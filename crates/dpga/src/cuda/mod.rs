//! The CUDA engines: [`DpgaBatchCuda`] runs K independent DPGA runs of one problem in the same launches (run
//! `r` from seed `seed + r`), both populations of every run resident on the device: a CEC 2006 problem with
//! its formulas fused into `dpga_evaluate` (`new`), or any [`DeviceConstrainedProblem`] (`for_problem`: the
//! rows decoded by `evo_dpga_contract_decode`, the problem's evaluator, `evo_dpga_contract_summarise`, see
//! `launch/contract.rs`);
//! [`DpgaCuda`] is the one-run [`Engine`] over it. Under the Exact profile every snapshot equals
//! [`crate::DpgaCpu`]'s bit for bit (`tests/tests/dpga.rs` of evo-equivalence).
//!
//! One generation (spec §2 items 4–9), every kernel over all K runs:
//!
//! | step | kernel | launch shape |
//! | --- | --- | --- |
//! | mean vector of M (after the initialisation or a restore only: step 8 leaves it), `f_r` of R | `dpga_mean_vector`, `dpga_reserve_fitness` | thread per (run, bit), per (run, row) |
//! | 4 inbreeding of M | `dpga_breed_main` | block per (pair, run), threads over the bits |
//! | evaluation of O_m and C | `dpga_evaluate` (or the contract's three launches) | thread per (run, row): decode, CEC 2006 formula, constraints |
//! | 5 inbreeding of R | `dpga_breed_reserve` | block per (pair, run) |
//! | 6 best of O_m, O_r; crossbreeding | `dpga_select_main`, `dpga_select_reserve`, `dpga_crossbreed` | warp per (candidate, run) (ranks); block per (pair, run) |
//! | 7 survival of M | `dpga_select_main` ×2, `dpga_gather_main` | warp per (candidate, run); block per (row, run) |
//! | 8 survival of R | `dpga_mean_vector`, `dpga_reserve_fitness_survival` (R_t, O_r and C), `dpga_select_reserve` ×2, `dpga_gather_reserve` | as above |
//! | 9 δ, best so far | `dpga_finish` | block per run (block reduction) |
//!
//! The initialisation (item 2) loops `dpga_draw_rows` → `dpga_evaluate` → `dpga_init_merge` until every run
//! has `m` feasible candidates or its draw budget is spent (runs that are done only copy their rows); the host
//! reads back one counter per run per batch. After each generation the host reads one buffer, the best-so-far
//! values and the non-finite status (4 numbers per run, written by `dpga_finish`), for [`Engine::progress`]
//! and errors: 18 launches and one synchronising copy per generation.
//!
//! The files follow the algorithm: `init.rs` (item 2), `generation.rs` (items 4–9), `snapshots.rs` (snapshots
//! and restore), `sizes.rs` (the kernel parameters from [`DpgaParams`]) and `launch.rs` (one typed launch
//! function per kernel); this file holds the engines, their buffers and the [`Engine`] implementation.

mod generation;
mod init;
pub mod launch;
mod sizes;
mod snapshots;
pub(crate) mod user_eval;

use evo_benchmarks::Cec2006Problem;
use evo_benchmarks::cuda::{DeviceConstrainedProblem, check_evaluator_shape};
use evo_core::{Bounds, ConstrainedProblem, Engine, Error, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{DeviceBuffer, Gpu, check_block_size};

use crate::ops::{self, Evaluation};
use crate::params::{ALGORITHM, DpgaParams};
use crate::snapshot::DpgaSnapshot;
use launch::{ContractEvaluation, DeviceBest, DeviceBounds, DeviceValues, DpgaKernelParams};

/// The default threads per block.
pub const DEFAULT_BLOCK: u32 = 128;

/// The largest number of runs per batch (the grid's y dimension).
pub const MAX_RUNS: usize = 65_535;

/// The per-generation scratch buffers.
struct Scratch {
    mean: DeviceBuffer<f64>,
    reserve_fr: DeviceBuffer<f64>,
    offspring_main: DeviceBuffer<u8>,
    offspring_main_values: DeviceValues,
    offspring_reserve: DeviceBuffer<u8>,
    offspring_reserve_fr: DeviceBuffer<f64>,
    best_main: DeviceBuffer<u32>,
    best_reserve: DeviceBuffer<u32>,
    crossbred: DeviceBuffer<u8>,
    crossbred_values: DeviceValues,
    crossbred_fr: DeviceBuffer<f64>,
    main_elites: DeviceBuffer<u32>,
    main_chosen: DeviceBuffer<u32>,
    reserve_elites: DeviceBuffer<u32>,
    reserve_chosen: DeviceBuffer<u32>,
    next_main: DeviceBuffer<u8>,
    next_main_values: DeviceValues,
    next_reserve: DeviceBuffer<u8>,
    main_count: DeviceBuffer<u32>,
    crossbred_count: DeviceBuffer<u32>,
    /// Per run (best objective, violation, satisfied count, status), written by `dpga_finish`.
    report: DeviceBuffer<f64>,
}

/// How a batch evaluates its rows.
enum RowEvaluation {
    /// CEC 2006's formulas fused into `dpga_evaluate` (decode, formula, constraints in one launch).
    Cec2006Fused,
    /// Any [`DeviceConstrainedProblem`]: decode, the problem's evaluator, summary.
    Contract(Box<ContractEvaluation>),
}

impl RowEvaluation {
    /// Rows `i < count[r]` of `p.rows` per run into `values` (`launch::evaluate`'s contract).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        gpu: &Gpu,
        rows: &DeviceBuffer<u8>,
        bounds: &DeviceBounds,
        values: &mut DeviceValues,
        status: &mut DeviceBuffer<u32>,
        count: &DeviceBuffer<u32>,
        p: &DpgaKernelParams,
        block: u32,
    ) -> Result<()> {
        match self {
            Self::Cec2006Fused => {
                launch::evaluate(gpu, rows, bounds, values, status, count, p, block)
            }
            Self::Contract(contract) => {
                contract.evaluate(rows, bounds, values, status, count, p, block)
            }
        }
    }

    /// What a stream-ordered evaluator found since the last read-back.
    fn check(&mut self) -> Result<()> {
        match self {
            Self::Cec2006Fused => Ok(()),
            Self::Contract(contract) => contract.check(),
        }
    }
}

/// K independent DPGA runs of one constrained problem on one GPU (Exact profile).
pub struct DpgaBatchCuda {
    gpu: Gpu,
    params: DpgaParams,
    /// The problem's name, for reports and errors.
    problem: String,
    /// The problem's box (the snapshot fingerprint and the decoding of the best row).
    host_bounds: Bounds,
    evaluation: RowEvaluation,
    kernel: DpgaKernelParams,
    block: u32,
    runs: usize,
    generation: u64,
    /// Evaluations of every run (the initial draws differ between runs).
    evaluations: Vec<u64>,
    /// The best-so-far evaluation of every run, read back after every generation.
    best_values: Vec<Evaluation>,
    bounds: DeviceBounds,
    main: DeviceBuffer<u8>,
    main_values: DeviceValues,
    reserve: DeviceBuffer<u8>,
    delta: DeviceBuffer<f64>,
    best: DeviceBest,
    status: DeviceBuffer<u32>,
    scratch: Scratch,
    /// Whether `scratch.mean` holds the mean vector of the current `main` (step 8 leaves the mean of
    /// M_{t+1}, which the next generation starts from; false after the initialisation and a restore).
    mean_current: bool,
}

impl DpgaBatchCuda {
    /// `runs` runs of `problem` on `gpu` (run `r` from seed `seed + r`, wrapping), with M0 and R0 drawn
    /// (spec §2 item 2) and blocks of [`DEFAULT_BLOCK`] threads.
    ///
    /// # Errors
    /// Parameter errors as [`crate::DpgaCpu::new`]; [`Error::InvalidParameter`] for `runs` outside
    /// `1..=65535`; [`Error::NonFiniteFitness`] for a non-finite initial evaluation; GPU errors.
    pub fn new(
        params: DpgaParams,
        problem: &Cec2006Problem,
        seed: u64,
        runs: usize,
        gpu: &Gpu,
    ) -> Result<Self> {
        Self::with_block(params, problem, seed, runs, gpu, DEFAULT_BLOCK)
    }

    /// As [`new`](Self::new) with `block` threads per block (a power of two in 32..=1024); the results do
    /// not depend on it.
    ///
    /// # Errors
    /// As [`new`](Self::new); [`Error::InvalidParameter`] for a bad block size.
    pub fn with_block(
        params: DpgaParams,
        problem: &Cec2006Problem,
        seed: u64,
        runs: usize,
        gpu: &Gpu,
        block: u32,
    ) -> Result<Self> {
        Self::build(
            params,
            problem,
            problem.number(),
            RowEvaluation::Cec2006Fused,
            seed,
            runs,
            gpu,
            block,
        )
    }

    /// `runs` runs of any problem with a device evaluation ([`DeviceConstrainedProblem`]: user CUDA source,
    /// a user's own kernels, a host callback, or CEC 2006 through the contract), run `r` from seed
    /// `seed + r`: every generation decodes the rows, calls the problem's evaluator and summarises its
    /// objective and constraint values on the device (three launches where [`new`](Self::new) fuses one).
    ///
    /// # Errors
    /// As [`with_block`](Self::with_block); the problem's [`constrained_evaluator`] errors (user source
    /// that does not compile, a missing entry point); [`Error::InvalidParameter`] when the evaluator's
    /// dimension or constraint counts differ from the problem's.
    ///
    /// [`constrained_evaluator`]: DeviceConstrainedProblem::constrained_evaluator
    pub fn for_problem<P: DeviceConstrainedProblem + ?Sized>(
        params: DpgaParams,
        problem: &P,
        seed: u64,
        runs: usize,
        gpu: &Gpu,
        block: u32,
    ) -> Result<Self> {
        params.check_relations()?;
        check_block_size(ALGORITHM, block)?;
        let evaluator = problem.constrained_evaluator(gpu)?;
        check_evaluator_shape(problem, evaluator.as_ref())?;
        let contract = ContractEvaluation::new(gpu, problem.name(), evaluator)?;
        Self::build(
            params,
            problem,
            0,
            RowEvaluation::Contract(Box::new(contract)),
            seed,
            runs,
            gpu,
            block,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn build<P: ConstrainedProblem + ?Sized>(
        params: DpgaParams,
        problem: &P,
        number: u32,
        evaluation: RowEvaluation,
        seed: u64,
        runs: usize,
        gpu: &Gpu,
        block: u32,
    ) -> Result<Self> {
        params.check_relations()?;
        check_block_size(ALGORITHM, block)?;
        if runs == 0 || runs > MAX_RUNS {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "runs per batch",
                runs,
                format!("in 1..={MAX_RUNS}"),
            ));
        }
        let (m, n) = (params.main_size(), params.reserve_size());
        let dimension = problem.dimension();
        let length = dimension * params.bits_per_variable() as usize;
        let crossbreed = params.crossbreed_size();
        let kernel = DpgaKernelParams::new(&params, problem, number, seed, runs)?;
        let bits = |rows: usize| gpu.alloc_zeroed::<u8>(runs * rows * length);
        let scratch = Scratch {
            mean: gpu.alloc_zeroed(runs * length)?,
            reserve_fr: gpu.alloc_zeroed(runs * n)?,
            offspring_main: bits(m)?,
            offspring_main_values: DeviceValues::alloc(gpu, runs * m)?,
            offspring_reserve: bits(n)?,
            offspring_reserve_fr: gpu.alloc_zeroed(runs * n)?,
            best_main: gpu.alloc_zeroed(runs * (crossbreed / 2))?,
            best_reserve: gpu.alloc_zeroed(runs * (crossbreed / 2))?,
            crossbred: bits(crossbreed)?,
            crossbred_values: DeviceValues::alloc(gpu, runs * crossbreed)?,
            crossbred_fr: gpu.alloc_zeroed(runs * crossbreed)?,
            main_elites: gpu.alloc_zeroed(runs * params.main_elites())?,
            main_chosen: gpu.alloc_zeroed(runs * (m - params.main_elites()))?,
            reserve_elites: gpu.alloc_zeroed(runs * params.reserve_elites())?,
            reserve_chosen: gpu.alloc_zeroed(runs * (n - params.reserve_elites()))?,
            next_main: bits(m)?,
            next_main_values: DeviceValues::alloc(gpu, runs * m)?,
            next_reserve: bits(n)?,
            main_count: gpu.upload(&vec![kernel.main_size; runs])?,
            crossbred_count: gpu.upload(&vec![kernel.crossbreed; runs])?,
            report: gpu.alloc_zeroed(4 * runs)?,
        };
        let bounds = problem.bounds();
        let mut engine = Self {
            gpu: gpu.clone(),
            problem: problem.name().to_string(),
            host_bounds: bounds.clone(),
            evaluation,
            kernel,
            block,
            runs,
            generation: 0,
            evaluations: vec![0; runs],
            best_values: Vec::new(),
            bounds: DeviceBounds {
                lower: gpu.upload(bounds.lower())?,
                upper: gpu.upload(bounds.upper())?,
            },
            main: bits(m)?,
            main_values: DeviceValues::alloc(gpu, runs * m)?,
            reserve: bits(n)?,
            delta: gpu.upload(&vec![params.initial_target_distance(); runs])?,
            best: DeviceBest {
                rows: gpu.alloc_zeroed(runs * length)?,
                values: DeviceValues {
                    objective: gpu.upload(&vec![f64::INFINITY; runs])?,
                    violation: gpu.upload(&vec![f64::INFINITY; runs])?,
                    satisfied: gpu.alloc_zeroed(runs)?,
                },
            },
            status: gpu.upload(&vec![u32::MAX; runs])?,
            scratch,
            mean_current: false,
            params,
        };
        engine.initialise()?;
        Ok(engine)
    }

    /// Runs in the batch.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Generations completed (the same for every run).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The parameters.
    pub fn params(&self) -> &DpgaParams {
        &self.params
    }

    /// The problem's name.
    pub fn problem_name(&self) -> &str {
        &self.problem
    }

    /// The problem's box.
    pub fn bounds(&self) -> &Bounds {
        &self.host_bounds
    }

    /// The GPU.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The best-so-far evaluation of run `run` (objective, violation, satisfied count).
    ///
    /// # Panics
    /// When `run >= self.runs()`.
    pub fn best_evaluation(&self, run: usize) -> Evaluation {
        self.best_values[run]
    }

    /// Run `run`'s progress: as [`crate::DpgaCpu`], the best fitness is the best-so-far's objective when it
    /// is feasible and `+inf` before.
    ///
    /// # Panics
    /// When `run >= self.runs()`.
    pub fn progress(&self, run: usize) -> Progress {
        let best = &self.best_values[run];
        Progress {
            generation: self.generation,
            evaluations: self.evaluations[run],
            best_fitness: if best.feasible {
                best.objective
            } else {
                f64::INFINITY
            },
        }
    }

    /// Every run's progress.
    pub fn progress_all(&self) -> Vec<Progress> {
        (0..self.runs).map(|r| self.progress(r)).collect()
    }

    /// The decoded variables of a bit string.
    pub fn decode(&self, bits: &[u8]) -> Vec<f32> {
        let bounds = &self.host_bounds;
        ops::decode(
            bits,
            self.params.bits_per_variable() as usize,
            self.params.encoding(),
            bounds.lower(),
            bounds.upper(),
        )
    }
}

/// The one-run CUDA engine: a [`DpgaBatchCuda`] of one run, as an [`Engine`] for the
/// [`Executor`](evo_core::Executor). Its snapshots are [`crate::DpgaCpu`]'s, so a run moves between backends.
pub struct DpgaCuda {
    batch: DpgaBatchCuda,
}

impl DpgaCuda {
    /// One run of `problem` from `seed` on `gpu` (Exact profile), with M0 and R0 drawn.
    ///
    /// # Errors
    /// As [`DpgaBatchCuda::new`].
    pub fn new(params: DpgaParams, problem: &Cec2006Problem, seed: u64, gpu: &Gpu) -> Result<Self> {
        Self::with_block(params, problem, seed, gpu, DEFAULT_BLOCK)
    }

    /// As [`new`](Self::new) with `block` threads per block.
    ///
    /// # Errors
    /// As [`DpgaBatchCuda::with_block`].
    pub fn with_block(
        params: DpgaParams,
        problem: &Cec2006Problem,
        seed: u64,
        gpu: &Gpu,
        block: u32,
    ) -> Result<Self> {
        Ok(Self {
            batch: DpgaBatchCuda::with_block(params, problem, seed, 1, gpu, block)?,
        })
    }

    /// One run of any problem with a device evaluation, as [`DpgaBatchCuda::for_problem`] with
    /// [`DEFAULT_BLOCK`] threads per block.
    ///
    /// # Errors
    /// As [`DpgaBatchCuda::for_problem`].
    pub fn for_problem<P: DeviceConstrainedProblem + ?Sized>(
        params: DpgaParams,
        problem: &P,
        seed: u64,
        gpu: &Gpu,
    ) -> Result<Self> {
        Ok(Self {
            batch: DpgaBatchCuda::for_problem(params, problem, seed, 1, gpu, DEFAULT_BLOCK)?,
        })
    }

    /// The evaluation of the best individual so far.
    pub fn best_evaluation(&self) -> Evaluation {
        self.batch.best_evaluation(0)
    }

    /// The batch of one run underneath.
    pub fn batch(&self) -> &DpgaBatchCuda {
        &self.batch
    }
}

impl Engine for DpgaCuda {
    type Solution = Vec<f32>;
    type Snapshot = DpgaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint_of(
            self.batch.kernel.seed,
            &self.batch.params,
            &self.batch.problem,
            &self.batch.host_bounds,
        )
    }

    fn step(&mut self) -> Result<()> {
        self.batch.step()
    }

    fn progress(&self) -> Progress {
        self.batch.progress(0)
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        let best = self.batch.best.rows.to_vec()?;
        Ok((self.batch.decode(&best), self.progress().best_fitness))
    }

    fn snapshot(&self) -> Result<DpgaSnapshot> {
        self.batch.snapshot(0)
    }

    fn restore(&mut self, snapshot: &DpgaSnapshot) -> Result<()> {
        self.batch.restore_all(std::slice::from_ref(snapshot))
    }
}
