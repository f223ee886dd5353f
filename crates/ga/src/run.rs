//! [`run`] and [`Run`]: one GA run to its generation budget on a chosen backend; [`GaRun`] is what the
//! generic [`RunBuilder`] needs to know about the GA.

use std::marker::PhantomData;

use evo_benchmarks::cuda::DeviceBitProblem;
use evo_core::{
    Backend, Bits, GpuPresence, OnDevice, Report, Result, RunAlgorithm, RunBuilder, Termination,
};
use evo_gpu_runtime::{Gpu, device_count};

use crate::cpu::GaCpu;
use crate::cuda::GaCuda;
use crate::params::GaParams;

/// Runs the GA on `problem` for `params.generations()` generations from `seed` on `backend`.
///
/// The same as `Run::new(params, problem, seed).backend(backend).run()`; [`Run`] also attaches observers,
/// checkpoints, Ctrl-C and the history cadence.
///
/// `problem` is any [`DeviceBitProblem`], so it runs on either engine: the paper's functions
/// ([`PaperFunction`](crate::PaperFunction)), your CUDA source ([`UserBits`](crate::UserBits)), your own
/// kernels, or any [`BinaryProblem`](evo_core::BinaryProblem) evaluated on the host by the CUDA engine
/// ([`HostEvaluated`](crate::HostEvaluated)). `Backend::Auto` takes the GPU whenever the driver has one and
/// the CPU on all cores otherwise, and the report says which and why (`backend_reason`, see
/// [`RunBuilder`]'s "The backend").
///
/// # Errors
/// Parameter errors; [`evo_core::Error::NoGpu`] or [`evo_core::Error::NoSuchDevice`] for a CUDA backend
/// that does not exist (never a CPU run instead); the errors of the problem's
/// [`bit_evaluator`](DeviceBitProblem::bit_evaluator) (user source that does not compile); GPU errors;
/// [`evo_core::Error::ProblemPanicked`] when the problem's `evaluate` panics (the panic does not unwind out
/// of `run`); an invalid `Backend::Cpu` thread count ([`Backend::validate`]).
pub fn run<P: DeviceBitProblem + Send + 'static>(
    params: GaParams,
    problem: P,
    seed: u64,
    backend: Backend,
) -> Result<Report<Bits>> {
    Run::new(params, problem, seed).backend(backend).run()
}

/// A GA run with options, a thin layer over [`Executor`](evo_core::Executor) (see [`RunBuilder`] for every
/// option): [`run`] plus observers, checkpoints, Ctrl-C, the history cadence and another termination than
/// the parameters' generation budget.
///
/// ```no_run
/// # use evo_core::{Backend, ProgressBarObserver};
/// # use evo_ga::{GaParams, PaperFunction, Run};
/// # fn demo(params: GaParams, problem: PaperFunction) -> evo_core::Result<()> {
/// let report = Run::new(params, problem, 7)
///     .backend(Backend::Auto)
///     .observer(ProgressBarObserver::new())
///     .history_every(100)
///     .ctrl_c(true)
///     .run()?;
/// println!("ran on {}: {}", report.metadata["backend"], report.metadata["backend_reason"]);
/// # Ok(()) }
/// ```
///
/// Without options it runs exactly as [`run`], to `params.generations()` generations. The executor batches
/// generations between the steps where the host is needed: a history point every step (the default) needs
/// the host every step, so set [`history_every`](RunBuilder::history_every) for runs at the engine's speed.
pub type Run<P> = RunBuilder<GaRun<P>>;

/// The GA as [`Run`] runs it: every [`DeviceBitProblem`] evaluated by the CUDA engine (so `Backend::Auto`
/// takes the GPU whenever the driver has one), [`GaCpu`] or [`GaCuda`] (Exact profile) built from the
/// parameters, problem and seed, and `params.generations()` generations unless another termination is set.
/// A marker type, never built.
pub struct GaRun<P>(PhantomData<P>);

impl<P: DeviceBitProblem + Send + 'static> RunAlgorithm for GaRun<P> {
    const NAME: &'static str = "evo_ga::Run";
    type Params = GaParams;
    type Problem = P;
    type Solution = Bits;
    type CpuEngine = GaCpu<P>;
    type CudaEngine = GaCuda;

    fn termination(params: &GaParams, chosen: Option<Termination>) -> Result<Termination> {
        Ok(chosen.unwrap_or_else(|| Termination::new().with_max_generations(params.generations())))
    }

    fn gpu_presence() -> Result<GpuPresence> {
        GpuPresence::from_device_count(device_count())
    }

    fn problem_name(problem: &P) -> String {
        problem.name().to_string()
    }

    fn cpu_engine(params: GaParams, problem: P, seed: u64, backend: Backend) -> Result<GaCpu<P>> {
        GaCpu::with_threads(params, problem, seed, backend.cpu_threads())
    }

    fn cuda_engine(
        params: GaParams,
        problem: P,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<GaCuda>> {
        let gpu = Gpu::open(device)?;
        let engine = GaCuda::new(params, &problem, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::{HostEvaluated, PaperFunction};
    use evo_benchmarks::ga_functions::GaFunction;
    use evo_core::{BinaryProblem, Cadence, Error, StepCounter};

    const CPU: Backend = Backend::Cpu { threads: 1 };

    fn start() -> Run<PaperFunction> {
        let params = GaParams::new()
            .with_population(32)
            .unwrap()
            .with_generations(120)
            .unwrap();
        let problem = PaperFunction::new(GaFunction::Rastrigin, 4).unwrap();
        Run::new(params, problem, 11).backend(CPU).history_every(10)
    }

    #[test]
    fn batched_runs_report_as_single_steps() {
        let batches = StepCounter::new(Cadence::Batches);
        let batched = start().observer(batches.clone()).run().unwrap();
        let single = start()
            .observer(StepCounter::new(Cadence::EveryStep))
            .run()
            .unwrap();
        assert_eq!(batched.generations, 120);
        assert_eq!(batched.without_wall_times(), single.without_wall_times());
        assert!(batches.count() < 120);
    }

    #[test]
    fn an_evaluation_limit_is_met_exactly_in_batches() {
        let termination = Termination::new().with_max_evaluations(500);
        let batched = start().termination(termination.clone()).run().unwrap();
        let single = start()
            .termination(termination)
            .observer(StepCounter::new(Cadence::EveryStep))
            .run()
            .unwrap();
        assert_eq!(batched.without_wall_times(), single.without_wall_times());
    }

    #[test]
    fn run_and_the_builder_without_options_agree() {
        let params = GaParams::new()
            .with_population(16)
            .unwrap()
            .with_generations(20)
            .unwrap();
        let problem = || PaperFunction::new(GaFunction::Rastrigin, 3).unwrap();
        let report = run(params.clone(), problem(), 2, CPU).unwrap();
        let built = Run::new(params, problem(), 2).backend(CPU).run().unwrap();
        assert_eq!(report.without_wall_times(), built.without_wall_times());
    }

    /// A user's own problem (OneMax, negated), which either engine runs through [`HostEvaluated`].
    struct Ones;

    impl BinaryProblem for Ones {
        fn name(&self) -> &str {
            "ones"
        }
        fn bit_count(&self) -> usize {
            16
        }
        fn evaluate(&self, bits: &Bits) -> f64 {
            -(bits.count_ones() as f64)
        }
    }

    fn ones_params() -> GaParams {
        GaParams::new()
            .with_population(16)
            .unwrap()
            .with_generations(40)
            .unwrap()
    }

    /// Whether `EVO_REQUIRE_GPU=1` is set (the GPU machine), so that a missing device fails the test.
    fn gpu_required() -> bool {
        std::env::var("EVO_REQUIRE_GPU").is_ok_and(|value| value == "1")
    }

    /// The positive GPU path where the driver has a device (required under `EVO_REQUIRE_GPU=1`): a user's
    /// problem reaches `GaCuda`, and the report says why; the CPU path with the driver's reason otherwise.
    #[test]
    fn auto_runs_a_users_problem_on_the_device_when_there_is_one_and_records_why() {
        let auto = run(ones_params(), HostEvaluated::new(Ones), 1, Backend::auto()).unwrap();
        let cpu = run(ones_params(), HostEvaluated::new(Ones), 1, Backend::cpu()).unwrap();
        let reason = &auto.metadata["backend_reason"];
        match device_count() {
            Ok(count) if count > 0 => {
                assert_eq!(auto.metadata["backend"], "cuda:0");
                assert_eq!(
                    reason,
                    "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
                );
                assert_eq!(auto.metadata["profile"], "exact");
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
        assert_eq!(cpu.metadata["backend_reason"], "cpu was asked for");
        // Under the Exact profile the CUDA engine runs the CPU engine's run.
        assert_eq!(auto.best, cpu.best);
        assert_eq!(auto.best_fitness.to_bits(), cpu.best_fitness.to_bits());
    }

    #[test]
    fn a_cuda_device_that_does_not_exist_is_an_error_not_a_cpu_run() {
        // One past the last device: `NoSuchDevice` on a GPU machine, `NoGpu` without a driver.
        let past_the_last = device_count().unwrap_or(0);
        let error = run(
            ones_params(),
            HostEvaluated::new(Ones),
            1,
            Backend::cuda(past_the_last),
        )
        .unwrap_err();
        assert!(
            matches!(error, Error::NoGpu { .. } | Error::NoSuchDevice { .. }),
            "{error}"
        );
    }
}
