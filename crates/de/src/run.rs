//! [`run`] and [`Run`]: one DE run on a chosen backend, to a chosen termination; [`DeRun`] is what the
//! generic [`RunBuilder`] needs to know about DE.

use std::marker::PhantomData;

use crate::cpu::DeCpu;
use crate::cuda::DeCuda;
use crate::params::DeParams;
use crate::problem::DeviceProblem;
use evo_core::{
    Backend, GpuPresence, OnDevice, Report, Result, RunAlgorithm, RunBuilder, Termination,
};
use evo_gpu_runtime::{Gpu, device_count};

/// Runs DE on `problem` from `seed` on `backend` until `termination` holds (the paper: 30 s of wall time,
/// `Termination::new().with_max_wall_time(Duration::from_secs(30))?`). Every [`DeviceProblem`] runs on
/// either backend (a [`HostEvaluated`](crate::HostEvaluated) or [`FnProblem`](crate::FnProblem) through a
/// host evaluation on the GPU), so `Backend::Auto` takes the GPU whenever there is one, and the CPU on all
/// cores otherwise; the report's metadata records the backend, why it was taken (`backend_reason`, see
/// [`RunBuilder`]'s "The backend"), the device, seed and problem. The same as
/// `Run::new(params, problem, seed).backend(backend).termination(termination).run()`; [`Run`] also
/// attaches observers, checkpoints, Ctrl-C and the history cadence.
///
/// DE has no natural generation count, so unlike the crates whose parameters carry one, the termination is
/// an argument.
///
/// # Errors
/// Parameter and problem errors; [`evo_core::Error::NoGpu`] or
/// [`evo_core::Error::NoSuchDevice`] for a CUDA backend that does not exist (never a CPU run instead); GPU
/// errors;
/// [`evo_core::Error::ProblemPanicked`] when the problem's `evaluate` panics (the panic does not unwind out
/// of `run`); an invalid `Backend::Cpu` thread count ([`evo_core::Backend::validate`]).
pub fn run<P: DeviceProblem>(
    params: DeParams,
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

/// A DE run with options, a thin layer over [`Executor`](evo_core::Executor) (see
/// [`RunBuilder`] for every option):
///
/// ```no_run
/// # use evo_core::{Backend, ProgressBarObserver, Termination};
/// # use evo_de::{DeParams, Run};
/// # fn demo<P: evo_de::DeviceProblem>(problem: P) -> evo_core::Result<()> {
/// let report = Run::new(DeParams::default(), problem, 7)
///     .backend(Backend::Auto)
///     .termination(Termination::new().with_max_generations(10_000))
///     .observer(ProgressBarObserver::new())
///     .history_every(100)
///     .ctrl_c(true)
///     .run()?;
/// # Ok(()) }
/// ```
///
/// Without options it runs exactly as [`run`]. The termination is required. The executor batches
/// generations between the steps where the host is needed: a history point every step (the default) needs
/// the host every step, so set [`history_every`](RunBuilder::history_every) (and, with a target, wall-time,
/// stagnation rule or checkpoints, [`check_every`](RunBuilder::check_every)) for runs at the engine's
/// speed.
pub type Run<P> = RunBuilder<DeRun<P>>;

/// DE as [`Run`] runs it: every [`DeviceProblem`] evaluated by the CUDA engine (so `Backend::Auto` takes
/// the GPU whenever the driver has one), [`DeCpu`] or [`DeCuda`] (Exact profile) built from the parameters,
/// problem and seed, and no default termination. A marker type, never built.
pub struct DeRun<P>(PhantomData<P>);

impl<P: DeviceProblem> RunAlgorithm for DeRun<P> {
    const NAME: &'static str = "evo_de::Run";
    type Params = DeParams;
    type Problem = P;
    type Solution = Vec<f32>;
    type CpuEngine = DeCpu<P>;
    type CudaEngine = DeCuda<P>;

    fn gpu_presence() -> Result<GpuPresence> {
        GpuPresence::from_device_count(device_count())
    }

    fn problem_name(problem: &P) -> String {
        problem.name().to_string()
    }

    fn cpu_engine(params: DeParams, problem: P, seed: u64, backend: Backend) -> Result<DeCpu<P>> {
        DeCpu::for_backend(params, problem, seed, backend)
    }

    fn cuda_engine(
        params: DeParams,
        problem: P,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<DeCuda<P>>> {
        let gpu = Gpu::open(device)?;
        let engine = DeCuda::new(params, problem, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::FnProblem;
    use evo_benchmarks::DeRastrigin;
    use evo_core::{Bounds, Cadence, Checkpointing, Error, StepCounter};

    const CPU: Backend = Backend::Cpu { threads: 1 };

    fn rastrigin() -> DeRastrigin {
        DeRastrigin::new(8).unwrap()
    }

    fn params() -> DeParams {
        DeParams::default().with_population(16).unwrap()
    }

    /// The run batched (counting the batches) and one step at a time; returns both reports.
    fn both_ways(
        termination: Termination,
        history_every: u64,
    ) -> (Report<Vec<f32>>, Report<Vec<f32>>, u64) {
        let batches = StepCounter::new(Cadence::Batches);
        let batched = Run::new(params(), rastrigin(), 5)
            .backend(CPU)
            .termination(termination.clone())
            .history_every(history_every)
            .observer(batches.clone())
            .run()
            .unwrap();
        let single = Run::new(params(), rastrigin(), 5)
            .backend(CPU)
            .termination(termination)
            .history_every(history_every)
            .observer(StepCounter::new(Cadence::EveryStep))
            .run()
            .unwrap();
        (
            batched.without_wall_times(),
            single.without_wall_times(),
            batches.count(),
        )
    }

    #[test]
    fn batched_cpu_runs_report_as_single_steps() {
        let (batched, single, batches) =
            both_ways(Termination::new().with_max_generations(200), 25);
        assert_eq!(batched, single);
        assert_eq!(batched.generations, 200);
        assert!(batches < 200, "{batches} batches");
        assert_eq!(batched.history.len(), 9);
    }

    #[test]
    fn an_evaluation_limit_is_met_exactly_in_batches() {
        // 16 initial evaluations and 16 a generation: 1000 evaluations are crossed at generation 62.
        let (batched, single, batches) =
            both_ways(Termination::new().with_max_evaluations(1000), 1000);
        assert_eq!(batched, single);
        assert_eq!(batched.generations, 62);
        assert!(batches < 62, "{batches} batches");
    }

    #[test]
    fn run_and_the_builder_without_options_agree() {
        let termination = Termination::new().with_max_generations(30);
        let report = run(params(), rastrigin(), 9, CPU, termination.clone()).unwrap();
        let built = Run::new(params(), rastrigin(), 9)
            .backend(CPU)
            .termination(termination)
            .run()
            .unwrap();
        assert_eq!(report.without_wall_times(), built.without_wall_times());
    }

    #[test]
    fn a_run_stopped_and_resumed_through_the_builder_ends_as_an_uninterrupted_one() {
        let path =
            std::env::temp_dir().join(format!("evo-de-run-builder-{}.ckpt", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let checkpointing = Checkpointing::new(&path, 10)
            .unwrap()
            .with_last_good_snapshot(false);
        let resumed_run = |generations| {
            Run::new(params(), rastrigin(), 3)
                .backend(CPU)
                .termination(Termination::new().with_max_generations(generations))
                .history_every(5)
                .check_every(100)
                .checkpoint(checkpointing.clone())
                .resume_if_present(true)
                .run()
                .unwrap()
        };
        resumed_run(35);
        let resumed = resumed_run(60);
        let _ = std::fs::remove_file(&path);
        let uninterrupted = Run::new(params(), rastrigin(), 3)
            .backend(CPU)
            .termination(Termination::new().with_max_generations(60))
            .history_every(5)
            .run()
            .unwrap();
        assert_eq!(
            resumed.without_wall_times(),
            uninterrupted.without_wall_times()
        );
    }

    #[test]
    fn the_builder_refuses_a_missing_termination_and_zero_cadences() {
        let missing = Run::new(params(), rastrigin(), 1)
            .backend(CPU)
            .run()
            .unwrap_err();
        assert!(missing.to_string().contains("termination"), "{missing}");
        let termination = Termination::new().with_max_generations(3);
        let history = Run::new(params(), rastrigin(), 1)
            .backend(CPU)
            .termination(termination.clone())
            .history_every(0)
            .run()
            .unwrap_err();
        assert!(history.to_string().contains("history_every"), "{history}");
        let checks = Run::new(params(), rastrigin(), 1)
            .backend(CPU)
            .termination(termination)
            .check_every(0)
            .run()
            .unwrap_err();
        assert!(checks.to_string().contains("check_every"), "{checks}");
    }

    /// A user's own sphere as a Rust function, which the CUDA engine evaluates on the host.
    fn user_sphere() -> FnProblem<fn(&[f32]) -> f64> {
        fn sphere(x: &[f32]) -> f64 {
            x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
        }
        FnProblem::new(
            "user sphere",
            Bounds::uniform(6, -5.0, 5.0).unwrap(),
            sphere as fn(&[f32]) -> f64,
        )
    }

    /// Whether `EVO_REQUIRE_GPU=1` is set (the GPU machine), so that a missing device fails the test.
    fn gpu_required() -> bool {
        std::env::var("EVO_REQUIRE_GPU").is_ok_and(|value| value == "1")
    }

    /// The positive GPU path where the driver has a device (required under `EVO_REQUIRE_GPU=1`): a user's
    /// problem reaches `DeCuda`, and the report says why; the CPU path with the driver's reason otherwise.
    #[test]
    fn auto_runs_a_users_problem_on_the_device_when_there_is_one_and_records_why() {
        let termination = Termination::new().with_max_generations(40);
        let auto = run(
            params(),
            user_sphere(),
            4,
            Backend::auto(),
            termination.clone(),
        )
        .unwrap();
        let cpu = run(params(), user_sphere(), 4, Backend::cpu(), termination).unwrap();
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
                    !gpu_required(),
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
            params(),
            rastrigin(),
            1,
            Backend::cuda(past_the_last),
            Termination::new().with_max_generations(3),
        )
        .unwrap_err();
        assert!(
            matches!(error, Error::NoGpu { .. } | Error::NoSuchDevice { .. }),
            "{error}"
        );
    }
}
