//! The exact optimum of an instance with integer data: a reduction, then dynamic programming.
//!
//! 1. **Integer data.** Every weight and profit must be an integer (as the generated classes'); the capacity
//!    is taken as `⌊C⌋` (integer weights fit `C` exactly when they fit `⌊C⌋`). Otherwise the optimum is
//!    [unknown](OptimumUnknown::NotSmallIntegers): real-valued data scaled to integers would round, and a
//!    rounded optimum is not the optimum.
//! 2. **Bounds.** `L` = the profit of the greedy solution, `U` = the LP bound with break item `b` and
//!    critical ratio `r = p_b / w_b` (module [`greedy`](super::greedy)). Items of profit `≤ 0` are fixed to 0.
//! 3. **Reduction** (Dembo & Hammer 1980): the Lagrangian bound with multiplier `r` equals `U`, and forcing
//!    item `j` away from its LP value lowers it by `|p_j − r w_j|`; when `U − |p_j − r w_j| < L + 1`, no
//!    selection with `x_j` flipped beats `L`, so `x_j` is fixed to its LP value. The test is done in `i128`
//!    after multiplying by `w_b`, so it is exact.
//! 4. **Dynamic programming** over the `m` free items and the residual capacity `C'`: `V[c]` = the best
//!    profit of weight `≤ c`, items in order, with one decision bit per (item, capacity) for the backtrack:
//!    `m (C' + 1)` bits, refused as [too large](OptimumUnknown::TableTooLarge) past the caller's limit.
//! 5. The optimum is the better of the reduced problem's and the greedy solution (the reduction only proves
//!    that nothing *else* beats `L`).
//!
//! Time `O(m C')`; memory `O(C')` words plus the bit table.

use super::Knapsack;
use super::repair::bit;
use evo_core::Bits;
use std::fmt;

/// The largest weight or profit magnitude the exact optimum accepts, 2^31.
const MAX_EXACT_VALUE: f32 = 2_147_483_648.0;

/// An optimal selection and its profit.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// The optimal profit.
    pub profit: f64,
    /// An optimal selection.
    pub selection: Bits,
}

/// Why [`Knapsack::exact_optimum`] gives no optimum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptimumUnknown {
    /// A weight or profit is not an integer of magnitude at most 2^31 (item index given).
    NotSmallIntegers {
        /// The first such item.
        item: usize,
    },
    /// The dynamic-programming table after the reduction needs more bits than the limit.
    TableTooLarge {
        /// Free items × (residual capacity + 1).
        cells: u128,
        /// The caller's limit.
        limit: u64,
    },
}

impl fmt::Display for OptimumUnknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptimumUnknown::NotSmallIntegers { item } => write!(
                f,
                "optimum unknown: item {item}'s weight or profit is not an integer in [-2^31, 2^31] (exact only for integer data)"
            ),
            OptimumUnknown::TableTooLarge { cells, limit } => write!(
                f,
                "optimum unknown: the reduced DP table needs {cells} cells, more than the limit {limit}"
            ),
        }
    }
}

impl std::error::Error for OptimumUnknown {}

impl Knapsack {
    /// The exact optimum (module docs), with a dynamic-programming table of at most `max_cells` bits.
    ///
    /// # Errors
    /// [`OptimumUnknown`] when the data are not integers or the table would pass `max_cells`.
    pub fn exact_optimum(&self, max_cells: u64) -> Result<Optimum, OptimumUnknown> {
        let n = self.len();
        // Step 1: integers of at most 2^31 in magnitude keep every sum and the scaled bounds within i64/i128.
        let integral = |v: f32| v.fract() == 0.0 && v.abs() <= MAX_EXACT_VALUE;
        if let Some(item) =
            (0..n).find(|&j| !(integral(self.weights[j]) && integral(self.profits[j])))
        {
            return Err(OptimumUnknown::NotSmallIntegers { item });
        }
        let w: Vec<i64> = self.weights.iter().map(|&v| v as i64).collect();
        let p: Vec<i64> = self.profits.iter().map(|&v| v as i64).collect();
        let total_weight: i64 = w.iter().sum();
        let capacity = (self.capacity.floor() as i64).min(total_weight);
        // Step 2: the greedy lower bound and the Dantzig prefix with its break item.
        let (greedy_row, greedy_packing) = self.greedy_solution();
        let lower = greedy_packing.profit as i64;
        let (mut prefix_weight, mut prefix_profit) = (0i64, 0i64);
        let mut in_lp = vec![false; n];
        let mut break_item = None;
        for &j in &self.order {
            let j = j as usize;
            if p[j] <= 0 {
                break;
            }
            if prefix_weight + w[j] > capacity {
                break_item = Some(j);
                break;
            }
            prefix_weight += w[j];
            prefix_profit += p[j];
            in_lp[j] = true;
        }
        let Some(b) = break_item else {
            // Every item of positive profit fits: taking them all is optimal.
            return Ok(self.optimum_of(&in_lp));
        };
        // Step 3: fix every item whose flip cannot beat the greedy profit.
        let (wb, pb) = (i128::from(w[b]), i128::from(p[b]));
        let upper_scaled =
            i128::from(prefix_profit) * wb + pb * i128::from(capacity - prefix_weight);
        let threshold = (i128::from(lower) + 1) * wb;
        let mut fixed_weight = 0i64;
        let mut free = Vec::new();
        let mut fixed_in = vec![false; n];
        for j in 0..n {
            let reduced = (i128::from(p[j]) * wb - pb * i128::from(w[j])).abs();
            if p[j] <= 0 || upper_scaled - reduced < threshold {
                if in_lp[j] {
                    fixed_in[j] = true;
                    fixed_weight += w[j];
                }
            } else {
                free.push(j);
            }
        }
        let residual = capacity - fixed_weight;
        if residual < 0 {
            // No selection with the fixed values fits: the greedy solution is optimal.
            return Ok(self.optimum_of_row(&greedy_row));
        }
        let free_weight: i64 = free.iter().map(|&j| w[j]).sum();
        let residual = residual.min(free_weight) as usize;
        let cells = free.len() as u128 * (residual as u128 + 1);
        if cells > u128::from(max_cells) {
            return Err(OptimumUnknown::TableTooLarge {
                cells,
                limit: max_cells,
            });
        }
        // Step 4: V[c] over the free items, one decision bit per (item, capacity).
        let stride = residual + 1;
        let mut value = vec![0i64; stride];
        let mut taken = vec![0u64; (free.len() * stride).div_ceil(64)];
        for (k, &j) in free.iter().enumerate() {
            let (wj, pj) = (w[j] as usize, p[j]);
            for c in (wj..=residual).rev() {
                let candidate = value[c - wj] + pj;
                if candidate > value[c] {
                    value[c] = candidate;
                    let cell = k * stride + c;
                    taken[cell / 64] |= 1 << (cell % 64);
                }
            }
        }
        let fixed_profit: i64 = (0..n).filter(|&j| fixed_in[j]).map(|j| p[j]).sum();
        // Step 5: the better of the reduced optimum and the greedy solution.
        if fixed_profit + value[residual] < lower {
            return Ok(self.optimum_of_row(&greedy_row));
        }
        let mut chosen = fixed_in;
        let mut c = residual;
        for (k, &j) in free.iter().enumerate().rev() {
            let cell = k * stride + c;
            if (taken[cell / 64] >> (cell % 64)) & 1 == 1 {
                chosen[j] = true;
                c -= w[j] as usize;
            }
        }
        Ok(self.optimum_of(&chosen))
    }

    fn optimum_of(&self, chosen: &[bool]) -> Optimum {
        let selection = Bits::from_bools(chosen);
        Optimum {
            profit: self.packing_of(&selection).profit,
            selection,
        }
    }

    fn optimum_of_row(&self, row: &[u32]) -> Optimum {
        let chosen: Vec<bool> = (0..self.len()).map(|j| bit(row, j)).collect();
        self.optimum_of(&chosen)
    }
}
