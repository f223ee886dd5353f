//! How many steps the executor takes before it next needs the host (see the executor's "Batching" docs).

use crate::checkpoint::RunState;
use crate::engine::{Engine, Progress};
use crate::error::Result;
use crate::observers::Cadence;
use crate::termination::StagnationState;
use std::time::Duration;

/// The longest a batch should take, so that Ctrl-C and time-driven observers are served within about this.
pub(crate) const MAX_BATCH_TIME: Duration = Duration::from_millis(100);

/// What bounds the next batch, gathered by the executor.
pub(crate) struct BatchLimits {
    /// Steps until the generation limit (exact), when one is set.
    pub(crate) generations_left: Option<u64>,
    /// Steps until the evaluation limit (exact) when the engine's evaluations per step are known.
    pub(crate) evaluations_left: Option<u64>,
    /// Whether a rule needs the best fitness, the clock or the stagnation counter after each step (target,
    /// wall time, stagnation, an evaluation limit the executor cannot count ahead, or checkpoints with a
    /// `check_every` above 1, which store the counter as batches count it).
    pub(crate) needs_checks: bool,
    /// The user's bound on batches while `needs_checks` (1 by default: checks after every step).
    pub(crate) check_every: u64,
    /// Steps between history points and the run's steps so far.
    pub(crate) history_every: u64,
    /// Steps between periodic checkpoints, when checkpointing.
    pub(crate) checkpoint_every: Option<u64>,
    /// The speculative bound ([`Speculation`]) when checkpointing is the only rule that needs the
    /// stagnation counter and the executor keeps it exact by replaying.
    pub(crate) speculation: Option<u64>,
}

/// Steps until the next multiple of `every` after `done` (at least 1).
fn until_multiple(done: u64, every: u64) -> u64 {
    every - done % every
}

impl BatchLimits {
    /// The number of steps to take now: at most `cap` (the time bound) and never past a step where the
    /// host is needed. Always at least 1.
    pub(crate) fn steps(
        &self,
        state: &RunState,
        session_steps: u64,
        cadences: impl IntoIterator<Item = Cadence>,
        cap: u64,
    ) -> u64 {
        let mut steps = cap.max(1);
        let mut bound = |n: u64| steps = steps.min(n.max(1));
        if let Some(left) = self.generations_left {
            bound(left);
        }
        if let Some(left) = self.evaluations_left {
            bound(left);
        }
        if self.needs_checks {
            bound(self.check_every);
        }
        bound(until_multiple(state.steps, self.history_every));
        if let Some(every) = self.checkpoint_every {
            bound(until_multiple(state.steps, every));
        }
        if let Some(speculation) = self.speculation {
            bound(speculation);
        }
        for cadence in cadences {
            match cadence {
                Cadence::EveryStep => bound(1),
                Cadence::Steps(every) => bound(until_multiple(session_steps, every.get())),
                Cadence::Batches => {}
            }
        }
        steps
    }
}

/// Steps until an evaluation limit, when the engine adds a fixed number of evaluations per step: the first
/// step at which `evaluations >= max` holds.
pub(crate) fn steps_to_evaluations(progress: &Progress, max: u64, per_step: u64) -> Option<u64> {
    if per_step == 0 {
        return None;
    }
    Some(max.saturating_sub(progress.evaluations).div_ceil(per_step))
}

/// Whether an observer with `cadence` is due after the run call's `session_steps`-th step.
pub(crate) fn observer_due(cadence: Cadence, session_steps: u64) -> bool {
    match cadence {
        Cadence::EveryStep | Cadence::Batches => true,
        Cadence::Steps(every) => session_steps.is_multiple_of(every.get()),
    }
}

/// The time bound for the next batch: doubles while a batch that used the whole bound took less than half of
/// [`MAX_BATCH_TIME`]; after a batch that took longer, the steps that fit [`MAX_BATCH_TIME`] at the measured
/// pace (at least 1), so a run whose steps slow down is back under the bound after one batch.
pub(crate) fn next_cap(cap: u64, steps: u64, took: Duration) -> u64 {
    if took > MAX_BATCH_TIME {
        let fitting = steps as f64 * MAX_BATCH_TIME.as_secs_f64() / took.as_secs_f64();
        // `as` saturates and the ratio is below `steps`, so this is a step count in 0..steps.
        (fitting as u64).max(1)
    } else if steps >= cap && took < MAX_BATCH_TIME / 2 {
        cap.saturating_mul(2)
    } else {
        cap
    }
}

/// Accounts for a batch of `steps` steps that brought the engine to `progress`, as `steps` calls of
/// [`RunState::record_step`] would. Exact for the step count, the best fitness and the history (a batch
/// never passes a history point, so the point is taken after the batch's last step); exact for the
/// stagnation counter when the batch has one step or the best fitness did not improve. When a longer batch
/// improved it, the improvement is counted at the batch's last step (the counter restarts at 0), which
/// never ends a run earlier than per-step counting would.
pub(crate) fn record_batch(
    state: &mut RunState,
    progress: &Progress,
    recording: &Recording,
    steps: u64,
) {
    let reference = state.stagnation.reference.to_bits();
    for _ in 0..steps {
        state.record_step(
            progress,
            recording.now,
            recording.min_improvement,
            recording.history_every,
        );
    }
    if steps > 1 && state.stagnation.reference.to_bits() != reference {
        state.stagnation.stagnant_generations = 0;
    }
}

/// How many steps a checkpointed run takes before it learns whether the best fitness improved.
///
/// A batch that improves the best fitness before its last step leaves the stagnation counter (stored in
/// checkpoints) unknown, and the executor then replays it one step at a time ([`replay`]). So the bound
/// restarts at 1 after a batch that improved (improvements come in runs, and single steps cost no replay)
/// and doubles after one that did not: a run that has stopped improving soon takes whole batches up to the
/// next checkpoint, and a surprise improvement costs one replay of a batch no longer than the one before.
pub(crate) struct Speculation {
    steps: u64,
}

impl Speculation {
    /// Starts with single steps.
    pub(crate) fn new() -> Self {
        Self { steps: 1 }
    }

    /// The bound for the next batch.
    pub(crate) fn steps(&self) -> u64 {
        self.steps
    }

    /// Updates the bound after a batch, `improved` telling whether it moved the best fitness.
    pub(crate) fn after_batch(&mut self, improved: bool) {
        self.steps = if improved {
            1
        } else {
            self.steps.saturating_mul(2)
        };
    }
}

/// The parts of a [`RunState`] a batch changes, taken before the batch so that it can be replayed.
pub(crate) struct StateMark {
    steps: u64,
    best_fitness: f64,
    stagnation: StagnationState,
    history_len: usize,
}

impl StateMark {
    /// Marks `state` as it is now.
    pub(crate) fn of(state: &RunState) -> Self {
        Self {
            steps: state.steps,
            best_fitness: state.best_fitness,
            stagnation: state.stagnation,
            history_len: state.history.len(),
        }
    }

    /// Whether the stagnation counter's reference moved since the mark, which after a batch of more than one
    /// step means the counter is not known exactly (see [`record_batch`]).
    pub(crate) fn reference_moved(&self, state: &RunState) -> bool {
        self.stagnation.reference.to_bits() != state.stagnation.reference.to_bits()
    }

    /// Puts `state` back as it was at the mark.
    pub(crate) fn rewind(&self, state: &mut RunState) {
        state.steps = self.steps;
        state.best_fitness = self.best_fitness;
        state.stagnation = self.stagnation;
        state.history.truncate(self.history_len);
    }
}

/// How a step is accounted for in the [`RunState`]: at what time, with which improvement threshold and
/// history cadence (the arguments of [`RunState::record_step`] besides the progress).
pub(crate) struct Recording {
    pub(crate) now: Duration,
    pub(crate) min_improvement: f64,
    pub(crate) history_every: u64,
}

/// Redoes a batch of `steps` steps that improved the best fitness, so that `state` counts it exactly as
/// single steps would: restores the engine to `before` (its state at `mark`), takes single steps until the
/// best fitness is the one the batch ended with (the best never gets worse, so no improvement comes after
/// that step), then the rest of the batch at once. Engines are deterministic and `step_many` equals
/// repeated `step`, so the engine ends in the state the batch left, having taken `steps` more steps.
///
/// # Errors
/// The engine's errors restoring or stepping; `state` is then rewound to `mark`, matching `before`.
pub(crate) fn replay<E: Engine>(
    engine: &mut E,
    before: &E::Snapshot,
    mark: &StateMark,
    state: &mut RunState,
    steps: u64,
    recording: &Recording,
) -> Result<()> {
    let final_best = engine.progress().best_fitness.to_bits();
    let mut redo = |state: &mut RunState| -> Result<()> {
        engine.restore(before)?;
        mark.rewind(state);
        let mut done = 0;
        while done < steps {
            engine.step_many(1)?;
            done += 1;
            let progress = engine.progress();
            state.record_step(
                &progress,
                recording.now,
                recording.min_improvement,
                recording.history_every,
            );
            if progress.best_fitness.to_bits() == final_best {
                break;
            }
        }
        if done < steps {
            engine.step_many(steps - done)?;
            record_batch(state, &engine.progress(), recording, steps - done);
        }
        Ok(())
    };
    let result = redo(state);
    if result.is_err() {
        mark.rewind(state);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_bound_grows_only_when_used_and_fast() {
        assert_eq!(next_cap(4, 4, Duration::from_millis(1)), 8);
        assert_eq!(next_cap(4, 2, Duration::from_millis(1)), 4);
        assert_eq!(next_cap(4, 4, Duration::from_millis(70)), 4);
        assert_eq!(next_cap(4, 4, Duration::from_millis(150)), 2);
        assert_eq!(next_cap(1 << 20, 1 << 20, Duration::from_secs(10)), 10_485);
        assert_eq!(next_cap(1, 1, Duration::from_secs(1)), 1);
    }

    #[test]
    fn evaluation_limits_round_up_to_the_crossing_step() {
        let progress = Progress {
            generation: 0,
            evaluations: 10,
            best_fitness: 0.0,
        };
        assert_eq!(steps_to_evaluations(&progress, 35, 10), Some(3));
        assert_eq!(steps_to_evaluations(&progress, 30, 10), Some(2));
        assert_eq!(steps_to_evaluations(&progress, 35, 0), None);
    }
}
