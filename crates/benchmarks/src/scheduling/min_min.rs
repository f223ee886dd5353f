//! The Min-Min heuristic (Braun et al.), the classic baseline.
//!
//! Ready times `r_j = 0`. While tasks remain: for every unassigned task find its best completion time
//! `min_j (r_j + ETC[t][j])`; assign the task with the smallest one (ties: lowest task, then lowest machine)
//! and set `r_j` to that time. The ready times accumulate in `f64` in assignment order.

use super::EtcInstance;

/// The schedule a constructive heuristic ([`min_min`], [`sufferage`](super::sufferage)) builds.
#[derive(Debug, Clone, PartialEq)]
pub struct HeuristicSchedule {
    /// The machine of every task.
    pub schedule: Vec<u32>,
    /// The final ready time of every machine.
    pub ready: Vec<f64>,
    /// `max_j r_j`.
    pub makespan: f64,
}

impl HeuristicSchedule {
    /// The result of a heuristic whose ready times are `ready`.
    pub(super) fn new(schedule: Vec<u32>, ready: Vec<f64>) -> Self {
        let makespan = ready.iter().copied().fold(0.0, f64::max);
        Self {
            schedule,
            ready,
            makespan,
        }
    }
}

/// Runs Min-Min on `instance` (`O(n² m)` time).
pub fn min_min(instance: &EtcInstance) -> HeuristicSchedule {
    let n = instance.tasks();
    let m = instance.machines();
    let etc = instance.etc();
    let mut ready = vec![0.0f64; m];
    let mut schedule = vec![0u32; n];
    let mut assigned = vec![false; n];
    // best[t] = (completion time, machine) of unassigned task t under the current ready times.
    let best_of = |t: usize, ready: &[f64]| {
        let mut best = (ready[0] + f64::from(etc[t * m]), 0usize);
        for (j, r) in ready.iter().enumerate().skip(1) {
            let completion = r + f64::from(etc[t * m + j]);
            if completion < best.0 {
                best = (completion, j);
            }
        }
        best
    };
    let mut best: Vec<(f64, usize)> = (0..n).map(|t| best_of(t, &ready)).collect();
    for _ in 0..n {
        let mut chosen = usize::MAX;
        for t in 0..n {
            if !assigned[t] && (chosen == usize::MAX || best[t].0 < best[chosen].0) {
                chosen = t;
            }
        }
        let (completion, machine) = best[chosen];
        assigned[chosen] = true;
        schedule[chosen] = machine as u32;
        ready[machine] = completion;
        // Only tasks whose best machine was the one that just got busier can change their choice (the other
        // ready times did not move, and r_j only grows).
        for t in 0..n {
            if !assigned[t] && best[t].1 == machine {
                best[t] = best_of(t, &ready);
            }
        }
    }
    HeuristicSchedule::new(schedule, ready)
}
