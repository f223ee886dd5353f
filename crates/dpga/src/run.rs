//! [`run`]: one DPGA run under a [`Termination`] on a chosen backend.

use std::any::Any;

use evo_benchmarks::Cec2006Problem;
use evo_core::{Backend, ConstrainedProblem, Error, Executor, Report, Result, Termination};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::DpgaCpu;
use crate::cuda::DpgaCuda;
use crate::params::{ALGORITHM, DpgaParams};

/// Runs the DPGA on `problem` from `seed` on `backend` until `termination` (the CEC 2006 rules:
/// `Termination::new().with_max_evaluations(500_000).with_target_fitness(f* + 1e-4)`).
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
                    "a CEC 2006 problem (evo_benchmarks::Cec2006Problem); run other problems on the CPU",
                )
            })?;
            let gpu = Gpu::open(device)?;
            let engine = DpgaCuda::new(params, cec, seed, &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_run_metadata(resolved, seed, &name)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .run()
        }
        _ => {
            let engine = DpgaCpu::new(params, problem, seed, resolved.cpu_threads())?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_run_metadata(resolved, seed, &name)
                .run()
        }
    }
}
