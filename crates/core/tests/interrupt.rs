//! Ctrl-C termination. One test in its own binary: the interrupt flag is process-wide, so no other run of
//! this process may watch it at the same time.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::SphereEngine;
use evo_core::termination::request_interrupt;
use evo_core::{Executor, Termination, TerminationReason};

fn watching_ctrl_c() -> Termination {
    Termination::new()
        .with_max_generations(100_000)
        .with_ctrl_c(true)
}

#[test]
fn ctrl_c_and_request_interrupt_stop_the_run_gracefully() {
    // A programmatic request, made before the run: it stops before the first step.
    request_interrupt();
    let report = Executor::new(SphereEngine::new(4, 1))
        .with_termination(watching_ctrl_c())
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::Interrupted);
    assert_eq!(report.generations, 0);

    // A real SIGINT sent during generation 3; the run stops soon after and saves a final checkpoint.
    #[cfg(unix)]
    {
        use common::temp_path;
        use evo_core::Checkpointing;
        use std::time::Duration;

        let path = temp_path("interrupted.ckpt");
        let mut engine = SphereEngine::new(4, 1);
        engine.sigint_at = Some(3);
        engine.sleep = Duration::from_millis(2);
        let report = Executor::new(engine)
            .with_termination(watching_ctrl_c())
            .unwrap()
            .with_checkpointing(Checkpointing::new(&path, 1_000_000).unwrap())
            .run()
            .unwrap();
        assert_eq!(report.termination, TerminationReason::Interrupted);
        assert!(report.generations >= 3 && report.generations < 100_000);
        let saved: serde_json::Value = serde_json::from_str(
            &evo_core::checkpoint::export_json::<common::SphereSnapshot>(&path).unwrap(),
        )
        .unwrap();
        assert_eq!(saved["executor"]["steps"], report.generations);
    }

    // The flag was consumed: a later run is not interrupted.
    let report = Executor::new(SphereEngine::new(4, 1))
        .with_termination(watching_ctrl_c().with_max_generations(5))
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::MaxGenerations);
}
