//! [`run`] and [`Run`]: one MA-SW-Chains run to its evaluation budget on a chosen backend; [`MaRun`] is
//! what the generic [`RunBuilder`] needs to know about MA-SW-Chains.

use evo_benchmarks::cuda::DeviceRealProblem;
use std::marker::PhantomData;

use evo_core::{
    Backend, GpuPresence, OnDevice, Report, Result, RunAlgorithm, RunBuilder, Termination,
};
use evo_gpu_runtime::{Gpu, device_count};

use crate::cpu::MaCpu;
use crate::cuda::MaCuda;
use crate::params::MaParams;

/// Runs MA-SW-Chains on `problem` from `seed` until `params.max_evaluations()` evaluations are spent. The
/// same as `Run::new(params, problem, seed).backend(backend).run()`; [`Run`] also attaches observers,
/// checkpoints, Ctrl-C and the history cadence.
///
/// Every [`DeviceRealProblem`] has a device evaluation, so `Backend::Auto` takes the first GPU whenever the
/// driver has one and the CPU on all cores otherwise, and the report says which and why (`backend_reason`,
/// see [`RunBuilder`]'s "The backend"). On a GPU the memory need is checked first
/// ([`crate::memory::device_bytes`]); a problem that does not fit is an error, never a CPU run instead.
///
/// # Errors
/// Parameter errors (D = 0), [`evo_core::Error::GpuOutOfMemory`] when the problem does not fit the device,
/// GPU errors, a non-finite fitness; [`evo_core::Error::ProblemPanicked`] when the problem's `evaluate`
/// panics (the panic does not unwind out of `run`); an invalid `Backend::Cpu` thread count
/// ([`evo_core::Backend::validate`]).
pub fn run<P: DeviceRealProblem + ?Sized>(
    params: MaParams,
    problem: &P,
    seed: u64,
    backend: Backend,
) -> Result<Report<Vec<f32>>> {
    Run::new(params, problem, seed).backend(backend).run()
}

/// An MA-SW-Chains run with options, a thin layer over [`Executor`](evo_core::Executor) (see
/// [`RunBuilder`] for every option): [`run`] plus observers, checkpoints, Ctrl-C, the history cadence and
/// other stopping rules besides the parameters' evaluation budget.
///
/// Without options it runs exactly as [`run`]. The engine does nothing once its budget is spent, so the
/// budget always ends the run too: a [`termination`](RunBuilder::termination) with a larger evaluation
/// limit is lowered to it. A step's evaluations vary (the local search's chains stop early), so the
/// evaluation budget is checked after every step unless [`check_every`](RunBuilder::check_every) is raised
/// (the run may then overshoot the budget by up to that many steps); see the executor's "Batching".
pub type Run<'a, P> = RunBuilder<MaRun<'a, P>>;

/// MA-SW-Chains as [`Run`] runs it: every [`DeviceRealProblem`] evaluated by the CUDA engine, [`MaCpu`] or
/// [`MaCuda`] (Exact profile) built from the parameters, the borrowed problem and the seed,
/// `params.max_evaluations()` as the evaluation limit, and the problem's dimension in the report. A marker
/// type, never built.
pub struct MaRun<'a, P: ?Sized>(PhantomData<&'a P>);

impl<'a, P: DeviceRealProblem + ?Sized> RunAlgorithm for MaRun<'a, P> {
    const NAME: &'static str = "evo_ma_sw_chains::Run";
    type Params = MaParams;
    type Problem = &'a P;
    type Solution = Vec<f32>;
    type CpuEngine = MaCpu<'a, P>;
    type CudaEngine = MaCuda<'a, P>;

    fn termination(params: &MaParams, chosen: Option<Termination>) -> Result<Termination> {
        let budget = params.max_evaluations();
        Ok(match chosen {
            Some(rules) if rules.max_evaluations().is_some_and(|max| max <= budget) => rules,
            Some(rules) => rules.with_max_evaluations(budget),
            None => Termination::new().with_max_evaluations(budget),
        })
    }

    fn gpu_presence() -> Result<GpuPresence> {
        GpuPresence::from_device_count(device_count())
    }

    fn problem_name(problem: &&'a P) -> String {
        problem.name().to_string()
    }

    fn problem_metadata(problem: &&'a P) -> Vec<(&'static str, String)> {
        vec![("dimension", problem.dimension().to_string())]
    }

    fn cpu_engine(
        params: MaParams,
        problem: &'a P,
        seed: u64,
        backend: Backend,
    ) -> Result<MaCpu<'a, P>> {
        MaCpu::new(params, problem, seed, backend.cpu_threads())
    }

    fn cuda_engine(
        params: MaParams,
        problem: &'a P,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<MaCuda<'a, P>>> {
        let gpu = Gpu::open(device)?;
        let engine = MaCuda::new(params, problem, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
    use evo_core::{Cadence, Error, StepCounter};

    const CPU: Backend = Backend::Cpu { threads: 1 };

    fn params() -> MaParams {
        MaParams::new()
            .with_population(10)
            .unwrap()
            .with_max_evaluations(20_000)
            .unwrap()
    }

    #[test]
    fn the_default_budget_is_checked_after_every_step() {
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let calls = StepCounter::new(Cadence::Batches);
        let report = Run::new(params(), &problem, 4)
            .backend(CPU)
            .observer(calls.clone())
            .run()
            .unwrap();
        assert_eq!(calls.count(), report.generations);
        assert_eq!(
            report.without_wall_times(),
            run(params(), &problem, 4, CPU)
                .unwrap()
                .without_wall_times()
        );
    }

    #[test]
    fn a_generation_limit_runs_in_batches_with_the_same_report_when_checks_are_spaced() {
        // The budget rule needs a check after every step unless `check_every` spaces the checks out; short of
        // the budget, the report is the same.
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let termination = Termination::new().with_max_generations(12);
        let calls = StepCounter::new(Cadence::Batches);
        let batched = Run::new(params(), &problem, 4)
            .backend(CPU)
            .termination(termination.clone())
            .history_every(6)
            .check_every(4)
            .observer(calls.clone())
            .run()
            .unwrap();
        let single = Run::new(params(), &problem, 4)
            .backend(CPU)
            .termination(termination)
            .history_every(6)
            .observer(StepCounter::new(Cadence::EveryStep))
            .run()
            .unwrap();
        assert!(calls.count() < 12);
        assert_eq!(
            batched.termination,
            evo_core::TerminationReason::MaxGenerations
        );
        assert_eq!(batched.without_wall_times(), single.without_wall_times());
    }

    #[test]
    fn the_budget_still_ends_a_run_with_other_rules() {
        // The engine stands still once its budget is spent: without the budget rule this run never ends.
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let params = MaParams::new()
            .with_population(10)
            .unwrap()
            .with_max_evaluations(1_000)
            .unwrap();
        let report = Run::new(params, &problem, 4)
            .backend(CPU)
            .termination(Termination::new().with_max_generations(1_000_000))
            .run()
            .unwrap();
        assert_eq!(
            report.termination,
            evo_core::TerminationReason::MaxEvaluations
        );
        assert_eq!(report.evaluations, 1_000);
    }

    /// The positive GPU path where the driver has a device (required under `EVO_REQUIRE_GPU=1`): the run
    /// takes `MaCuda` and the report says why; the CPU path with the driver's reason otherwise.
    #[test]
    fn auto_records_the_backend_it_took_and_why() {
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let report = run(params(), &problem, 4, Backend::auto()).unwrap();
        let reason = &report.metadata["backend_reason"];
        assert_eq!(report.metadata["dimension"], "8");
        match evo_gpu_runtime::device_count() {
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

    #[test]
    fn a_cuda_device_that_does_not_exist_is_an_error_not_a_cpu_run() {
        // One past the last device: `NoSuchDevice` on a GPU machine, `NoGpu` without a driver.
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let past_the_last = evo_gpu_runtime::device_count().unwrap_or(0);
        let error = run(params(), &problem, 4, Backend::cuda(past_the_last)).unwrap_err();
        assert!(
            matches!(error, Error::NoGpu { .. } | Error::NoSuchDevice { .. }),
            "{error}"
        );
    }
}
