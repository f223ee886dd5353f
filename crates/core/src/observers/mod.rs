//! Watching a run: progress bars, logs, anything that wants to see each step.
//!
//! Observers are told when a run starts, after every step, and when it finishes; they only watch (they
//! cannot change the run), so a run's result never depends on which observers were attached. The history
//! of a run for plots is not an observer: the executor records it into the [`Report`](crate::Report) itself
//! (see [`Executor::with_history_every`](crate::Executor::with_history_every)), so it survives a checkpoint
//! and resume.

mod progress_bar;
mod tracing_observer;

pub use progress_bar::ProgressBarObserver;
pub use tracing_observer::TracingObserver;

use crate::engine::Progress;
use crate::report::Summary;
use crate::termination::Termination;
use std::time::Duration;

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

    /// A step finished; `elapsed` is the run's wall time so far, including time before a resume.
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

    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        (**self).on_step(progress, elapsed);
    }

    fn on_finish(&mut self, summary: &Summary) {
        (**self).on_finish(summary);
    }
}
