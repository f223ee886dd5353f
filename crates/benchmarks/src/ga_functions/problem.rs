//! The GA functions as problems: [`GaProblem`] over `f32` genes, [`GaBinaryProblem`] over 16-bit codes.

use super::decode::{BITS_PER_VARIABLE, decode_variable};
use crate::functions::{
    ackley::ackley,
    griewank::griewank,
    rastrigin::rastrigin,
    rosenbrock::rosenbrock,
    schwefel::{SCHWEFEL_MINIMUM_PER_COORDINATE, schwefel},
    schwefel_1_2::schwefel_1_2,
    sphere::sphere,
    step::step,
};
use evo_core::{BinaryProblem, Bits, Bounds, ContinuousProblem, Error, Result};
use serde::{Deserialize, Serialize};

/// One of the GA paper's eight functions (module docs of [`crate::ga_functions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GaFunction {
    /// f1, Σ x_i².
    Hypersphere,
    /// f2, Σ_i (Σ_{j≤i} x_j)².
    Ridge,
    /// f3, Rosenbrock.
    Rosenbrock,
    /// f4, Σ ⌊x_i + 0.5⌋².
    Step,
    /// f5, Griewank.
    Griewank,
    /// f6, Schwefel's sine function.
    Schwefel,
    /// f7, Rastrigin.
    Rastrigin,
    /// f8, Ackley.
    Ackley,
}

impl GaFunction {
    /// The eight functions in the paper's order f1..f8.
    pub const ALL: [GaFunction; 8] = [
        Self::Hypersphere,
        Self::Ridge,
        Self::Rosenbrock,
        Self::Step,
        Self::Griewank,
        Self::Schwefel,
        Self::Rastrigin,
        Self::Ackley,
    ];

    /// A short lowercase name ("hypersphere").
    pub const fn name(self) -> &'static str {
        match self {
            Self::Hypersphere => "hypersphere",
            Self::Ridge => "ridge",
            Self::Rosenbrock => "rosenbrock",
            Self::Step => "step",
            Self::Griewank => "griewank",
            Self::Schwefel => "schwefel",
            Self::Rastrigin => "rastrigin",
            Self::Ackley => "ackley",
        }
    }

    /// The paper's range `[lo, hi]` of every variable (Table 1, decimal commas read as decimal points).
    pub const fn paper_range(self) -> (f64, f64) {
        match self {
            Self::Hypersphere | Self::Rastrigin => (-5.12, 5.12),
            Self::Ridge | Self::Step => (-100.0, 100.0),
            Self::Rosenbrock | Self::Griewank => (-2.048, 2.048),
            Self::Schwefel => (-512.0, 512.0),
            Self::Ackley => (-32.0, 32.0),
        }
    }

    /// The minimum over the real box for `n` variables (Schwefel's is the paper's rounded value).
    pub fn optimum(self, n: usize) -> f64 {
        match self {
            Self::Schwefel => SCHWEFEL_MINIMUM_PER_COORDINATE * n as f64,
            _ => 0.0,
        }
    }

    /// The function's value at `x(0..n)` (coordinates in `f64`).
    pub fn evaluate_by<X: Fn(usize) -> f64 + Sync + Send>(self, n: usize, x: X) -> f64 {
        match self {
            Self::Hypersphere => sphere(n, x),
            Self::Ridge => schwefel_1_2(n, x),
            Self::Rosenbrock => rosenbrock(n, x),
            Self::Step => step(n, x),
            Self::Griewank => griewank(n, x),
            Self::Schwefel => schwefel(n, x),
            Self::Rastrigin => rastrigin(n, x),
            Self::Ackley => ackley(n, x),
        }
    }
}

fn check_range(component: &'static str, n: usize, lo: f64, hi: f64) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid_parameter(
            component,
            "dimension",
            n,
            "at least 1",
        ));
    }
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Err(Error::invalid_parameter(
            component,
            "range",
            format!("[{lo}, {hi}]"),
            "finite limits with lo < hi",
        ));
    }
    Ok(())
}

/// A GA function over `f32` genes in `[lo, hi]^n`.
#[derive(Clone, Debug)]
pub struct GaProblem {
    function: GaFunction,
    bounds: Bounds,
}

impl GaProblem {
    /// The function on its paper range with `n` variables.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `n` is 0.
    pub fn new(function: GaFunction, n: usize) -> Result<Self> {
        let (lo, hi) = function.paper_range();
        Self::with_range(function, n, lo, hi)
    }

    /// The function on `[lo, hi]^n` (e.g. Griewank on the thousands reading [−2048, 2048]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `n` is 0 or the range is not finite with `lo < hi`.
    pub fn with_range(function: GaFunction, n: usize, lo: f64, hi: f64) -> Result<Self> {
        check_range("GaProblem", n, lo, hi)?;
        Ok(Self {
            function,
            bounds: Bounds::uniform(n, lo as f32, hi as f32)?,
        })
    }

    /// Which of the eight functions.
    pub fn function(&self) -> GaFunction {
        self.function
    }
}

impl ContinuousProblem for GaProblem {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        self.function.evaluate_by(x.len(), |i| f64::from(x[i]))
    }

    fn optimum(&self) -> Option<f64> {
        Some(self.function.optimum(self.dimension()))
    }
}

/// A GA function over bit strings of `16 n` bits, decoded with the paper's 16-bit encoding
/// ([`decode`](super::decode)).
#[derive(Clone, Debug)]
pub struct GaBinaryProblem {
    function: GaFunction,
    n: usize,
    lo: f64,
    hi: f64,
}

impl GaBinaryProblem {
    /// The function on its paper range with `n` variables (`16 n` bits).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `n` is 0.
    pub fn new(function: GaFunction, n: usize) -> Result<Self> {
        let (lo, hi) = function.paper_range();
        Self::with_range(function, n, lo, hi)
    }

    /// The function with codes mapped onto `[lo, hi]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `n` is 0 or the range is not finite with `lo < hi`.
    pub fn with_range(function: GaFunction, n: usize, lo: f64, hi: f64) -> Result<Self> {
        check_range("GaBinaryProblem", n, lo, hi)?;
        Ok(Self {
            function,
            n,
            lo,
            hi,
        })
    }

    /// The number of encoded variables.
    pub fn variables(&self) -> usize {
        self.n
    }

    /// Which of the eight functions.
    pub fn function(&self) -> GaFunction {
        self.function
    }

    /// The range `[lo, hi]` the codes are mapped onto.
    pub fn range(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// The decoded point of a bit string.
    pub fn decode(&self, bits: &Bits) -> Vec<f32> {
        super::decode(bits, self.n, self.lo, self.hi)
    }
}

impl BinaryProblem for GaBinaryProblem {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn bit_count(&self) -> usize {
        BITS_PER_VARIABLE * self.n
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        let words = bits.words();
        self.function.evaluate_by(self.n, |i| {
            f64::from(decode_variable(words, i, self.lo, self.hi))
        })
    }

    fn optimum(&self) -> Option<f64> {
        Some(self.function.optimum(self.n))
    }
}
