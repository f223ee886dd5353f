//! Problems over fixed-length bit strings.

use super::{Bits, check_fitness_slice, check_population_shape};
use crate::error::Result;
use rayon::prelude::*;

/// A function of a bit string to minimise.
///
/// Only [`name`](Self::name), [`bit_count`](Self::bit_count) and [`evaluate`](Self::evaluate) are
/// required. A maximisation problem (knapsack, OneMax) returns its negated objective (see the
/// [module docs](crate::problem)).
///
/// ```
/// use evo_core::{BinaryProblem, Bits};
///
/// /// OneMax, a maximisation: returns minus the number of ones.
/// struct OneMax { bits: usize }
///
/// impl BinaryProblem for OneMax {
///     fn name(&self) -> &str { "onemax" }
///     fn bit_count(&self) -> usize { self.bits }
///     fn evaluate(&self, bits: &Bits) -> f64 { -(bits.count_ones() as f64) }
/// }
///
/// let problem = OneMax { bits: 40 };
/// // Two individuals of 40 bits, two words each.
/// let population = [u32::MAX, 0xFF, 1, 0];
/// let mut fitness = [0.0; 2];
/// problem.evaluate_checked(&population, &mut fitness)?;
/// assert_eq!(fitness, [-40.0, -1.0]);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub trait BinaryProblem: Sync {
    /// A short name used in errors, reports and bench ids ("knapsack-100").
    fn name(&self) -> &str;

    /// The length of every bit string.
    fn bit_count(&self) -> usize;

    /// The fitness (to minimise) of one bit string of length [`bit_count`](Self::bit_count).
    fn evaluate(&self, bits: &Bits) -> f64;

    /// Evaluates a population of packed rows: row `i` is the `w = Bits::word_count(bit_count())` words
    /// `population[i * w..(i + 1) * w]` (the [`Bits`] layout, the same as on the GPU), and its fitness goes
    /// to `fitness[i]`. Padding bits of a row are ignored. The caller guarantees
    /// `population.len() == fitness.len() * w` ([`evaluate_checked`](Self::evaluate_checked) checks it).
    ///
    /// The default evaluates rows in parallel on the current rayon pool, independently, so the result is
    /// the same for any number of threads.
    fn evaluate_batch(&self, population: &[u32], fitness: &mut [f64]) {
        let bit_count = self.bit_count();
        let words = Bits::word_count(bit_count);
        if words == 0 {
            // `par_chunks(0)` is not allowed; every individual of a zero-bit problem is the empty string.
            let empty = Bits::zeros(0);
            fitness
                .par_iter_mut()
                .for_each(|f| *f = self.evaluate(&empty));
            return;
        }
        population
            .par_chunks(words)
            .zip(fitness.par_iter_mut())
            .for_each(|(row, f)| *f = self.evaluate(&Bits::from_row(row.to_vec(), bit_count)));
    }

    /// The known optimal fitness, when the problem has one.
    fn optimum(&self) -> Option<f64> {
        None
    }

    /// [`evaluate_batch`](Self::evaluate_batch) with the shape and the results checked.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) on a shape mismatch (nothing is
    /// evaluated), [`Error::NonFiniteFitness`](crate::Error::NonFiniteFitness) for the first non-finite
    /// fitness.
    fn evaluate_checked(&self, population: &[u32], fitness: &mut [f64]) -> Result<()> {
        check_population_shape(
            "BinaryProblem",
            population.len(),
            Bits::word_count(self.bit_count()),
            fitness.len(),
        )?;
        self.evaluate_batch(population, fitness);
        check_fitness_slice(self.name(), fitness)
    }
}
