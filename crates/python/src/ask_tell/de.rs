//! `evogpu.DeAskTell`: DE's CPU engine fed by ask/tell.

use evo_core::{Bounds, ContinuousProblem};
use evo_de::{DeCpu, DeviceEvaluation, DeviceProblem};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{Exchange, Relay};

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

/// DE driven one population at a time: `ask()` gives the population (float64, shape (population_size,
/// dimension)), `tell(fitness)` takes its fitness. The CPU engine runs on a thread of its own and waits for
/// each `tell`; the same seed and fitness give the same populations as `minimize` with a Python fitness
/// function. The first `ask` gives the initial population, every later one a generation's trial vectors.
/// `DeAskTell(bounds, seed=0, options=None, threads=0)`, with `minimize`'s DE options.
#[pyclass(module = "evogpu")]
pub struct DeAskTell {
    exchange: Exchange<f32>,
    population_size: usize,
}

#[pymethods]
impl DeAskTell {
    /// DE on `bounds` from `seed` with `options` (`minimize`'s DE options), on `threads` CPU threads.
    #[new]
    #[pyo3(signature = (bounds, seed=0, options=None, threads=0))]
    fn new(
        bounds: Vec<(f64, f64)>,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
        threads: usize,
    ) -> PyResult<Self> {
        let params = crate::params::de(options)?;
        let bounds = crate::to_bounds(&bounds)?;
        let population_size = params.population();
        let exchange = Exchange::start(bounds.dimension(), move |relay| {
            let problem = DeRelay { bounds, relay };
            match DeCpu::new(params, problem, seed, threads) {
                Ok(mut engine) => loop {
                    if let Err(error) = evo_core::Engine::step(&mut engine) {
                        break error;
                    }
                },
                Err(error) => error,
            }
        });
        Ok(Self {
            exchange,
            population_size,
        })
    }

    /// The next population to evaluate, a float64 array of shape (population_size, dimension).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let dimension = self.exchange.row_len;
        let rows = self.exchange.ask(py)?;
        let count = rows.len() / dimension.max(1);
        Ok(widened(py, rows).reshape([count, dimension])?.into_any())
    }

    /// The fitness of the last asked population: population_size finite values, one per row.
    fn tell(&mut self, fitness: Vec<f64>) -> PyResult<()> {
        self.exchange.tell(fitness)
    }

    /// The best point told so far (a float64 array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.exchange.best.as_ref().map(|(x, _)| widened(py, x))
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self) -> Option<f64> {
        self.exchange.best.as_ref().map(|(_, f)| *f)
    }

    /// `(x, fun)` of the best point told so far, or None before the first tell.
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<f64>>, f64)> {
        self.exchange
            .best
            .as_ref()
            .map(|(x, fitness)| (widened(py, x), *fitness))
    }

    /// Generations completed (0 after the initial population is told).
    #[getter]
    fn generation(&self) -> u64 {
        self.exchange.generation
    }

    /// Fitness values told so far.
    #[getter]
    fn evaluations(&self) -> u64 {
        self.exchange.evaluations
    }

    /// The number of rows of every asked population.
    #[getter]
    fn population_size(&self) -> usize {
        self.population_size
    }
}
