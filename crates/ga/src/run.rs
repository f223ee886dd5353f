//! [`run`]: one GA run to its generation budget on a chosen backend.

use std::any::Any;

use evo_core::{Backend, BinaryProblem, Bits, Error, Executor, Report, Result, Termination};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::GaCpu;
use crate::cuda::GaCuda;
use crate::params::{COMPONENT, GaParams};
use crate::problem::PaperFunction;

/// Runs the GA on `problem` for `params.generations()` generations from `seed` on `backend`.
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
    let paper = (&problem as &dyn Any).downcast_ref::<PaperFunction>();
    let resolved = match (backend, paper) {
        (Backend::Auto, None) => Backend::cpu(),
        (Backend::Auto, Some(_)) => resolve_backend(Backend::Auto)?,
        (other, _) => other,
    };
    let termination = Termination::new().with_max_generations(params.generations());
    let name = problem.name().to_string();
    let report = match resolved {
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
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", resolved)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("seed", seed)
                .with_metadata("problem", &name)
                .run()?
        }
        _ => {
            let threads = match resolved {
                Backend::Cpu { threads } => threads,
                _ => 0,
            };
            let engine = GaCpu::with_threads(params, problem, seed, threads)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", resolved)
                .with_metadata("seed", seed)
                .with_metadata("problem", &name)
                .run()?
        }
    };
    Ok(report)
}
