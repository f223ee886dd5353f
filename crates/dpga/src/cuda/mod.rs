//! The CUDA engines: [`DpgaBatchCuda`] runs K independent DPGA runs of one CEC 2006 problem in the same
//! launches (run `r` from seed `seed + r`), both populations of every run resident on the device;
//! [`DpgaCuda`] is the one-run [`Engine`] over it. Under the Exact profile every snapshot equals
//! [`crate::DpgaCpu`]'s bit for bit (`tests/tests/dpga.rs` of evo-equivalence).
//!
//! One generation (spec §2 items 4–9), every kernel over all K runs:
//!
//! | step | kernel | launch shape |
//! | --- | --- | --- |
//! | mean vector of M (after the initialisation or a restore only: step 8 leaves it), `f_r` of R | `dpga_mean_vector`, `dpga_reserve_fitness` | thread per (run, bit), per (run, row) |
//! | 4 inbreeding of M | `dpga_breed_main` | block per (pair, run), threads over the bits |
//! | evaluation of O_m and C | `dpga_evaluate` | thread per (run, row): decode, CEC 2006 formula, constraints |
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

pub mod launch;
mod sizes;

use evo_benchmarks::Cec2006Problem;
use evo_core::{ConstrainedProblem, Engine, Error, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{DeviceBuffer, Gpu, check_block_size};

use crate::ops::{self, Evaluation};
use crate::params::{ALGORITHM, DpgaParams};
use crate::snapshot::DpgaSnapshot;
use launch::{
    DeviceBest, DeviceBounds, DeviceValues, DpgaKernelParams, InitPool, MainSet, SurvivalSets,
};

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

/// K independent DPGA runs of one CEC 2006 problem on one GPU (Exact profile).
pub struct DpgaBatchCuda {
    gpu: Gpu,
    params: DpgaParams,
    problem: Cec2006Problem,
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

/// A count of the kernels' report (satisfied constraints, or the first non-finite row with u32::MAX for
/// none), which travels as an f64 beside the objective and violation.
// The kernel writes u32 values, which an f64 holds exactly, so the cast gives them back unchanged.
#[allow(clippy::cast_possible_truncation)]
fn report_count(x: f64) -> u32 {
    x as u32
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
        let kernel = DpgaKernelParams::new(&params, problem, seed, runs)?;
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
            problem: problem.clone(),
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

    /// Step 2: M0 by batches of `m` candidates per run, R0 uniform, then the best so far.
    fn initialise(&mut self) -> Result<()> {
        let gpu = &self.gpu.clone();
        let (block, runs) = (self.block, self.runs);
        let m = self.params.main_size();
        let length = self.kernel.length as usize;
        let main_size = self.kernel.main_size;
        // min(max_draws, M); a draw limit beyond u32::MAX is beyond M too.
        let first_batch =
            u32::try_from(self.kernel.max_draws).map_or(main_size, |draws| draws.min(main_size));
        let mut count = gpu.upload(&vec![first_batch; runs])?;
        let mut draws = gpu.alloc_zeroed::<u64>(runs)?;
        let mut candidates = gpu.alloc_zeroed::<u8>(runs * m * length)?;
        let mut candidate_values = DeviceValues::alloc(gpu, runs * m)?;
        let pool = || -> Result<InitPool> {
            Ok(InitPool {
                rows: gpu.alloc_zeroed(runs * m * length)?,
                values: DeviceValues::alloc(gpu, runs * m)?,
                draws: gpu.alloc_zeroed(runs * m)?,
            })
        };
        let (mut kept, mut next) = (pool()?, pool()?);
        let mut p = DpgaKernelParams {
            step: 0,
            rows: self.kernel.main_size,
            phase: 1,
            ..self.kernel
        };
        loop {
            launch::draw_rows(gpu, &mut candidates, &draws, &count, &p, block)?;
            launch::evaluate(
                gpu,
                &candidates,
                &self.bounds,
                &mut candidate_values,
                &mut self.status,
                &count,
                &p,
                block,
            )?;
            launch::init_merge(
                gpu,
                &kept,
                &candidates,
                &candidate_values,
                &mut next,
                &mut draws,
                &mut count,
                &p,
                block,
            )?;
            std::mem::swap(&mut kept, &mut next);
            p.phase = 0;
            self.check_status()?;
            if count.to_vec()?.iter().all(|&c| c == 0) {
                break;
            }
        }
        self.main = kept.rows;
        self.main_values = kept.values;
        self.evaluations = draws.to_vec()?;
        let zero_base = gpu.alloc_zeroed::<u64>(runs)?;
        let reserve_count = gpu.upload(&vec![self.kernel.reserve_size; runs])?;
        let p = DpgaKernelParams {
            step: 1,
            rows: self.kernel.reserve_size,
            ..self.kernel
        };
        launch::draw_rows(
            gpu,
            &mut self.reserve,
            &zero_base,
            &reserve_count,
            &p,
            block,
        )?;
        self.finish_generation(false)
    }

    /// The first non-finite evaluation of the lowest run, as the CPU reports it (row index within the
    /// evaluated set; the GPU does not keep the value, reported as NaN).
    fn check_status(&mut self) -> Result<()> {
        let status = self.status.to_vec()?;
        match status.iter().find(|&&s| s != u32::MAX) {
            Some(&row) => Err(Error::NonFiniteFitness {
                problem: self.problem.name().to_string(),
                individual: row as usize,
                value: f64::NAN,
            }),
            None => Ok(()),
        }
    }

    /// δ adaptation (`adapt`) and the best-so-far update, then one read-back: the status (a non-finite
    /// evaluation is an error) and the best values.
    fn finish_generation(&mut self, adapt: bool) -> Result<()> {
        let p = DpgaKernelParams {
            phase: u32::from(adapt),
            ..self.kernel
        };
        launch::finish(
            &self.gpu,
            MainSet {
                rows: &self.main,
                values: &self.main_values,
            },
            &self.scratch.main_chosen,
            &mut self.delta,
            &mut self.best,
            &self.status,
            &mut self.scratch.report,
            &p,
            self.block,
        )?;
        let report = self.scratch.report.to_vec()?;
        if let Some(row) = report
            .chunks_exact(4)
            .map(|r| report_count(r[3]))
            .find(|&s| s != u32::MAX)
        {
            return Err(Error::NonFiniteFitness {
                problem: self.problem.name().to_string(),
                individual: row as usize,
                value: f64::NAN,
            });
        }
        let total = self.kernel.inequalities + self.kernel.equalities;
        self.best_values = report
            .chunks_exact(4)
            .map(|r| Evaluation {
                objective: r[0],
                violation: r[1],
                satisfied: report_count(r[2]),
                feasible: report_count(r[2]) == total,
            })
            .collect();
        Ok(())
    }

    /// One generation of every run (spec §2 items 4–9).
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`]; [`Error::InvalidParameter`] past generation 2^32 − 1; GPU errors.
    pub fn step(&mut self) -> Result<()> {
        let generation = u32::try_from(self.generation).map_err(|_| {
            Error::invalid_parameter(
                ALGORITHM,
                "generation",
                self.generation,
                "below 2^32 (the Philox step word)",
            )
        })?;
        let (gpu, block) = (&self.gpu, self.block);
        let k = self.kernel;
        let base = DpgaKernelParams {
            step: generation,
            ..k
        };
        let with_rows = |rows: u32| DpgaKernelParams { rows, ..base };
        let select = |a: u32, b: u32, count: u32| DpgaKernelParams {
            select_a: a,
            select_b: b,
            select_count: count,
            ..base
        };
        let (m, n, c) = (k.main_size, k.reserve_size, k.crossbreed);
        let s = &mut self.scratch;

        if !self.mean_current {
            launch::mean_vector(gpu, &self.main, &mut s.mean, &base, block)?;
        }
        // Set again once M_{t+1} and its mean are in place (an error on the way leaves it false).
        self.mean_current = false;
        launch::reserve_fitness(
            gpu,
            &self.reserve,
            &s.mean,
            &self.delta,
            &mut s.reserve_fr,
            &with_rows(n),
            block,
        )?;
        // Step 4.
        launch::breed_main(
            gpu,
            &self.main,
            &self.main_values,
            &mut s.offspring_main,
            &base,
            block,
        )?;
        launch::evaluate(
            gpu,
            &s.offspring_main,
            &self.bounds,
            &mut s.offspring_main_values,
            &mut self.status,
            &s.main_count,
            &with_rows(m),
            block,
        )?;
        // Step 5.
        launch::breed_reserve(
            gpu,
            &self.reserve,
            &s.reserve_fr,
            &mut s.offspring_reserve,
            &base,
            block,
        )?;
        launch::reserve_fitness(
            gpu,
            &s.offspring_reserve,
            &s.mean,
            &self.delta,
            &mut s.offspring_reserve_fr,
            &with_rows(n),
            block,
        )?;
        // Step 6.
        launch::select_main(
            gpu,
            &s.offspring_main_values,
            &s.crossbred_values,
            &mut s.best_main,
            &select(m, 0, c / 2),
            block,
        )?;
        launch::select_reserve(
            gpu,
            &s.offspring_reserve_fr,
            &s.crossbred_fr,
            &mut s.best_reserve,
            &select(n, 0, c / 2),
            block,
        )?;
        launch::crossbreed(
            gpu,
            &s.offspring_main,
            &s.offspring_reserve,
            &s.best_main,
            &s.best_reserve,
            &mut s.crossbred,
            &base,
            block,
        )?;
        launch::evaluate(
            gpu,
            &s.crossbred,
            &self.bounds,
            &mut s.crossbred_values,
            &mut self.status,
            &s.crossbred_count,
            &with_rows(c),
            block,
        )?;
        // Step 7.
        let e_m = k.main_elites;
        launch::select_main(
            gpu,
            &self.main_values,
            &s.crossbred_values,
            &mut s.main_elites,
            &select(m, 0, e_m),
            block,
        )?;
        launch::select_main(
            gpu,
            &s.offspring_main_values,
            &s.crossbred_values,
            &mut s.main_chosen,
            &select(m, c, m - e_m),
            block,
        )?;
        launch::gather_main(
            gpu,
            MainSet {
                rows: &self.main,
                values: &self.main_values,
            },
            MainSet {
                rows: &s.offspring_main,
                values: &s.offspring_main_values,
            },
            MainSet {
                rows: &s.crossbred,
                values: &s.crossbred_values,
            },
            &s.main_elites,
            &s.main_chosen,
            &mut s.next_main,
            &mut s.next_main_values,
            &base,
            block,
        )?;
        // Step 8: f_r against M_{t+1} with the current δ.
        launch::mean_vector(gpu, &s.next_main, &mut s.mean, &base, block)?;
        launch::reserve_fitness_survival(
            gpu,
            SurvivalSets {
                reserve: &self.reserve,
                offspring: &s.offspring_reserve,
                crossbred: &s.crossbred,
                reserve_fr: &mut s.reserve_fr,
                offspring_fr: &mut s.offspring_reserve_fr,
                crossbred_fr: &mut s.crossbred_fr,
            },
            &s.mean,
            &self.delta,
            &base,
            block,
        )?;
        let e_r = k.reserve_elites;
        launch::select_reserve(
            gpu,
            &s.reserve_fr,
            &s.crossbred_fr,
            &mut s.reserve_elites,
            &select(n, 0, e_r),
            block,
        )?;
        launch::select_reserve(
            gpu,
            &s.offspring_reserve_fr,
            &s.crossbred_fr,
            &mut s.reserve_chosen,
            &select(n, c, n - e_r),
            block,
        )?;
        launch::gather_reserve(
            gpu,
            &self.reserve,
            &s.offspring_reserve,
            &s.crossbred,
            &s.reserve_elites,
            &s.reserve_chosen,
            &mut s.next_reserve,
            &base,
            block,
        )?;
        std::mem::swap(&mut self.main, &mut s.next_main);
        std::mem::swap(&mut self.main_values, &mut s.next_main_values);
        std::mem::swap(&mut self.reserve, &mut s.next_reserve);
        // `s.mean` is the mean of `next_main`, now `main`: the next generation's first launch is not needed.
        self.mean_current = true;
        // Step 9 and the best so far.
        self.finish_generation(true)?;
        self.generation += 1;
        let per_generation = (m + c) as u64;
        for e in &mut self.evaluations {
            *e += per_generation;
        }
        Ok(())
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

    /// The problem.
    pub fn problem(&self) -> &Cec2006Problem {
        &self.problem
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
        let bounds = self.problem.bounds();
        ops::decode(
            bits,
            self.params.bits_per_variable() as usize,
            self.params.encoding(),
            bounds.lower(),
            bounds.upper(),
        )
    }

    /// The snapshots of every run (the format of [`crate::DpgaCpu`]'s).
    ///
    /// # Errors
    /// GPU errors.
    pub fn snapshots(&self) -> Result<Vec<DpgaSnapshot>> {
        let total = self.kernel.inequalities + self.kernel.equalities;
        let (m, n, length) = (
            self.params.main_size(),
            self.params.reserve_size(),
            self.kernel.length as usize,
        );
        let main = self.main.to_vec()?;
        let objective = self.main_values.objective.to_vec()?;
        let violation = self.main_values.violation.to_vec()?;
        let satisfied = self.main_values.satisfied.to_vec()?;
        let reserve = self.reserve.to_vec()?;
        let delta = self.delta.to_vec()?;
        let best = self.best.rows.to_vec()?;
        Ok((0..self.runs)
            .map(|r| DpgaSnapshot {
                seed: self.kernel.seed.wrapping_add(r as u64),
                generation: self.generation,
                evaluations: self.evaluations[r],
                length,
                main: main[r * m * length..(r + 1) * m * length].to_vec(),
                main_values: (r * m..(r + 1) * m)
                    .map(|i| Evaluation {
                        objective: objective[i],
                        violation: violation[i],
                        satisfied: satisfied[i],
                        feasible: satisfied[i] == total,
                    })
                    .collect(),
                reserve: reserve[r * n * length..(r + 1) * n * length].to_vec(),
                target_distance: delta[r],
                best: best[r * length..(r + 1) * length].to_vec(),
                best_value: self.best_values[r],
                encoding: self.params.encoding(),
            })
            .collect())
    }

    /// Run `run`'s snapshot.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a run outside the batch; GPU errors.
    pub fn snapshot(&self, run: usize) -> Result<DpgaSnapshot> {
        if run >= self.runs {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "run",
                run,
                format!("below the batch's {} runs", self.runs),
            ));
        }
        let mut all = self.snapshots()?;
        Ok(all.swap_remove(run))
    }

    /// Restores every run from its snapshot (one per run, all at the same generation), from either backend.
    /// Run `r`'s snapshot must carry this batch's seed of run `r` (`seed + r`, wrapping): another seed is
    /// refused, never adopted, as in every engine.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a count, shape or generation mismatch; [`Error::InvalidSnapshot`]
    /// for another seed or a value no run reaches; GPU errors.
    pub fn restore_all(&mut self, snapshots: &[DpgaSnapshot]) -> Result<()> {
        let (m, n, length) = (
            self.params.main_size(),
            self.params.reserve_size(),
            self.kernel.length as usize,
        );
        if snapshots.len() != self.runs {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "snapshots",
                snapshots.len(),
                format!("one per run ({})", self.runs),
            ));
        }
        let generation = snapshots.first().map_or(0, |s| s.generation);
        for (r, s) in snapshots.iter().enumerate() {
            s.check_shape(m, n, length, self.params.encoding())?;
            s.check_values(self.kernel.seed.wrapping_add(r as u64), m)?;
            if s.generation != generation {
                return Err(Error::invalid_parameter(
                    ALGORITHM,
                    "snapshot generations",
                    s.generation,
                    format!("all equal (the first is {generation})"),
                ));
            }
        }
        let total = self.kernel.inequalities + self.kernel.equalities;
        for s in snapshots {
            let consistent = s
                .main_values
                .iter()
                .chain(std::iter::once(&s.best_value))
                .all(|v| v.feasible == (v.satisfied == total));
            if !consistent {
                return Err(Error::invalid_parameter(
                    ALGORITHM,
                    "snapshot evaluations",
                    "a feasible flag that disagrees with the satisfied count",
                    format!("feasible exactly when all {total} constraints hold"),
                ));
            }
        }
        let concat = |f: &dyn Fn(&DpgaSnapshot) -> &[u8]| -> Vec<u8> {
            snapshots.iter().flat_map(|s| f(s).to_vec()).collect()
        };
        self.mean_current = false;
        self.main.copy_from_host(&concat(&|s| &s.main))?;
        self.reserve.copy_from_host(&concat(&|s| &s.reserve))?;
        self.best.rows.copy_from_host(&concat(&|s| &s.best))?;
        let values: Vec<Evaluation> = snapshots
            .iter()
            .flat_map(|s| s.main_values.iter().copied())
            .collect();
        self.main_values
            .objective
            .copy_from_host(&values.iter().map(|v| v.objective).collect::<Vec<_>>())?;
        self.main_values
            .violation
            .copy_from_host(&values.iter().map(|v| v.violation).collect::<Vec<_>>())?;
        self.main_values
            .satisfied
            .copy_from_host(&values.iter().map(|v| v.satisfied).collect::<Vec<_>>())?;
        let best: Vec<Evaluation> = snapshots.iter().map(|s| s.best_value).collect();
        self.best
            .values
            .objective
            .copy_from_host(&best.iter().map(|v| v.objective).collect::<Vec<_>>())?;
        self.best
            .values
            .violation
            .copy_from_host(&best.iter().map(|v| v.violation).collect::<Vec<_>>())?;
        self.best
            .values
            .satisfied
            .copy_from_host(&best.iter().map(|v| v.satisfied).collect::<Vec<_>>())?;
        self.delta.copy_from_host(
            &snapshots
                .iter()
                .map(|s| s.target_distance)
                .collect::<Vec<_>>(),
        )?;
        self.generation = generation;
        self.evaluations = snapshots.iter().map(|s| s.evaluations).collect();
        self.best_values = best;
        Ok(())
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
        crate::snapshot::fingerprint(
            self.batch.kernel.seed,
            &self.batch.params,
            &self.batch.problem,
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
