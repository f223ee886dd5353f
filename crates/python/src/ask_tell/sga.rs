//! `evogpu.SgaAskTell`: evo-qiga's SGA baseline through its own ask/tell API (`evo_qiga::sga::SgaAskTell`).

use evo_qiga::sga::SgaAskTell as Engine;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{packed, unpacked};
use crate::errors::{to_py, value_error};

/// The SGA baseline driven one population at a time: `ask()` gives bit strings (a bool array of shape
/// (population_size, bits)), `tell(fitness)` their fitness, to minimise and at most 0 (roulette selection
/// draws in proportion to `-fitness`). `tell(fitness, repaired)` also takes the strings that were evaluated
/// in place of the asked ones (a repair), which the SGA keeps: repairing each string as the knapsack
/// engine does and telling minus its profit gives `minimize(algorithm="sga")`'s run on that knapsack, bit
/// for bit. `SgaAskTell(bits, seed=0, options=None)` with `minimize`'s SGA options (`generations` is not
/// used: you decide when to stop).
#[pyclass(module = "evogpu")]
pub struct SgaAskTell {
    engine: Engine,
    population_size: usize,
    asked: bool,
}

#[pymethods]
impl SgaAskTell {
    /// The SGA on strings of `bits` bits from `seed` with `options` (`minimize`'s SGA options).
    #[new]
    #[pyo3(signature = (bits, seed=0, options=None))]
    fn new(bits: usize, seed: u64, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let params = crate::params::sga(options)?;
        let engine = Engine::new(&params, bits, seed).map_err(to_py)?;
        Ok(Self {
            engine,
            population_size: params.population(),
            asked: false,
        })
    }

    /// The next bit strings to evaluate, a bool array of shape (population_size, bits) (`.view(numpy.uint8)`
    /// reads them as 0/1 bytes without a copy).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.asked {
            return Err(value_error(
                "ask: the last population has not been told its fitness; call tell(fitness) first",
            ));
        }
        let bits = self.engine.bits();
        let flat = unpacked(self.engine.ask().map_err(to_py)?, bits);
        self.asked = true;
        let rows = flat.len() / bits;
        Ok(PyArray1::from_vec(py, flat)
            .reshape([rows, bits])?
            .into_any())
    }

    /// The fitness of the last asked strings: one finite value at most 0 per row; `repaired`, when given,
    /// the strings evaluated in their place (shape (population_size, bits), any array NumPy reads as
    /// bool), which the SGA keeps.
    #[pyo3(signature = (fitness, repaired=None))]
    fn tell(&mut self, fitness: Vec<f64>, repaired: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        if !self.asked {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        }
        match repaired {
            None => self.engine.tell(&fitness),
            Some(rows) => {
                let rows = self.rows(rows)?;
                self.engine.tell_repaired(&fitness, &rows)
            }
        }
        .map_err(to_py)?;
        self.asked = false;
        Ok(())
    }

    /// The best string told so far (a bool array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<bool>>> {
        self.engine
            .best()
            .map(|(bits, _)| PyArray1::from_vec(py, bits.to_bools()))
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self) -> Option<f64> {
        self.engine.best().map(|(_, fitness)| fitness)
    }

    /// `(x, fun)` of the best string told so far, or None before the first tell.
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<bool>>, f64)> {
        self.engine
            .best()
            .map(|(bits, fitness)| (PyArray1::from_vec(py, bits.to_bools()), fitness))
    }

    /// Generations completed (0 after the initial population is told, and before).
    #[getter]
    fn generation(&self) -> u64 {
        self.engine.generation().unwrap_or(0)
    }

    /// Fitness values told so far.
    #[getter]
    fn evaluations(&self) -> u64 {
        self.engine.evaluations()
    }

    /// The bits of every string.
    #[getter]
    fn bits(&self) -> usize {
        self.engine.bits()
    }

    /// The rows of every asked population.
    #[getter]
    fn population_size(&self) -> usize {
        self.population_size
    }
}

impl SgaAskTell {
    /// `rows` as packed words, checked to be (population_size, bits).
    fn rows(&self, rows: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let bits = self.engine.bits();
        let numpy = rows.py().import("numpy")?;
        let array = numpy.call_method1("ascontiguousarray", (rows, "bool"))?;
        let array = array.cast_into::<PyArray2<bool>>().map_err(|_| {
            value_error("tell: repaired must be a 2-D array of shape (population_size, bits)")
        })?;
        let shape = array.shape().to_vec();
        let population = self.population_size;
        if shape != [population, bits] {
            return Err(value_error(format!(
                "tell: repaired must have shape ({population}, {bits}), one row per asked string, got {shape:?}"
            )));
        }
        Ok(packed(array.readonly().as_slice()?, bits))
    }
}
