//! What `SgaAskTell` and `QigaAskTell` share: evo-qiga's ask/tell engines on bit strings, with NumPy bool
//! arrays in and out.

use evo_core::{Bits, Result};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use super::{packed, unpacked};
use crate::errors::{to_py, value_error};

/// The ask/tell API of `evo_qiga::QigaAskTell` and `evo_qiga::sga::SgaAskTell`.
pub trait StringEngine {
    fn ask(&mut self) -> Result<&[u32]>;
    fn tell(&mut self, fitness: &[f64]) -> Result<()>;
    fn tell_repaired(&mut self, fitness: &[f64], rows: &[u32]) -> Result<()>;
    fn best(&self) -> Option<(Bits, f64)>;
    fn generation(&self) -> Option<u64>;
    fn evaluations(&self) -> u64;
    fn bits(&self) -> usize;
}

macro_rules! string_engine {
    ($engine:ty) => {
        impl StringEngine for $engine {
            fn ask(&mut self) -> Result<&[u32]> {
                <$engine>::ask(self)
            }
            fn tell(&mut self, fitness: &[f64]) -> Result<()> {
                <$engine>::tell(self, fitness)
            }
            fn tell_repaired(&mut self, fitness: &[f64], rows: &[u32]) -> Result<()> {
                <$engine>::tell_repaired(self, fitness, rows)
            }
            fn best(&self) -> Option<(Bits, f64)> {
                <$engine>::best(self)
            }
            fn generation(&self) -> Option<u64> {
                <$engine>::generation(self)
            }
            fn evaluations(&self) -> u64 {
                <$engine>::evaluations(self)
            }
            fn bits(&self) -> usize {
                <$engine>::bits(self)
            }
        }
    };
}

string_engine!(evo_qiga::QigaAskTell);
string_engine!(evo_qiga::sga::SgaAskTell);

/// An engine with the population size and whether its strings wait for a tell.
pub struct Strings<E> {
    engine: E,
    population_size: usize,
    asked: bool,
}

impl<E: StringEngine> Strings<E> {
    pub fn new(engine: E, population_size: usize) -> Self {
        Self {
            engine,
            population_size,
            asked: false,
        }
    }

    /// The next strings, a bool array of shape (population_size, bits).
    pub fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
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

    /// The fitness of the last asked strings and, optionally, the strings evaluated in their place.
    pub fn tell(&mut self, fitness: &[f64], repaired: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        if !self.asked {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        }
        match repaired {
            None => self.engine.tell(fitness),
            Some(rows) => {
                let rows = self.rows(rows)?;
                self.engine.tell_repaired(fitness, &rows)
            }
        }
        .map_err(to_py)?;
        self.asked = false;
        Ok(())
    }

    /// `rows` as packed words, checked to be (population_size, bits).
    fn rows(&self, rows: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let (population, bits) = (self.population_size, self.engine.bits());
        let numpy = rows.py().import("numpy")?;
        let array = numpy.call_method1("ascontiguousarray", (rows, "bool"))?;
        let shape_error = |got: String| {
            value_error(format!(
                "tell: repaired must have shape ({population}, {bits}), one row per asked string, got {got}"
            ))
        };
        let array = array
            .cast_into::<PyArray2<bool>>()
            .map_err(|_| shape_error("an array of another number of dimensions".to_string()))?;
        if array.shape() != [population, bits] {
            return Err(shape_error(format!("{:?}", array.shape())));
        }
        Ok(packed(array.readonly().as_slice()?, bits))
    }

    /// `(x, fun)` of the best string told so far.
    pub fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<bool>>, f64)> {
        self.engine
            .best()
            .map(|(bits, fitness)| (PyArray1::from_vec(py, bits.to_bools()), fitness))
    }

    /// The best fitness told so far.
    pub fn fun(&self) -> Option<f64> {
        self.engine.best().map(|(_, fitness)| fitness)
    }

    /// Generations completed (0 before and after the initial population is told).
    pub fn generation(&self) -> u64 {
        self.engine.generation().unwrap_or(0)
    }

    /// Fitness values told so far.
    pub fn evaluations(&self) -> u64 {
        self.engine.evaluations()
    }

    /// The bits of every string.
    pub fn bits(&self) -> usize {
        self.engine.bits()
    }

    /// The rows of every asked population.
    pub fn population_size(&self) -> usize {
        self.population_size
    }
}
