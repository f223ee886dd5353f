//! A stop token stops its own run only: two runs in two threads, one stopped by its token from an
//! observer, the other reaching its generation limit.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::SphereEngine;
use evo_core::termination::StopToken;
use evo_core::{Cadence, Executor, Observer, Progress, Termination, TerminationReason};
use std::thread;
use std::time::Duration;

/// Stops `token` once the run has completed `at` generations.
struct StopAt {
    token: StopToken,
    at: u64,
}

impl Observer for StopAt {
    fn cadence(&self) -> Cadence {
        Cadence::EveryStep
    }

    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        if progress.generation >= self.at {
            self.token.stop();
        }
    }
}

fn slow_engine() -> SphereEngine {
    let mut engine = SphereEngine::new(4, 1);
    engine.sleep = Duration::from_millis(1);
    engine
}

#[test]
fn a_stopped_token_ends_its_run_and_no_other() {
    let stopped = StopToken::new();
    let other = StopToken::new();
    let first = thread::spawn({
        let stopped = stopped.clone();
        move || {
            Executor::new(slow_engine())
                .with_termination(
                    Termination::new()
                        .with_max_generations(100_000)
                        .with_stop_token(stopped.clone()),
                )
                .unwrap()
                .with_observer(StopAt {
                    token: stopped,
                    at: 3,
                })
                .run()
                .unwrap()
        }
    });
    let second = thread::spawn(move || {
        Executor::new(slow_engine())
            .with_termination(
                Termination::new()
                    .with_max_generations(60)
                    .with_stop_token(other),
            )
            .unwrap()
            .run()
            .unwrap()
    });
    let (first, second) = (first.join().unwrap(), second.join().unwrap());
    assert_eq!(first.termination, TerminationReason::Interrupted);
    assert_eq!(first.generations, 3);
    assert_eq!(second.termination, TerminationReason::MaxGenerations);
    assert_eq!(second.generations, 60);
}

#[test]
fn a_token_stopped_before_the_run_stops_it_before_its_first_step() {
    let token = StopToken::new();
    token.stop();
    let report = Executor::new(SphereEngine::new(4, 1))
        .with_termination(
            Termination::new()
                .with_max_generations(10)
                .with_stop_token(token),
        )
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(report.termination, TerminationReason::Interrupted);
    assert_eq!(report.generations, 0);
}

#[test]
fn a_token_alone_is_not_a_stopping_rule() {
    let termination = Termination::new().with_stop_token(StopToken::new());
    assert!(termination.validate().is_err());
}
