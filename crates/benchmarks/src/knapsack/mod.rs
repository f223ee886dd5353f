//! 0/1 knapsack: the QIGA paper's strongly correlated instances, Pisinger's four classes, two repairs, the
//! greedy solution, the LP bound and the exact optimum.
//!
//! Maximise the profit `f(x) = Σ p_i x_i` of a selection `x ∈ {0, 1}ⁿ` subject to `Σ w_i x_i ≤ C`. Every
//! selection is first made feasible by the index-order [repair](Knapsack::repair) and the profit is that of
//! the repaired selection. Strongly correlated instances: `w_i` uniform in `[1, 10)`, `p_i = w_i + 5`,
//! `C = (Σ w_i)/2` ([`Knapsack::generate`]). Weights and profits are `f32`, every sum is in `f64` (for
//! weights in `[1, 10]` all partial sums are exact, so the summation order cannot change a bit).
//!
//! **Maximisation**: as a [`BinaryProblem`] the fitness is the *negated* profit of the repaired selection.
//!
//! Optimum: unknown in closed form; an upper bound is `C + 5 k*`, `k*` the most items that fit (smallest
//! weights first), [`Knapsack::profit_upper_bound`].
//!
//! Sources: Nowotniak, Kucharski, *GPU-based tuning of quantum-inspired genetic algorithm for a combinatorial
//! optimization problem*, eq. (3)–(4); the instance files and repair of rnowotniak/qopt (`knapsack.py`,
//! `C/knapsack.cpp`). The shipped instances `knapsack-{100,250,500}.txt` load with
//! [`Knapsack::from_file`].
//!
//! Beside the paper: Pisinger's uncorrelated, weakly and strongly correlated and subset-sum classes with
//! integer data ([`Knapsack::generate_class`], formulas in [`KnapsackClass`]'s module); the greedy repair of the
//! GA literature, the greedy solution and the LP (Dantzig) bound in profit/weight order
//! ([`Knapsack::greedy_repair_row`], [`Knapsack::greedy_solution`], [`Knapsack::lp_bound`]); and the exact
//! optimum of integer instances by reduction and dynamic programming ([`Knapsack::exact_optimum`]).
//!
//! ```
//! use evo_benchmarks::Knapsack;
//! use evo_core::{BinaryProblem, Bits};
//!
//! // w = (3, 4, 5), p = w + 5, C = 7.
//! let problem = Knapsack::new("small", 7.0, vec![3.0, 4.0, 5.0], vec![8.0, 9.0, 10.0])?;
//! let mut x = Bits::from_bools(&[true, true, true]);
//! let packing = problem.repair(&mut x)?;
//! assert_eq!(x.to_bools(), [false, false, true]);
//! assert_eq!((packing.weight, packing.profit), (5.0, 10.0));
//! assert_eq!(problem.evaluate(&Bits::from_bools(&[false; 3])), -17.0); // repaired to {0, 1}
//! # Ok::<(), evo_core::Error>(())
//! ```

mod classes;
mod exact;
mod generator;
mod greedy;
mod loader;
#[cfg(test)]
mod practical_tests;
mod repair;
#[cfg(test)]
mod tests;

pub use classes::{KnapsackClass, MAX_RANGE};
pub use exact::{Optimum, OptimumUnknown};
pub use repair::Packing;

use evo_core::{BinaryProblem, Bits, Error, Result};

/// One 0/1 knapsack instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Knapsack {
    name: String,
    capacity: f64,
    weights: Vec<f32>,
    profits: Vec<f32>,
    /// The items in profit/weight order ([`Knapsack::ratio_order`]), computed once.
    order: Vec<u32>,
}

impl Knapsack {
    /// An instance from its parts.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `weights` and `profits` differ in length, there are no items, the
    /// capacity is negative or not finite, or a weight is not finite and positive or a profit not finite.
    pub fn new(
        name: impl Into<String>,
        capacity: f64,
        weights: Vec<f32>,
        profits: Vec<f32>,
    ) -> Result<Self> {
        const WHO: &str = "Knapsack";
        if weights.len() != profits.len() {
            return Err(Error::invalid_parameter(
                WHO,
                "profit count",
                profits.len(),
                format!("equal to the weight count {}", weights.len()),
            ));
        }
        if weights.is_empty() {
            return Err(Error::invalid_parameter(WHO, "item count", 0, "at least 1"));
        }
        if !(capacity.is_finite() && capacity >= 0.0) {
            return Err(Error::invalid_parameter(
                WHO,
                "capacity C",
                capacity,
                "finite and >= 0",
            ));
        }
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
            return Err(Error::invalid_parameter(
                WHO,
                "weight",
                format!("{} (item {i})", weights[i]),
                "finite and > 0",
            ));
        }
        if let Some(i) = profits.iter().position(|p| !p.is_finite()) {
            return Err(Error::invalid_parameter(
                WHO,
                "profit",
                format!("{} (item {i})", profits[i]),
                "finite",
            ));
        }
        if u32::try_from(weights.len()).is_err() {
            return Err(Error::invalid_parameter(
                WHO,
                "item count",
                weights.len(),
                "at most 4294967295",
            ));
        }
        let order = greedy::ratio_order(&weights, &profits);
        Ok(Self {
            name: name.into(),
            capacity,
            weights,
            profits,
            order,
        })
    }

    /// The instance's name ("knapsack-250").
    pub fn instance_name(&self) -> &str {
        &self.name
    }

    /// The capacity `C`.
    pub fn capacity(&self) -> f64 {
        self.capacity
    }

    /// The weights `w_i`.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The profits `p_i`.
    pub fn profits(&self) -> &[f32] {
        &self.profits
    }

    /// The number of items `n`.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// Always `false`: an instance has at least one item.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// `k*`, the most items that fit: the longest prefix of the weights sorted ascending whose sum is `≤ C`.
    pub fn max_items_that_fit(&self) -> usize {
        let mut sorted = self.weights.clone();
        sorted.sort_by(f32::total_cmp);
        let mut total = 0.0f64;
        sorted
            .iter()
            .take_while(|&&w| {
                total += f64::from(w);
                total <= self.capacity
            })
            .count()
    }

    /// `C + 5 k*`: an upper bound of the profit of a strongly correlated instance (`p_i = w_i + 5`; any
    /// feasible selection of `k ≤ k*` items has profit `Σ w + 5k ≤ C + 5k*`). Meaningless for other profits.
    pub fn profit_upper_bound(&self) -> f64 {
        self.capacity + 5.0 * self.max_items_that_fit() as f64
    }

    /// The profit and weight of a selection as it is (no repair), summed in index order in `f64`.
    pub fn packing_of(&self, selection: &Bits) -> Packing {
        let mut packing = Packing {
            weight: 0.0,
            profit: 0.0,
        };
        for (i, chosen) in selection.iter().enumerate().take(self.len()) {
            if chosen {
                packing.weight += f64::from(self.weights[i]);
                packing.profit += f64::from(self.profits[i]);
            }
        }
        packing
    }
}

impl BinaryProblem for Knapsack {
    fn name(&self) -> &str {
        &self.name
    }

    fn bit_count(&self) -> usize {
        self.len()
    }

    /// Minus the profit of the repaired selection (the input is not changed; use
    /// [`Knapsack::repair_batch`] to keep the repaired selections).
    fn evaluate(&self, bits: &Bits) -> f64 {
        let mut row = bits.words().to_vec();
        -self.repair_row(&mut row).profit
    }
}
