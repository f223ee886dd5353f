//! `evogpu.GaAskTell`: the binary GA's CPU engine fed by ask/tell.

use evo_core::{BinaryProblem, Bits};
use evo_ga::GaCpu;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{Exchange, Relay, unpacked};
use crate::errors::value_error;

/// Bit strings whose evaluation is a round trip through the relay (rows of packed words, the `Bits`
/// layout).
struct GaRelay {
    bits: usize,
    relay: Relay<u32>,
}

impl BinaryProblem for GaRelay {
    fn name(&self) -> &str {
        "ask/tell"
    }

    fn bit_count(&self) -> usize {
        self.bits
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        let mut fitness = [f64::NAN];
        self.relay.exchange(bits.words(), &mut fitness);
        fitness[0]
    }

    fn evaluate_batch(&self, population: &[u32], fitness: &mut [f64]) {
        self.relay.exchange(population, fitness);
    }
}

/// The binary GA driven one population at a time: `ask()` gives bit strings (a bool array of shape (rows,
/// bits)), `tell(fitness)` their fitness, to minimise. The first `ask` gives the whole initial population;
/// every later one the offspring a generation evaluates (the elite is carried over, so rows = population
/// - elite). The CPU engine runs on a thread of its own and waits for each `tell`; the same seed and
/// fitness give the same populations as the GA's own run. `GaAskTell(bits, seed=0, options=None,
/// threads=0)`, with `minimize`'s GA options.
#[pyclass(module = "evogpu")]
pub struct GaAskTell {
    exchange: Exchange<u32>,
    bits: usize,
}

#[pymethods]
impl GaAskTell {
    /// The GA on strings of `bits` bits from `seed` with `options` (`minimize`'s GA options), on `threads`
    /// CPU threads.
    #[new]
    #[pyo3(signature = (bits, seed=0, options=None, threads=0))]
    fn new(
        bits: usize,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
        threads: usize,
    ) -> PyResult<Self> {
        if bits < 2 {
            return Err(value_error(format!(
                "GaAskTell: bits must be at least 2, got {bits}"
            )));
        }
        let params = crate::params::ga(options)?;
        let exchange = Exchange::start(Bits::word_count(bits), move |relay| {
            let problem = GaRelay { bits, relay };
            match GaCpu::with_threads(params, problem, seed, threads) {
                Ok(mut engine) => loop {
                    if let Err(error) = evo_core::Engine::step(&mut engine) {
                        break error;
                    }
                },
                Err(error) => error,
            }
        });
        Ok(Self { exchange, bits })
    }

    /// The next bit strings to evaluate, a bool array of shape (rows, bits).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let bits = self.bits;
        let words = self.exchange.ask(py)?;
        let flat = unpacked(words, bits);
        let rows = flat.len() / bits;
        Ok(PyArray1::from_vec(py, flat)
            .reshape([rows, bits])?
            .into_any())
    }

    /// The fitness of the last asked strings: one finite value per row.
    fn tell(&mut self, fitness: Vec<f64>) -> PyResult<()> {
        self.exchange.tell(fitness)
    }

    /// The best string told so far (a bool array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<bool>>> {
        self.exchange
            .best
            .as_ref()
            .map(|(words, _)| PyArray1::from_vec(py, unpacked(words, self.bits)))
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self) -> Option<f64> {
        self.exchange.best.as_ref().map(|(_, f)| *f)
    }

    /// `(x, fun)` of the best string told so far, or None before the first tell.
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> Option<(Bound<'py, PyArray1<bool>>, f64)> {
        self.exchange
            .best
            .as_ref()
            .map(|(words, fitness)| (PyArray1::from_vec(py, unpacked(words, self.bits)), *fitness))
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

    /// The bits of every string.
    #[getter]
    fn bits(&self) -> usize {
        self.bits
    }
}
