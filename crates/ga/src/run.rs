//! [`run`] and [`Run`]: one GA run to its generation budget on a chosen backend; [`GaRun`] is what the
//! generic [`RunBuilder`] needs to know about the GA.

use std::any::Any;
use std::marker::PhantomData;

use evo_core::{
    Backend, BinaryProblem, Bits, Error, OnDevice, Report, Result, RunAlgorithm, RunBuilder,
    Termination,
};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::GaCpu;
use crate::cuda::GaCuda;
use crate::params::{COMPONENT, GaParams};
use crate::problem::PaperFunction;

/// Runs the GA on `problem` for `params.generations()` generations from `seed` on `backend`.
///
/// The same as `Run::new(params, problem, seed).backend(backend).run()`; [`Run`] also attaches observers,
/// checkpoints, Ctrl-C and the history cadence.
///
/// `Backend::Auto` picks the GPU when there is one and the problem is a [`PaperFunction`] (the CUDA engine
/// decodes and evaluates the paper's functions on the device), the CPU otherwise.
///
/// # Errors
/// Parameter errors; [`Error::InvalidParameter`] for `Backend::Cuda` with a problem other than a
/// [`PaperFunction`]; GPU errors; [`Error::ProblemPanicked`] when the problem's `evaluate` panics (the
/// panic does not unwind out of `run`); an invalid `Backend::Cpu` thread count
/// ([`Backend::validate`]).
pub fn run<P: BinaryProblem + Send + 'static>(
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
/// # Ok(()) }
/// ```
///
/// Without options it runs exactly as [`run`], to `params.generations()` generations. The executor batches
/// generations between the steps where the host is needed: a history point every step (the default) needs
/// the host every step, so set [`history_every`](RunBuilder::history_every) for runs at the engine's speed.
pub type Run<P> = RunBuilder<GaRun<P>>;

/// The GA as [`Run`] runs it: `Backend::Auto` on the GPU only for a [`PaperFunction`], [`GaCpu`] or
/// [`GaCuda`] built from the parameters, problem and seed, and `params.generations()` generations unless
/// another termination is set. A marker type, never built.
pub struct GaRun<P>(PhantomData<P>);

impl<P: BinaryProblem + Send + 'static> RunAlgorithm for GaRun<P> {
    const NAME: &'static str = "evo_ga::Run";
    type Params = GaParams;
    type Problem = P;
    type Solution = Bits;
    type CpuEngine = GaCpu<P>;
    type CudaEngine = GaCuda;

    fn termination(params: &GaParams, chosen: Option<Termination>) -> Result<Termination> {
        Ok(chosen.unwrap_or_else(|| Termination::new().with_max_generations(params.generations())))
    }

    fn resolve_backend(backend: Backend, problem: &P) -> Result<Backend> {
        match (backend, paper_function(problem)) {
            (Backend::Auto, None) => Ok(Backend::cpu()),
            (Backend::Auto, Some(_)) => resolve_backend(Backend::Auto),
            (other, _) => Ok(other),
        }
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
        let paper = paper_function(&problem).ok_or_else(|| {
            Error::invalid_parameter(
                COMPONENT,
                "problem for the CUDA backend",
                format!("`{}`", problem.name()),
                "one of the paper's functions (evo_ga::PaperFunction); run other problems on the CPU",
            )
        })?;
        let gpu = Gpu::open(device)?;
        let engine = GaCuda::new(params, paper, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name))
    }
}

/// `problem` as a [`PaperFunction`], the only problem the CUDA engine evaluates on the device.
fn paper_function<P: 'static>(problem: &P) -> Option<&PaperFunction> {
    (problem as &dyn Any).downcast_ref::<PaperFunction>()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_benchmarks::ga_functions::GaFunction;
    use evo_core::{Cadence, Observer, Progress};
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

    fn timeless(mut report: Report<Bits>) -> Report<Bits> {
        report.wall_time_s = 0.0;
        for point in &mut report.history {
            point.elapsed_s = 0.0;
        }
        report
    }

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
        let batches = Calls(Cadence::Batches, Arc::new(AtomicU64::new(0)));
        let batched = start().observer(batches.clone()).run().unwrap();
        let single = start()
            .observer(Calls(Cadence::EveryStep, Arc::new(AtomicU64::new(0))))
            .run()
            .unwrap();
        assert_eq!(batched.generations, 120);
        assert_eq!(timeless(batched), timeless(single));
        assert!(batches.1.load(Ordering::Relaxed) < 120);
    }

    #[test]
    fn an_evaluation_limit_is_met_exactly_in_batches() {
        let termination = Termination::new().with_max_evaluations(500);
        let batched = start().termination(termination.clone()).run().unwrap();
        let single = start()
            .termination(termination)
            .observer(Calls(Cadence::EveryStep, Arc::new(AtomicU64::new(0))))
            .run()
            .unwrap();
        assert_eq!(timeless(batched), timeless(single));
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
        assert_eq!(timeless(report), timeless(built));
    }
}
