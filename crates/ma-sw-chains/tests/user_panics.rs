//! A problem whose `evaluate` panics makes `run` and the engine return `Error::ProblemPanicked` instead of
//! unwinding, and the process runs MA-SW-Chains normally afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::cuda::{CudaEvaluator, CudaProblem};
use evo_core::{Backend, Bounds, ContinuousProblem, Engine, Error};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaParams};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A sphere that panics from its `calls`-th evaluation on; `usize::MAX` never panics.
struct Sphere {
    bounds: Bounds,
    calls: usize,
    count: AtomicUsize,
}

fn sphere(calls: usize) -> Sphere {
    Sphere {
        bounds: Bounds::uniform(8, -5.0, 5.0).unwrap(),
        calls,
        count: AtomicUsize::new(0),
    }
}

impl ContinuousProblem for Sphere {
    fn name(&self) -> &str {
        "explodes"
    }

    fn dimension(&self) -> usize {
        8
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        let call = self.count.fetch_add(1, Ordering::Relaxed);
        assert!(call < self.calls, "boom at call {call}");
        x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
    }
}

impl CudaProblem for Sphere {
    fn cuda_evaluator(&self, _gpu: &Gpu) -> evo_core::Result<CudaEvaluator> {
        Err(Error::invalid_parameter(
            "test", "backend", "cuda", "the CPU",
        ))
    }
}

fn params() -> MaParams {
    MaParams::new()
        .with_population(10)
        .unwrap()
        .with_max_evaluations(400)
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
fn a_panic_in_any_evaluation_is_an_error_and_the_next_run_works() {
    let cpu = Backend::Cpu { threads: 3 };
    // The initial population (10 calls), the first children and the local search after them.
    for calls in [0, 4, 10, 12, 150] {
        let error = evo_ma_sw_chains::run(params(), &sphere(calls), 4, cpu).unwrap_err();
        assert_panicked(&error);
    }
    let report = evo_ma_sw_chains::run(params(), &sphere(usize::MAX), 4, cpu).unwrap();
    assert!(report.evaluations >= 400);
    // The engine itself: the first evaluation after the initial population panics in the step.
    let problem = sphere(10);
    let mut engine = MaCpu::new(params(), &problem, 4, 2).unwrap();
    assert_panicked(&engine.step().unwrap_err());
}
