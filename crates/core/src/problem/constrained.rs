//! Continuous problems with inequality and equality constraints.

use super::{Bounds, check_fitness, check_population_shape};
use crate::error::Result;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

use rayon::prelude::*;

/// The tolerance `eps` under which an equality constraint `h(x) = 0` counts as satisfied, `|h(x)| <= eps`:
/// `1e-4`, the value of the CEC 2006 and CEC 2010 constrained benchmark definitions.
pub const DEFAULT_EQUALITY_TOLERANCE: f64 = 1e-4;

/// The total constraint violation of one point:
///
/// `v = sum_i max(0, g_i) + sum_j max(0, |h_j| - eps)`
///
/// where `g_i <= 0` are the inequality constraints and `h_j = 0` the equality constraints, satisfied within
/// `eps` (`equality_tolerance`, usually [`DEFAULT_EQUALITY_TOLERANCE`]). `v >= 0`, and `v == 0` exactly when
/// the point is feasible. The sum runs left to right, inequalities first, in `f64`; the CUDA twin adds in
/// the same order, so both backends agree bit for bit. A NaN constraint value makes the result NaN (it is not
/// silently treated as satisfied).
pub fn total_violation(inequality: &[f64], equality: &[f64], equality_tolerance: f64) -> f64 {
    let mut violation = 0.0;
    for &g in inequality {
        // Written as a comparison rather than `g.max(0.0)`, which would turn NaN into 0.
        violation += if g <= 0.0 { 0.0 } else { g };
    }
    for &h in equality {
        let excess = h.abs() - equality_tolerance;
        violation += if excess <= 0.0 { 0.0 } else { excess };
    }
    violation
}

/// The objective and the total violation of one point of a [`ConstrainedProblem`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstrainedValue {
    /// The objective `f(x)` to minimise.
    pub objective: f64,
    /// The [`total_violation`] of `x` (0 when feasible).
    pub violation: f64,
}

impl ConstrainedValue {
    /// Combines an objective with constraint values through [`total_violation`].
    pub fn new(
        objective: f64,
        inequality: &[f64],
        equality: &[f64],
        equality_tolerance: f64,
    ) -> Self {
        Self {
            objective,
            violation: total_violation(inequality, equality, equality_tolerance),
        }
    }

    /// Whether every constraint is satisfied (the violation is zero).
    pub fn is_feasible(&self) -> bool {
        self.violation <= 0.0
    }

    /// Deb's feasibility rules as a total order (smaller is better): a feasible point beats an infeasible
    /// one, two feasible points compare by objective, two infeasible points by violation. Values compare with
    /// `f64::total_cmp`, so the order is total and identical on every backend.
    pub fn feasibility_cmp(&self, other: &Self) -> Ordering {
        match (self.is_feasible(), other.is_feasible()) {
            (true, true) => self.objective.total_cmp(&other.objective),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self.violation.total_cmp(&other.violation),
        }
    }
}

/// A continuous function to minimise subject to `g_i(x) <= 0` and `h_j(x) = 0`.
///
/// Only the name, the dimension, the bounds, the constraint counts and [`evaluate`](Self::evaluate) are
/// required.
pub trait ConstrainedProblem: Sync {
    /// A short name used in errors, reports and bench ids ("cec2006-g01").
    fn name(&self) -> &str;

    /// The number of variables.
    fn dimension(&self) -> usize;

    /// The search box; its dimension equals [`dimension`](Self::dimension).
    fn bounds(&self) -> &Bounds;

    /// The number of inequality constraints `g_i(x) <= 0`.
    fn inequality_count(&self) -> usize;

    /// The number of equality constraints `h_j(x) = 0`.
    fn equality_count(&self) -> usize;

    /// Returns the objective `f(x)` and writes `g_i(x)` to `inequality` (length
    /// [`inequality_count`](Self::inequality_count); a value `<= 0` is satisfied) and `h_j(x)` to `equality`
    /// (length [`equality_count`](Self::equality_count)).
    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64;

    /// The tolerance `eps` of the equality constraints; [`DEFAULT_EQUALITY_TOLERANCE`] unless the problem's
    /// definition says otherwise.
    fn equality_tolerance(&self) -> f64 {
        DEFAULT_EQUALITY_TOLERANCE
    }

    /// The known optimal objective of a feasible point, when the problem has one.
    fn optimum(&self) -> Option<f64> {
        None
    }

    /// Evaluates one point into its objective and total violation.
    fn evaluate_value(&self, x: &[f32]) -> ConstrainedValue {
        let mut inequality = vec![0.0; self.inequality_count()];
        let mut equality = vec![0.0; self.equality_count()];
        let objective = self.evaluate(x, &mut inequality, &mut equality);
        ConstrainedValue::new(objective, &inequality, &equality, self.equality_tolerance())
    }

    /// Evaluates a row-major population (row `i` is `population[i * d..(i + 1) * d]`, `d = dimension()`)
    /// into `values[i]`. The caller guarantees `population.len() == values.len() * d`.
    ///
    /// The default evaluates rows in parallel on the current rayon pool, each independently (with scratch
    /// buffers per rayon job), so the result is the same for any number of threads.
    fn evaluate_batch(&self, population: &[f32], values: &mut [ConstrainedValue]) {
        let dimension = self.dimension();
        if dimension == 0 {
            values
                .par_iter_mut()
                .for_each(|value| *value = self.evaluate_value(&[]));
            return;
        }
        let tolerance = self.equality_tolerance();
        let scratch = || {
            (
                vec![0.0; self.inequality_count()],
                vec![0.0; self.equality_count()],
            )
        };
        population
            .par_chunks(dimension)
            .zip(values.par_iter_mut())
            .for_each_init(scratch, |(inequality, equality), (x, value)| {
                let objective = self.evaluate(x, inequality, equality);
                *value = ConstrainedValue::new(objective, inequality, equality, tolerance);
            });
    }

    /// [`evaluate_batch`](Self::evaluate_batch) with the shape and the results checked: both the objective
    /// and the violation of every row must be finite.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) on a shape mismatch (nothing is
    /// evaluated), [`Error::NonFiniteFitness`](crate::Error::NonFiniteFitness) for the first row with a
    /// non-finite objective or violation.
    fn evaluate_checked(&self, population: &[f32], values: &mut [ConstrainedValue]) -> Result<()> {
        check_population_shape(
            "ConstrainedProblem",
            population.len(),
            self.dimension(),
            values.len(),
        )?;
        self.evaluate_batch(population, values);
        for (individual, value) in values.iter().enumerate() {
            check_fitness(self.name(), individual, value.objective)?;
            check_fitness(self.name(), individual, value.violation)?;
        }
        Ok(())
    }
}
