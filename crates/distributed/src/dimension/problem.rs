//! [`SeparableProblem`]: the problems whose fitness the dimension split can cut into slices, and
//! [`SliceFitness`]: how their fitness is made of canonical trees over the variables.

use evo_benchmarks::functions::{
    ackley::ackley_combine, griewank::griewank_combine, salomon::salomon_combine,
};
use evo_benchmarks::shifted::F_BIAS;
use evo_benchmarks::{DeRastrigin, GaFunction, GaProblem, ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Error, Result};
use evo_ma_sw_chains::cuda::slice::{SliceTerm, SliceTree};

use super::COMPONENT;

/// A row's fitness as the problem's own evaluation makes it, `z_i = x_i − o_i` (or `x_i`): one or two
/// canonical trees over the `D` variables (each the [`SliceTree`] of its [`SliceTerm`] leaves: a sum of
/// `evo_core::reduce`, for [`SliceTerm::GriewankFactor`] the product of `evo_benchmarks::tree`, for
/// [`SliceTerm::PrefixSquares`] the segment summaries of `evo_benchmarks::prefix_squares`, whose root's `C`
/// is the tree's value), then the function's own final formula on their roots (`evo_benchmarks::functions`).
///
/// | variant | trees | fitness |
/// | --- | --- | --- |
/// | `Sum(t)` | `s = Σ_i t(i, z_i)` | `s` |
/// | `Salomon` | `g = Σ z_i²` | `salomon_combine(g) = (1 − cos(2π√g)) + 0.1 √g` |
/// | `Ackley` | `s₁ = Σ z_i²`, `s₂ = Σ cos(2πz_i)` | `ackley_combine(D, s₁, s₂) = (20 − 20 e^{−0.2 √(s₁/D)}) + (e − e^{s₂/D})` |
/// | `Griewank` | `s = Σ z_i²`, `p = Π cos(z_i/√(i+1))` | `griewank_combine(s, p) = (s/4000 − p) + 1` |
/// | `PrefixSquares` | `C = Σ_i (Σ_{j≤i} z_j)²`, the `C` of the summary tree's root | `C` (`schwefel_1_2`) |
///
/// `Sum(SliceTerm::Rosenbrock)` is Rosenbrock, `Σ_{i<D−1} 100 (z_i² − z_{i+1})² + (z_i − 1)²`: its leaf `i`
/// reads `z_{i+1}`, so each slice but the last holds the next slice's first variable (the halo,
/// [`SliceTerm::halo`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceFitness {
    /// One sum of the term's leaves (a term of another [`SliceTree`] is refused here: the slices would not
    /// add its leaves).
    Sum(SliceTerm),
    /// Salomon: a function of the sum of squares.
    Salomon,
    /// Ackley: a combination of the sum of squares and the sum of `cos(2πz_i)`.
    Ackley,
    /// Griewank: a combination of the sum of squares and the product of `cos(z_i/√(i+1))`.
    Griewank,
    /// Ridge and Schwefel 1.2: the squared prefix sums, the tree of segment summaries.
    PrefixSquares,
}

impl SliceFitness {
    /// The leaves of each tree, in the order [`finish`](Self::finish) takes their roots.
    pub fn trees(&self) -> &[SliceTerm] {
        match self {
            Self::Sum(term) => std::slice::from_ref(term),
            Self::Salomon => &[SliceTerm::Sphere],
            Self::Ackley => &[SliceTerm::Sphere, SliceTerm::AckleyCos],
            Self::Griewank => &[SliceTerm::Sphere, SliceTerm::GriewankFactor],
            Self::PrefixSquares => &[SliceTerm::PrefixSquares],
        }
    }

    /// Values past its variables that every slice but the last holds in each row (0 or 1).
    pub fn halo(&self) -> usize {
        self.trees().iter().map(|t| t.halo()).max().unwrap_or(0)
    }

    /// The fitness (without the bias) of `D = dimension` variables from the roots of [`trees`](Self::trees):
    /// the function's own final formula, so the bits are those of its evaluation.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `roots` does not hold one value per tree.
    pub fn finish(&self, dimension: usize, roots: &[f64]) -> Result<f64> {
        match (self, roots) {
            (Self::Sum(_) | Self::PrefixSquares, &[s]) => Ok(s),
            (Self::Salomon, &[g]) => Ok(salomon_combine(g)),
            (Self::Ackley, &[s1, s2]) => Ok(ackley_combine(dimension, s1, s2)),
            (Self::Griewank, &[s, p]) => Ok(griewank_combine(s, p)),
            _ => Err(Error::invalid_parameter(
                COMPONENT,
                "tree roots",
                roots.len(),
                format!("{} for {self:?}", self.trees().len()),
            )),
        }
    }

    /// Refuses a `Sum` of a term whose tree is not a sum (the slices would multiply or summarise what the
    /// join adds).
    pub(crate) fn check(&self) -> Result<()> {
        match self {
            Self::Sum(term) if term.tree() != SliceTree::Sum => Err(Error::invalid_parameter(
                COMPONENT,
                "fitness",
                format!("Sum({term:?})"),
                "a sum of added terms (Griewank's factors and the prefix-squares terms have their own \
                 fitness: Griewank, PrefixSquares)",
            )),
            _ => Ok(()),
        }
    }
}

/// A fitness `f(x) = F(trees over z) (+ bias)` with `z_i = x_i − o_i` (or `x_i` without a shift): every leaf
/// depends on one variable (two neighbours for Rosenbrock, a group of 4 for the prefix-squares summaries)
/// and its index, so a slice of the variables computes its blocks' nodes of every tree.
#[derive(Clone, Copy, Debug)]
pub struct Separable<'a> {
    /// The trees and the final formula.
    pub fitness: SliceFitness,
    /// The shift vector `o` (`D` values), if any.
    pub shift: Option<&'a [f32]>,
    /// The constant added after the final formula, if any.
    pub bias: Option<f64>,
}

/// A problem the dimension split accepts: its fitness is [`Separable`] (separable or partially separable:
/// sums, a product, neighbour terms, segment summaries, a final formula on their roots), bit for bit the
/// problem's own [`evaluate`](ContinuousProblem::evaluate) (and its CUDA evaluation under the Exact profile).
///
/// | problem | accepted ([`SliceFitness`]) |
/// | --- | --- |
/// | [`ShiftedProblem`] | every function: Rastrigin, Discus, Sum Squares (`Sum`); Salomon; Griewank; Schwefel 1.2 (`PrefixSquares`) |
/// | [`GaProblem`] | every function: Hypersphere, Step, Schwefel, Rastrigin, Rosenbrock (`Sum`, Rosenbrock with the halo); Griewank; Ackley; Ridge (`PrefixSquares`) |
/// | [`DeRastrigin`] | always (`Sum`) |
///
/// Ridge and Schwefel 1.2 are `Σ_i (Σ_{j≤i} z_j)²`: each term depends on every earlier variable, but their
/// evaluation is the tree of segment summaries `(N, A, B, C)` of `evo_benchmarks::prefix_squares`, whose
/// leaves are aligned groups of 4 variables and whose join is associative with the empty segment as padding,
/// so a slice's blocks are aligned subtrees of it like any other tree's. CEC 2010 problems (groups through a
/// permutation that crosses slices) and user problems have no implementation: the split does not take them.
pub trait SeparableProblem: ContinuousProblem {
    /// The fitness as trees over the variables and a final formula.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a function of the type that is not made of such trees (an
    /// implementation outside this crate may refuse some of its functions).
    fn separable(&self) -> Result<Separable<'_>>;
}

impl SeparableProblem for ShiftedProblem {
    fn separable(&self) -> Result<Separable<'_>> {
        let fitness = match self.function() {
            ShiftedFunction::Rastrigin => SliceFitness::Sum(SliceTerm::Rastrigin),
            ShiftedFunction::Discus => SliceFitness::Sum(SliceTerm::Discus),
            ShiftedFunction::SumSquares => SliceFitness::Sum(SliceTerm::SumSquares),
            ShiftedFunction::Griewank => SliceFitness::Griewank,
            ShiftedFunction::Salomon => SliceFitness::Salomon,
            ShiftedFunction::Schwefel12 => SliceFitness::PrefixSquares,
        };
        Ok(Separable {
            fitness,
            shift: Some(self.shift()),
            bias: Some(F_BIAS),
        })
    }
}

impl SeparableProblem for GaProblem {
    fn separable(&self) -> Result<Separable<'_>> {
        let fitness = match self.function() {
            GaFunction::Hypersphere => SliceFitness::Sum(SliceTerm::Sphere),
            GaFunction::Step => SliceFitness::Sum(SliceTerm::Step),
            GaFunction::Schwefel => SliceFitness::Sum(SliceTerm::Schwefel),
            GaFunction::Rastrigin => SliceFitness::Sum(SliceTerm::Rastrigin),
            GaFunction::Rosenbrock => SliceFitness::Sum(SliceTerm::Rosenbrock),
            GaFunction::Griewank => SliceFitness::Griewank,
            GaFunction::Ackley => SliceFitness::Ackley,
            GaFunction::Ridge => SliceFitness::PrefixSquares,
        };
        Ok(Separable {
            fitness,
            shift: None,
            bias: None,
        })
    }
}

impl SeparableProblem for DeRastrigin {
    fn separable(&self) -> Result<Separable<'_>> {
        Ok(Separable {
            fitness: SliceFitness::Sum(SliceTerm::Rastrigin),
            shift: None,
            bias: None,
        })
    }
}
