//! The local search of the best `b` ([`LocalSearch::SwapWindow`](crate::LocalSearch::SwapWindow)): a
//! best-improvement search over two moves near the profit/weight break, where the greedy solution's mistakes
//! are.
//!
//! One pass, with `W` and `C` as in the repairs and `order` the profit/weight order:
//! 1. **Candidates**: `out` = the first [`WINDOW`] items of `order` with `b_j = 0`; `in` = the last `WINDOW`
//!    items of `order` with `b_i = 1` (scanning from the end), each list in its scan order.
//! 2. **Moves**: add `j ∈ out` when `W + w_j ≤ C` (gain `p_j`); swap `i ∈ in` out and `j ∈ out` in when
//!    `(W − w_i) + w_j ≤ C` (gain `p_j − p_i`). Gains and weights in `f64`.
//! 3. **Best move**: the largest gain `> 0`; on ties the first in the order adds (over `out`), then swaps
//!    (`in` outer, `out` inner). Apply it (`W −= w_i` then `W += w_j`) and start a new pass; stop when no move
//!    gains or after [`MAX_MOVES`] moves.
//!
//! The profit is then summed in index order in `f64`, as after a repair. Every comparison is of `f64` values
//! computed in the same order on both engines, so the CUDA twin (`qiga_local_search` in
//! `kernels/cuda/qiga.cu`) finds the same moves.

use evo_benchmarks::Knapsack;

/// The candidates on each side of the break.
pub const WINDOW: usize = 32;

/// The most moves of one call (each strictly raises the profit; the cap bounds the time).
pub const MAX_MOVES: usize = 64;

fn bit(row: &[u32], j: usize) -> bool {
    (row[j / 32] >> (j % 32)) & 1 == 1
}

fn flip(row: &mut [u32], j: usize) {
    row[j / 32] ^= 1 << (j % 32);
}

/// Improves the feasible packed row `best` in place (module docs) and returns its profit.
pub fn improve(problem: &Knapsack, best: &mut [u32]) -> f64 {
    let (weights, profits, order) = (problem.weights(), problem.profits(), problem.ratio_order());
    let capacity = problem.capacity();
    let n = problem.len();
    let mut weight = 0.0f64;
    for (j, &w) in weights.iter().enumerate() {
        if bit(best, j) {
            weight += f64::from(w);
        }
    }
    for _ in 0..MAX_MOVES {
        // Step 1.
        let mut outside = [0usize; WINDOW];
        let mut inside = [0usize; WINDOW];
        let (mut outs, mut ins) = (0, 0);
        for &j in order {
            if outs == WINDOW {
                break;
            }
            if !bit(best, j as usize) {
                outside[outs] = j as usize;
                outs += 1;
            }
        }
        for &i in order.iter().rev() {
            if ins == WINDOW {
                break;
            }
            if bit(best, i as usize) {
                inside[ins] = i as usize;
                ins += 1;
            }
        }
        // Steps 2–3: `drop == n` marks an add.
        let (mut gain, mut drop, mut take) = (0.0f64, n, n);
        for &j in &outside[..outs] {
            let p = f64::from(profits[j]);
            if weight + f64::from(weights[j]) <= capacity && p > gain {
                (gain, drop, take) = (p, n, j);
            }
        }
        for &i in &inside[..ins] {
            for &j in &outside[..outs] {
                let g = f64::from(profits[j]) - f64::from(profits[i]);
                if (weight - f64::from(weights[i])) + f64::from(weights[j]) <= capacity && g > gain
                {
                    (gain, drop, take) = (g, i, j);
                }
            }
        }
        if take == n {
            break;
        }
        if drop < n {
            flip(best, drop);
            weight -= f64::from(weights[drop]);
        }
        flip(best, take);
        weight += f64::from(weights[take]);
    }
    let mut profit = 0.0f64;
    for (j, &p) in profits.iter().enumerate() {
        if bit(best, j) {
            profit += f64::from(p);
        }
    }
    profit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swap_near_the_break_lifts_the_greedy_solution() {
        // Ratios: item 0 = 10/5 = 2, item 1 = 11.5/6 ≈ 1.92; C = 6. Greedy takes item 0 (W 5, profit 10) and
        // item 1 no longer fits; the swap (0 out, 1 in) fits (W 6) and gains 1.5.
        let problem = Knapsack::new("t", 6.0, vec![5.0, 6.0], vec![10.0, 11.5]).unwrap();
        let (mut row, packing) = problem.greedy_solution();
        assert_eq!((row.clone(), packing.profit), (vec![0b01], 10.0));
        assert_eq!(improve(&problem, &mut row), 11.5);
        assert_eq!(row, [0b10]);
    }

    #[test]
    fn a_local_optimum_is_left_alone() {
        let problem = Knapsack::new("t", 6.0, vec![3.0, 3.0, 4.0], vec![5.0, 5.0, 4.0]).unwrap();
        let mut row = vec![0b011];
        assert_eq!(improve(&problem, &mut row), 10.0);
        assert_eq!(row, [0b011]);
    }

    #[test]
    fn the_kernel_holds_the_same_window_and_move_cap() {
        let Some(options) = evo_kernels::header("cuda/qiga_options.cuh") else {
            panic!("the qiga module's options header is not registered");
        };
        let source = options.source;
        assert!(source.contains(&format!("#define QIGA_LS_WINDOW {WINDOW}u")));
        assert!(source.contains(&format!("#define QIGA_LS_MAX_MOVES {MAX_MOVES}u")));
    }
}
