//! Progress as `tracing` events.

use super::Observer;
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::report::Summary;
use crate::termination::Termination;
use std::time::Duration;

/// Logs the start, every `every`-th step and the end of a run with `tracing::info!` (fields `algorithm`,
/// `generation`, `evaluations`, `best_fitness`, `elapsed_s`), for runs whose output goes to log files.
#[derive(Clone, Debug)]
pub struct TracingObserver {
    every: u64,
    steps: u64,
    algorithm: String,
}

impl TracingObserver {
    /// Logs every step.
    pub fn new() -> Self {
        Self {
            every: 1,
            steps: 0,
            algorithm: String::new(),
        }
    }

    /// Logs every `every`-th step.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `every` is 0.
    pub fn with_every(mut self, every: u64) -> Result<Self> {
        if every == 0 {
            return Err(Error::invalid_parameter(
                "TracingObserver",
                "every",
                every,
                "at least 1",
            ));
        }
        self.every = every;
        Ok(self)
    }

    /// How many steps pass between two log lines.
    pub fn every(&self) -> u64 {
        self.every
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
        self.steps = 0;
        tracing::info!(
            algorithm,
            generation = progress.generation,
            evaluations = progress.evaluations,
            best_fitness = progress.best_fitness,
            "run started"
        );
    }

    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        self.steps += 1;
        if self.steps.is_multiple_of(self.every) {
            tracing::info!(
                algorithm = self.algorithm.as_str(),
                generation = progress.generation,
                evaluations = progress.evaluations,
                best_fitness = progress.best_fitness,
                elapsed_s = elapsed.as_secs_f64(),
                "step"
            );
        }
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
