//! Box-constrained continuous problems.

use super::{Bounds, check_fitness_slice, check_population_shape};
use crate::error::Result;
use rayon::prelude::*;

/// A continuous function to minimise over a [`Bounds`] box.
///
/// Only [`name`](Self::name), [`dimension`](Self::dimension), [`bounds`](Self::bounds) and
/// [`evaluate`](Self::evaluate) are required. `Sync` is required because the batch evaluation shares the
/// problem between rayon threads.
///
/// ```
/// use evo_core::{Bounds, ContinuousProblem};
///
/// struct Sphere { bounds: Bounds }
///
/// impl ContinuousProblem for Sphere {
///     fn name(&self) -> &str { "sphere" }
///     fn dimension(&self) -> usize { self.bounds.dimension() }
///     fn bounds(&self) -> &Bounds { &self.bounds }
///     fn evaluate(&self, x: &[f32]) -> f64 { x.iter().map(|&v| f64::from(v) * f64::from(v)).sum() }
///     fn optimum(&self) -> Option<f64> { Some(0.0) }
/// }
///
/// let sphere = Sphere { bounds: Bounds::uniform(2, -5.0, 5.0)? };
/// let mut fitness = [0.0; 2];
/// sphere.evaluate_checked(&[1.0, 2.0, 0.5, 0.0], &mut fitness)?;
/// assert_eq!(fitness, [5.0, 0.25]);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub trait ContinuousProblem: Sync {
    /// A short name used in errors, reports and bench ids ("rastrigin").
    fn name(&self) -> &str;

    /// The number of variables.
    fn dimension(&self) -> usize;

    /// The search box; its dimension equals [`dimension`](Self::dimension).
    fn bounds(&self) -> &Bounds;

    /// The fitness (to minimise) of one point of length [`dimension`](Self::dimension).
    fn evaluate(&self, x: &[f32]) -> f64;

    /// Evaluates a row-major population: row `i` is `population[i * d..(i + 1) * d]` with
    /// `d = dimension()`, and its fitness goes to `fitness[i]`. The caller guarantees
    /// `population.len() == fitness.len() * d` ([`evaluate_checked`](Self::evaluate_checked) checks it).
    ///
    /// The default evaluates rows in parallel on the current rayon pool; each row is independent, so the
    /// result is the same for any number of threads. Override it to vectorise or to batch work.
    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        let dimension = self.dimension();
        if dimension == 0 {
            // `par_chunks(0)` is not allowed; every individual of a zero-dimensional problem is the empty
            // point.
            fitness.par_iter_mut().for_each(|f| *f = self.evaluate(&[]));
            return;
        }
        population
            .par_chunks(dimension)
            .zip(fitness.par_iter_mut())
            .for_each(|(x, f)| *f = self.evaluate(x));
    }

    /// The known optimal fitness, when the problem has one (used by targets and reports).
    fn optimum(&self) -> Option<f64> {
        None
    }

    /// [`evaluate_batch`](Self::evaluate_batch) with the shape and the results checked: the population must
    /// hold `fitness.len()` rows of `dimension()` values, and every fitness must be finite.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) on a shape mismatch (nothing is
    /// evaluated), [`Error::NonFiniteFitness`](crate::Error::NonFiniteFitness) for the first non-finite
    /// fitness.
    fn evaluate_checked(&self, population: &[f32], fitness: &mut [f64]) -> Result<()> {
        check_population_shape(
            "ContinuousProblem",
            population.len(),
            self.dimension(),
            fitness.len(),
        )?;
        self.evaluate_batch(population, fitness);
        check_fitness_slice(self.name(), fitness)
    }
}
