//! The Sufferage heuristic (Maheswaran, Ali, Siegel, Hensgen, Freund 1999; one of Braun et al.'s eleven).
//!
//! Ready times `r_j = 0`. While tasks remain, one pass:
//! 1. every machine is free for this pass;
//! 2. the tasks unassigned at the start of the pass are visited in task order; for task `t`, `c_1` is its
//!    earliest completion time `min_j (r_j + ETC[t][j])` on machine `j_1` (ties: lowest machine), `c_2` the
//!    second earliest (over the other machines; `c_2 = c_1` on one machine), and its sufferage `c_2 − c_1`
//!    is what it loses if it does not get `j_1`;
//! 3. if `j_1` is free in this pass, `t` takes it; if the task holding `j_1` has a strictly smaller
//!    sufferage, that task goes back to the unassigned tasks (it waits for the next pass) and `t` takes
//!    `j_1`; otherwise `t` waits for the next pass;
//! 4. at the end of the pass every task holding a machine is assigned to it, `r_j += ETC[t][j]`.
//!
//! The ready times and sufferages are `f64`. Each pass assigns at least one task (the first visited always
//! takes its machine, and is only replaced by another), at most `m`.

use super::{EtcInstance, HeuristicSchedule};

/// Runs Sufferage on `instance` (`O(n² m)` time in the worst case, one task per pass).
pub fn sufferage(instance: &EtcInstance) -> HeuristicSchedule {
    let n = instance.tasks();
    let m = instance.machines();
    let etc = instance.etc();
    let mut ready = vec![0.0f64; m];
    let mut schedule = vec![0u32; n];
    let mut unassigned: Vec<usize> = (0..n).collect();
    // holder[j] = (task, sufferage) holding machine j in the current pass.
    let mut holder: Vec<Option<(usize, f64)>> = vec![None; m];
    while !unassigned.is_empty() {
        holder.fill(None);
        let mut waiting = Vec::with_capacity(unassigned.len());
        for &t in &unassigned {
            let (machine, suffering) = first_choice(&etc[t * m..(t + 1) * m], &ready);
            match holder[machine] {
                None => holder[machine] = Some((t, suffering)),
                Some((held, held_suffering)) if held_suffering < suffering => {
                    waiting.push(held);
                    holder[machine] = Some((t, suffering));
                }
                Some(_) => waiting.push(t),
            }
        }
        for (j, slot) in holder.iter().enumerate() {
            if let Some((t, _)) = *slot {
                schedule[t] = j as u32;
                ready[j] += f64::from(etc[t * m + j]);
            }
        }
        // Task order for the next pass: the evicted tasks were pushed out of order.
        waiting.sort_unstable();
        unassigned = waiting;
    }
    HeuristicSchedule::new(schedule, ready)
}

/// The machine of the earliest completion of a task whose times are `row` (ties: lowest machine) and its
/// sufferage, the second earliest completion minus the earliest (0 on one machine).
fn first_choice(row: &[f32], ready: &[f64]) -> (usize, f64) {
    let mut first = (ready[0] + f64::from(row[0]), 0usize);
    let mut second = f64::INFINITY;
    for (j, (r, &time)) in ready.iter().zip(row).enumerate().skip(1) {
        let completion = r + f64::from(time);
        if completion < first.0 {
            second = first.0;
            first = (completion, j);
        } else if completion < second {
            second = completion;
        }
    }
    let suffering = if row.len() > 1 { second - first.0 } else { 0.0 };
    (first.1, suffering)
}
