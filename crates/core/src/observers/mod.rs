//! Watching a run: progress bars, logs, anything that wants to see each step.
//!
//! Observers are told when a run starts, after every step, and when it finishes; they only watch (they
//! cannot change the run), so a run's result never depends on which observers were attached. The history
//! of a run for plots is not an observer: the executor records it into the [`Report`](crate::Report) itself
//! (see [`Executor::with_history_every`](crate::Executor::with_history_every)), so it survives a checkpoint
//! and resume.

mod progress_bar;
mod step_counter;
mod tracing_observer;

pub use progress_bar::ProgressBarObserver;
pub use step_counter::StepCounter;
pub use tracing_observer::TracingObserver;

use crate::engine::Progress;
use crate::report::Summary;
use crate::termination::Termination;
use std::num::NonZeroU64;
use std::time::Duration;

/// How often an observer needs [`Observer::on_step`]. The [`Executor`](crate::Executor) advances the engine
/// in batches ([`Engine::step_many`](crate::Engine::step_many)) between the steps some observer, rule,
/// history point or checkpoint needs, so an observer that asks for less lets the run go faster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cadence {
    /// After every step (the default): while such an observer is attached, the executor steps one
    /// generation at a time.
    EveryStep,
    /// After every `n`-th step of a [`run`](crate::Executor::run) call (counted from
    /// [`on_start`](Observer::on_start)), and after no other step.
    Steps(NonZeroU64),
    /// After every batch, whatever its length: `progress` is then the state after the batch's last step.
    /// The executor keeps a batch to about a tenth of a second, so this suits displays that refresh by time.
    Batches,
}

/// Something told about a run as it goes; every method has an empty default, implement only what you need.
///
/// ```
/// use evo_core::{Observer, Progress};
/// use std::time::Duration;
///
/// /// Remembers the best fitness after every step.
/// #[derive(Default)]
/// struct Trace(Vec<f64>);
///
/// impl Observer for Trace {
///     fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
///         self.0.push(progress.best_fitness);
///     }
/// }
/// ```
pub trait Observer {
    /// The run is about to take its first step (after a resume, `progress` is the restored position).
    fn on_start(&mut self, algorithm: &str, progress: &Progress, termination: &Termination) {
        let _ = (algorithm, progress, termination);
    }

    /// How often [`on_step`](Self::on_step) is wanted; every step unless overridden. The executor reads it
    /// at every batch, so it must not change during a run.
    fn cadence(&self) -> Cadence {
        Cadence::EveryStep
    }

    /// A step the [`cadence`](Self::cadence) asks for finished; `elapsed` is the run's wall time so far,
    /// including time before a resume.
    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        let _ = (progress, elapsed);
    }

    /// The run ended normally (a termination rule held). Not called when a step fails.
    fn on_finish(&mut self, summary: &Summary) {
        let _ = summary;
    }
}

impl<O: Observer + ?Sized> Observer for Box<O> {
    fn on_start(&mut self, algorithm: &str, progress: &Progress, termination: &Termination) {
        (**self).on_start(algorithm, progress, termination);
    }

    fn cadence(&self) -> Cadence {
        (**self).cadence()
    }

    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        (**self).on_step(progress, elapsed);
    }

    fn on_finish(&mut self, summary: &Summary) {
        (**self).on_finish(summary);
    }
}
