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

/// The largest default history cadence: a history point at least every this many generations, so a long run's
/// curve (and the history a checkpoint carries) stays small.
pub const MAX_DEFAULT_HISTORY_EVERY: u64 = 100;

/// About this many history points for a run with a generation budget, so a short run still draws a curve.
const DEFAULT_HISTORY_POINTS: u64 = 100;

/// The history cadence of a run that does not set one (the `Run` builders, the crates' one-call `run`, `evo
/// run`): a hundredth of the generation budget, between 1 and [`MAX_DEFAULT_HISTORY_EVERY`];
/// [`MAX_DEFAULT_HISTORY_EVERY`] when the run has no generation budget. A point every generation would make a
/// CUDA engine wait for the host every generation, which the batched executor otherwise avoids.
pub fn default_history_every(max_generations: Option<u64>) -> u64 {
    max_generations.map_or(MAX_DEFAULT_HISTORY_EVERY, |generations| {
        (generations / DEFAULT_HISTORY_POINTS).clamp(1, MAX_DEFAULT_HISTORY_EVERY)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cadence_is_a_hundredth_of_the_budget_within_its_bounds() {
        assert_eq!(default_history_every(Some(30)), 1);
        assert_eq!(default_history_every(Some(250)), 2);
        assert_eq!(default_history_every(Some(5_000)), 50);
        assert_eq!(default_history_every(Some(1_000_000)), 100);
        assert_eq!(default_history_every(None), 100);
    }
}
