//! Optimization problems: the traits every engine evaluates.
//!
//! Three shapes of problem cover the five papers:
//!
//! | trait | genome | used by |
//! | --- | --- | --- |
//! | [`ContinuousProblem`] | `&[f32]` inside a [`Bounds`] box | DE, MA-SW-Chains, real-coded GA |
//! | [`BinaryProblem`] | packed [`Bits`] | QIGA, DPGA, binary GA |
//! | [`ConstrainedProblem`] | `&[f32]` plus constraint values | constrained DE |
//!
//! # Minimisation everywhere
//!
//! Every fitness is a value to **minimise**; every engine, report, termination target and history uses that
//! convention. A problem that is naturally a maximisation (0/1 knapsack, OneMax) says so once, in its docs,
//! and returns the *negated* objective from `evaluate`; the caller negates the reported best fitness again
//! when presenting it in the problem's own terms. Nothing else in the workspace knows about the sign.
//!
//! # Fitness values
//!
//! Fitness is accumulated and returned in `f64`, genes are `f32` (the same on the CPU and the GPU). A
//! fitness must be finite: engines pass every value through [`check_fitness`] (or [`check_fitness_slice`]),
//! which turns NaN and infinities into [`Error::NonFiniteFitness`] naming the problem and the individual.
//!
//! # Batch evaluation
//!
//! Each trait has an `evaluate_batch` whose default evaluates the rows of a population in parallel on the
//! current rayon pool (run it inside [`rayon::ThreadPool::install`] to choose the pool). Each row is
//! evaluated independently and written to its own slot, so the result does not depend on the number of
//! threads or on scheduling.

mod binary;
mod bits;
mod bounds;
mod constrained;
mod continuous;

pub use binary::BinaryProblem;
pub use bits::Bits;
pub use bounds::Bounds;
pub use constrained::{
    ConstrainedProblem, ConstrainedValue, DEFAULT_EQUALITY_TOLERANCE, total_violation,
};
pub use continuous::ContinuousProblem;

use crate::error::{Error, Result};

/// Returns `value` when it is finite, otherwise [`Error::NonFiniteFitness`] naming the problem, the
/// individual's index in its population and the value.
///
/// ```
/// use evo_core::problem::check_fitness;
/// assert_eq!(check_fitness("sphere", 0, 1.5).unwrap(), 1.5);
/// assert!(check_fitness("sphere", 3, f64::NAN).is_err());
/// ```
pub fn check_fitness(problem: &str, individual: usize, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::NonFiniteFitness {
            problem: problem.to_string(),
            individual,
            value,
        })
    }
}

/// Checks a whole population's fitness; the error names the non-finite value of lowest index, so the
/// report is the same whatever backend or thread count produced the values.
pub fn check_fitness_slice(problem: &str, fitness: &[f64]) -> Result<()> {
    match fitness.iter().position(|value| !value.is_finite()) {
        Some(individual) => check_fitness(problem, individual, fitness[individual]).map(|_| ()),
        None => Ok(()),
    }
}

/// Checks that a flat population buffer holds `fitness_len` rows of `row_len` values, as the batch
/// evaluators require; the error names the component and both lengths.
pub(crate) fn check_population_shape(
    component: &'static str,
    population_len: usize,
    row_len: usize,
    fitness_len: usize,
) -> Result<()> {
    let expected = row_len.checked_mul(fitness_len);
    if expected == Some(population_len) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            component,
            "population length",
            population_len,
            format!("row length {row_len} x {fitness_len} fitness slots"),
        ))
    }
}
