//! Pisinger's instance classes (D. Pisinger, *Where are the hard knapsack problems?*, Computers & Operations
//! Research 32 (2005); also Martello, Pisinger, Toth 1999), with integer data in `[1, R]`:
//!
//! | class | weight `w_j` | profit `p_j` |
//! | --- | --- | --- |
//! | uncorrelated | `U[1, R]` | `U[1, R]` |
//! | weakly correlated | `U[1, R]` | `max(1, w_j − ⌊R/10⌋ + U[0, 2⌊R/10⌋])`, so `p_j ∈ [w_j − R/10, w_j + R/10]` and `≥ 1` |
//! | strongly correlated | `U[1, R]` | `w_j + ⌊R/10⌋` |
//! | subset-sum | `U[1, R]` | `w_j` |
//!
//! and capacity `C = ⌊Σ w_j / 2⌋` (the middle instance of Pisinger's series, and the QIGA paper's capacity).
//! `U[a, b]` is the integer `a + below(word, b − a + 1)` (spec rng.md §5.3) of word `j` of a Philox sequence
//! of the instance seed, stream `KnapsackGenerator`, step 1 (step 0 is the paper's generator,
//! [`Knapsack::generate`]): individual 0 for the weights (shared by the four classes, so one seed gives the
//! same weights in every class), individual 1 for the uncorrelated profits, individual 2 for the weakly
//! correlated offsets. Every value is an integer below `2^24`, exact in `f32`, so these instances have a
//! known optimum ([`Knapsack::exact_optimum`]).

use super::Knapsack;
use evo_core::{Error, Result};
use evo_rng::{Philox, Stream};
use serde::{Deserialize, Serialize};

/// The largest data range `R`: `R + R/10` stays below `2^24`, so every weight and profit is exact in `f32`.
pub const MAX_RANGE: u32 = 15_000_000;

/// The Philox step of the class generator's sequences (step 0 is [`Knapsack::generate`]'s).
const CLASS_STEP: u32 = 1;

/// One of Pisinger's correlation classes (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KnapsackClass {
    /// `p_j` independent of `w_j`.
    Uncorrelated,
    /// `p_j` within `R/10` of `w_j`.
    WeaklyCorrelated,
    /// `p_j = w_j + R/10`.
    StronglyCorrelated,
    /// `p_j = w_j`.
    SubsetSum,
}

impl KnapsackClass {
    /// The four classes in the order of the module docs.
    pub const ALL: [KnapsackClass; 4] = [
        KnapsackClass::Uncorrelated,
        KnapsackClass::WeaklyCorrelated,
        KnapsackClass::StronglyCorrelated,
        KnapsackClass::SubsetSum,
    ];

    /// The class's short name ("uncorrelated", "weak", "strong", "subset-sum"), used in instance names.
    pub fn short_name(self) -> &'static str {
        match self {
            KnapsackClass::Uncorrelated => "uncorrelated",
            KnapsackClass::WeaklyCorrelated => "weak",
            KnapsackClass::StronglyCorrelated => "strong",
            KnapsackClass::SubsetSum => "subset-sum",
        }
    }
}

impl Knapsack {
    /// An instance of `class` with `items` items and data range `R = range` from `seed` (module docs),
    /// named `knapsack-<class>-<items>-r<range>-seed<seed>`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 items, more than `u32::MAX` items, or `range` outside
    /// `10 ..= 15 000 000` (`R/10 ≥ 1` keeps the correlated classes distinct; the upper bound keeps every
    /// value exact in `f32`).
    pub fn generate_class(
        class: KnapsackClass,
        items: usize,
        range: u32,
        seed: u64,
    ) -> Result<Self> {
        const WHO: &str = "Knapsack::generate_class";
        let Ok(count) = u32::try_from(items) else {
            return Err(Error::invalid_parameter(
                WHO,
                "item count",
                items,
                "in 1..=4294967295",
            ));
        };
        if count == 0 {
            return Err(Error::invalid_parameter(
                WHO,
                "item count",
                items,
                "in 1..=4294967295",
            ));
        }
        if !(10..=MAX_RANGE).contains(&range) {
            return Err(Error::invalid_parameter(
                WHO,
                "data range R",
                range,
                format!("in 10 ..= {MAX_RANGE}"),
            ));
        }
        let rng = Philox::new(seed);
        let weight_words = rng.sequence(Stream::KnapsackGenerator, CLASS_STEP, 0);
        let weights: Vec<u32> = (0..count)
            .map(|j| 1 + weight_words.below(j, range))
            .collect();
        let tenth = range / 10;
        let profits: Vec<u32> = match class {
            KnapsackClass::Uncorrelated => {
                let words = rng.sequence(Stream::KnapsackGenerator, CLASS_STEP, 1);
                (0..count).map(|j| 1 + words.below(j, range)).collect()
            }
            KnapsackClass::WeaklyCorrelated => {
                let words = rng.sequence(Stream::KnapsackGenerator, CLASS_STEP, 2);
                weights
                    .iter()
                    .zip(0..count)
                    .map(|(&w, j)| {
                        (w + words.below(j, 2 * tenth + 1))
                            .saturating_sub(tenth)
                            .max(1)
                    })
                    .collect()
            }
            KnapsackClass::StronglyCorrelated => weights.iter().map(|&w| w + tenth).collect(),
            KnapsackClass::SubsetSum => weights.clone(),
        };
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        // Every value is below 2^24 (MAX_RANGE + MAX_RANGE / 10 < 2^24), so the casts to f32 are exact.
        let as_f32 = |values: Vec<u32>| values.into_iter().map(|v| v as f32).collect();
        Self::new(
            format!(
                "knapsack-{}-{items}-r{range}-seed{seed}",
                class.short_name()
            ),
            (total / 2) as f64,
            as_f32(weights),
            as_f32(profits),
        )
    }
}
