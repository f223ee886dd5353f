//! The MA-SW-Chains paper's six shifted functions (Lastra, Molina, Benítez, *A high performance memetic
//! algorithm for extremely high-dimensional problems*, §6.3.1–6.3.2), for any dimension `1 ≤ D ≤ 10⁸`.
//!
//! `z_i = f64(x_i) − f64(o_i)`, `fBias = −330` for every function, optimum `x* = o` with `f(x*) = −330`.
//!
//! | id | [`ShiftedFunction`] | f(x) | domain (our decision) |
//! | --- | --- | --- | --- |
//! | 1 | `Rastrigin` | Σ [z_i² − 10 cos(2πz_i) + 10] + fBias | [−5.12, 5.12] |
//! | 2 | `Griewank` | Σ z_i²/4000 − Π cos(z_i/√i) + 1 + fBias | [−600, 600] |
//! | 3 | `Salomon` | 1 − cos(2π√g) + 0.1√g + fBias, g = Σ z_i² | [−100, 100] |
//! | 4 | `Discus` | 10⁶ z_1² + Σ_{i≥2} z_i² + fBias | [−100, 100] |
//! | 5 | `SumSquares` | Σ i·z_i² + fBias | [−10, 10] |
//! | 6 | `Schwefel12` | Σ_i (Σ_{j≤i} z_j)² + fBias | [−100, 100] |
//!
//! The paper states neither the domains nor how `o` is drawn; the decisions (spec benchmarks.md §(b)) are the
//! domains above and the Philox shift vector of [`shift_vector`]. The formulas live in
//! [`crate::functions`]; every sum uses the canonical tree, so the CUDA evaluation (`evo_benchmarks::cuda`)
//! returns the same bits.
//!
//! ```
//! use evo_benchmarks::shifted::{ShiftedFunction, ShiftedProblem};
//! use evo_core::ContinuousProblem;
//!
//! let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1000)?;
//! // The optimum is the shift vector itself, which is representable in f32 genes.
//! assert_eq!(problem.evaluate(problem.shift()), -330.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

mod shift;

pub use shift::shift_vector;

use crate::functions::{
    discus::discus, griewank::griewank, rastrigin::rastrigin, salomon::salomon,
    schwefel_1_2::schwefel_1_2, sum_squares::sum_squares,
};
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use serde::{Deserialize, Serialize};

/// The bias added to every function: the optimum value.
pub const F_BIAS: f64 = -330.0;

/// The largest supported dimension.
pub const MAX_DIMENSION: usize = 100_000_000;

/// One of the six shifted functions; the discriminant is the paper's function id (the Philox key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u32)]
pub enum ShiftedFunction {
    /// Shifted Rastrigin.
    Rastrigin = 1,
    /// Shifted Griewank.
    Griewank = 2,
    /// Shifted Salomon.
    Salomon = 3,
    /// Shifted Discus.
    Discus = 4,
    /// Shifted Sum Squares.
    SumSquares = 5,
    /// Shifted Schwefel 1.2.
    Schwefel12 = 6,
}

impl ShiftedFunction {
    /// The six functions in id order.
    pub const ALL: [ShiftedFunction; 6] = [
        Self::Rastrigin,
        Self::Griewank,
        Self::Salomon,
        Self::Discus,
        Self::SumSquares,
        Self::Schwefel12,
    ];

    /// The function id of the table (1..=6).
    pub const fn id(self) -> u32 {
        self as u32
    }

    /// A short lowercase name ("shifted-rastrigin").
    pub const fn name(self) -> &'static str {
        match self {
            Self::Rastrigin => "shifted-rastrigin",
            Self::Griewank => "shifted-griewank",
            Self::Salomon => "shifted-salomon",
            Self::Discus => "shifted-discus",
            Self::SumSquares => "shifted-sum-squares",
            Self::Schwefel12 => "shifted-schwefel-1.2",
        }
    }

    /// The default domain `[lo, hi]` of every variable (our decision, module docs).
    pub const fn default_domain(self) -> (f64, f64) {
        match self {
            Self::Rastrigin => (-5.12, 5.12),
            Self::Griewank => (-600.0, 600.0),
            Self::Salomon | Self::Discus | Self::Schwefel12 => (-100.0, 100.0),
            Self::SumSquares => (-10.0, 10.0),
        }
    }

    /// The unbiased function of `z(0..n)` (without fBias).
    pub fn base_by<Z: Fn(usize) -> f64 + Sync + Send>(self, n: usize, z: Z) -> f64 {
        match self {
            Self::Rastrigin => rastrigin(n, z),
            Self::Griewank => griewank(n, z),
            Self::Salomon => salomon(n, z),
            Self::Discus => discus(n, z),
            Self::SumSquares => sum_squares(n, z),
            Self::Schwefel12 => schwefel_1_2(n, z),
        }
    }
}

/// A shifted function with its shift vector, `D` variables, on `[lo, hi]^D`.
#[derive(Clone, Debug)]
pub struct ShiftedProblem {
    function: ShiftedFunction,
    shift: Vec<f32>,
    bounds: Bounds,
}

impl ShiftedProblem {
    /// The function on its default domain with `dimension` variables and the shift vector of
    /// [`shift_vector`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `dimension` is not in `1..=10⁸`.
    pub fn new(function: ShiftedFunction, dimension: usize) -> Result<Self> {
        let (lo, hi) = function.default_domain();
        Self::with_domain(function, dimension, lo, hi)
    }

    /// The function on `[lo, hi]^dimension`; the shift vector lies in the middle 80% of that domain.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `dimension` is not in `1..=10⁸` or the domain is not finite with
    /// `lo < hi`.
    pub fn with_domain(
        function: ShiftedFunction,
        dimension: usize,
        lo: f64,
        hi: f64,
    ) -> Result<Self> {
        if !(1..=MAX_DIMENSION).contains(&dimension) {
            return Err(Error::invalid_parameter(
                "ShiftedProblem",
                "dimension",
                dimension,
                format!("1..={MAX_DIMENSION}"),
            ));
        }
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::invalid_parameter(
                "ShiftedProblem",
                "domain",
                format!("[{lo}, {hi}]"),
                "finite limits with lo < hi",
            ));
        }
        Ok(Self {
            function,
            shift: shift_vector(function, dimension, lo, hi),
            bounds: Bounds::uniform(dimension, lo as f32, hi as f32)?,
        })
    }

    /// Which of the six functions.
    pub fn function(&self) -> ShiftedFunction {
        self.function
    }

    /// The shift vector `o` (the optimum).
    pub fn shift(&self) -> &[f32] {
        &self.shift
    }

    /// The value at a point given in `f64` (`x(0..D)`), e.g. the check values at `x = 0`.
    pub fn evaluate_by<X: Fn(usize) -> f64 + Sync + Send>(&self, x: X) -> f64 {
        let o = &self.shift;
        self.function.base_by(o.len(), |i| x(i) - f64::from(o[i])) + F_BIAS
    }
}

impl ContinuousProblem for ShiftedProblem {
    fn name(&self) -> &str {
        self.function.name()
    }

    fn dimension(&self) -> usize {
        self.shift.len()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        self.evaluate_by(|i| f64::from(x[i]))
    }

    fn optimum(&self) -> Option<f64> {
        Some(F_BIAS)
    }
}

#[cfg(test)]
mod tests;
