//! `evogpu._evogpu`: the Rust half of the Python package `evogpu` (PyO3, stable ABI).
//!
//! The Python half (`python/evogpu/__init__.py`) holds the public API, its docstrings and the result type;
//! this module runs the engines: `_minimize` returns a plain dict that `evogpu.minimize` wraps, and
//! [`DeAskTell`](ask_tell::DeAskTell) is `evogpu.DeAskTell`. Runs release the GIL; it is taken back only to
//! call Python (the callback, a Python fitness function, the signal handlers).

mod arrays;
mod ask_tell;
mod callable;
mod device_fitness;
mod dlpack;
mod dlpack_export;
mod dlpack_import;
mod errors;
mod knapsack;
mod params;
mod problems;
mod read_fitness;
mod run;
mod user_source;
mod watch;

use evo_core::{Backend, Bounds, Checkpointing, ConstrainedProblem, ContinuousProblem};
use numpy::{PyArray1, ToPyArray};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

use crate::callable::PythonFitness;
use crate::errors::{to_py, value_error};
use crate::knapsack::KnapsackAlgorithm;
use crate::problems::Builtin;
use crate::run::{Algorithm, Fitness, Outcome, Settings, Solution};
use crate::watch::{Stop, StopSlot, StopToken};

/// The Python module.
#[pymodule]
fn _evogpu(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(_minimize, module)?)?;
    module.add_class::<ask_tell::DeAskTell>()?;
    module.add_class::<ask_tell::GaAskTell>()?;
    module.add_class::<ask_tell::SgaAskTell>()?;
    module.add_class::<ask_tell::DpgaAskTell>()?;
    module.add_class::<ask_tell::QigaAskTell>()?;
    module.add_class::<StopToken>()?;
    module.add_class::<dlpack_export::DeviceView>()?;
    module.add_class::<user_source::UserSource>()?;
    module.add(
        "CompileError",
        module.py().get_type::<user_source::CompileError>(),
    )?;
    module.add_function(wrap_pyfunction!(dlpack_export::_host_view, module)?)?;
    module.add_function(wrap_pyfunction!(dlpack_import::_read_dlpack, module)?)?;
    module.add("ALGORITHMS", run::ALGORITHMS)?;
    module.add("PROBLEMS", problems::SYNTAX)?;
    Ok(())
}

/// `bounds` as the engines' `f32` box (each value rounded to the nearest `f32`, the engines' gene type).
fn to_bounds(bounds: &[(f64, f64)]) -> PyResult<Bounds> {
    #[allow(clippy::cast_possible_truncation)]
    let (lower, upper) = bounds
        .iter()
        .map(|&(low, high)| (low as f32, high as f32))
        .unzip();
    Bounds::new(lower, upper).map_err(to_py)
}

/// The box of a built-in problem, where it has one.
fn box_of(problem: &Builtin) -> PyResult<Option<Bounds>> {
    Ok(match problem {
        Builtin::Rastrigin(p) => Some(p.bounds().clone()),
        Builtin::Shifted(p) => Some(p.bounds().clone()),
        Builtin::Cec2010(p) => Some(p.bounds().clone()),
        Builtin::Etc(p) => Some(p.bounds().clone()),
        Builtin::Cec2006(p) => Some(ConstrainedProblem::bounds(p).clone()),
        Builtin::Ga {
            function,
            variables,
        } => Some(
            evo_benchmarks::GaProblem::new(*function, *variables)
                .map_err(to_py)?
                .bounds()
                .clone(),
        ),
        Builtin::Knapsack(_) => None,
    })
}

/// The algorithm named `name` with `options` applied.
fn algorithm(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Algorithm> {
    Ok(match name {
        "de" => Algorithm::De(params::de(options)?),
        "ma-sw-chains" => Algorithm::Ma(params::ma(options)?),
        "ga" => Algorithm::Ga(params::ga(options)?),
        "dpga" => Algorithm::Dpga(params::dpga(options)?),
        "qiga" => Algorithm::Knapsack(KnapsackAlgorithm::Qiga(params::qiga(options)?)),
        "sga" => Algorithm::Knapsack(KnapsackAlgorithm::Sga(params::sga(options)?)),
        other => {
            return Err(value_error(format!(
                "unknown algorithm `{other}`; the algorithms are {}",
                run::ALGORITHMS
            )));
        }
    })
}

/// Runs one algorithm; see `evogpu.minimize` for the contract.
#[pyfunction]
#[pyo3(signature = (fitness, bounds, algorithm_name, backend, seed, max_generations, max_evaluations,
    options, callback, checkpoint, checkpoint_every, history_every, stop_token=None, gpu_tensors=None))]
#[allow(clippy::too_many_arguments)]
fn _minimize<'py>(
    py: Python<'py>,
    fitness: &Bound<'py, PyAny>,
    bounds: Option<Vec<(f64, f64)>>,
    algorithm_name: &str,
    backend: &str,
    seed: u64,
    max_generations: Option<u64>,
    max_evaluations: Option<u64>,
    options: Option<&Bound<'py, PyDict>>,
    callback: Option<Py<PyAny>>,
    checkpoint: Option<PathBuf>,
    checkpoint_every: u64,
    history_every: u64,
    stop_token: Option<PyRef<'py, StopToken>>,
    gpu_tensors: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let algorithm = algorithm(algorithm_name, options)?;
    let mut backend: Backend = backend.parse().map_err(to_py)?;
    // The run's own token (the user's, or a fresh one): every stop of this run goes through it alone.
    let stop = StopSlot::new(stop_token.map_or_else(Default::default, |token| token.0.clone()));
    let fitness = if let Ok(spec) = fitness.extract::<String>() {
        let problem = problems::build(&spec, bounds.as_ref().map(Vec::len))?;
        if let Some(given) = &bounds {
            let given = to_bounds(given)?;
            match box_of(&problem)? {
                Some(own) if own == given => {}
                Some(own) => {
                    return Err(value_error(format!(
                        "problem `{spec}` is defined on its own box (lower {:?}, upper {:?}); leave bounds=None \
                         or pass that box",
                        own.lower(),
                        own.upper()
                    )));
                }
                None => {
                    return Err(value_error(format!(
                        "problem `{spec}` has no box; leave bounds=None"
                    )));
                }
            }
        }
        Fitness::Builtin(problem)
    } else if let Ok(source) = fitness.cast::<user_source::UserSource>() {
        let (chosen, problem) = user_source::fitness(source, backend, bounds.is_some(), &stop)?;
        backend = chosen;
        Fitness::Source(problem)
    } else if fitness.is_callable() {
        let bounds = bounds.ok_or_else(|| {
            value_error("a Python fitness function needs bounds: a sequence of (low, high) pairs")
        })?;
        // On the GPU a Python function sees device tensors of the library the user chose, so the CUDA
        // backend is taken only when asked for; "auto" stays on the CPU, where it sees NumPy arrays.
        if matches!(backend, Backend::Auto) {
            backend = Backend::cpu();
        }
        let name = fitness
            .getattr("__name__")
            .and_then(|name| name.extract::<String>())
            .unwrap_or_else(|_| "python".to_string());
        Fitness::Python(
            PythonFitness::new(
                name,
                to_bounds(&bounds)?,
                fitness.clone().unbind(),
                stop.clone(),
            )
            .with_tensors(gpu_tensors),
        )
    } else {
        return Err(value_error(format!(
            "fitness must be a problem name ({}) or a callable over the population",
            problems::SYNTAX
        )));
    };
    let checkpoint = match checkpoint {
        Some(path) => Some(Checkpointing::new(path, checkpoint_every).map_err(to_py)?),
        None => None,
    };
    let settings = Settings {
        seed,
        backend,
        max_generations,
        max_evaluations,
        history_every,
        checkpoint,
        callback,
        stop: stop.clone(),
    };
    let outcome = py.detach(|| run::run(algorithm, fitness, settings));
    let stopped_by_callback = match stop.take() {
        Some(Stop::Raised(error)) => return Err(error),
        Some(Stop::Requested) => true,
        None => false,
    };
    to_dict(py, outcome?, stopped_by_callback)
}

/// The outcome as the dict `evogpu.OptimizeResult` is built from.
fn to_dict<'py>(
    py: Python<'py>,
    outcome: Outcome,
    stopped_by_callback: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    match &outcome.x {
        Solution::Reals(x) => {
            let x: Vec<f64> = x.iter().map(|&g| f64::from(g)).collect();
            dict.set_item("x", PyArray1::from_vec(py, x))?;
        }
        Solution::Bits(bits) => dict.set_item("x", bits.to_pyarray(py))?,
    }
    dict.set_item("fun", outcome.fun)?;
    dict.set_item("nfev", outcome.evaluations)?;
    dict.set_item("nit", outcome.generations)?;
    dict.set_item("algorithm", outcome.algorithm)?;
    dict.set_item("wall_time_s", outcome.wall_time_s)?;
    let message = if stopped_by_callback {
        "stopped by the callback".to_string()
    } else {
        outcome.termination
    };
    dict.set_item("message", message)?;
    dict.set_item("backend", outcome.metadata.get("backend").cloned())?;
    dict.set_item("metadata", outcome.metadata)?;
    let history = PyDict::new(py);
    let column = |f: fn(&evo_core::HistoryPoint) -> f64| -> Vec<f64> {
        outcome.history.iter().map(f).collect()
    };
    let counts = |f: fn(&evo_core::HistoryPoint) -> u64| -> Vec<u64> {
        outcome.history.iter().map(f).collect()
    };
    history.set_item(
        "generation",
        PyArray1::from_vec(py, counts(|p| p.generation)),
    )?;
    history.set_item(
        "evaluations",
        PyArray1::from_vec(py, counts(|p| p.evaluations)),
    )?;
    history.set_item(
        "best_fitness",
        PyArray1::from_vec(py, column(|p| p.best_fitness)),
    )?;
    history.set_item("elapsed_s", PyArray1::from_vec(py, column(|p| p.elapsed_s)))?;
    dict.set_item("history", history)?;
    Ok(dict)
}
