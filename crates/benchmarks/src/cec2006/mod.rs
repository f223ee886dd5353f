//! CEC 2006 constrained problems g01–g24.
//!
//! Minimise `f(x)` subject to `h_j(x) = 0` (`j = 1..p`), `g_k(x) ≤ 0` (`k = 1..m`) and `lb ≤ x ≤ ub`; an
//! equality counts as satisfied when `|h_j| ≤ ε = 1e-4`. The complete formulas, bounds and best-known points
//! are in `shared/spec/cec2006.md` (reproduced from the CEC 2006 report and esa/pagmo2 `cec2006.cpp`); the
//! implementation follows that text line by line in `g01_g06.rs` … `g19_g24.rs`. Problems that are
//! maximisations in the report (g02, g03, g08, g12, g16, g18, g19) are already negated there.
//!
//! | g | D | p | m | f(x*) | | g | D | p | m | f(x*) |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | 01 | 13 | 0 | 9 | −15 | | 13 | 5 | 3 | 0 | 0.053941514 |
//! | 02 | 20 | 0 | 2 | −0.803619104 | | 14 | 10 | 3 | 0 | −47.764888459 |
//! | 03 | 10 | 1 | 0 | −1.000500100 | | 15 | 3 | 2 | 0 | 961.715022290 |
//! | 04 | 5 | 0 | 6 | −30665.538671783 | | 16 | 5 | 0 | 38 | −1.905155259 |
//! | 05 | 4 | 3 | 2 | 5126.496714007 | | 17 | 6 | 4 | 0 | 8853.539674806 |
//! | 06 | 2 | 0 | 2 | −6961.813875580 | | 18 | 9 | 0 | 13 | −0.866025404 |
//! | 07 | 10 | 0 | 8 | 24.306209068 | | 19 | 15 | 0 | 5 | 32.655592950 |
//! | 08 | 2 | 0 | 2 | −0.095825041 | | 20 | 24 | 14 | 6 | 0.204979400 (x* infeasible) |
//! | 09 | 7 | 0 | 4 | 680.630057374 | | 21 | 7 | 5 | 1 | 193.724510070 |
//! | 10 | 8 | 0 | 6 | 7049.248020529 | | 22 | 22 | 19 | 1 | 236.430975504 |
//! | 11 | 2 | 1 | 0 | 0.749900000 | | 23 | 9 | 4 | 2 | −400.055100000 |
//! | 12 | 3 | 0 | 1 | −1 | | 24 | 2 | 0 | 2 | −5.508013272 |
//!
//! # Evaluation
//!
//! Genes are `f32` (the [`ConstrainedProblem`] interface); they are widened to `f64` and every formula is
//! evaluated in `f64`, each expression left to right as written, with the portable `evo_core::math`
//! sin/cos/exp/ln/pow and IEEE `sqrt`. The sums inside a formula (at most 24 terms) run in index order in
//! one thread on both backends, so the CUDA twin (`kernels/common/problems/cec2006.cuh`) gives the same bits.
//! No function beyond sin, cos, exp, ln, pow and sqrt is needed. [`Cec2006Problem::evaluate_f64`] takes
//! `f64` points (the best-known points need more than `f32` to reproduce `f(x*)`).
//!
//! Violation: the [`ConstrainedValue`](evo_core::ConstrainedValue) of a point uses the workspace's
//! [`total_violation`](evo_core::problem::total_violation) `Σ max(0, g_k) + Σ max(0, |h_j| − ε)`; the report's own
//! measures (mean violation `v̄` and the counts `c`) are [`Cec2006Violation`].
//!
//! Bounds are stored as `f32` for the [`ConstrainedProblem::bounds`] box (e.g. g16's 704.4148 becomes the
//! nearest `f32`); [`Cec2006Problem::bounds_f64`] gives the exact ones.

mod g01_g06;
mod g07_g12;
mod g13_g18;
mod g19_g24;
mod math;
mod table;
#[cfg(test)]
mod tests;
mod violation;

pub use violation::Cec2006Violation;

use evo_core::{Bounds, ConstrainedProblem, Error, Result};
use table::{DEFINITIONS, Definition};

/// The most variables of any g (g20).
pub const MAX_DIMENSION: usize = 24;

type Formula = fn(&[f64], &mut [f64], &mut [f64]) -> f64;

const FORMULAS: [Formula; 24] = [
    g01_g06::g01,
    g01_g06::g02,
    g01_g06::g03,
    g01_g06::g04,
    g01_g06::g05,
    g01_g06::g06,
    g07_g12::g07,
    g07_g12::g08,
    g07_g12::g09,
    g07_g12::g10,
    g07_g12::g11,
    g07_g12::g12,
    g13_g18::g13,
    g13_g18::g14,
    g13_g18::g15,
    g13_g18::g16,
    g13_g18::g17,
    g13_g18::g18,
    g19_g24::g19,
    g19_g24::g20,
    g19_g24::g21,
    g19_g24::g22,
    g19_g24::g23,
    g19_g24::g24,
];

/// One of the CEC 2006 problems g01–g24.
#[derive(Debug, Clone)]
pub struct Cec2006Problem {
    number: u32,
    name: String,
    bounds: Bounds,
}

impl Cec2006Problem {
    /// Problem g`number` (1..=24).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a number outside 1..=24.
    pub fn new(number: u32) -> Result<Self> {
        if !(1..=24).contains(&number) {
            return Err(Error::invalid_parameter(
                "Cec2006Problem",
                "problem number",
                number,
                "in 1..=24 (g01-g24)",
            ));
        }
        let (lower, upper) = bounds_of(&DEFINITIONS[number as usize - 1]);
        let bounds = Bounds::new(
            lower.iter().map(|&v| v as f32).collect(),
            upper.iter().map(|&v| v as f32).collect(),
        )?;
        Ok(Self {
            number,
            name: format!("cec2006-g{number:02}"),
            bounds,
        })
    }

    /// All 24 problems in order.
    pub fn all() -> Vec<Self> {
        (1..=24).filter_map(|n| Self::new(n).ok()).collect()
    }

    /// The problem number (1..=24).
    pub fn number(&self) -> u32 {
        self.number
    }

    fn definition(&self) -> &'static Definition {
        &DEFINITIONS[self.number as usize - 1]
    }

    /// The exact bounds `(lower, upper)`.
    pub fn bounds_f64(&self) -> (Vec<f64>, Vec<f64>) {
        bounds_of(self.definition())
    }

    /// The best-known point `x*` (esa/pagmo2). g20's is infeasible (cec2006.md).
    pub fn best_known_point(&self) -> &'static [f64] {
        self.definition().best_point
    }

    /// `f(x*)` at [`best_known_point`](Self::best_known_point).
    pub fn best_known_value(&self) -> f64 {
        self.definition().best_value
    }

    /// Evaluates an `f64` point: returns `f(x)`, writes `g_k(x)` to `inequality` and `h_j(x)` to `equality`.
    ///
    /// # Panics
    /// When a slice is shorter than the dimension or the constraint counts (a caller bug).
    pub fn evaluate_f64(&self, x: &[f64], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        let definition = self.definition();
        assert!(
            x.len() >= self.dimension()
                && inequality.len() >= definition.inequalities
                && equality.len() >= definition.equalities,
            "cec2006-g{:02}: slices too short",
            self.number
        );
        FORMULAS[self.number as usize - 1](x, inequality, equality)
    }
}

fn bounds_of(definition: &Definition) -> (Vec<f64>, Vec<f64>) {
    let mut lower = Vec::new();
    let mut upper = Vec::new();
    for &(count, lo, hi) in definition.bounds {
        lower.extend(std::iter::repeat_n(lo, count));
        upper.extend(std::iter::repeat_n(hi, count));
    }
    (lower, upper)
}

impl ConstrainedProblem for Cec2006Problem {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn inequality_count(&self) -> usize {
        self.definition().inequalities
    }

    fn equality_count(&self) -> usize {
        self.definition().equalities
    }

    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        let mut wide = [0.0f64; MAX_DIMENSION];
        let d = self.dimension();
        for (w, &v) in wide.iter_mut().zip(&x[..d]) {
            *w = f64::from(v);
        }
        self.evaluate_f64(&wide[..d], inequality, equality)
    }

    /// The best-known value, except for g20, whose best-known point is infeasible.
    fn optimum(&self) -> Option<f64> {
        (self.number != 20).then(|| self.best_known_value())
    }
}
