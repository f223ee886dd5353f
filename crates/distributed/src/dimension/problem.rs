//! [`SeparableProblem`]: the problems whose fitness the dimension split can cut into slices.

use evo_benchmarks::shifted::F_BIAS;
use evo_benchmarks::{DeRastrigin, GaFunction, GaProblem, ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Error, Result};
use evo_ma_sw_chains::cuda::slice::SliceTerm;

use super::COMPONENT;

/// A fitness `f(x) = Σ_i term(i, z_i) (+ bias)` with `z_i = x_i − o_i` (or `x_i` without a shift), the sum
/// being the canonical tree of `evo_core::reduce` over the `D` terms: each term depends on one variable and
/// its index only, so a slice of the variables evaluates its own terms.
#[derive(Clone, Copy, Debug)]
pub struct Separable<'a> {
    /// The term.
    pub term: SliceTerm,
    /// The shift vector `o` (`D` values), if any.
    pub shift: Option<&'a [f32]>,
    /// The constant added after the sum, if any.
    pub bias: Option<f64>,
}

/// A problem the dimension split accepts: its fitness is [`Separable`], bit for bit the problem's own
/// [`evaluate`](ContinuousProblem::evaluate) (and its CUDA evaluation under the Exact profile).
///
/// | problem | accepted | refused ([`Error::InvalidParameter`]) |
/// | --- | --- | --- |
/// | [`ShiftedProblem`] | Rastrigin, Discus, Sum Squares | Griewank (a product), Salomon (√ of the sum), Schwefel 1.2 (prefix sums) |
/// | [`GaProblem`] | Hypersphere, Step, Schwefel, Rastrigin | Ridge (prefix sums), Rosenbrock (neighbouring variables), Griewank, Ackley (combinations of two sums) |
/// | [`DeRastrigin`] | always | |
///
/// CEC 2010 problems (groups through a permutation that crosses slices) and user problems have no
/// implementation: the split does not take them.
pub trait SeparableProblem: ContinuousProblem {
    /// The fitness as a separable sum.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a function of the type that is not a plain sum of per-variable terms.
    fn separable(&self) -> Result<Separable<'_>>;
}

fn refused(name: &str, why: &str) -> Error {
    Error::invalid_parameter(
        COMPONENT,
        "problem",
        format!("{name} ({why})"),
        "a sum of per-variable terms: shifted Rastrigin, Discus or Sum Squares; GA Hypersphere, Step, \
         Schwefel or Rastrigin; DE Rastrigin",
    )
}

impl SeparableProblem for ShiftedProblem {
    fn separable(&self) -> Result<Separable<'_>> {
        let term = match self.function() {
            ShiftedFunction::Rastrigin => SliceTerm::Rastrigin,
            ShiftedFunction::Discus => SliceTerm::Discus,
            ShiftedFunction::SumSquares => SliceTerm::SumSquares,
            ShiftedFunction::Griewank => return Err(refused(self.name(), "a product of cosines")),
            ShiftedFunction::Salomon => {
                return Err(refused(self.name(), "a function of √ of the sum"));
            }
            ShiftedFunction::Schwefel12 => return Err(refused(self.name(), "prefix sums")),
        };
        Ok(Separable {
            term,
            shift: Some(self.shift()),
            bias: Some(F_BIAS),
        })
    }
}

impl SeparableProblem for GaProblem {
    fn separable(&self) -> Result<Separable<'_>> {
        let term = match self.function() {
            GaFunction::Hypersphere => SliceTerm::Sphere,
            GaFunction::Step => SliceTerm::Step,
            GaFunction::Schwefel => SliceTerm::Schwefel,
            GaFunction::Rastrigin => SliceTerm::Rastrigin,
            GaFunction::Ridge => return Err(refused(self.name(), "prefix sums")),
            GaFunction::Rosenbrock => return Err(refused(self.name(), "terms of two neighbours")),
            GaFunction::Griewank => return Err(refused(self.name(), "a product of cosines")),
            GaFunction::Ackley => return Err(refused(self.name(), "a combination of two sums")),
        };
        Ok(Separable {
            term,
            shift: None,
            bias: None,
        })
    }
}

impl SeparableProblem for DeRastrigin {
    fn separable(&self) -> Result<Separable<'_>> {
        Ok(Separable {
            term: SliceTerm::Rastrigin,
            shift: None,
            bias: None,
        })
    }
}
