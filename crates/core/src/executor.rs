//! Runs an engine to a termination, with observers, history and checkpoints.

use crate::backend::Backend;
use crate::batching::{self, BatchLimits, Recording, Speculation, StateMark};
use crate::checkpoint::{self, CheckpointHeader, CheckpointLock, Checkpointing, RunState};
use crate::engine::{Engine, Progress};
use crate::error::{Error, Result};
use crate::fingerprint::ResumeOverrides;
use crate::history::HistoryPoint;
use crate::observers::Observer;
use crate::report::Report;
use crate::termination::{Termination, TerminationReason, install_handler};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Drives an [`Engine`] step by step until a [`Termination`] rule holds, and returns a [`Report`].
///
/// The executor owns everything around the step: the stopping rules, the observers, the history kept for
/// plots, and checkpoints. Only a termination is required; the rest is optional.
///
/// # Batching
///
/// The executor advances the engine with [`Engine::step_many`] in batches, reading the engine's progress
/// only between batches. A batch never passes a step where the host is needed:
///
/// - the generation limit (exact), and an evaluation limit when the engine reports
///   [`Engine::evaluations_per_step`] (exact);
/// - the next history point ([`with_history_every`](Self::with_history_every)) and the next periodic
///   checkpoint;
/// - every step an observer's [`Cadence`](crate::Cadence) asks for (every step by default;
///   [`ProgressBarObserver`](crate::ProgressBarObserver) is served after every batch,
///   [`TracingObserver`](crate::TracingObserver) every `every` steps);
/// - the rules that need the best fitness, the clock or the stagnation counter after each step (target
///   fitness, wall time, stagnation, an evaluation limit without a fixed count per step): while one of them
///   is in force a batch has at most [`with_check_every`](Self::with_check_every) steps, 1 by default.
///
/// Checkpoints store the stagnation counter (generations since the best fitness last improved), which a
/// batch that improved the best before its last step cannot know. When checkpointing is the only reason to
/// look after each step (and `check_every` is 1), batches run ahead speculatively: the first batch after
/// one that improved the best has one step, each batch that did not improve it lets the next be twice as
/// long (up to the next checkpoint), and a batch of several steps that did improve it is replayed from its
/// starting state (the last good snapshot, or a snapshot taken for the purpose) one step at a time up to
/// the step that reached its final best fitness. A run that keeps improving thus steps singly, one that has
/// stopped improving steps from checkpoint to checkpoint, and the counter is exact. With `check_every`
/// above 1, checkpointing bounds batches to `check_every` steps and counts them as described below.
///
/// A batch is also kept to about 0.1 s (its length adapts to the measured step time), so Ctrl-C
/// ([`Termination::with_ctrl_c`]) and time-driven observers are served within about that (a replay at most
/// repeats that batch). With the default `check_every` of 1, the report and checkpoints (written at the
/// same steps, with the same content) are bit-identical to stepping one generation at a time (engines keep
/// `step_many` equivalent to repeated `step`, and `restore` exact); only wall times differ. With a larger
/// `check_every`, a target, wall-time, stagnation or evaluation rule is noticed at the end of the batch in
/// which it came to hold (up to `check_every - 1` steps late), and a batch that improved the best fitness
/// counts the improvement at its last step for the stagnation counter. Checkpointing's last-good snapshot
/// ([`Checkpointing::with_last_good_snapshot`]) is taken after every batch: after a failed batch the state
/// after the last successful batch is saved (with the default `check_every`, a batch is one step).
///
/// ```
/// # use evo_core::{Engine, ProblemIdentity, Progress, Result, RunFingerprint};
/// # struct Countdown { value: f64, generation: u64 }
/// # impl Engine for Countdown {
/// #     type Solution = f64;
/// #     type Snapshot = (f64, u64);
/// #     fn algorithm(&self) -> &'static str { "countdown" }
/// #     fn fingerprint(&self) -> Result<RunFingerprint> {
/// #         RunFingerprint::new(0, &(), ProblemIdentity::new("halving", 1))
/// #     }
/// #     fn step(&mut self) -> Result<()> { self.value /= 2.0; self.generation += 1; Ok(()) }
/// #     fn progress(&self) -> Progress {
/// #         Progress { generation: self.generation, evaluations: self.generation, best_fitness: self.value }
/// #     }
/// #     fn best(&self) -> Result<(f64, f64)> { Ok((self.value, self.value)) }
/// #     fn snapshot(&self) -> Result<(f64, u64)> { Ok((self.value, self.generation)) }
/// #     fn restore(&mut self, s: &(f64, u64)) -> Result<()> { (self.value, self.generation) = *s; Ok(()) }
/// # }
/// use evo_core::{Executor, Termination, TerminationReason};
///
/// let report = Executor::new(Countdown { value: 1.0, generation: 0 })
///     .with_termination(Termination::new().with_max_generations(100).with_target_fitness(0.01)?)?
///     .with_history_every(2)?
///     .with_metadata("seed", 7)
///     .run()?;
/// assert_eq!(report.termination, TerminationReason::TargetFitness);
/// assert_eq!(report.generations, 7); // 2^-7 <= 0.01
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct Executor<E: Engine> {
    engine: E,
    termination: Option<Termination>,
    observers: Vec<Box<dyn Observer + Send>>,
    checkpointing: Option<Checkpointing>,
    history_every: u64,
    check_every: u64,
    metadata: BTreeMap<String, String>,
    /// The run's state when it continues an earlier run (a resume, or a second call to `run`).
    state: Option<RunState>,
    /// Parameters a resume may change.
    overrides: ResumeOverrides,
    /// The lock on the checkpoint path, taken when the executor first resumes from or writes it.
    lock: Option<CheckpointLock>,
}

impl<E: Engine> Executor<E> {
    /// An executor for `engine`, with no termination yet (set one with
    /// [`with_termination`](Self::with_termination)), no observers, history every step and no checkpoints.
    pub fn new(engine: E) -> Self {
        Self {
            engine,
            termination: None,
            observers: Vec::new(),
            checkpointing: None,
            history_every: 1,
            check_every: 1,
            metadata: BTreeMap::new(),
            state: None,
            overrides: ResumeOverrides::new(),
            lock: None,
        }
    }

    /// Sets the stopping rules.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the termination cannot end a run ([`Termination::validate`]).
    pub fn with_termination(mut self, termination: Termination) -> Result<Self> {
        termination.validate()?;
        self.termination = Some(termination);
        Ok(self)
    }

    /// Adds an observer; observers are told about the run in the order they were added.
    pub fn with_observer(mut self, observer: impl Observer + Send + 'static) -> Self {
        self.observers.push(Box::new(observer));
        self
    }

    /// Saves checkpoints (see [`Checkpointing`]). The executor takes an advisory lock on the path (a
    /// `<path>.lock` file) when it first resumes from it or writes it, and holds it until it is dropped.
    pub fn with_checkpointing(mut self, checkpointing: Checkpointing) -> Self {
        if self
            .lock
            .as_ref()
            .is_some_and(|lock| lock.path() != checkpointing.path())
        {
            self.lock = None;
        }
        self.checkpointing = Some(checkpointing);
        self
    }

    /// Parameters a resume may change on purpose (a new budget, a new rate); set before
    /// [`resume_from`](Self::resume_from). Without overrides a checkpoint whose fingerprint differs from the
    /// engine's in any parameter is refused. The seed and the problem cannot be overridden: with another
    /// seed or another instance the run is not the same run.
    pub fn with_resume_overrides(mut self, overrides: ResumeOverrides) -> Self {
        self.overrides = overrides;
        self
    }

    /// Records a history point every `every` steps (default 1); the report's history also holds the initial
    /// and the final point. Keep the same value when resuming, or the history changes cadence mid-run.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `every` is 0.
    pub fn with_history_every(mut self, every: u64) -> Result<Self> {
        if every == 0 {
            return Err(Error::invalid_parameter(
                "Executor",
                "history_every",
                every,
                "at least 1",
            ));
        }
        self.history_every = every;
        Ok(self)
    }

    /// Lets the rules that need the host after each step (target fitness, wall time, stagnation, an
    /// evaluation limit the engine cannot count ahead) be checked only every `every` steps, so that the
    /// engine can run up to `every` generations per batch; checkpointing then counts the stagnation counter
    /// per batch instead of replaying batches that improved (see "Batching" above for what changes).
    /// Default 1: checked after every step, results as with single steps.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `every` is 0.
    pub fn with_check_every(mut self, every: u64) -> Result<Self> {
        if every == 0 {
            return Err(Error::invalid_parameter(
                "Executor",
                "check_every",
                every,
                "at least 1",
            ));
        }
        self.check_every = every;
        Ok(self)
    }

    /// Adds a free-form fact to the report's metadata (backend, device, seed, ...); a key set twice keeps
    /// the last value.
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.metadata.insert(key.into(), value.to_string());
        self
    }

    /// The metadata every algorithm's one-call `run` records: `backend` (as resolved), `seed` and `problem`
    /// (its name).
    pub fn with_run_metadata(self, backend: Backend, seed: u64, problem: &str) -> Self {
        self.with_metadata("backend", backend)
            .with_metadata("seed", seed)
            .with_metadata("problem", problem)
    }

    /// Resumes from the configured checkpoint file when it exists; starts afresh when it does not.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when no checkpointing is configured, [`Error::CheckpointLocked`] when
    /// another executor owns the path, and the errors of
    /// [`resume_from`](Self::resume_from).
    pub fn resume_if_present(mut self) -> Result<Self> {
        let path = match &self.checkpointing {
            Some(checkpointing) => checkpointing.path().to_path_buf(),
            None => {
                return Err(Error::invalid_parameter(
                    "Executor",
                    "checkpointing",
                    "none",
                    "set with with_checkpointing before resume_if_present",
                ));
            }
        };
        self.lock_checkpoint()?;
        if path.exists() {
            self.resume_from(path)
        } else {
            Ok(self)
        }
    }

    /// Restores the engine and the run's state (generations, elapsed time, history, stagnation counter) from
    /// a checkpoint file, so that [`run`](Self::run) continues where the saved run stopped. When `path` is
    /// the configured checkpoint path, the executor locks it first.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::CheckpointLocked`] when another executor owns
    /// the path; [`Error::Checkpoint`] when it is not a valid checkpoint of this format version and
    /// algorithm (see [`checkpoint`] for the reasons) or the engine rejects its snapshot;
    /// [`Error::RunMismatch`] when it belongs to another run (seed, problem or a parameter not allowed by
    /// [`with_resume_overrides`](Self::with_resume_overrides)). The file is never modified.
    pub fn resume_from(mut self, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if self
            .checkpointing
            .as_ref()
            .is_some_and(|checkpointing| checkpointing.path() == path)
        {
            self.lock_checkpoint()?;
        }
        let fingerprint = self.engine.fingerprint()?;
        let (snapshot, state) = checkpoint::read::<E::Snapshot>(
            path,
            self.engine.algorithm(),
            &fingerprint,
            &self.overrides,
        )?;
        let refuse = |reason: String| Error::Checkpoint {
            path: path.to_path_buf(),
            reason,
        };
        self.engine
            .restore(&snapshot)
            .map_err(|error| refuse(format!("the engine rejected its snapshot: {error}")))?;
        state.check(&self.engine.progress()).map_err(refuse)?;
        tracing::info!(
            "resumed {} from {} at step {}",
            self.engine.algorithm(),
            path.display(),
            state.steps
        );
        self.state = Some(state);
        Ok(self)
    }

    /// The engine (after [`run`](Self::run), in its final state).
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// Gives the engine back.
    pub fn into_engine(self) -> E {
        self.engine
    }

    /// Runs until a termination rule holds and returns the report.
    ///
    /// Calling `run` again continues the same run (with the same rules it stops at once; change nothing and
    /// the report is the same). After an error the in-memory run state is dropped, since the engine may be
    /// half-way through a step: continue from the checkpoint with [`resume_from`](Self::resume_from).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when no termination was set; the first error of a step (after saving the
    /// state after the last successful step, when checkpointing); errors reading the engine's state or
    /// writing a checkpoint.
    pub fn run(&mut self) -> Result<Report<E::Solution>> {
        let termination = self.termination.clone().ok_or_else(|| {
            Error::invalid_parameter(
                "Executor",
                "termination",
                "none",
                "set with with_termination",
            )
        })?;
        self.lock_checkpoint()?;
        if termination.ctrl_c() {
            install_handler();
        }
        let algorithm = self.engine.algorithm();
        let session_start = Instant::now();
        let mut progress = self.engine.progress();
        let mut state = match self.state.take() {
            Some(state) => state,
            None => RunState::start(&progress),
        };
        let prior = state.elapsed;
        let elapsed = || prior + session_start.elapsed();
        for observer in &mut self.observers {
            observer.on_start(algorithm, &progress, &termination);
        }

        let keep_last_good = self
            .checkpointing
            .as_ref()
            .is_some_and(Checkpointing::last_good_snapshot);
        let mut last_good = if keep_last_good {
            Some(self.engine.snapshot()?)
        } else {
            None
        };
        let mut saved_at_step = None;
        let mut session_steps = 0;
        let mut cap = 1;
        let replays = self.replays_improving_batches(&termination);
        let mut speculation = Speculation::new();
        let reason = loop {
            if let Some(reason) = termination.check(&progress, elapsed(), &state.stagnation) {
                break reason;
            }
            let steps = self
                .batch_limits(
                    &termination,
                    &progress,
                    replays.then(|| speculation.steps()),
                )
                .steps(
                    &state,
                    session_steps,
                    self.observers.iter().map(|observer| observer.cadence()),
                    cap,
                );
            // What a replay of this batch starts from; the last good snapshot is that state when kept.
            let mark = (replays && steps > 1).then(|| StateMark::of(&state));
            let before = match &mark {
                Some(_) if !keep_last_good => Some(self.engine.snapshot()?),
                _ => None,
            };
            let batch_start = Instant::now();
            if let Err(error) = self.engine.step_many(steps) {
                self.save_last_good(last_good.as_ref(), &mut state, elapsed());
                return Err(error);
            }
            cap = batching::next_cap(cap, steps, batch_start.elapsed());
            let best_before = progress.best_fitness.to_bits();
            progress = self.engine.progress();
            let recording = Recording {
                now: elapsed(),
                min_improvement: termination.min_improvement(),
                history_every: self.history_every,
            };
            batching::record_batch(&mut state, &progress, &recording, steps);
            if let Some(mark) = mark.filter(|mark| mark.reference_moved(&state)) {
                let before = before.as_ref().or(last_good.as_ref());
                if let Some(before) = before {
                    let replayed = batching::replay(
                        &mut self.engine,
                        before,
                        &mark,
                        &mut state,
                        steps,
                        &recording,
                    );
                    if let Err(error) = replayed {
                        self.save_last_good(last_good.as_ref(), &mut state, elapsed());
                        return Err(error);
                    }
                }
            }
            speculation.after_batch(progress.best_fitness.to_bits() != best_before);
            let now = recording.now;
            session_steps += steps;
            for observer in &mut self.observers {
                if batching::observer_due(observer.cadence(), session_steps) {
                    observer.on_step(&progress, now);
                }
            }
            let due = self
                .checkpointing
                .as_ref()
                .is_some_and(|checkpointing| state.steps.is_multiple_of(checkpointing.every()));
            if keep_last_good || due {
                let snapshot = self.engine.snapshot()?;
                if due {
                    state.elapsed = now;
                    self.save(&snapshot, &state)?;
                    saved_at_step = Some(state.steps);
                }
                // Only a snapshot taken after every batch describes the current state; a periodic one goes
                // stale at the next batch, so it must not stand in for the last good state.
                if keep_last_good {
                    last_good = Some(snapshot);
                }
            }
        };

        state.elapsed = elapsed();
        if self.checkpointing.is_some() && saved_at_step != Some(state.steps) {
            // The final checkpoint lets a stopped run (Ctrl-C, wall time) continue later with other rules.
            let snapshot = match last_good {
                Some(snapshot) => snapshot,
                None => self.engine.snapshot()?,
            };
            self.save(&snapshot, &state)?;
        }
        let report = self.report(reason, &progress, &state)?;
        self.state = Some(state);
        let summary = report.summary();
        for observer in &mut self.observers {
            observer.on_finish(&summary);
        }
        Ok(report)
    }

    /// Whether checkpointing is the only rule that needs the stagnation counter after each step and the
    /// counter is kept exact (`check_every` 1), so that batches run speculatively and a batch that improved
    /// the best fitness is replayed (see "Batching" in the type docs).
    fn replays_improving_batches(&self, termination: &Termination) -> bool {
        self.checkpointing.is_some()
            && self.check_every == 1
            && !self.rules_need_checks(termination)
    }

    /// Whether a termination rule needs the best fitness, the clock or the stagnation counter after each
    /// step: target, wall time, stagnation, or an evaluation limit the engine cannot count ahead.
    fn rules_need_checks(&self, termination: &Termination) -> bool {
        let evaluations_unbounded = termination.max_evaluations().is_some()
            && self
                .engine
                .evaluations_per_step()
                .is_none_or(|per_step| per_step == 0);
        termination.target_fitness().is_some()
            || termination.max_wall_time().is_some()
            || termination.stagnation().is_some()
            || evaluations_unbounded
    }

    /// What bounds the next batch at `progress` (see "Batching" in the type docs), with the speculative
    /// bound of a run that replays improving batches.
    fn batch_limits(
        &self,
        termination: &Termination,
        progress: &Progress,
        speculation: Option<u64>,
    ) -> BatchLimits {
        let evaluations_left = termination.max_evaluations().and_then(|max| {
            self.engine
                .evaluations_per_step()
                .and_then(|per_step| batching::steps_to_evaluations(progress, max, per_step))
        });
        BatchLimits {
            generations_left: termination
                .max_generations()
                .map(|max| max.saturating_sub(progress.generation)),
            evaluations_left,
            needs_checks: self.rules_need_checks(termination)
                || (self.checkpointing.is_some() && self.check_every > 1),
            check_every: self.check_every,
            history_every: self.history_every,
            checkpoint_every: self.checkpointing.as_ref().map(Checkpointing::every),
            speculation,
        }
    }

    /// Takes the lock on the configured checkpoint path unless it is held already.
    fn lock_checkpoint(&mut self) -> Result<()> {
        if let Some(checkpointing) = &self.checkpointing
            && self.lock.is_none()
        {
            self.lock = Some(CheckpointLock::acquire(checkpointing.path())?);
        }
        Ok(())
    }

    /// Writes a checkpoint when checkpointing is on.
    fn save(&self, snapshot: &E::Snapshot, state: &RunState) -> Result<()> {
        match &self.checkpointing {
            Some(checkpointing) => {
                let header = CheckpointHeader {
                    algorithm: self.engine.algorithm().to_string(),
                    crate_version: env!("CARGO_PKG_VERSION").to_string(),
                    fingerprint: self.engine.fingerprint()?,
                };
                checkpoint::write(checkpointing.path(), &header, snapshot, state)
            }
            None => Ok(()),
        }
    }

    /// After a failed step: saves the state after the last successful step, when one is kept. The step's
    /// error is what the caller gets, so a failure to save is logged rather than returned.
    fn save_last_good(&self, last_good: Option<&E::Snapshot>, state: &mut RunState, now: Duration) {
        let (Some(checkpointing), Some(snapshot)) = (&self.checkpointing, last_good) else {
            return;
        };
        state.elapsed = now;
        match self.save(snapshot, state) {
            Ok(()) => tracing::warn!(
                "a step of {} failed; the state after step {} is saved in {}",
                self.engine.algorithm(),
                state.steps,
                checkpointing.path().display()
            ),
            Err(error) => tracing::error!(
                "a step of {} failed, and saving the last good state failed too: {error}",
                self.engine.algorithm()
            ),
        }
    }

    /// Assembles the report; the history gets the final point when the last sample is older.
    fn report(
        &self,
        termination: TerminationReason,
        progress: &Progress,
        state: &RunState,
    ) -> Result<Report<E::Solution>> {
        let (best, best_fitness) = self.engine.best()?;
        let mut history = state.history.clone();
        if history.last().map(|point| point.generation) != Some(progress.generation) {
            history.push(HistoryPoint::new(progress, state.elapsed));
        }
        Ok(Report {
            algorithm: self.engine.algorithm().to_string(),
            best,
            best_fitness,
            evaluations: progress.evaluations,
            generations: progress.generation,
            wall_time_s: state.elapsed.as_secs_f64(),
            termination,
            history,
            metadata: self.metadata.clone(),
        })
    }
}
