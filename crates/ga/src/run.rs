//! [`run`] and [`Run`]: one GA run to its generation budget on a chosen backend.

use std::any::Any;

use evo_core::{
    Backend, BinaryProblem, Bits, Error, Executor, Report, Result, RunOptions, Termination,
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

/// A GA run with options, a thin layer over [`Executor`]: [`run`] plus observers, checkpoints, Ctrl-C, the
/// history cadence and another termination than the parameters' generation budget.
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
/// Without options it runs exactly as [`run`]. The executor batches generations between the steps where
/// the host is needed (see [`Executor`]'s "Batching"): a history point every step (the default) needs the
/// host every step, so set [`history_every`](Self::history_every) for runs at the engine's speed.
pub struct Run<P> {
    params: GaParams,
    problem: P,
    seed: u64,
    backend: Backend,
    termination: Option<Termination>,
    options: RunOptions,
}

impl<P: BinaryProblem + Send + 'static> Run<P> {
    /// The GA with `params` on `problem` from `seed`, on `Backend::Auto`, to `params.generations()`.
    pub fn new(params: GaParams, problem: P, seed: u64) -> Self {
        Self {
            params,
            problem,
            seed,
            backend: Backend::Auto,
            termination: None,
            options: RunOptions::new(),
        }
    }

    /// The backend (default `Backend::Auto`, see [`run`]).
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// Other stopping rules than the default `params.generations()` generations.
    pub fn termination(mut self, termination: Termination) -> Self {
        self.termination = Some(termination);
        self
    }

    evo_core::run_options_methods!();

    /// Builds the engine on the backend and runs it.
    ///
    /// # Errors
    /// The errors of [`run`]; [`Error::InvalidParameter`] for an option out of range; the errors of
    /// [`Executor::resume_if_present`].
    pub fn run(self) -> Result<Report<Bits>> {
        let Self {
            params,
            problem,
            seed,
            backend,
            termination,
            options,
        } = self;
        let paper = (&problem as &dyn Any).downcast_ref::<PaperFunction>();
        let resolved = match (backend, paper) {
            (Backend::Auto, None) => Backend::cpu(),
            (Backend::Auto, Some(_)) => resolve_backend(Backend::Auto)?,
            (other, _) => other,
        };
        let termination = termination
            .unwrap_or_else(|| Termination::new().with_max_generations(params.generations()));
        let name = problem.name().to_string();
        match resolved {
            Backend::Cuda { device } => {
                let paper = paper.ok_or_else(|| {
                    Error::invalid_parameter(
                        COMPONENT,
                        "problem for the CUDA backend",
                        format!("`{name}`"),
                        "one of the paper's functions (evo_ga::PaperFunction); run other problems on the CPU",
                    )
                })?;
                let gpu = Gpu::open(device)?;
                let engine = GaCuda::new(params, paper, seed, &gpu)?;
                let executor = Executor::new(engine)
                    .with_metadata("backend", resolved)
                    .with_metadata("device", &gpu.info().name)
                    .with_metadata("seed", seed)
                    .with_metadata("problem", &name);
                options.apply(executor, termination)?.run()
            }
            _ => {
                let threads = match resolved {
                    Backend::Cpu { threads } => threads,
                    _ => 0,
                };
                let engine = GaCpu::with_threads(params, problem, seed, threads)?;
                let executor = Executor::new(engine)
                    .with_metadata("backend", resolved)
                    .with_metadata("seed", seed)
                    .with_metadata("problem", &name);
                options.apply(executor, termination)?.run()
            }
        }
    }
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
