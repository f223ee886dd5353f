//! [`run`]: one MA-SW-Chains run to its evaluation budget on a chosen backend.

use evo_benchmarks::cuda::DeviceRealProblem;
use evo_core::{Backend, Executor, Report, Result, Termination};
use evo_gpu_runtime::{Gpu, resolve_backend};

use crate::cpu::MaCpu;
use crate::cuda::MaCuda;
use crate::params::MaParams;

/// Runs MA-SW-Chains on `problem` from `seed` until `params.max_evaluations()` evaluations are spent.
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
    let resolved = resolve_backend(backend)?;
    let termination = Termination::new().with_max_evaluations(params.max_evaluations());
    let name = problem.name().to_string();
    let dimension = problem.dimension();
    match resolved {
        Backend::Cuda { device } => {
            let gpu = Gpu::open(device)?;
            let engine = MaCuda::new(params, problem, seed, &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_run_metadata(resolved, seed, &name)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .with_metadata("dimension", dimension)
                .run()
        }
        _ => {
            let engine = MaCpu::new(params, problem, seed, resolved.cpu_threads())?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_run_metadata(resolved, seed, &name)
                .with_metadata("dimension", dimension)
                .run()
        }
    }
}
