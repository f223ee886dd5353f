//! An observer that counts the executor's calls, for seeing how a run was batched.

use super::{Cadence, Observer};
use crate::engine::Progress;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Counts `on_step` calls. Clones share one count, so a clone can go to the run and the original read it
/// afterwards. With [`Cadence::EveryStep`] it also makes the executor step one generation at a time; with
/// [`Cadence::Batches`] the count is the number of batches the executor ran.
#[derive(Clone, Debug)]
pub struct StepCounter {
    cadence: Cadence,
    calls: Arc<AtomicU64>,
}

impl StepCounter {
    /// A counter at zero that asks for `cadence`.
    pub fn new(cadence: Cadence) -> Self {
        Self {
            cadence,
            calls: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The `on_step` calls so far, over every clone.
    pub fn count(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}

impl Observer for StepCounter {
    fn cadence(&self) -> Cadence {
        self.cadence
    }

    fn on_step(&mut self, _progress: &Progress, _elapsed: Duration) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_count_and_keep_the_cadence() {
        let counter = StepCounter::new(Cadence::Batches);
        let mut in_the_run = counter.clone();
        let progress = Progress {
            generation: 1,
            evaluations: 10,
            best_fitness: 1.0,
        };
        in_the_run.on_step(&progress, Duration::ZERO);
        in_the_run.on_step(&progress, Duration::ZERO);
        assert_eq!(counter.count(), 2);
        assert_eq!(in_the_run.cadence(), Cadence::Batches);
    }
}
