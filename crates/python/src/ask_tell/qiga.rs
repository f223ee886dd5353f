//! `evogpu.QigaAskTell`: evo-qiga's QIGA through its own ask/tell API (`evo_qiga::QigaAskTell`).

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::strings::Strings;
use crate::errors::to_py;

/// QIGA driven one generation at a time: `ask()` observes the quantum population into bit strings (a bool
/// array of shape (population_size, bits)), `tell(fitness)` takes their fitness, to minimise, then QIGA
/// rotates towards the best string. `tell(fitness, repaired)` also takes the strings that were evaluated in
/// place of the observed ones (a repair), which QIGA keeps: repairing each string as the knapsack engine
/// does and telling minus its profit gives `minimize(algorithm="qiga")`'s run on that knapsack, bit for
/// bit. `QigaAskTell(bits, seed=0, options=None)` with `minimize`'s QIGA options (`generations` is not
/// used: you decide when to stop).
#[pyclass(module = "evogpu")]
pub struct QigaAskTell(Strings<evo_qiga::QigaAskTell>);

#[pymethods]
impl QigaAskTell {
    /// QIGA on strings of `bits` bits from `seed` with `options` (`minimize`'s QIGA options).
    #[new]
    #[pyo3(signature = (bits, seed=0, options=None))]
    fn new(bits: usize, seed: u64, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let params = crate::params::qiga(options)?;
        let engine = evo_qiga::QigaAskTell::new(&params, bits, seed).map_err(to_py)?;
        Ok(Self(Strings::new(engine, params.population())))
    }

    /// The next bit strings to evaluate, a bool array of shape (population_size, bits) (`.view(numpy.uint8)`
    /// reads them as 0/1 bytes without a copy).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.0.ask(py)
    }

    /// The fitness of the last asked strings: one finite value per row; `repaired`, when given, the
    /// strings evaluated in their place (shape (population_size, bits), any array NumPy reads as bool),
    /// which QIGA keeps.
    #[pyo3(signature = (fitness, repaired=None))]
    fn tell(&mut self, fitness: Vec<f64>, repaired: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        self.0.tell(&fitness, repaired)
    }

    /// The best string told so far (a bool array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<bool>>> {
        self.0.best(py).map(|(x, _)| x)
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self) -> Option<f64> {
        self.0.fun()
    }

    /// `(x, fun)` of the best string told so far, or None before the first tell.
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<bool>>, f64)> {
        self.0.best(py)
    }

    /// Generations completed (0 after the initial population is told, and before).
    #[getter]
    fn generation(&self) -> u64 {
        self.0.generation()
    }

    /// Fitness values told so far.
    #[getter]
    fn evaluations(&self) -> u64 {
        self.0.evaluations()
    }

    /// The bits of every string.
    #[getter]
    fn bits(&self) -> usize {
        self.0.bits()
    }

    /// The rows of every asked population.
    #[getter]
    fn population_size(&self) -> usize {
        self.0.population_size()
    }
}
