//! A problem whose `evaluate` panics makes `run` and the engine return `Error::ProblemPanicked` instead of
//! unwinding through rayon, and the process runs the GA normally afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_core::{Backend, BinaryProblem, Bits, Engine, Error};
use evo_ga::{GaCpu, GaParams, HostEvaluated};
use std::sync::atomic::{AtomicUsize, Ordering};

/// OneMax (negated, to minimise) that panics from its `calls`-th evaluation on (counted over every thread);
/// `usize::MAX` never panics.
struct OneMax {
    calls: usize,
    count: AtomicUsize,
}

fn one_max(calls: usize) -> OneMax {
    OneMax {
        calls,
        count: AtomicUsize::new(0),
    }
}

impl BinaryProblem for OneMax {
    fn name(&self) -> &str {
        "explodes"
    }

    fn bit_count(&self) -> usize {
        40
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        let call = self.count.fetch_add(1, Ordering::Relaxed);
        assert!(call < self.calls, "boom at call {call}");
        -(bits.count_ones() as f64)
    }
}

fn params() -> GaParams {
    GaParams::new()
        .with_population(16)
        .unwrap()
        .with_generations(5)
        .unwrap()
}

fn assert_panicked(error: &Error) {
    match error {
        Error::ProblemPanicked { problem, message } => {
            assert_eq!(problem, "explodes");
            assert!(message.starts_with("boom at call "), "{message}");
        }
        other => panic!("expected ProblemPanicked, got {other}"),
    }
}

#[test]
fn a_panic_in_the_initial_or_a_later_evaluation_is_an_error_and_the_next_run_works() {
    let cpu = Backend::Cpu { threads: 3 };
    // The initial population's evaluation (16 calls) and the first generation's offspring.
    for calls in [0, 5, 16, 20] {
        let error = evo_ga::run(params(), HostEvaluated::new(one_max(calls)), 3, cpu).unwrap_err();
        assert_panicked(&error);
    }
    let report = evo_ga::run(params(), HostEvaluated::new(one_max(usize::MAX)), 3, cpu).unwrap();
    assert_eq!(report.generations, 5);
    // The engine itself, on the current pool and on its own.
    let mut engine = GaCpu::new(params(), one_max(20), 3).unwrap();
    assert_panicked(&engine.step().unwrap_err());
    let mut engine = GaCpu::with_threads(params(), one_max(20), 3, 2).unwrap();
    assert_panicked(&engine.step().unwrap_err());
    let mut healthy = GaCpu::with_threads(params(), one_max(usize::MAX), 3, 2).unwrap();
    healthy.step().unwrap();
}
