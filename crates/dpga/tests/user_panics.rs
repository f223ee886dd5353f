//! A problem whose `evaluate` panics makes `run` and the engine return `Error::ProblemPanicked` instead of
//! unwinding through rayon, and the process runs the DPGA normally afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_core::{Backend, Bounds, ConstrainedProblem, Engine, Error, Termination};
use evo_dpga::{DpgaCpu, DpgaParams, HostConstrained, run};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn small() -> DpgaParams {
    DpgaParams::default()
        .with_main_size(16)
        .unwrap()
        .with_reserve_size(16)
        .unwrap()
        .with_init_max_draws(64)
        .unwrap()
}

/// Minimise a + b subject to a·b ≥ 1 on [0, 4]², panicking from the `calls`-th evaluation on (counted over
/// every thread); `usize::MAX` never panics.
struct Hyperbola {
    bounds: Bounds,
    calls: usize,
    count: Arc<AtomicUsize>,
}

fn hyperbola(calls: usize) -> Hyperbola {
    Hyperbola {
        bounds: Bounds::uniform(2, 0.0, 4.0).unwrap(),
        calls,
        count: Arc::new(AtomicUsize::new(0)),
    }
}

impl ConstrainedProblem for Hyperbola {
    fn name(&self) -> &str {
        "explodes"
    }

    fn dimension(&self) -> usize {
        2
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn inequality_count(&self) -> usize {
        1
    }

    fn equality_count(&self) -> usize {
        0
    }

    fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
        let call = self.count.fetch_add(1, Ordering::Relaxed);
        assert!(call < self.calls, "boom at call {call}");
        let (a, b) = (f64::from(x[0]), f64::from(x[1]));
        g[0] = 1.0 - a * b;
        a + b
    }
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
    let termination = || Termination::new().with_max_generations(3);
    // The initial draws (at least 16 calls) and the generations after them.
    for calls in [0, 7, 16, 40] {
        let error = run(
            small(),
            HostConstrained::new(hyperbola(calls)),
            2,
            cpu,
            termination(),
        )
        .unwrap_err();
        assert_panicked(&error);
    }
    let report = run(
        small(),
        HostConstrained::new(hyperbola(usize::MAX)),
        2,
        cpu,
        termination(),
    )
    .unwrap();
    assert_eq!(report.generations, 3);
    // The engine itself: a step whose first evaluation panics returns the error.
    let healthy = hyperbola(usize::MAX);
    let count = Arc::clone(&healthy.count);
    DpgaCpu::new(small(), healthy, 2, 2).unwrap();
    let initial_calls = count.load(Ordering::Relaxed);
    let mut engine = DpgaCpu::new(small(), hyperbola(initial_calls), 2, 2).unwrap();
    assert_panicked(&engine.step().unwrap_err());
}
