//! [`run`]: one QIGA run on the backend evo-core's backend choice picks, the reason recorded in the report.

use evo_benchmarks::Knapsack;
use evo_core::{
    BACKEND_REASON, Backend, Bits, DeviceSupport, Executor, GpuPresence, Report, Result,
    Termination, choose_backend,
};
use evo_gpu_runtime::{Gpu, device_count};

use crate::{QigaCpu, QigaCuda, QigaParams};

/// One QIGA run of `params.generations()` generations after the initial one, from Philox seed `seed`, with
/// `params`' angles, on `backend`. `Backend::Auto` follows the rule of evo-core's `Run` builders
/// ([`choose_backend`]): CUDA device 0 when the driver finds one (the CUDA engine evaluates every knapsack),
/// otherwise the CPU on all cores. The report's metadata records `backend`, why it was taken
/// ([`BACKEND_REASON`]: "Backend::Auto: no CUDA device (...)", or "cpu was asked for"), the seed and the
/// instance; a CUDA run also records the device's name and the profile.
///
/// # Errors
/// A driver that is present but fails (for `Backend::Auto`); whatever building or stepping the engine
/// reports (no GPU or no such device for `Backend::Cuda`, a device failure).
pub fn run(
    params: &QigaParams,
    problem: &Knapsack,
    seed: u64,
    backend: Backend,
) -> Result<Report<Bits>> {
    let termination = Termination::new().with_max_generations(params.generations());
    let choice = choose_backend(
        "evo_qiga::run",
        backend,
        problem.instance_name(),
        DeviceSupport::Evaluated,
        || GpuPresence::from_device_count(device_count()),
    )?;
    match choice.backend {
        Backend::Cuda { device } => {
            let gpu = Gpu::open(device)?;
            let engine = QigaCuda::new(params, problem, seed, &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", choice.backend)
                .with_metadata(BACKEND_REASON, choice.reason)
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .with_metadata("seed", seed)
                .with_metadata("problem", problem.instance_name())
                .run()
        }
        // `choose_backend` gives `Cpu` or `Cuda`, never `Auto`.
        cpu => {
            let engine = QigaCpu::new(params, problem, seed, cpu.cpu_threads())?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", cpu)
                .with_metadata(BACKEND_REASON, choice.reason)
                .with_metadata("seed", seed)
                .with_metadata("problem", problem.instance_name())
                .run()
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    fn small() -> (QigaParams, Knapsack) {
        let params = QigaParams::default().with_generations(3).unwrap();
        (params, Knapsack::generate(20, 1).unwrap())
    }

    fn metadata<'a>(report: &'a Report<Bits>, key: &str) -> &'a str {
        report
            .metadata
            .get(key)
            .unwrap_or_else(|| panic!("no `{key}` in {:?}", report.metadata))
    }

    #[test]
    fn an_explicit_cpu_backend_records_that_it_was_asked_for() {
        let (params, problem) = small();
        let backend = Backend::Cpu { threads: 2 };
        let report = run(&params, &problem, 5, backend).unwrap();
        assert_eq!(metadata(&report, "backend"), backend.to_string());
        assert_eq!(
            metadata(&report, BACKEND_REASON),
            format!("{backend} was asked for")
        );
    }

    /// Without a device (this test's CPU machines) `Auto` runs on every core and gives the driver's reason;
    /// with one (the GPU machine, `EVO_REQUIRE_GPU=1`) it runs on device 0 and says so.
    #[test]
    fn auto_records_which_backend_ran_and_why() {
        let (params, problem) = small();
        let report = run(&params, &problem, 5, Backend::Auto).unwrap();
        let reason = metadata(&report, BACKEND_REASON);
        match GpuPresence::from_device_count(device_count()).unwrap() {
            GpuPresence::Device(_) => {
                assert_eq!(metadata(&report, "backend"), Backend::cuda(0).to_string());
                assert_eq!(
                    reason,
                    "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
                );
            }
            GpuPresence::Absent { reason: absent } => {
                assert!(
                    !std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1"),
                    "EVO_REQUIRE_GPU=1 requires a CUDA device: {absent}"
                );
                assert_eq!(metadata(&report, "backend"), Backend::cpu().to_string());
                assert_eq!(reason, format!("Backend::Auto: no CUDA device ({absent})"));
            }
        }
    }
}
