//! Ctrl-C in a checkpointed run that steps in batches. One test in its own binary: the interrupt flag is
//! process-wide, so no other run of this process may watch it at the same time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SphereEngine, SphereSnapshot, temp_path};
use evo_core::{
    Cadence, Checkpointing, Executor, Observer, Progress, Termination, TerminationReason,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Records the generation after every batch and asks for an interrupt once it sees generation `at`.
struct InterruptAt {
    at: u64,
    seen: Arc<Mutex<Vec<u64>>>,
}

impl Observer for InterruptAt {
    fn cadence(&self) -> Cadence {
        Cadence::Batches
    }
    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        self.seen.lock().unwrap().push(progress.generation);
        if progress.generation >= self.at {
            evo_core::termination::request_interrupt();
        }
    }
}

#[test]
fn an_interrupted_batched_checkpointed_run_stops_within_a_batch_and_saves() {
    let path = temp_path("interrupted-batched.ckpt");
    let mut engine = SphereEngine::new(4, 1);
    // Nothing improves, so checkpointing lets the run take growing batches.
    engine.frozen = true;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let report = Executor::new(engine)
        .with_observer(InterruptAt {
            at: 50,
            seen: Arc::clone(&seen),
        })
        .with_checkpointing(Checkpointing::new(&path, 1_000).unwrap())
        .with_history_every(1_000_000)
        .unwrap()
        .with_termination(
            Termination::new()
                .with_max_generations(1_000_000)
                .with_ctrl_c(true),
        )
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::Interrupted);
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.windows(2).any(|pair| pair[1] - pair[0] > 1),
        "batch ends: {seen:?}"
    );
    // The run stops after the first batch that reaches generation 50.
    assert_eq!(seen.last().copied(), Some(report.generations));
    assert!(seen[seen.len() - 2] < 50 && report.generations >= 50);
    let saved: serde_json::Value =
        serde_json::from_str(&evo_core::checkpoint::export_json::<SphereSnapshot>(&path).unwrap())
            .unwrap();
    assert_eq!(saved["executor"]["steps"], report.generations);
}
