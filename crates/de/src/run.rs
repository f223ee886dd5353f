//! [`run`]: one DE run on a chosen backend, to a chosen termination.

use crate::cpu::DeCpu;
use crate::cuda::DeCuda;
use crate::params::DeParams;
use crate::problem::DeviceProblem;
use evo_core::{Backend, Executor, Report, Result, Termination};
use evo_gpu_runtime::{Gpu, resolve_backend};

/// Runs DE on `problem` from `seed` on `backend` until `termination` holds (the paper: 30 s of wall time,
/// `Termination::new().with_max_wall_time(Duration::from_secs(30))?`). `Backend::Auto` picks the GPU when
/// there is one. The report's metadata records the backend, device, seed and problem.
///
/// DE has no natural generation count, so unlike the crates whose parameters carry one, the termination is
/// an argument.
///
/// # Errors
/// Parameter and problem errors; [`evo_core::Error::NoGpu`] or
/// [`evo_core::Error::NoSuchDevice`] for a CUDA backend that does not exist; GPU errors;
/// [`evo_core::Error::ProblemPanicked`] when the problem's `evaluate` panics (the panic does not unwind out
/// of `run`); an invalid `Backend::Cpu` thread count ([`evo_core::Backend::validate`]).
pub fn run<P: DeviceProblem>(
    params: DeParams,
    problem: P,
    seed: u64,
    backend: Backend,
    termination: Termination,
) -> Result<Report<Vec<f32>>> {
    let resolved = resolve_backend(backend)?;
    let name = problem.name().to_string();
    match resolved {
        Backend::Cuda { device } => {
            let gpu = Gpu::open(device)?;
            let engine = DeCuda::new(params, problem, seed, &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", resolved)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .with_metadata("seed", seed)
                .with_metadata("problem", name)
                .run()
        }
        _ => {
            let engine = DeCpu::for_backend(params, problem, seed, resolved)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", resolved)
                .with_metadata("seed", seed)
                .with_metadata("problem", name)
                .run()
        }
    }
}
