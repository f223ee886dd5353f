//! [`run`] and [`Run`]: one DPGA run under a [`Termination`] on a chosen backend.

use std::any::Any;

use evo_benchmarks::Cec2006Problem;
use evo_core::{
    Backend, ConstrainedProblem, Error, Executor, Report, Result, RunOptions, Termination,
};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::DpgaCpu;
use crate::cuda::DpgaCuda;
use crate::params::{ALGORITHM, DpgaParams};

/// Runs the DPGA on `problem` from `seed` on `backend` until `termination` (the CEC 2006 rules:
/// `Termination::new().with_max_evaluations(500_000).with_target_fitness(f* + 1e-4)`).
///
/// The same as `Run::new(params, problem, seed).backend(backend).termination(termination).run()`; [`Run`]
/// also attaches observers, checkpoints, Ctrl-C and the history cadence.
///
/// `Backend::Auto` picks the GPU when there is one and the problem is a built-in CEC 2006 problem
/// ([`Cec2006Problem`]: the CUDA engine evaluates its formulas on the device), the CPU otherwise.
///
/// # Errors
/// Parameter errors; [`Error::InvalidParameter`] for `Backend::Cuda` with a problem other than a
/// [`Cec2006Problem`]; GPU errors; the engine's errors, among them [`Error::ProblemPanicked`] when the
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

/// A DPGA run with options, a thin layer over [`Executor`]: [`run`] plus observers, checkpoints, Ctrl-C and
/// the history cadence. Without options it runs exactly as [`run`]; see [`Executor`]'s "Batching" for what
/// lets it batch generations (a history point every step, the default, needs the host every step).
pub struct Run<P> {
    params: DpgaParams,
    problem: P,
    seed: u64,
    backend: Backend,
    termination: Option<Termination>,
    options: RunOptions,
}

impl<P: ConstrainedProblem + 'static> Run<P> {
    /// The DPGA with `params` on `problem` from `seed`, on `Backend::Auto`, with no termination yet.
    pub fn new(params: DpgaParams, problem: P, seed: u64) -> Self {
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

    /// The stopping rules (required).
    pub fn termination(mut self, termination: Termination) -> Self {
        self.termination = Some(termination);
        self
    }

    evo_core::run_options_methods!();

    /// Builds the engine on the backend and runs it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when no termination was set or an option is out of range; the errors of
    /// [`run`] and of [`Executor::resume_if_present`].
    pub fn run(self) -> Result<Report<Vec<f32>>> {
        let Self {
            params,
            problem,
            seed,
            backend,
            termination,
            options,
        } = self;
        let termination = termination.ok_or_else(|| {
            Error::invalid_parameter(
                "evo_dpga::Run",
                "termination",
                "none",
                "set with Run::termination",
            )
        })?;
        let cec = (&problem as &dyn Any).downcast_ref::<Cec2006Problem>();
        let resolved = match (backend, cec) {
            (Backend::Auto, None) => Backend::cpu(),
            (Backend::Auto, Some(_)) => resolve_backend(Backend::Auto)?,
            (other, _) => other,
        };
        let name = problem.name().to_string();
        match resolved {
            Backend::Cuda { device } => {
                let cec = cec.ok_or_else(|| {
                    Error::invalid_parameter(
                        ALGORITHM,
                        "problem for the CUDA backend",
                        format!("`{name}`"),
                        "a CEC 2006 problem (evo_benchmarks::Cec2006Problem); run other problems on the \
                         CPU",
                    )
                })?;
                let gpu = Gpu::open(device)?;
                let engine = DpgaCuda::new(params, cec, seed, &gpu)?;
                let executor = Executor::new(engine)
                    .with_run_metadata(resolved, seed, &name)
                    .with_metadata("device", &gpu.info().name)
                    .with_metadata("profile", "exact");
                options.apply(executor, termination)?.run()
            }
            _ => {
                let engine = DpgaCpu::new(params, problem, seed, resolved.cpu_threads())?;
                let executor = Executor::new(engine).with_run_metadata(resolved, seed, &name);
                options.apply(executor, termination)?.run()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
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
}
