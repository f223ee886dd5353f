//! [`run_bits`] and [`run_bits_host_only`]: one QIGA run on a bit-string problem on the backend evo-core's
//! backend choice picks, the reason recorded in the report.

use std::sync::Arc;

use evo_benchmarks::cuda::DeviceBitProblem;
use evo_core::{
    BACKEND_REASON, Backend, BinaryProblem, Bits, DeviceSupport, Executor, GpuPresence, Report,
    Result, Termination, choose_backend,
};
use evo_gpu_runtime::{Gpu, device_count};

use super::{BitRepair, QigaBitsCpu, QigaBitsCuda};
use crate::QigaParams;
use crate::snapshot::RunConfig;

/// What a problem without a device evaluation needs to run on the GPU.
const REMEDY: &str = "implement `evo_benchmarks::cuda::DeviceBitProblem` (evo_qiga::UserBits for CUDA \
     source, your own BitEvaluator, or evo_qiga::HostEvaluated for a host closure)";

/// One QIGA run of `params.generations()` generations after the initial one on `problem`, each observation
/// repaired by `repair` when given, from Philox seed `seed` with `params`' angles, on `backend`.
/// `Backend::Auto` takes CUDA device 0 when the driver finds one (the problem has a device evaluation),
/// otherwise the CPU on all cores; the report's metadata records `backend`, why ([`BACKEND_REASON`]), the
/// seed and the problem, and a CUDA run the device and the profile.
///
/// # Errors
/// A driver that is present but fails (for `Backend::Auto`); whatever building or stepping the engine
/// reports (bad user source, a non-finite fitness, no such device for `Backend::Cuda`).
pub fn run_bits<P>(
    params: &QigaParams,
    problem: P,
    repair: Option<Arc<dyn BitRepair>>,
    seed: u64,
    backend: Backend,
) -> Result<Report<Bits>>
where
    P: DeviceBitProblem + Sync,
{
    let choice = choose_backend(
        "evo_qiga::run_bits",
        backend,
        problem.name(),
        DeviceSupport::Evaluated,
        || GpuPresence::from_device_count(device_count()),
    )?;
    let termination = Termination::new().with_max_generations(params.generations());
    match choice.backend {
        Backend::Cuda { device } => {
            let gpu = Gpu::open(device)?;
            let run = RunConfig {
                seed,
                angles: params.angles(),
            };
            let engine = QigaBitsCuda::batch(params, &problem, repair.as_deref(), vec![run], &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", choice.backend)
                .with_metadata(BACKEND_REASON, choice.reason)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .with_metadata("seed", seed)
                .with_metadata("problem", problem.name())
                .run()
        }
        cpu => cpu_run(params, problem, repair, seed, cpu, choice.reason),
    }
}

/// [`run_bits`] for a problem without a device evaluation: `Backend::Cuda` is
/// [`Error::NoDeviceEvaluation`](evo_core::Error::NoDeviceEvaluation) saying what would give it one, and
/// `Backend::Auto` runs on the CPU with that reason in the report.
///
/// # Errors
/// As [`run_bits`], and the refusal above.
pub fn run_bits_host_only<P: BinaryProblem + Sync>(
    params: &QigaParams,
    problem: P,
    repair: Option<Arc<dyn BitRepair>>,
    seed: u64,
    backend: Backend,
) -> Result<Report<Bits>> {
    let choice = choose_backend(
        "evo_qiga::run_bits_host_only",
        backend,
        problem.name(),
        DeviceSupport::Missing { remedy: REMEDY },
        || GpuPresence::from_device_count(device_count()),
    )?;
    cpu_run(params, problem, repair, seed, choice.backend, choice.reason)
}

/// The CPU run of both functions (`backend` is a CPU backend: `choose_backend` gives `Cpu` or `Cuda`).
fn cpu_run<P: BinaryProblem + Sync>(
    params: &QigaParams,
    problem: P,
    repair: Option<Arc<dyn BitRepair>>,
    seed: u64,
    backend: Backend,
    reason: String,
) -> Result<Report<Bits>> {
    let name = problem.name().to_string();
    let run = RunConfig {
        seed,
        angles: params.angles(),
    };
    let engine = QigaBitsCpu::batch(params, problem, repair, vec![run], backend.cpu_threads())?;
    Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(params.generations()))?
        .with_metadata("backend", backend)
        .with_metadata(BACKEND_REASON, reason)
        .with_metadata("seed", seed)
        .with_metadata("problem", name)
        .run()
}
