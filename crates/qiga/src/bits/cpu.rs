//! `QigaBitsCpu`: QIGA on any [`BinaryProblem`] on the CPU, a batch of independent runs over a rayon pool.

use std::sync::Arc;

use evo_core::backend::thread_pool;
use evo_core::{
    BinaryProblem, Bits, Engine, Progress, Result, RunFingerprint, catch_problem_panic,
};
use rayon::prelude::*;

use super::repair::{BitRepair, check_repair_length};
use super::{check_params, identity, initial_runs, repair_fingerprint};
use crate::cpu::{best_of, next_generation, observe, progress_of, update_and_store_best};
use crate::params::{ALGORITHM, QigaParams};
use crate::snapshot::{QigaSnapshot, RunConfig, RunState};

/// QIGA on a bit-string problem on the CPU: one run, or a batch of runs each with its own seed and angles
/// (crate docs, "QIGA on your bit-string problem"). The snapshot's `profits` and `best_profit` hold minus
/// the fitness (QIGA maximises).
///
/// Built engines have already done generation 0; each [`step`](Engine::step) does one more generation of
/// every run.
pub struct QigaBitsCpu<P> {
    problem: P,
    repair: Option<Arc<dyn BitRepair>>,
    params: QigaParams,
    state: QigaSnapshot,
    pool: rayon::ThreadPool,
}

impl<P: BinaryProblem + Sync> QigaBitsCpu<P> {
    /// One run without a repair, with `params`' angles and Philox seed `seed`, on `threads` CPU threads
    /// (0 = all cores).
    ///
    /// # Errors
    /// As [`batch`](Self::batch).
    pub fn new(params: &QigaParams, problem: P, seed: u64, threads: usize) -> Result<Self> {
        let run = RunConfig {
            seed,
            angles: params.angles(),
        };
        Self::batch(params, problem, None, vec![run], threads)
    }

    /// A batch of runs, each with its own seed and angles (`params`' angles are not used), every observation
    /// repaired by `repair` when one is given.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](evo_core::Error::InvalidParameter) for an empty batch, knapsack options
    /// in `params`, a problem of 0 bits or more than fit a 32-bit gene index, or a repair of another bit
    /// count; [`Error::NonFiniteFitness`](evo_core::Error::NonFiniteFitness) or
    /// [`Error::ProblemPanicked`](evo_core::Error::ProblemPanicked) from generation 0's evaluation;
    /// [`Error::ThreadPool`](evo_core::Error::ThreadPool) when the threads cannot start.
    pub fn batch(
        params: &QigaParams,
        problem: P,
        repair: Option<Arc<dyn BitRepair>>,
        runs: Vec<RunConfig>,
        threads: usize,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        check_params(params, problem.name(), bits, runs.len())?;
        if let Some(repair) = &repair {
            check_repair_length(repair.as_ref(), problem.name(), bits)?;
        }
        let state = QigaSnapshot {
            generation: 0,
            population: params.population(),
            items: bits,
            runs: initial_runs(runs, params.population(), bits),
        };
        let mut engine = Self {
            problem,
            repair,
            params: params.clone(),
            state,
            pool: thread_pool(threads)?,
        };
        engine.advance(0)?;
        Ok(engine)
    }

    /// The state (the same value [`snapshot`](Engine::snapshot) returns, without the copy).
    pub fn state(&self) -> &QigaSnapshot {
        &self.state
    }

    /// Runs generation `generation` of every run; on an error the state is left as it was.
    fn advance(&mut self, generation: u32) -> Result<()> {
        let (problem, repair, params) = (&self.problem, self.repair.as_deref(), &self.params);
        let mut runs = self.state.runs.clone();
        self.pool.install(|| {
            runs.par_iter_mut()
                .try_for_each(|run| bits_generation(run, generation, problem, repair, params))
        })?;
        self.state.runs = runs;
        self.state.generation = u64::from(generation);
        Ok(())
    }
}

/// One generation of one run on a bit-string problem: observe (step 2), the optional repair (3), the
/// problem's batch evaluation of the run's rows (4, the score minus the fitness), update (7) and store best
/// (5). Twin: `QigaBitsCuda`'s generation (`qiga_bits_observe`, the repairer, the evaluator,
/// `qiga_bits_update`).
fn bits_generation<P: BinaryProblem>(
    run: &mut RunState,
    generation: u32,
    problem: &P,
    repair: Option<&dyn BitRepair>,
    params: &QigaParams,
) -> Result<()> {
    let bits = problem.bit_count();
    observe(run, generation, bits);
    if let Some(repair) = repair {
        let words = Bits::word_count(bits);
        catch_problem_panic(repair.name(), || {
            run.observed
                .chunks_mut(words)
                .for_each(|row| repair.repair(row));
            Ok(())
        })?;
    }
    let mut fitness = vec![0.0; run.profits.len()];
    catch_problem_panic(problem.name(), || {
        problem.evaluate_checked(&run.observed, &mut fitness)
    })?;
    for (profit, value) in run.profits.iter_mut().zip(&fitness) {
        *profit = -value;
    }
    update_and_store_best(run, generation, bits, params, |_, score| score);
    Ok(())
}

impl<P: BinaryProblem + Sync> Engine for QigaBitsCpu<P> {
    type Solution = Bits;
    type Snapshot = QigaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        let configs: Vec<RunConfig> = self.state.runs.iter().map(|run| run.config).collect();
        let fingerprint = crate::snapshot::fingerprint(
            &self.params,
            &configs,
            identity(self.problem.name(), self.problem.bit_count()),
        )?;
        repair_fingerprint(fingerprint, self.repair.as_deref().map(BitRepair::name))
    }

    fn step(&mut self) -> Result<()> {
        let generation = next_generation(self.state.generation)?;
        self.advance(generation)
    }

    fn progress(&self) -> Progress {
        progress_of(&self.state)
    }

    fn best(&self) -> Result<(Bits, f64)> {
        best_of(&self.state)
    }

    fn snapshot(&self) -> Result<QigaSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &QigaSnapshot) -> Result<()> {
        let configs: Vec<RunConfig> = self.state.runs.iter().map(|run| run.config).collect();
        snapshot.check_values(&configs, self.params.population(), self.problem.bit_count())?;
        self.state = snapshot.clone();
        Ok(())
    }
}
