//! What `SgaAskTell` and `QigaAskTell` share: evo-qiga's ask/tell engines on bit strings, with NumPy bool
//! arrays in and out, and the one macro that makes both pyclasses.

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
        let array = crate::arrays::contiguous(rows, pyo3::intern!(rows.py(), "bool"))?;
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

/// A pyclass over one of evo-qiga's ask/tell engines: `$name(bits, seed=0, options=None)` built by
/// `$engine::new(&$params(options)?, bits, seed)`, its NumPy side in [`Strings`]. The class docs and the
/// `new` and `tell` docs are the caller's, since the two algorithms differ there only.
macro_rules! string_ask_tell {
    (
        $(#[$class_doc:meta])*
        class $name:ident($engine:ty, params = $params:path);
        new = $new_doc:literal;
        tell = $tell_doc:literal;
    ) => {
        $(#[$class_doc])*
        #[pyclass(module = "evogpu")]
        pub struct $name($crate::ask_tell::strings::Strings<$engine>);

        #[pymethods]
        impl $name {
            #[doc = $new_doc]
            #[new]
            #[pyo3(signature = (bits, seed=0, options=None))]
            fn new(
                bits: usize,
                seed: u64,
                options: Option<&Bound<'_, pyo3::types::PyDict>>,
            ) -> PyResult<Self> {
                let params = $params(options)?;
                let engine = <$engine>::new(&params, bits, seed).map_err($crate::errors::to_py)?;
                Ok(Self($crate::ask_tell::strings::Strings::new(
                    engine,
                    params.population(),
                )))
            }

            /// The next bit strings to evaluate, a bool array of shape (population_size, bits)
            /// (`.view(numpy.uint8)` reads them as 0/1 bytes without a copy).
            fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                self.0.ask(py)
            }

            #[doc = $tell_doc]
            #[pyo3(signature = (fitness, repaired=None))]
            fn tell(&mut self, fitness: Vec<f64>, repaired: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
                self.0.tell(&fitness, repaired)
            }

            /// The best string told so far (a bool array), or None before the first tell.
            #[getter]
            fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, numpy::PyArray1<bool>>> {
                self.0.best(py).map(|(x, _)| x)
            }

            /// The best fitness told so far, or None before the first tell.
            #[getter]
            fn fun(&self) -> Option<f64> {
                self.0.fun()
            }

            /// `(x, fun)` of the best string told so far, or None before the first tell.
            #[getter]
            fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, numpy::PyArray1<bool>>, f64)> {
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
    };
}

pub(crate) use string_ask_tell;
