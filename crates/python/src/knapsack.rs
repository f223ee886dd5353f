//! QIGA and its SGA baseline on a knapsack file. The SGA has no `Run` builder, and QIGA's `evo_qiga::run`
//! takes no observer, so both engines are driven by evo-core's `Executor` with what the builders attach:
//! the backend chosen by evo-core's rule (its reason recorded), the run's stop token, the watch, the
//! history cadence and the checkpoint (resumed from when the file exists).

use evo_core::{
    BACKEND_REASON, Backend, BackendChoice, DeviceSupport, Engine, Executor, GpuPresence,
    Termination, choose_backend,
};
use evo_gpu_runtime::{Gpu, device_count};
use pyo3::prelude::*;

use crate::errors::{to_py, value_error};
use crate::problems::Builtin;
use crate::run::{Fitness, Outcome, Settings};
use crate::watch::PythonWatch;

/// `qiga` or `sga` with its validated parameters.
pub enum KnapsackAlgorithm {
    /// The quantum-inspired GA.
    Qiga(evo_qiga::QigaParams),
    /// The simple GA baseline.
    Sga(evo_qiga::SgaParams),
}

/// Runs `algorithm` on a `knapsack:FILE` problem; called without the GIL.
///
/// The backend follows evo-core's rule ([`choose_backend`]), as every `Run` builder and `evo_qiga::run`:
/// `auto` takes CUDA device 0 when the driver finds one (both CUDA engines evaluate every knapsack) and
/// the CPU otherwise, never silently; the metadata records `backend` and `backend_reason`.
///
/// # Errors
/// Another problem (`ValueError`); a driver that is present but fails, and the crate's errors.
pub fn run(
    algorithm: KnapsackAlgorithm,
    fitness: Fitness,
    settings: Settings,
) -> PyResult<Outcome> {
    let name = match algorithm {
        KnapsackAlgorithm::Qiga(_) => "qiga",
        KnapsackAlgorithm::Sga(_) => "sga",
    };
    let Fitness::Builtin(Builtin::Knapsack(problem)) = fitness else {
        return Err(value_error(format!(
            "{name} runs knapsack:FILE problems only"
        )));
    };
    let choice = choose_backend(
        name,
        settings.backend,
        problem.instance_name(),
        DeviceSupport::Evaluated,
        || GpuPresence::from_device_count(device_count()),
    )
    .map_err(to_py)?;
    let seed = settings.seed;
    let label = problem.instance_name().to_string();
    let threads = choice.backend.cpu_threads();
    match (algorithm, choice.backend) {
        (KnapsackAlgorithm::Qiga(params), Backend::Cuda { device }) => {
            let gpu = Gpu::open(device).map_err(to_py)?;
            let engine = evo_qiga::QigaCuda::new(&params, &problem, seed, &gpu).map_err(to_py)?;
            let executor = on_device(metadata_of(engine, choice, seed, &label), &gpu);
            drive(executor, params.generations(), settings)
        }
        (KnapsackAlgorithm::Qiga(params), _) => {
            let engine = evo_qiga::QigaCpu::new(&params, &problem, seed, threads).map_err(to_py)?;
            let executor = metadata_of(engine, choice, seed, &label);
            drive(executor, params.generations(), settings)
        }
        (KnapsackAlgorithm::Sga(params), Backend::Cuda { device }) => {
            let gpu = Gpu::open(device).map_err(to_py)?;
            let engine =
                evo_qiga::SgaCuda::batch(&params, &problem, seed, 1, &gpu).map_err(to_py)?;
            let executor = on_device(metadata_of(engine, choice, seed, &label), &gpu);
            drive(executor, params.generations(), settings)
        }
        (KnapsackAlgorithm::Sga(params), _) => {
            let engine =
                evo_qiga::SgaCpu::batch(&params, &problem, seed, 1, threads).map_err(to_py)?;
            let executor = metadata_of(engine, choice, seed, &label);
            drive(executor, params.generations(), settings)
        }
    }
}

/// The executor of `engine` with the metadata every crate's `run` records, the backend's reason included.
fn metadata_of<E: Engine>(engine: E, choice: BackendChoice, seed: u64, label: &str) -> Executor<E> {
    Executor::new(engine)
        .with_run_metadata(choice.backend, seed, label)
        .with_metadata(BACKEND_REASON, choice.reason)
}

/// The device's name and the profile, as `evo_qiga::run` records them for a CUDA run.
fn on_device<E: Engine>(executor: Executor<E>, gpu: &Gpu) -> Executor<E> {
    executor
        .with_metadata("device", &gpu.info().name)
        .with_metadata("profile", "exact")
}

/// Runs `executor` with the run's stop token, the Python watch, the history cadence and the checkpoint,
/// until the budget arguments or, without them, the parameters' `generations`.
fn drive<E: Engine<Solution = evo_core::Bits>>(
    executor: Executor<E>,
    generations: u64,
    settings: Settings,
) -> PyResult<Outcome> {
    let termination = settings
        .termination()
        .unwrap_or_else(|| Termination::new().with_max_generations(generations));
    let run = || -> evo_core::Result<_> {
        let mut executor = executor
            .with_termination(settings.stop.stopping(termination))?
            .with_observer(PythonWatch::new(settings.callback, settings.stop))
            .with_history_every(settings.history_every)?;
        if let Some(checkpointing) = settings.checkpoint {
            executor = executor
                .with_checkpointing(checkpointing)
                .resume_if_present()?;
        }
        executor.run()
    };
    let report = run().map_err(to_py)?;
    Ok(crate::run::bits(report))
}
