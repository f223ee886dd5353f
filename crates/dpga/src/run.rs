//! [`run`] and [`Run`]: one DPGA run under a [`Termination`] on a chosen backend; [`DpgaRun`] is what the
//! generic [`RunBuilder`] needs to know about the DPGA.

use std::any::Any;
use std::marker::PhantomData;

use evo_benchmarks::Cec2006Problem;
use evo_core::{
    Backend, ConstrainedProblem, DeviceSupport, Error, GpuPresence, OnDevice, Report, Result,
    RunAlgorithm, RunBuilder, Termination,
};
use evo_gpu_runtime::{Gpu, device_count};

use crate::cpu::DpgaCpu;
use crate::cuda::DpgaCuda;
use crate::params::DpgaParams;

/// Runs the DPGA on `problem` from `seed` on `backend` until `termination` (the CEC 2006 rules:
/// `Termination::new().with_max_evaluations(500_000).with_target_fitness(f* + 1e-4)`).
///
/// The same as `Run::new(params, problem, seed).backend(backend).termination(termination).run()`; [`Run`]
/// also attaches observers, checkpoints, Ctrl-C and the history cadence.
///
/// The CUDA engine evaluates the built-in CEC 2006 problems ([`Cec2006Problem`]: their formulas on the
/// device) and no other problem yet. `Backend::Auto` takes the GPU when the driver has one and the problem
/// is a [`Cec2006Problem`], the CPU on all cores otherwise, and the report says which and why
/// (`backend_reason`, see [`RunBuilder`]'s "The backend").
///
/// # Errors
/// Parameter errors; [`Error::NoDeviceEvaluation`] for `Backend::Cuda` with a problem other than a
/// [`Cec2006Problem`] (never a CPU run instead); GPU errors; the engine's errors, among them
/// [`Error::ProblemPanicked`] when the
/// problem's `evaluate` panics (the panic does not unwind out of `run`) and an invalid `Backend::Cpu`
/// thread count ([`Backend::validate`]).
pub fn run<P: ConstrainedProblem + 'static>(
    params: DpgaParams,
    problem: P,
    seed: u64,
    backend: Backend,
    termination: Termination,
) -> Result<Report<Vec<f32>>> {
    Run::new(params, problem, seed)
        .backend(backend)
        .termination(termination)
        .run()
}

/// A DPGA run with options, a thin layer over [`Executor`](evo_core::Executor) (see [`RunBuilder`] for
/// every option): [`run`] plus observers, checkpoints, Ctrl-C and the history cadence. The termination is
/// required. Without options it runs exactly as [`run`]; see the executor's "Batching" for what lets it
/// batch generations (a history point every step, the default, needs the host every step).
pub type Run<P> = RunBuilder<DpgaRun<P>>;

/// The DPGA as [`Run`] runs it: the CUDA engine only for a [`Cec2006Problem`], [`DpgaCpu`] or
/// [`DpgaCuda`] (Exact profile) built from the parameters, problem and seed, and no default termination. A
/// marker type, never built.
pub struct DpgaRun<P>(PhantomData<P>);

impl<P: ConstrainedProblem + 'static> RunAlgorithm for DpgaRun<P> {
    const NAME: &'static str = "evo_dpga::Run";
    type Params = DpgaParams;
    type Problem = P;
    type Solution = Vec<f32>;
    type CpuEngine = DpgaCpu<P>;
    type CudaEngine = DpgaCuda;

    fn device_support(problem: &P) -> DeviceSupport {
        match cec_problem(problem) {
            Some(_) => DeviceSupport::Evaluated,
            None => DeviceSupport::Missing {
                remedy: DEVICE_PROBLEMS,
            },
        }
    }

    fn gpu_presence() -> Result<GpuPresence> {
        GpuPresence::from_device_count(device_count())
    }

    fn problem_name(problem: &P) -> String {
        problem.name().to_string()
    }

    fn cpu_engine(
        params: DpgaParams,
        problem: P,
        seed: u64,
        backend: Backend,
    ) -> Result<DpgaCpu<P>> {
        DpgaCpu::new(params, problem, seed, backend.cpu_threads())
    }

    fn cuda_engine(
        params: DpgaParams,
        problem: P,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<DpgaCuda>> {
        // The builder refuses `Backend::Cuda` for other problems before asking for the engine; this keeps
        // the engine's own check for a caller of the trait.
        let cec = cec_problem(&problem).ok_or_else(|| Error::NoDeviceEvaluation {
            algorithm: Self::NAME,
            problem: problem.name().to_string(),
            remedy: DEVICE_PROBLEMS,
        })?;
        let gpu = Gpu::open(device)?;
        let engine = DpgaCuda::new(params, cec, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

/// What a problem must be for [`DpgaCuda`], as [`Error::NoDeviceEvaluation`] says it: constrained
/// problems have no device-evaluation contract for users yet.
const DEVICE_PROBLEMS: &str = "give it as a built-in CEC 2006 problem (evo_benchmarks::Cec2006Problem): \
     the CUDA engine evaluates no other constrained problem yet";

/// `problem` as a [`Cec2006Problem`], the only problem the CUDA engine evaluates on the device.
fn cec_problem<P: 'static>(problem: &P) -> Option<&Cec2006Problem> {
    (problem as &dyn Any).downcast_ref::<Cec2006Problem>()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_core::{Bounds, Cadence, Observer, Progress};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    const CPU: Backend = Backend::Cpu { threads: 1 };

    /// Counts its `on_step` calls; with `Cadence::EveryStep` it makes the executor step one at a time.
    #[derive(Clone)]
    struct Calls(Cadence, Arc<AtomicU64>);

    impl Observer for Calls {
        fn cadence(&self) -> Cadence {
            self.0
        }
        fn on_step(&mut self, _progress: &Progress, _elapsed: Duration) {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn timeless(mut report: Report<Vec<f32>>) -> Report<Vec<f32>> {
        report.wall_time_s = 0.0;
        for point in &mut report.history {
            point.elapsed_s = 0.0;
        }
        report
    }

    fn start(observer: Calls) -> Run<Cec2006Problem> {
        let params = DpgaParams::default()
            .with_main_size(16)
            .unwrap()
            .with_reserve_size(16)
            .unwrap();
        Run::new(params, Cec2006Problem::new(1).unwrap(), 6)
            .backend(CPU)
            .termination(Termination::new().with_max_generations(40))
            .history_every(10)
            .observer(observer)
    }

    #[test]
    fn batched_runs_report_as_single_steps() {
        let batches = Calls(Cadence::Batches, Arc::new(AtomicU64::new(0)));
        let batched = start(batches.clone()).run().unwrap();
        let single = start(Calls(Cadence::EveryStep, Arc::new(AtomicU64::new(0))))
            .run()
            .unwrap();
        assert!(batches.1.load(Ordering::Relaxed) < 40);
        assert_eq!(timeless(batched), timeless(single));
    }

    #[test]
    fn the_builder_refuses_a_missing_termination() {
        let error = Run::new(DpgaParams::default(), Cec2006Problem::new(1).unwrap(), 6)
            .backend(CPU)
            .run()
            .unwrap_err();
        assert!(error.to_string().contains("termination"), "{error}");
    }

    /// A user's own constrained problem (minimise `x0 + x1` subject to `x0 · x1 >= 1`), which the CUDA engine
    /// cannot evaluate.
    struct Hyperbola(Bounds);

    impl Hyperbola {
        fn new() -> Self {
            Self(Bounds::uniform(2, 0.1, 10.0).unwrap())
        }
    }

    impl ConstrainedProblem for Hyperbola {
        fn name(&self) -> &str {
            "hyperbola"
        }
        fn dimension(&self) -> usize {
            2
        }
        fn bounds(&self) -> &Bounds {
            &self.0
        }
        fn inequality_count(&self) -> usize {
            1
        }
        fn equality_count(&self) -> usize {
            0
        }
        fn evaluate(&self, x: &[f32], inequality: &mut [f64], _equality: &mut [f64]) -> f64 {
            let (a, b) = (f64::from(x[0]), f64::from(x[1]));
            inequality[0] = 1.0 - a * b;
            a + b
        }
    }

    fn small_params() -> DpgaParams {
        DpgaParams::default()
            .with_main_size(16)
            .unwrap()
            .with_reserve_size(16)
            .unwrap()
    }

    fn ten_generations() -> Termination {
        Termination::new().with_max_generations(10)
    }

    #[test]
    fn auto_runs_a_problem_without_a_device_evaluation_on_every_core_and_says_why() {
        // On every machine, GPU or not: the driver is not asked for a problem the CUDA engine cannot run.
        let report = run(
            small_params(),
            Hyperbola::new(),
            2,
            Backend::auto(),
            ten_generations(),
        )
        .unwrap();
        assert_eq!(report.metadata["backend"], "cpu");
        assert_eq!(
            report.metadata["backend_reason"],
            format!(
                "Backend::Auto: the problem `hyperbola` has no device evaluation for evo_dpga::Run \
                 (to run it on the GPU, {DEVICE_PROBLEMS})"
            )
        );
        let cpu = run(
            small_params(),
            Hyperbola::new(),
            2,
            Backend::cpu(),
            ten_generations(),
        )
        .unwrap();
        assert_eq!(report.best, cpu.best);
    }

    #[test]
    fn cuda_for_a_problem_without_a_device_evaluation_is_refused_naming_it_and_the_remedy() {
        // The same error with or without a GPU: the problem is checked before any device is opened.
        let error = run(
            small_params(),
            Hyperbola::new(),
            2,
            Backend::cuda(0),
            ten_generations(),
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(
                &error,
                Error::NoDeviceEvaluation {
                    algorithm: "evo_dpga::Run",
                    problem,
                    remedy: DEVICE_PROBLEMS,
                } if problem == "hyperbola"
            ),
            "{message}"
        );
        assert!(
            message.contains("Cec2006Problem") && message.contains("CPU backend"),
            "{message}"
        );
    }

    /// The positive GPU path where the driver has a device (required under `EVO_REQUIRE_GPU=1`): a CEC 2006
    /// problem runs on `DpgaCuda` under `Backend::Auto`, and the report says why.
    #[test]
    fn auto_runs_a_cec_2006_problem_on_the_device_when_there_is_one_and_records_why() {
        let problem = || Cec2006Problem::new(1).unwrap();
        let report = run(
            small_params(),
            problem(),
            2,
            Backend::auto(),
            ten_generations(),
        )
        .unwrap();
        let reason = &report.metadata["backend_reason"];
        match device_count() {
            Ok(count) if count > 0 => {
                assert_eq!(report.metadata["backend"], "cuda:0");
                assert_eq!(
                    reason,
                    "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
                );
            }
            absent => {
                assert!(
                    std::env::var("EVO_REQUIRE_GPU").map_or(true, |value| value != "1"),
                    "EVO_REQUIRE_GPU=1 but no CUDA device: {absent:?}"
                );
                assert_eq!(report.metadata["backend"], "cpu");
                assert!(
                    reason.starts_with("Backend::Auto: no CUDA device ("),
                    "{reason}"
                );
            }
        }
    }
}
