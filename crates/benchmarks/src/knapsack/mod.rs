//! 0/1 knapsack, strongly correlated (the QIGA paper's problem).
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

mod generator;
mod loader;
mod repair;
#[cfg(test)]
mod tests;

pub use repair::Packing;

use evo_core::{BinaryProblem, Bits, Error, Result};

/// One 0/1 knapsack instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Knapsack {
    name: String,
    capacity: f64,
    weights: Vec<f32>,
    profits: Vec<f32>,
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
        Ok(Self {
            name: name.into(),
            capacity,
            weights,
            profits,
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
