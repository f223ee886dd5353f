//! One sample of a run's trajectory, shared by the report and the checkpoint's run state (its own module so
//! that neither of those depends on the other).

use crate::engine::Progress;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One sample of a run's trajectory, for convergence plots.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// The generation after which the sample was taken (0: the initial population).
    pub generation: u64,
    /// Evaluations so far.
    pub evaluations: u64,
    /// The best fitness so far.
    #[serde(with = "crate::serde_f64")]
    pub best_fitness: f64,
    /// Wall time so far in seconds, including time before a resume.
    pub elapsed_s: f64,
}

impl HistoryPoint {
    /// The sample of `progress` taken `elapsed` into the run.
    pub fn new(progress: &Progress, elapsed: Duration) -> Self {
        Self {
            generation: progress.generation,
            evaluations: progress.evaluations,
            best_fitness: progress.best_fitness,
            elapsed_s: elapsed.as_secs_f64(),
        }
    }
}
