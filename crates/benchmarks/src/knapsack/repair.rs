//! The index-order repair (rnowotniak/qopt `C/knapsack.cpp`), which the QIGA keeps as the individual:
//!
//! 1. `W = Σ w_i x_i`; `over = W > C`.
//! 2. For `i = 0, 1, …, n−1` while `over`: if `x_i = 1` then `W −= w_i`; set `x_i = 0`; `over = W > C`.
//! 3. For `j = 0, 1, …, n−1` while not `over`: if `x_j = 0` then `W += w_j`; set `x_j = 1`; `over = W > C`.
//! 4. Set `x_{j_last} = 0`, `j_last` the last index step 3 visited (also when step 3 ran to the end).
//!
//! Step 3 always runs (step 2 stops at the first feasible prefix), so the result is a maximal prefix-filled
//! selection: step 4 removes the item that made it overflow, or, when everything fit, the last item. The
//! result is always feasible (`W ≤ C`). `W` is updated in `f64` in index order; with weights in `[1, 10]`
//! every update is exact. The CUDA twin (`evo_knapsack_repair` in `kernels/common/problems/knapsack.cuh`)
//! runs the same steps on the same packed words.

use super::Knapsack;
use evo_core::Bits;
use rayon::prelude::*;

/// The weight and profit of a selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packing {
    /// `Σ w_i x_i`.
    pub weight: f64,
    /// `Σ p_i x_i`.
    pub profit: f64,
}

pub(super) fn bit(row: &[u32], i: usize) -> bool {
    (row[i / 32] >> (i % 32)) & 1 == 1
}

pub(super) fn set_bit(row: &mut [u32], i: usize, value: bool) {
    let mask = 1u32 << (i % 32);
    if value {
        row[i / 32] |= mask;
    } else {
        row[i / 32] &= !mask;
    }
}

impl Knapsack {
    /// Repairs a packed row (the [`Bits`] layout, `Bits::word_count(n)` words; padding bits are cleared) in
    /// place and returns the repaired selection's weight and profit (see the module docs).
    ///
    /// # Panics
    /// When `row` has fewer than `Bits::word_count(n)` words (a caller bug; the batch functions check).
    pub fn repair_row(&self, row: &mut [u32]) -> Packing {
        let n = self.len();
        let words = Bits::word_count(n);
        assert!(
            row.len() >= words,
            "knapsack row has {} words, needs {words}",
            row.len()
        );
        if !n.is_multiple_of(32) {
            row[words - 1] &= (1u32 << (n % 32)) - 1;
        }
        let capacity = self.capacity;
        let mut weight = 0.0f64;
        for i in 0..n {
            if bit(row, i) {
                weight += f64::from(self.weights[i]);
            }
        }
        let mut over = weight > capacity;
        let mut i = 0;
        while i < n && over {
            if bit(row, i) {
                weight -= f64::from(self.weights[i]);
            }
            set_bit(row, i, false);
            over = weight > capacity;
            i += 1;
        }
        let mut j = 0;
        let mut last = None;
        while j < n && !over {
            if !bit(row, j) {
                weight += f64::from(self.weights[j]);
            }
            set_bit(row, j, true);
            over = weight > capacity;
            last = Some(j);
            j += 1;
        }
        if let Some(last) = last {
            set_bit(row, last, false);
        }
        self.packing_of_row(row)
    }

    /// The weight and profit of a packed row as it is, summed in index order in `f64`.
    pub(super) fn packing_of_row(&self, row: &[u32]) -> Packing {
        let mut packing = Packing {
            weight: 0.0,
            profit: 0.0,
        };
        for i in 0..self.len() {
            if bit(row, i) {
                packing.weight += f64::from(self.weights[i]);
                packing.profit += f64::from(self.profits[i]);
            }
        }
        packing
    }

    /// Repairs `selection` in place and returns its weight and profit.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when the selection's length is not the item count.
    pub fn repair(&self, selection: &mut Bits) -> evo_core::Result<Packing> {
        if selection.len() != self.len() {
            return Err(evo_core::Error::invalid_parameter(
                "Knapsack::repair",
                "selection length",
                selection.len(),
                format!("the item count {}", self.len()),
            ));
        }
        let mut row = selection.words().to_vec();
        let packing = self.repair_row(&mut row);
        *selection = Bits::from_words(row, self.len())?;
        Ok(packing)
    }

    /// Repairs every row of a packed population in place (row `i` = words `i·w..(i+1)·w`,
    /// `w = Bits::word_count(n)`) and writes minus the repaired profit to `fitness[i]`, in parallel on the
    /// current rayon pool (rows are independent, so the result does not depend on the threads).
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `population.len() != fitness.len() · w`.
    pub fn repair_batch(
        &self,
        population: &mut [u32],
        fitness: &mut [f64],
    ) -> evo_core::Result<()> {
        let words = Bits::word_count(self.len());
        if population.len() != fitness.len() * words {
            return Err(evo_core::Error::invalid_parameter(
                "Knapsack::repair_batch",
                "population length",
                population.len(),
                format!("{} rows x {words} words", fitness.len()),
            ));
        }
        population
            .par_chunks_mut(words)
            .zip(fitness.par_iter_mut())
            .for_each(|(row, f)| *f = -self.repair_row(row).profit);
        Ok(())
    }
}
