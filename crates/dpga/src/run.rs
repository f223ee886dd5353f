//! [`run`] and [`Run`]: one DPGA run under a [`Termination`] on a chosen backend; [`DpgaRun`] is what the
//! generic [`RunBuilder`] needs to know about the DPGA.

use std::any::Any;
use std::marker::PhantomData;

use evo_benchmarks::Cec2006Problem;
use evo_core::{
    Backend, ConstrainedProblem, Error, OnDevice, Report, Result, RunAlgorithm, RunBuilder,
    Termination,
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

/// A DPGA run with options, a thin layer over [`Executor`](evo_core::Executor) (see [`RunBuilder`] for
/// every option): [`run`] plus observers, checkpoints, Ctrl-C and the history cadence. The termination is
/// required. Without options it runs exactly as [`run`]; see the executor's "Batching" for what lets it
/// batch generations (a history point every step, the default, needs the host every step).
pub type Run<P> = RunBuilder<DpgaRun<P>>;

/// The DPGA as [`Run`] runs it: `Backend::Auto` on the GPU only for a [`Cec2006Problem`], [`DpgaCpu`] or
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

    fn resolve_backend(backend: Backend, problem: &P) -> Result<Backend> {
        match (backend, cec_problem(problem)) {
            (Backend::Auto, None) => Ok(Backend::cpu()),
            (Backend::Auto, Some(_)) => resolve_backend(Backend::Auto),
            (other, _) => Ok(other),
        }
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
        let cec = cec_problem(&problem).ok_or_else(|| {
            Error::invalid_parameter(
                ALGORITHM,
                "problem for the CUDA backend",
                format!("`{}`", problem.name()),
                "a CEC 2006 problem (evo_benchmarks::Cec2006Problem); run other problems on the CPU",
            )
        })?;
        let gpu = Gpu::open(device)?;
        let engine = DpgaCuda::new(params, cec, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name).with_profile("exact"))
    }
}

/// `problem` as a [`Cec2006Problem`], the only problem the CUDA engine evaluates on the device.
fn cec_problem<P: 'static>(problem: &P) -> Option<&Cec2006Problem> {
    (problem as &dyn Any).downcast_ref::<Cec2006Problem>()
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
