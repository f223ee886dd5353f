//! QIGA and its SGA baseline on a knapsack file. evo-qiga has no `Run` builder, so its engines are driven
//! by evo-core's `Executor` with what the other crates' builders attach: the watch, the history cadence,
//! Ctrl-C and the checkpoint (resumed from when the file exists).

use evo_core::{Backend, Engine, Executor, Termination};
use evo_gpu_runtime::Gpu;
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
/// # Errors
/// Another problem (`ValueError`); the crate's errors.
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
    let backend = evo_gpu_runtime::resolve_backend(settings.backend).map_err(to_py)?;
    let seed = settings.seed;
    let label = problem.instance_name().to_string();
    match (algorithm, backend) {
        (KnapsackAlgorithm::Qiga(params), Backend::Cuda { device }) => {
            let gpu = Gpu::open(device).map_err(to_py)?;
            let engine = evo_qiga::QigaCuda::new(&params, &problem, seed, &gpu).map_err(to_py)?;
            drive(
                metadata_of(engine, backend, seed, &label),
                params.generations(),
                settings,
            )
        }
        (KnapsackAlgorithm::Qiga(params), _) => {
            let engine = evo_qiga::QigaCpu::new(&params, &problem, seed, backend.cpu_threads())
                .map_err(to_py)?;
            drive(
                metadata_of(engine, backend, seed, &label),
                params.generations(),
                settings,
            )
        }
        (KnapsackAlgorithm::Sga(params), Backend::Cuda { device }) => {
            let gpu = Gpu::open(device).map_err(to_py)?;
            let engine =
                evo_qiga::SgaCuda::batch(&params, &problem, seed, 1, &gpu).map_err(to_py)?;
            drive(
                metadata_of(engine, backend, seed, &label),
                params.generations(),
                settings,
            )
        }
        (KnapsackAlgorithm::Sga(params), _) => {
            let engine = evo_qiga::SgaCpu::batch(&params, &problem, seed, 1, backend.cpu_threads())
                .map_err(to_py)?;
            drive(
                metadata_of(engine, backend, seed, &label),
                params.generations(),
                settings,
            )
        }
    }
}

/// The executor of `engine` with the metadata every crate's `run` records.
fn metadata_of<E: Engine>(engine: E, backend: Backend, seed: u64, label: &str) -> Executor<E> {
    Executor::new(engine).with_run_metadata(backend, seed, label)
}

/// Runs `executor` with the Python watch, the history cadence, Ctrl-C and the checkpoint, until the budget
/// arguments or, without them, the parameters' `generations`.
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
            .with_termination(termination.with_ctrl_c(true))?
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
