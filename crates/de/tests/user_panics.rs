//! A problem whose `evaluate` panics makes `run` and the engine return `Error::ProblemPanicked` instead of
//! unwinding through rayon, and the process runs DE normally afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::scheduling::{EtcClass, EtcInstance, EtcProblem};
use evo_core::{Backend, Bounds, ContinuousProblem, Engine, Error, Termination};
use evo_de::{DeCpu, DeParams, DeviceEvaluation, DeviceProblem, FnProblem, LocalSearch};
use evo_gpu_runtime::Gpu;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn params() -> DeParams {
    DeParams::default().with_population(8).unwrap()
}

fn generations(count: u64) -> Termination {
    Termination::new().with_max_generations(count)
}

/// A sphere that panics from its `calls`-th evaluation on (counted over every thread).
fn explodes_after(calls: usize) -> impl DeviceProblem {
    let count = AtomicUsize::new(0);
    FnProblem::new(
        "explodes",
        Bounds::uniform(4, -1.0, 1.0).unwrap(),
        move |x: &[f32]| {
            assert!(
                count.fetch_add(1, Ordering::Relaxed) < calls,
                "boom at {x:?}"
            );
            x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
        },
    )
}

fn sphere() -> impl DeviceProblem {
    FnProblem::new(
        "sphere",
        Bounds::uniform(4, -1.0, 1.0).unwrap(),
        |x: &[f32]| x.iter().map(|&v| f64::from(v) * f64::from(v)).sum(),
    )
}

fn assert_panicked(error: &Error) {
    match error {
        Error::ProblemPanicked { problem, message } => {
            assert_eq!(problem, "explodes");
            assert!(message.starts_with("boom at ["), "{message}");
        }
        other => panic!("expected ProblemPanicked, got {other}"),
    }
}

#[test]
fn a_panic_in_the_initial_or_a_later_evaluation_is_an_error_and_the_next_run_works() {
    let cpu = Backend::Cpu { threads: 3 };
    // The initial population's evaluation (8 calls) and the first generation's trials.
    for calls in [0, 3, 8, 13] {
        let error =
            evo_de::run(params(), explodes_after(calls), 5, cpu, generations(4)).unwrap_err();
        assert_panicked(&error);
    }
    let report = evo_de::run(params(), sphere(), 5, cpu, generations(4)).unwrap();
    assert_eq!(report.generations, 4);
    // The engine itself: a panicking step returns the error, the pool is still usable.
    let mut engine = DeCpu::new(params(), explodes_after(12), 5, 2).unwrap();
    assert_panicked(&engine.step().unwrap_err());
    let mut healthy = DeCpu::new(params(), sphere(), 5, 2).unwrap();
    healthy.step().unwrap();
}

/// An ETC problem whose own `evaluate` panics when called outside a batch, which only the local search
/// does (it evaluates the improved vector alone).
struct PanicsOutsideBatches {
    inner: EtcProblem,
    in_batch: AtomicBool,
}

impl ContinuousProblem for PanicsOutsideBatches {
    fn name(&self) -> &str {
        "explodes"
    }

    fn dimension(&self) -> usize {
        self.inner.dimension()
    }

    fn bounds(&self) -> &Bounds {
        self.inner.bounds()
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        assert!(
            self.in_batch.load(Ordering::SeqCst),
            "boom at {:?}",
            &x[..2]
        );
        self.inner.evaluate(x)
    }

    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        self.in_batch.store(true, Ordering::SeqCst);
        let d = self.dimension();
        for (x, f) in population.chunks(d).zip(fitness.iter_mut()) {
            *f = self.evaluate(x);
        }
        self.in_batch.store(false, Ordering::SeqCst);
    }
}

impl DeviceProblem for PanicsOutsideBatches {
    fn device_evaluation(&self, _gpu: &Gpu) -> evo_core::Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Host)
    }

    fn scheduling(&self) -> Option<&EtcProblem> {
        Some(&self.inner)
    }
}

#[test]
fn a_panic_in_the_local_search_evaluation_is_an_error() {
    let instance = EtcInstance::generate(EtcClass::all()[0], 32, 4, 9).unwrap();
    let problem = PanicsOutsideBatches {
        inner: EtcProblem::new(instance, 0.75).unwrap(),
        in_batch: AtomicBool::new(false),
    };
    let mut engine = DeCpu::new(params(), problem, 5, 2)
        .unwrap()
        .with_local_search(LocalSearch::new(1, 50).unwrap())
        .unwrap();
    // A random population's best schedule has improving moves, so the first search evaluates a vector.
    assert_panicked(&engine.step().unwrap_err());
}

/// The CUDA engine evaluates a host problem on the host (`DeviceEvaluation::Host`): the same error there.
/// Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.
#[test]
fn a_panic_in_a_host_evaluation_of_the_cuda_engine_is_an_error() {
    let test = "a_panic_in_a_host_evaluation_of_the_cuda_engine_is_an_error";
    match Gpu::first_available() {
        Ok(Some(_)) => {}
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            eprintln!("SKIPPED (no CUDA device): {test}");
            return;
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
    let cuda = Backend::Cuda { device: 0 };
    for calls in [0, 8, 13] {
        let error =
            evo_de::run(params(), explodes_after(calls), 5, cuda, generations(4)).unwrap_err();
        assert_panicked(&error);
    }
    let report = evo_de::run(params(), sphere(), 5, cuda, generations(4)).unwrap();
    assert_eq!(report.generations, 4);
}
