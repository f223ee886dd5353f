//! Way 3 of ARCHITECTURE §5 for bit strings: any [`BinaryProblem`] evaluated on the host by
//! [`GaCuda`](crate::GaCuda), with every other step of the GA on the GPU. Each generation the engine's
//! population (`n · ⌈L/32⌉` words) is copied to the host, the problem's
//! [`evaluate_batch`](BinaryProblem::evaluate_batch) (rayon over the rows by default, or your own batched
//! code) fills the fitness there, and the `n` fitness values are copied back; the CPU engine calls the same
//! code, so the two engines hold identical snapshots. [`BatchFn`] turns a closure over the whole population
//! into such a problem.
//!
//! ```
//! use evo_core::{BinaryProblem, Bits};
//! use evo_ga::{BatchFn, HostEvaluated};
//!
//! // Minus the ones of each row, the rows handled in one call (rayon inside is fine).
//! let problem = HostEvaluated::new(BatchFn::new("onemax", 64, |rows: &[u32], fitness: &mut [f64]| {
//!     for (row, f) in rows.chunks_exact(2).zip(fitness.iter_mut()) {
//!         *f = -f64::from(row[0].count_ones() + row[1].count_ones());
//!     }
//! })?);
//! assert_eq!(problem.evaluate(&Bits::from_words(vec![u32::MAX, 1], 64)?), -33.0);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! The copies and the host evaluation are not overlapped: the engine's sort needs every fitness, so the
//! evaluation sits between the breeding and the sort of the same generation.

use std::sync::Arc;

use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
use evo_core::{BinaryProblem, Bits, Error, Result, catch_problem_panic};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

/// A [`BinaryProblem`] that [`GaCuda`](crate::GaCuda) evaluates on the host (module docs).
pub struct HostEvaluated<P> {
    problem: Arc<P>,
}

impl<P: BinaryProblem + Send + 'static> HostEvaluated<P> {
    /// `problem`, evaluated on the host by the CUDA engine.
    pub fn new(problem: P) -> Self {
        Self {
            problem: Arc::new(problem),
        }
    }

    /// The wrapped problem.
    pub fn inner(&self) -> &P {
        &self.problem
    }
}

impl<P: BinaryProblem + Send + 'static> BinaryProblem for HostEvaluated<P> {
    fn name(&self) -> &str {
        self.problem.name()
    }

    fn bit_count(&self) -> usize {
        self.problem.bit_count()
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        self.problem.evaluate(bits)
    }

    fn evaluate_batch(&self, population: &[u32], fitness: &mut [f64]) {
        self.problem.evaluate_batch(population, fitness);
    }

    fn optimum(&self) -> Option<f64> {
        self.problem.optimum()
    }
}

impl<P: BinaryProblem + Send + 'static> DeviceBitProblem for HostEvaluated<P> {
    fn bit_evaluator(&self, _gpu: &Gpu) -> Result<Box<dyn BitEvaluator>> {
        Ok(Box::new(HostEvaluator {
            problem: Arc::clone(&self.problem),
            rows: Vec::new(),
            fitness: Vec::new(),
        }))
    }
}

/// The host evaluation: copy down, [`BinaryProblem::evaluate_checked`], copy up.
struct HostEvaluator<P> {
    problem: Arc<P>,
    rows: Vec<u32>,
    fitness: Vec<f64>,
}

impl<P: BinaryProblem + Send + 'static> BitEvaluator for HostEvaluator<P> {
    fn bit_count(&self) -> usize {
        self.problem.bit_count()
    }

    /// Waits for the population, evaluates it on the current rayon pool and queues the fitness upload.
    ///
    /// # Errors
    /// As [`BitEvaluator::evaluate`]; [`Error::NonFiniteFitness`] for the first non-finite fitness and
    /// [`Error::ProblemPanicked`] when the problem panics, both before anything is uploaded.
    fn evaluate(
        &mut self,
        population: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let words = Bits::word_count(self.problem.bit_count());
        if population.len() != fitness.len().saturating_mul(words) {
            return Err(Error::invalid_parameter(
                "HostEvaluated",
                "population length",
                format!("{} (problem `{}`)", population.len(), self.problem.name()),
                format!("{} individuals x {words} words", fitness.len()),
            ));
        }
        self.rows.resize(population.len(), 0);
        self.fitness.resize(fitness.len(), 0.0);
        population.copy_to_host(&mut self.rows)?;
        let (problem, rows, values) = (&self.problem, &self.rows, &mut self.fitness);
        catch_problem_panic(problem.name(), || problem.evaluate_checked(rows, values))?;
        fitness.copy_from_host(&self.fitness)
    }
}

/// A [`BinaryProblem`] made of a closure over a whole population: `batch(rows, fitness)` fills `fitness[i]`
/// with the fitness of row `i`, the `⌈L/32⌉` words `rows[i·w .. (i+1)·w]` in the [`Bits`] layout.
pub struct BatchFn<F> {
    name: String,
    bits: usize,
    batch: F,
}

impl<F: Fn(&[u32], &mut [f64]) + Sync> BatchFn<F> {
    /// A problem named `name` over strings of `bit_count` bits evaluated by `batch`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is empty or `bit_count` is 0.
    pub fn new(name: &str, bit_count: usize, batch: F) -> Result<Self> {
        if name.is_empty() {
            return Err(Error::invalid_parameter(
                "BatchFn",
                "name",
                "\"\"",
                "a non-empty name",
            ));
        }
        if bit_count == 0 {
            return Err(Error::invalid_parameter(
                "BatchFn",
                "bit count",
                format!("0 (problem `{name}`)"),
                "at least 1",
            ));
        }
        Ok(Self {
            name: name.to_string(),
            bits: bit_count,
            batch,
        })
    }
}

impl<F: Fn(&[u32], &mut [f64]) + Sync> BinaryProblem for BatchFn<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn bit_count(&self) -> usize {
        self.bits
    }

    /// The batch of one row.
    fn evaluate(&self, bits: &Bits) -> f64 {
        let mut fitness = [0.0f64];
        (self.batch)(bits.words(), &mut fitness);
        fitness[0]
    }

    fn evaluate_batch(&self, population: &[u32], fitness: &mut [f64]) {
        (self.batch)(population, fitness);
    }
}
