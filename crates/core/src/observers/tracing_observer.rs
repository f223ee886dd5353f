//! Progress as `tracing` events.

use super::{Cadence, Observer};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::report::Summary;
use crate::termination::Termination;
use std::num::NonZeroU64;
use std::time::Duration;

/// Logs the start, every `every`-th step and the end of a run with `tracing::info!` (fields `algorithm`,
/// `generation`, `evaluations`, `best_fitness`, `elapsed_s`), for runs whose output goes to log files.
///
/// Its [`Cadence`] is [`Cadence::Steps`]`(every)`: the executor calls [`on_step`](Observer::on_step) after
/// every `every`-th step of a run call and batches the steps in between; each call logs one line.
#[derive(Clone, Debug)]
pub struct TracingObserver {
    every: NonZeroU64,
    algorithm: String,
}

impl TracingObserver {
    /// Logs every step.
    pub fn new() -> Self {
        Self {
            every: NonZeroU64::MIN,
            algorithm: String::new(),
        }
    }

    /// Logs every `every`-th step.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `every` is 0.
    pub fn with_every(mut self, every: u64) -> Result<Self> {
        self.every = NonZeroU64::new(every).ok_or_else(|| {
            Error::invalid_parameter("TracingObserver", "every", every, "at least 1")
        })?;
        Ok(self)
    }

    /// How many steps pass between two log lines.
    pub fn every(&self) -> u64 {
        self.every.get()
    }
}

impl Default for TracingObserver {
    fn default() -> Self {
        Self::new()
    }
}

impl Observer for TracingObserver {
    fn on_start(&mut self, algorithm: &str, progress: &Progress, _termination: &Termination) {
        self.algorithm = algorithm.to_string();
        tracing::info!(
            algorithm,
            generation = progress.generation,
            evaluations = progress.evaluations,
            best_fitness = progress.best_fitness,
            "run started"
        );
    }

    fn cadence(&self) -> Cadence {
        Cadence::Steps(self.every)
    }

    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        tracing::info!(
            algorithm = self.algorithm.as_str(),
            generation = progress.generation,
            evaluations = progress.evaluations,
            best_fitness = progress.best_fitness,
            elapsed_s = elapsed.as_secs_f64(),
            "step"
        );
    }

    fn on_finish(&mut self, summary: &Summary) {
        tracing::info!(
            algorithm = summary.algorithm.as_str(),
            generation = summary.generations,
            evaluations = summary.evaluations,
            best_fitness = summary.best_fitness,
            elapsed_s = summary.wall_time_s,
            termination = %summary.termination,
            "run finished"
        );
    }
}
