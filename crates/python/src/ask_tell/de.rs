//! `evogpu.DeAskTell`: DE's CPU engine, or its CUDA engine (`de_cuda.rs`), fed by ask/tell.

use evo_core::{Backend, Bounds, ContinuousProblem};
use evo_de::{DeCpu, DeviceEvaluation, DeviceProblem};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::de_cuda::DeviceDoor;
use super::{Exchange, Relay};
use crate::errors::{to_py, value_error};

/// A box whose evaluation is a round trip through the relay.
struct DeRelay {
    bounds: Bounds,
    relay: Relay<f32>,
}

impl ContinuousProblem for DeRelay {
    fn name(&self) -> &str {
        "ask/tell"
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        let mut fitness = [f64::NAN];
        self.relay.exchange(x, &mut fitness);
        fitness[0]
    }

    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        self.relay.exchange(population, fitness);
    }
}

impl DeviceProblem for DeRelay {
    fn device_evaluation(&self, _gpu: &evo_gpu_runtime::Gpu) -> evo_core::Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Host)
    }
}

/// Widens f32 genes to the float64 NumPy array users compute with (exactly).
fn widened<'py>(py: Python<'py>, genes: &[f32]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_vec(py, genes.iter().map(|&g| f64::from(g)).collect())
}

/// Where the engine runs.
enum Chosen {
    Cpu { threads: usize },
    Cuda { device: usize },
}

/// The backend of `backend` and `threads`: "auto" stays on the CPU, as for `minimize` with a Python
/// function, so that `ask` gives NumPy arrays unless a CUDA backend is asked for by name.
fn chosen_backend(backend: &str, threads: usize) -> PyResult<Chosen> {
    match backend.parse::<Backend>().map_err(to_py)? {
        Backend::Auto | Backend::Cpu { threads: 0 } => Ok(Chosen::Cpu { threads }),
        Backend::Cpu { threads: given } if threads == 0 || threads == given => {
            Ok(Chosen::Cpu { threads: given })
        }
        Backend::Cpu { threads: given } => Err(value_error(format!(
            "DeAskTell: backend \"cpu:{given}\" and threads={threads} disagree; give the thread count once"
        ))),
        Backend::Cuda { .. } if threads != 0 => Err(value_error(format!(
            "DeAskTell: threads={threads} applies to the CPU backend only; leave it 0 with a CUDA backend"
        ))),
        Backend::Cuda { device } => Ok(Chosen::Cuda { device }),
    }
}

/// The CPU engine on its own thread, fed through the relay.
fn cpu_door(params: evo_de::DeParams, bounds: Bounds, seed: u64, threads: usize) -> Exchange<f32> {
    Exchange::start(bounds.dimension(), move |relay| {
        let problem = DeRelay { bounds, relay };
        match DeCpu::new(params, problem, seed, threads) {
            Ok(mut engine) => loop {
                if let Err(error) = evo_core::Engine::step(&mut engine) {
                    break error;
                }
            },
            Err(error) => error,
        }
    })
}

/// The engine behind the object.
enum Door {
    Cpu(Exchange<f32>),
    Cuda(DeviceDoor),
}

/// DE driven one population at a time: `ask()` gives the population, `tell(fitness)` takes its fitness.
/// The engine runs on a thread of its own and waits for each `tell`; the first `ask` gives the initial
/// population, every later one a generation's trial vectors. On the CPU backend `ask` gives a float64
/// NumPy array of shape (population_size, dimension), and the same seed and fitness give the same
/// populations as `minimize` with a Python fitness function. On the CUDA backend (`backend="cuda"` or
/// `"cuda:N"`) `ask` gives an `evogpu.DeviceView` of the engine's own device buffer (float32, no copy:
/// `torch.from_dlpack(view)`), valid until the next `tell`, and `tell` takes a CUDA tensor (read on the
/// device, on the engine's stream) or host values; the same seed and fitness give the CPU backend's
/// populations, bit for bit. `"auto"` stays on the CPU.
/// `DeAskTell(bounds, seed=0, options=None, threads=0, backend="auto")`, with `minimize`'s DE options.
#[pyclass(module = "evogpu")]
pub struct DeAskTell {
    door: Door,
    population_size: usize,
}

#[pymethods]
impl DeAskTell {
    /// DE on `bounds` from `seed` with `options` (`minimize`'s DE options), on `backend`: "auto" or
    /// "cpu" (on `threads` CPU threads, 0 for one per core), "cuda" or "cuda:N".
    #[new]
    #[pyo3(signature = (bounds, seed=0, options=None, threads=0, backend="auto"))]
    fn new(
        bounds: Vec<(f64, f64)>,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
        threads: usize,
        backend: &str,
    ) -> PyResult<Self> {
        let params = crate::params::de(options)?;
        let bounds = crate::to_bounds(&bounds)?;
        let population_size = params.population();
        let door = match chosen_backend(backend, threads)? {
            Chosen::Cpu { threads } => Door::Cpu(cpu_door(params, bounds, seed, threads)),
            Chosen::Cuda { device } => {
                Door::Cuda(DeviceDoor::start(params, bounds, seed, device).map_err(to_py)?)
            }
        };
        Ok(Self {
            door,
            population_size,
        })
    }

    /// The next population to evaluate: on the CPU backend a float64 array of shape (population_size,
    /// dimension); on the CUDA backend a `DeviceView` of the engine's float32 device buffer, valid until
    /// the next `tell`.
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &mut self.door {
            Door::Cpu(exchange) => {
                let dimension = exchange.row_len;
                let rows = exchange.ask(py)?;
                let count = rows.len() / dimension.max(1);
                Ok(widened(py, rows).reshape([count, dimension])?.into_any())
            }
            Door::Cuda(door) => Ok(door.ask(py)?.into_any()),
        }
    }

    /// The fitness of the last asked population: population_size values, one per row. Host values (a
    /// sequence, a NumPy array) must be finite; on the CUDA backend a CUDA tensor of float64 or float32
    /// values on the engine's device is read there, on the engine's stream.
    fn tell(&mut self, py: Python<'_>, fitness: &Bound<'_, PyAny>) -> PyResult<()> {
        match &mut self.door {
            Door::Cpu(exchange) => exchange.tell(fitness.extract()?),
            Door::Cuda(door) => door.tell(py, fitness),
        }
    }

    /// The best point told so far (a float64 array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        Ok(self.best(py)?.map(|(x, _)| x))
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self, py: Python<'_>) -> PyResult<Option<f64>> {
        Ok(self.best(py)?.map(|(_, fitness)| fitness))
    }

    /// `(x, fun)` of the best point told so far, or None before the first tell. On the CUDA backend the
    /// best is kept on the device and read here (a wait for the engine's stream).
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> PyResult<Option<(Bound<'py, PyArray1<f64>>, f64)>> {
        Ok(match &self.door {
            Door::Cpu(exchange) => exchange
                .best
                .as_ref()
                .map(|(x, fitness)| (widened(py, x), *fitness)),
            Door::Cuda(door) => door
                .best(py)?
                .map(|(x, fitness)| (widened(py, &x), fitness)),
        })
    }

    /// Generations completed (0 after the initial population is told).
    #[getter]
    fn generation(&self) -> u64 {
        match &self.door {
            Door::Cpu(exchange) => exchange.generation,
            Door::Cuda(door) => door.generation,
        }
    }

    /// Fitness values told so far.
    #[getter]
    fn evaluations(&self) -> u64 {
        match &self.door {
            Door::Cpu(exchange) => exchange.evaluations,
            Door::Cuda(door) => door.evaluations,
        }
    }

    /// The number of rows of every asked population.
    #[getter]
    fn population_size(&self) -> usize {
        self.population_size
    }

    /// The backend the engine runs on: "cpu" or "cuda:N".
    #[getter]
    fn backend(&self) -> String {
        match &self.door {
            Door::Cpu(_) => "cpu".to_string(),
            Door::Cuda(door) => door.backend(),
        }
    }
}
