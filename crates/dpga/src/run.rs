//! [`run`] and [`Run`]: one DPGA run under a [`Termination`] on a chosen backend; [`DpgaRun`] is what the
//! generic [`RunBuilder`] needs to know about the DPGA.

use std::any::Any;
use std::marker::PhantomData;

use evo_benchmarks::Cec2006Problem;
use evo_benchmarks::cuda::DeviceConstrainedProblem;
use evo_core::{
    Backend, GpuPresence, OnDevice, Report, Result, RunAlgorithm, RunBuilder, Termination,
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
/// `problem` is any [`DeviceConstrainedProblem`], so it runs on either engine: the built-in CEC 2006
/// problems ([`Cec2006Problem`], fused into the CUDA engine's generation), your CUDA source
/// ([`UserConstrained`](crate::UserConstrained)), your own kernels, or any
/// [`ConstrainedProblem`](evo_core::ConstrainedProblem) evaluated on the host by the CUDA engine
/// ([`HostConstrained`](crate::HostConstrained)). `Backend::Auto` takes the GPU whenever the driver has
/// one and the CPU on all cores otherwise, and the report says which and why (`backend_reason`, see
/// [`RunBuilder`]'s "The backend").
///
/// # Errors
/// Parameter errors; [`evo_core::Error::NoGpu`] or [`evo_core::Error::NoSuchDevice`] for a CUDA backend
/// that does not exist (never a CPU run instead); the errors of the problem's
/// [`constrained_evaluator`](DeviceConstrainedProblem::constrained_evaluator) (user source that does not
/// compile); GPU errors; the engine's errors, among them [`evo_core::Error::ProblemPanicked`] when the
/// problem's `evaluate` panics (the panic does not unwind out of `run`) and an invalid `Backend::Cpu`
/// thread count ([`Backend::validate`]).
pub fn run<P: DeviceConstrainedProblem + 'static>(
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

/// The DPGA as [`Run`] runs it: every [`DeviceConstrainedProblem`] evaluated by the CUDA engine (so
/// `Backend::Auto` takes the GPU whenever the driver has one), [`DpgaCpu`] or [`DpgaCuda`] (Exact profile)
/// built from the parameters, problem and seed, and no default termination. A marker type, never built.
pub struct DpgaRun<P>(PhantomData<P>);

impl<P: DeviceConstrainedProblem + 'static> RunAlgorithm for DpgaRun<P> {
    const NAME: &'static str = "evo_dpga::Run";
    type Params = DpgaParams;
    type Problem = P;
    type Solution = Vec<f32>;
    type CpuEngine = DpgaCpu<P>;
    type CudaEngine = DpgaCuda;

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
        let gpu = Gpu::open(device)?;
        // A CEC 2006 problem takes the engine that fuses its formulas into the generation's launch (one
        // launch where the contract's path takes three); both give the CPU engine's bits.
        let engine = match (&problem as &dyn Any).downcast_ref::<Cec2006Problem>() {
            Some(cec) => DpgaCuda::new(params, cec, seed, &gpu)?,
            None => DpgaCuda::for_problem(params, &problem, seed, &gpu)?,
        };
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::HostConstrained;
    use evo_core::{Bounds, Cadence, ConstrainedProblem, Error, StepCounter};

    const CPU: Backend = Backend::Cpu { threads: 1 };

    fn start(observer: StepCounter) -> Run<Cec2006Problem> {
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
        let batches = StepCounter::new(Cadence::Batches);
        let batched = start(batches.clone()).run().unwrap();
        let single = start(StepCounter::new(Cadence::EveryStep)).run().unwrap();
        assert!(batches.count() < 40);
        assert_eq!(batched.without_wall_times(), single.without_wall_times());
    }

    #[test]
    fn the_builder_refuses_a_missing_termination() {
        let error = Run::new(DpgaParams::default(), Cec2006Problem::new(1).unwrap(), 6)
            .backend(CPU)
            .run()
            .unwrap_err();
        assert!(error.to_string().contains("termination"), "{error}");
    }

    /// A user's own constrained problem (minimise `x0 + x1` subject to `x0 · x1 >= 1`), which either engine
    /// runs through [`HostConstrained`].
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

    /// The positive GPU path where the driver has a device (required under `EVO_REQUIRE_GPU=1`): a user's
    /// problem reaches `DpgaCuda`, and the report says why; the CPU path with the driver's reason otherwise.
    #[test]
    fn auto_runs_a_users_problem_on_the_device_when_there_is_one_and_records_why() {
        let hyperbola = || HostConstrained::new(Hyperbola::new());
        let auto = run(
            small_params(),
            hyperbola(),
            2,
            Backend::auto(),
            ten_generations(),
        )
        .unwrap();
        let cpu = run(
            small_params(),
            hyperbola(),
            2,
            Backend::cpu(),
            ten_generations(),
        )
        .unwrap();
        let reason = &auto.metadata["backend_reason"];
        match device_count() {
            Ok(count) if count > 0 => {
                assert_eq!(auto.metadata["backend"], "cuda:0");
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
                assert_eq!(auto.metadata["backend"], "cpu");
                assert!(
                    reason.starts_with("Backend::Auto: no CUDA device ("),
                    "{reason}"
                );
                if let Err(Error::NoGpu { reason: driver }) = &absent {
                    assert!(reason.contains(driver.as_str()), "{reason}");
                }
            }
        }
        // Under the Exact profile the CUDA engine runs the CPU engine's run.
        assert_eq!(auto.best, cpu.best);
        assert_eq!(auto.best_fitness.to_bits(), cpu.best_fitness.to_bits());
    }

    #[test]
    fn a_cuda_device_that_does_not_exist_is_an_error_not_a_cpu_run() {
        // One past the last device: `NoSuchDevice` on a GPU machine, `NoGpu` without a driver.
        let past_the_last = device_count().unwrap_or(0);
        let error = run(
            small_params(),
            Cec2006Problem::new(1).unwrap(),
            2,
            Backend::cuda(past_the_last),
            ten_generations(),
        )
        .unwrap_err();
        assert!(
            matches!(error, Error::NoGpu { .. } | Error::NoSuchDevice { .. }),
            "{error}"
        );
    }
}
