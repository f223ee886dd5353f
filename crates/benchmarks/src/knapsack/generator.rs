//! The strongly correlated generator: `w_i = 1 + 9 u_i`, `p_i = w_i + 5`, `C = (Σ w_i)/2`.
//!
//! `u_i` is the Philox uniform (rng.md §5.1, in `(0, 1]`) of word `i` of the sequence
//! (`Stream::KnapsackGenerator`, step 0, individual 0) of the instance seed; `w_i` and `p_i` are computed in
//! `f32`, `C` is the `f64` sum of the weights in index order, halved. (The original draws `w_i` from
//! `[1, 10)`; `u = 1` gives `w_i = 10` here, with probability `2^-25` per item.)

use super::Knapsack;
use evo_core::{Error, Result};
use evo_rng::{Philox, Stream};

impl Knapsack {
    /// A strongly correlated instance of `items` items from `seed`, named `knapsack-<items>-seed<seed>`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 items or more than `u32::MAX` items.
    pub fn generate(items: usize, seed: u64) -> Result<Self> {
        if items == 0 || u32::try_from(items).is_err() {
            return Err(Error::invalid_parameter(
                "Knapsack::generate",
                "item count",
                items,
                "in 1..=4294967295",
            ));
        }
        let sequence = Philox::new(seed).sequence(Stream::KnapsackGenerator, 0, 0);
        let weights: Vec<f32> = (0..items as u32)
            .map(|i| 1.0 + 9.0 * sequence.uniform_f32(i))
            .collect();
        let profits = weights.iter().map(|w| w + 5.0).collect();
        let capacity = weights.iter().map(|&w| f64::from(w)).sum::<f64>() / 2.0;
        Self::new(
            format!("knapsack-{items}-seed{seed}"),
            capacity,
            weights,
            profits,
        )
    }
}
