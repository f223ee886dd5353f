//! The profit/weight order and what is built on it: the greedy repair of the GA literature, the greedy
//! solution, and the LP (Dantzig) bound.
//!
//! **Order.** Items sorted by `p_j / w_j` (computed in `f64`) descending, ties by index ascending
//! ([`Knapsack::ratio_order`], computed once per instance).
//!
//! **Greedy repair** of a selection `x` ([`Knapsack::greedy_repair_row`]; e.g. Michalewicz's repair, Chu &
//! Beasley 1998):
//! 1. `W = Σ w_i x_i`, summed in index order in `f64`.
//! 2. Drop: for `k = n−1, n−2, …, 0` while `W > C`: `j = order[k]`; if `x_j = 1` then `x_j = 0`, `W −= w_j`.
//! 3. Add: for `k = 0, 1, …, n−1`: `j = order[k]`; if `x_j = 0` and `W + w_j ≤ C` then `x_j = 1`, `W += w_j`.
//!
//! The result is feasible and maximal (no further item fits). Every `W` update is one `f64` operation in a
//! fixed order, so the CUDA twin (`qiga_greedy_repair_evaluate` in `kernels/cuda/qiga.cu`) produces the same
//! bits. The profit is then summed in index order, as after the index-order repair.
//!
//! **Greedy solution** ([`Knapsack::greedy_solution`]): the greedy repair of the empty selection, i.e. the
//! items in order, each taken when it still fits.
//!
//! **LP bound** ([`Knapsack::lp_bound`], Dantzig 1957): the items in order while they fit, then the fraction
//! `(C − W)/w_b` of the first that does not (the break item `b`); items of profit `≤ 0` are never taken. No
//! selection has a larger profit.

use super::Knapsack;
use super::Packing;
use super::repair::{bit, set_bit};
use evo_core::Bits;

/// The items in profit/weight order (module docs): descending `p_j / w_j` in `f64`, ties by index.
pub(super) fn ratio_order(weights: &[f32], profits: &[f32]) -> Vec<u32> {
    let ratio = |j: u32| f64::from(profits[j as usize]) / f64::from(weights[j as usize]);
    // `Knapsack::new` refuses item counts past u32 before calling this.
    let mut order: Vec<u32> = (0..weights.len() as u32).collect();
    order.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)).then(a.cmp(&b)));
    order
}

impl Knapsack {
    /// The items in profit/weight order (module docs), the order the greedy repair, the greedy solution and
    /// the LP bound use; the CUDA engines upload it.
    pub fn ratio_order(&self) -> &[u32] {
        &self.order
    }

    /// Repairs a packed row (the [`Bits`] layout; padding bits are cleared) by the greedy repair (module
    /// docs) and returns the repaired selection's weight and profit.
    ///
    /// # Panics
    /// When `row` has fewer than `Bits::word_count(n)` words (a caller bug, as for
    /// [`repair_row`](Self::repair_row)).
    pub fn greedy_repair_row(&self, row: &mut [u32]) -> Packing {
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
        // Step 1.
        let mut weight = 0.0f64;
        for i in 0..n {
            if bit(row, i) {
                weight += f64::from(self.weights[i]);
            }
        }
        // Step 2: drop the worst ratios first.
        for &j in self.order.iter().rev() {
            if weight <= self.capacity {
                break;
            }
            let j = j as usize;
            if bit(row, j) {
                set_bit(row, j, false);
                weight -= f64::from(self.weights[j]);
            }
        }
        // Step 3: add the best ratios that fit.
        for &j in &self.order {
            let j = j as usize;
            if !bit(row, j) && weight + f64::from(self.weights[j]) <= self.capacity {
                set_bit(row, j, true);
                weight += f64::from(self.weights[j]);
            }
        }
        self.packing_of_row(row)
    }

    /// Greedy-repairs `selection` in place and returns its weight and profit.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when the selection's length is not the item count.
    pub fn greedy_repair(&self, selection: &mut Bits) -> evo_core::Result<Packing> {
        if selection.len() != self.len() {
            return Err(evo_core::Error::invalid_parameter(
                "Knapsack::greedy_repair",
                "selection length",
                selection.len(),
                format!("the item count {}", self.len()),
            ));
        }
        let mut row = selection.words().to_vec();
        let packing = self.greedy_repair_row(&mut row);
        *selection = Bits::from_words(row, self.len())?;
        Ok(packing)
    }

    /// The greedy solution (module docs) as a packed row, and its weight and profit.
    pub fn greedy_solution(&self) -> (Vec<u32>, Packing) {
        let mut row = vec![0u32; Bits::word_count(self.len())];
        let packing = self.greedy_repair_row(&mut row);
        (row, packing)
    }

    /// The LP (Dantzig) bound (module docs): no selection has a larger profit.
    pub fn lp_bound(&self) -> f64 {
        let (mut weight, mut profit) = (0.0f64, 0.0f64);
        for &j in &self.order {
            let (w, p) = (
                f64::from(self.weights[j as usize]),
                f64::from(self.profits[j as usize]),
            );
            if p <= 0.0 {
                break;
            }
            if weight + w > self.capacity {
                return profit + p * (self.capacity - weight) / w;
            }
            weight += w;
            profit += p;
        }
        profit
    }
}
