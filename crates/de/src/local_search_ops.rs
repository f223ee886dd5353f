//! The scalar operations of the local search of ETC schedules, each the twin of a `de_ls_*` device function
//! of `kernels/cuda/de_local_search.cuh` (same name without the prefix, same order of operations).

use evo_rng::{Philox, Sequence, Stream};

/// The three largest loads: value descending, ties to the lower machine; missing entries are
/// `(−∞, u32::MAX)`. Twin: `de_ls_top_three`.
pub fn top_three(loads: &[f64]) -> [(f64, u32); 3] {
    let mut top = [(f64::NEG_INFINITY, u32::MAX); 3];
    for (k, &v) in loads.iter().enumerate() {
        let entry = (v, k as u32);
        if v > top[0].0 {
            top = [entry, top[0], top[1]];
        } else if v > top[1].0 {
            top = [top[0], entry, top[1]];
        } else if v > top[2].0 {
            top[2] = entry;
        }
    }
    top
}

/// The largest of `top` on a machine other than `a` and `b`; `−∞` when there is none. Twin:
/// `de_ls_largest_other`.
pub fn largest_other(top: &[(f64, u32); 3], a: u32, b: u32) -> f64 {
    top.iter()
        .find(|&&(_, k)| k != u32::MAX && k != a && k != b)
        .map_or(f64::NEG_INFINITY, |&(v, _)| v)
}

/// The larger of two loads (`b` when strictly larger). Twin: `de_ls_larger`.
pub fn larger(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// `λ·makespan + (1 − λ)·(flowtime/m)`, the order of operations of the ETC fitness. Twin: `de_ls_fitness`.
pub fn ls_fitness(lambda: f64, makespan: f64, flowtime: f64, machines: u32) -> f64 {
    lambda * makespan + (1.0 - lambda) * (flowtime / f64::from(machines))
}

/// What a candidate changes: the two machines' new loads and the new flowtime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    /// The new load of the first machine (the task's own machine; for a swap, the makespan machine).
    pub first: f64,
    /// The new load of the second machine.
    pub second: f64,
    /// The new flowtime.
    pub flowtime: f64,
}

/// Moving a task from `from` (load `loads[0]`, time `times[0]`) to `to` (`loads[1]`, `times[1]`):
/// `L_from − t_from`, `L_to + t_to`, `F + (t_to − t_from)`. Twin: `de_ls_move_effect`.
pub fn move_effect(loads: [f64; 2], times: [f64; 2], flowtime: f64) -> Effect {
    Effect {
        first: loads[0] - times[0],
        second: loads[1] + times[1],
        flowtime: flowtime + (times[1] - times[0]),
    }
}

/// Swapping task `a` on machine `p` with task `b` on machine `k`: `times = [ETC[a][p], ETC[a][k],
/// ETC[b][p], ETC[b][k]]`, `loads = [L_p, L_k]`: `(L_p − a_p) + b_p`, `(L_k − b_k) + a_k`,
/// `F + ((a_k − a_p) + (b_p − b_k))`. Twin: `de_ls_swap_effect`.
pub fn swap_effect(loads: [f64; 2], times: [f64; 4], flowtime: f64) -> Effect {
    let [a_p, a_k, b_p, b_k] = times;
    Effect {
        first: (loads[0] - a_p) + b_p,
        second: (loads[1] - b_k) + a_k,
        flowtime: flowtime + ((a_k - a_p) + (b_p - b_k)),
    }
}

/// The fitness after a candidate that changes machines `first` and `second`: the makespan is the larger of
/// the other machines' largest load (from `top`), the two new loads, and 0. Twin: `de_ls_value`.
pub fn candidate_value(
    lambda: f64,
    machines: u32,
    top: &[(f64, u32); 3],
    changed: [u32; 2],
    effect: Effect,
) -> f64 {
    let rest = largest_other(top, changed[0], changed[1]);
    let makespan = larger(larger(larger(0.0, rest), effect.first), effect.second);
    ls_fitness(lambda, makespan, effect.flowtime, machines)
}

/// The change of the sum of squared loads when a candidate takes two machines from `loads` to the loads of
/// `effect`: `(first·first + second·second) − (L_0·L_0 + L_1·L_1)`, no fused multiply-add. Twin:
/// `de_ls_squares_change`.
pub fn squares_change(loads: [f64; 2], effect: Effect) -> f64 {
    (effect.first * effect.first + effect.second * effect.second)
        - (loads[0] * loads[0] + loads[1] * loads[1])
}

/// The Philox step word of the kicks of the search after generation `generation`: the generation,
/// saturated at `u32::MAX` (the engines refuse to step past 2^32 generations).
pub fn kick_step(generation: u64) -> u32 {
    u32::try_from(generation).unwrap_or(u32::MAX)
}

/// The random words of kick `k` of the search with step word `step`: (`DeInit`, `step`, `k`). `DeInit`
/// draws the initial population at step 0 only and searches run after generations ≥ 1, so the two never
/// read the same words.
pub fn kick_words(rng: &Philox, step: u32, k: u32) -> Sequence {
    rng.sequence(Stream::DeInit, step, k)
}

/// The Philox individual of iteration `iteration` of candidate `candidate` of a search with `kicks` kicks:
/// `kicks + iteration·(kicks + 1) + candidate`, past the kicks' `0 .. kicks`, one per (iteration, candidate)
/// (at most 1024 + 1023·1025 + 1024, far below 2^32). Twin: the kicks phase of `de_local_search_etc_f32`.
pub fn iteration_individual(kicks: u32, iteration: u32, candidate: u32) -> u32 {
    kicks + iteration * (kicks + 1) + candidate
}

/// A kick: `moves` random task moves on `schedule` (`machines ≥ 2`); move `j` takes task
/// `t = below(word 2j, n)` to machine `r = below(word 2j + 1, m − 1)`, skipping the task's own machine
/// (`r + 1` when `r ≥ s_t`), so every move changes a machine. Twin: `de_ls_kick`.
pub fn kick(schedule: &mut [u32], machines: u32, words: &Sequence, moves: u32) {
    let n = schedule.len() as u32;
    for j in 0..moves {
        let t = words.below(2 * j, n) as usize;
        let r = words.below(2 * j + 1, machines - 1);
        schedule[t] = if r >= schedule[t] { r + 1 } else { r };
    }
}
