//! The CEC 2010 large-scale global optimization functions F1–F20 (Tang, Li, Suganthan, Yang, Weise,
//! *Benchmark Functions for the CEC'2010 Special Session and Competition on Large-Scale Global
//! Optimization*, NICAL, USTC, 2009) with the official instances, for any dimension `D` that is a multiple
//! of 100 (`100 ≤ D ≤ 10⁸`).
//!
//! `z = x − o`; `P` is a permutation of `0..D`; `m = 50`; group `k` is `z[P[k m .. (k+1) m]]`; a rotated
//! group is the row-vector product `(g M)_i = Σ_j g_j M[j][i]` with one 50 × 50 `M` for all groups.
//!
//! | F | definition | domain |
//! | --- | --- | --- |
//! | F1 | Elliptic(z) | [−100, 100] |
//! | F2 | Rastrigin(z) | [−5, 5] |
//! | F3 | Ackley(z) | [−32, 32] |
//! | F4 | 10⁶·Elliptic(group₀·M) + Elliptic(z[P[m..D]]) | [−100, 100] |
//! | F5 | 10⁶·Rastrigin(group₀·M) + Rastrigin(rest) | [−5, 5] |
//! | F6 | 10⁶·Ackley(group₀·M) + Ackley(rest) | [−32, 32] |
//! | F7 | 10⁶·Schwefel1.2(group₀) + Sphere(rest) | [−100, 100] |
//! | F8 | 10⁶·Rosenbrock(group₀) + Sphere(rest) | [−100, 100] |
//! | F9 | Σ_{k<D/2m} Elliptic(group_k·M) + Elliptic(z[P[D/2..D]]) | [−100, 100] |
//! | F10 | Σ_{k<D/2m} Rastrigin(group_k·M) + Rastrigin(second half) | [−5, 5] |
//! | F11 | Σ_{k<D/2m} Ackley(group_k·M) + Ackley(second half) | [−32, 32] |
//! | F12 | Σ_{k<D/2m} Schwefel1.2(group_k) + Sphere(second half) | [−100, 100] |
//! | F13 | Σ_{k<D/2m} Rosenbrock(group_k) + Sphere(second half) | [−100, 100] |
//! | F14 | Σ_{k<D/m} Elliptic(group_k·M) | [−100, 100] |
//! | F15 | Σ_{k<D/m} Rastrigin(group_k·M) | [−5, 5] |
//! | F16 | Σ_{k<D/m} Ackley(group_k·M) | [−32, 32] |
//! | F17 | Σ_{k<D/m} Schwefel1.2(group_k) | [−100, 100] |
//! | F18 | Σ_{k<D/m} Rosenbrock(group_k) | [−100, 100] |
//! | F19 | Schwefel1.2(z) | [−100, 100] |
//! | F20 | Rosenbrock(z) | [−100, 100] |
//!
//! **Optimum** `F(x*) = 0` at `x* = o`, except that every coordinate entering a Rosenbrock term is `o_j + 1`
//! ([`Cec2010Problem::optimum_point`]).
//!
//! **Instances.** The official Java generator ([`generator`], [`JavaRandom`]) seeded with the function
//! number draws `o`, then `P`, then `M`; at `D = 1000` they equal the official data files (spec check values,
//! tested). Our fixed order of summation: the rotation's dot products, the base functions and the sum over
//! groups all use the canonical tree of [`evo_core::reduce`], so the CUDA evaluation returns the same bits;
//! the official Java code sums in index order, which differs in the last bits only.
//!
//! ```
//! use evo_benchmarks::cec2010::Cec2010Problem;
//!
//! let f1 = Cec2010Problem::new(1, 1000)?;
//! assert!((f1.shift()[0] + 36.884289394).abs() < 1e-8);
//! assert!(f1.evaluate_by(|i| f1.optimum_point()[i]) <= 1e-20);
//! # Ok::<(), evo_core::Error>(())
//! ```

pub mod generator;
mod java_random;

pub use java_random::JavaRandom;

use crate::functions::{
    ackley::ackley, elliptic::elliptic, rastrigin::rastrigin, rosenbrock::rosenbrock,
    schwefel_1_2::schwefel_1_2, sphere::sphere,
};
use evo_core::reduce::pairwise_sum_by;
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use generator::GROUP_SIZE;
use serde::{Deserialize, Serialize};

/// The largest supported dimension.
pub const MAX_DIMENSION: usize = 100_000_000;

/// A base function of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u32)]
pub enum Base {
    /// The high-conditioned elliptic function.
    Elliptic = 0,
    /// Rastrigin.
    Rastrigin = 1,
    /// Ackley.
    Ackley = 2,
    /// Schwefel 1.2.
    Schwefel12 = 3,
    /// Rosenbrock.
    Rosenbrock = 4,
    /// Sphere.
    Sphere = 5,
}

impl Base {
    /// The base function of `z(0..n)`.
    pub fn apply<Z: Fn(usize) -> f64 + Sync + Send>(self, n: usize, z: Z) -> f64 {
        match self {
            Self::Elliptic => elliptic(n, z),
            Self::Rastrigin => rastrigin(n, z),
            Self::Ackley => ackley(n, z),
            Self::Schwefel12 => schwefel_1_2(n, z),
            Self::Rosenbrock => rosenbrock(n, z),
            Self::Sphere => sphere(n, z),
        }
    }
}

/// How a function is assembled from groups (the table of the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Structure {
    /// `base(z)` over all of `z` (F1–F3, F19, F20).
    Whole,
    /// `10⁶·group(0) + separable(z[P[m..D]])` (F4–F8).
    OneGroup,
    /// `Σ_{k<D/2m} group(k) + separable(z[P[D/2..D]])` (F9–F13).
    HalfGroups,
    /// `Σ_{k<D/m} group(k)` (F14–F18).
    AllGroups,
}

/// The recipe of one function: structure, group base (rotated or not), separable base, domain.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recipe {
    /// How the groups are assembled.
    pub structure: Structure,
    /// The base of the groups (of the whole `z` for [`Structure::Whole`]).
    pub group_base: Base,
    /// Whether groups are rotated by `M`.
    pub rotated: bool,
    /// The base of the separable part (F4–F13).
    pub separable_base: Base,
    /// The domain limit `b`: every variable lies in `[−b, b]`.
    pub limit: f64,
}

impl Recipe {
    /// The recipe of function `number` (1..=20).
    pub fn of(number: u32) -> Option<Self> {
        use Base::*;
        use Structure::*;
        let (structure, group_base, rotated, separable_base) = match number {
            1 => (Whole, Elliptic, false, Elliptic),
            2 => (Whole, Rastrigin, false, Rastrigin),
            3 => (Whole, Ackley, false, Ackley),
            4 => (OneGroup, Elliptic, true, Elliptic),
            5 => (OneGroup, Rastrigin, true, Rastrigin),
            6 => (OneGroup, Ackley, true, Ackley),
            7 => (OneGroup, Schwefel12, false, Sphere),
            8 => (OneGroup, Rosenbrock, false, Sphere),
            9 => (HalfGroups, Elliptic, true, Elliptic),
            10 => (HalfGroups, Rastrigin, true, Rastrigin),
            11 => (HalfGroups, Ackley, true, Ackley),
            12 => (HalfGroups, Schwefel12, false, Sphere),
            13 => (HalfGroups, Rosenbrock, false, Sphere),
            14 => (AllGroups, Elliptic, true, Elliptic),
            15 => (AllGroups, Rastrigin, true, Rastrigin),
            16 => (AllGroups, Ackley, true, Ackley),
            17 => (AllGroups, Schwefel12, false, Sphere),
            18 => (AllGroups, Rosenbrock, false, Sphere),
            19 => (Whole, Schwefel12, false, Schwefel12),
            20 => (Whole, Rosenbrock, false, Rosenbrock),
            _ => return None,
        };
        let limit = match group_base {
            Rastrigin => 5.0,
            Ackley => 32.0,
            _ => 100.0,
        };
        Some(Self {
            structure,
            group_base,
            rotated,
            separable_base,
            limit,
        })
    }

    /// The number of groups for dimension `d`.
    pub fn groups(&self, d: usize) -> usize {
        match self.structure {
            Structure::Whole => 0,
            Structure::OneGroup => 1,
            Structure::HalfGroups => d / (2 * GROUP_SIZE),
            Structure::AllGroups => d / GROUP_SIZE,
        }
    }

    /// Where the separable part starts in `P` (its length is `d − start`; `d` means none).
    pub fn separable_start(&self, d: usize) -> usize {
        match self.structure {
            Structure::Whole | Structure::AllGroups => d,
            Structure::OneGroup => GROUP_SIZE,
            Structure::HalfGroups => d / 2,
        }
    }

    /// Whether the function uses the permutation.
    pub fn permuted(&self) -> bool {
        self.structure != Structure::Whole
    }
}

/// One CEC 2010 function with its official instance for dimension `D`.
#[derive(Clone, Debug)]
pub struct Cec2010Problem {
    number: u32,
    name: String,
    recipe: Recipe,
    shift: Vec<f64>,
    permutation: Vec<u32>,
    rotation: Vec<f64>,
    bounds: Bounds,
}

impl Cec2010Problem {
    /// Function `number` (1..=20) in `dimension` variables, with the official instance.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `number` is not in 1..=20 or `dimension` is not a multiple of 100 in
    /// `100..=10⁸`.
    pub fn new(number: u32, dimension: usize) -> Result<Self> {
        let recipe = Recipe::of(number).ok_or_else(|| {
            Error::invalid_parameter("Cec2010Problem", "function number", number, "1..=20")
        })?;
        if dimension == 0 || !dimension.is_multiple_of(100) || dimension > MAX_DIMENSION {
            return Err(Error::invalid_parameter(
                "Cec2010Problem",
                "dimension",
                dimension,
                format!("a multiple of 100 in 100..={MAX_DIMENSION}"),
            ));
        }
        let mut random = JavaRandom::new(u64::from(number));
        let rosenbrock = recipe.group_base == Base::Rosenbrock;
        let max = if rosenbrock {
            recipe.limit - 1.0
        } else {
            recipe.limit
        };
        let shift = generator::shift_vector(&mut random, dimension, -recipe.limit, max);
        let permutation = if recipe.permuted() {
            generator::permutation(&mut random, dimension)
        } else {
            Vec::new()
        };
        let rotation = if recipe.rotated {
            generator::rotation(&mut random)
        } else {
            Vec::new()
        };
        let limit = recipe.limit as f32;
        Ok(Self {
            number,
            name: format!("cec2010-f{number}"),
            recipe,
            shift,
            permutation,
            rotation,
            bounds: Bounds::uniform(dimension, -limit, limit)?,
        })
    }

    /// The function number (1..=20).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The recipe (structure, bases, domain).
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// The shift vector `o`.
    pub fn shift(&self) -> &[f64] {
        &self.shift
    }

    /// The permutation `P` (0-based; empty for F1–F3, F19, F20).
    pub fn permutation(&self) -> &[u32] {
        &self.permutation
    }

    /// The rotation `M`, 50 × 50 row-major (empty when the function is not rotated).
    pub fn rotation(&self) -> &[f64] {
        &self.rotation
    }

    /// The optimum `x*`: `o`, plus 1 on every coordinate that enters a Rosenbrock term.
    pub fn optimum_point(&self) -> Vec<f64> {
        let mut x = self.shift.clone();
        if self.recipe.group_base == Base::Rosenbrock {
            let d = x.len();
            match self.recipe.structure {
                Structure::Whole => x.iter_mut().for_each(|v| *v += 1.0),
                _ => {
                    let covered = self.recipe.groups(d) * GROUP_SIZE;
                    for &p in &self.permutation[..covered] {
                        x[p as usize] += 1.0;
                    }
                }
            }
        }
        x
    }

    /// The value of group `k` of `z` (rotated when the recipe says so).
    fn group_value<Z: Fn(usize) -> f64 + Sync + Send>(&self, k: usize, z: &Z) -> f64 {
        let base = k * GROUP_SIZE;
        let g: Vec<f64> = (0..GROUP_SIZE)
            .map(|j| z(self.permutation[base + j] as usize))
            .collect();
        if self.recipe.rotated {
            let m = &self.rotation;
            let rotated: Vec<f64> = (0..GROUP_SIZE)
                .map(|i| pairwise_sum_by(GROUP_SIZE, |j| g[j] * m[j * GROUP_SIZE + i]))
                .collect();
            self.recipe.group_base.apply(GROUP_SIZE, |i| rotated[i])
        } else {
            self.recipe.group_base.apply(GROUP_SIZE, |i| g[i])
        }
    }

    /// The value at a point given in `f64` (`x(0..D)`), e.g. `F(0)` or `F(x*)`.
    pub fn evaluate_by<X: Fn(usize) -> f64 + Sync + Send>(&self, x: X) -> f64 {
        let d = self.shift.len();
        let o = &self.shift;
        let z = |i: usize| x(i) - o[i];
        let recipe = &self.recipe;
        let start = recipe.separable_start(d);
        let p = &self.permutation;
        let separable = || {
            recipe
                .separable_base
                .apply(d - start, |j| z(p[start + j] as usize))
        };
        match recipe.structure {
            Structure::Whole => recipe.group_base.apply(d, z),
            Structure::OneGroup => 1.0e6 * self.group_value(0, &z) + separable(),
            Structure::HalfGroups => {
                pairwise_sum_by(recipe.groups(d), |k| self.group_value(k, &z)) + separable()
            }
            Structure::AllGroups => pairwise_sum_by(recipe.groups(d), |k| self.group_value(k, &z)),
        }
    }
}

impl ContinuousProblem for Cec2010Problem {
    fn name(&self) -> &str {
        &self.name
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
        Some(0.0)
    }
}

#[cfg(test)]
mod tests;
