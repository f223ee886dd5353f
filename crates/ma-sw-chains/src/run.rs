//! [`run`] and [`Run`]: one MA-SW-Chains run to its evaluation budget on a chosen backend.

use evo_benchmarks::cuda::DeviceRealProblem;
use evo_core::{Backend, Executor, Report, Result, RunOptions, Termination};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::MaCpu;
use crate::cuda::MaCuda;
use crate::params::MaParams;

/// Runs MA-SW-Chains on `problem` from `seed` until `params.max_evaluations()` evaluations are spent. The
/// same as `Run::new(params, problem, seed).backend(backend).run()`; [`Run`] also attaches observers,
/// checkpoints, Ctrl-C and the history cadence.
///
/// `Backend::Auto` picks the first GPU when there is one, the CPU otherwise. On a GPU the memory need is
/// checked first ([`crate::memory::device_bytes`]).
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

/// An MA-SW-Chains run with options, a thin layer over [`Executor`]: [`run`] plus observers, checkpoints,
/// Ctrl-C, the history cadence and another termination than the parameters' evaluation budget.
///
/// Without options it runs exactly as [`run`]. A step's evaluations vary (the local search's chains stop
/// early), so the evaluation budget is checked after every step unless
/// [`check_every`](Self::check_every) is raised (the run may then overshoot the budget by up to that many
/// steps); see [`Executor`]'s "Batching".
pub struct Run<'a, P: ?Sized> {
    params: MaParams,
    problem: &'a P,
    seed: u64,
    backend: Backend,
    termination: Option<Termination>,
    options: RunOptions,
}

impl<'a, P: DeviceRealProblem + ?Sized> Run<'a, P> {
    /// MA-SW-Chains with `params` on `problem` from `seed`, on `Backend::Auto`, to
    /// `params.max_evaluations()` evaluations.
    pub fn new(params: MaParams, problem: &'a P, seed: u64) -> Self {
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

    /// Other stopping rules besides `params.max_evaluations()`: the engine does nothing once its budget
    /// is spent, so the budget always ends the run too (a larger evaluation limit here is lowered to it).
    pub fn termination(mut self, termination: Termination) -> Self {
        self.termination = Some(termination);
        self
    }

    evo_core::run_options_methods!();

    /// Builds the engine on the backend and runs it.
    ///
    /// # Errors
    /// The errors of [`run`]; [`evo_core::Error::InvalidParameter`] for an option out of range; the errors
    /// of [`Executor::resume_if_present`].
    pub fn run(self) -> Result<Report<Vec<f32>>> {
        let Self {
            params,
            problem,
            seed,
            backend,
            termination,
            options,
        } = self;
        let resolved = resolve_backend(backend)?;
        let budget = params.max_evaluations();
        let termination = match termination {
            Some(rules) if rules.max_evaluations().is_some_and(|max| max <= budget) => rules,
            Some(rules) => rules.with_max_evaluations(budget),
            None => Termination::new().with_max_evaluations(budget),
        };
        let name = problem.name().to_string();
        let dimension = problem.dimension();
        match resolved {
            Backend::Cuda { device } => {
                let gpu = Gpu::open(device)?;
                let engine = MaCuda::new(params, problem, seed, &gpu)?;
                let executor = Executor::new(engine)
                    .with_run_metadata(resolved, seed, &name)
                    .with_metadata("device", &gpu.info().name)
                    .with_metadata("profile", "exact")
                    .with_metadata("dimension", dimension);
                options.apply(executor, termination)?.run()
            }
            _ => {
                let engine = MaCpu::new(params, problem, seed, resolved.cpu_threads())?;
                let executor = Executor::new(engine)
                    .with_run_metadata(resolved, seed, &name)
                    .with_metadata("dimension", dimension);
                options.apply(executor, termination)?.run()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
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

    fn timeless(mut report: Report<Vec<f32>>) -> Report<Vec<f32>> {
        report.wall_time_s = 0.0;
        for point in &mut report.history {
            point.elapsed_s = 0.0;
        }
        report
    }

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
        let calls = Calls(Cadence::Batches, Arc::new(AtomicU64::new(0)));
        let report = Run::new(params(), &problem, 4)
            .backend(CPU)
            .observer(calls.clone())
            .run()
            .unwrap();
        assert_eq!(calls.1.load(Ordering::Relaxed), report.generations);
        assert_eq!(
            timeless(report),
            timeless(run(params(), &problem, 4, CPU).unwrap())
        );
    }

    #[test]
    fn a_generation_limit_runs_in_batches_with_the_same_report_when_checks_are_spaced() {
        // The budget rule needs a check after every step unless `check_every` spaces the checks out; short of
        // the budget, the report is the same.
        let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 8).unwrap();
        let termination = Termination::new().with_max_generations(12);
        let calls = Calls(Cadence::Batches, Arc::new(AtomicU64::new(0)));
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
            .observer(Calls(Cadence::EveryStep, Arc::new(AtomicU64::new(0))))
            .run()
            .unwrap();
        assert!(calls.1.load(Ordering::Relaxed) < 12);
        assert_eq!(
            batched.termination,
            evo_core::TerminationReason::MaxGenerations
        );
        assert_eq!(timeless(batched), timeless(single));
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
}
