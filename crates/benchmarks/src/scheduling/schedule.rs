//! Makespan, flowtime and the DE paper's fitness of a schedule (see the [module docs](super)).

use super::EtcInstance;
use evo_core::reduce::pairwise_sum_by;
use evo_core::{Error, Result};

/// The objectives of one schedule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Objectives {
    /// `max_j L_j`.
    pub makespan: f64,
    /// `Σ_t ETC[t][s_t]`.
    pub flowtime: f64,
}

/// Checks that `schedule` has one machine index `< machines` per task.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the wrong length or the first out-of-range entry.
pub fn check_schedule(instance: &EtcInstance, schedule: &[u32]) -> Result<()> {
    if schedule.len() != instance.tasks() {
        return Err(Error::invalid_parameter(
            "schedule",
            "length",
            schedule.len(),
            format!("the task count {}", instance.tasks()),
        ));
    }
    if let Some(t) = schedule
        .iter()
        .position(|&s| s as usize >= instance.machines())
    {
        return Err(Error::invalid_parameter(
            "schedule",
            "machine index",
            format!("{} (task {t})", schedule[t]),
            format!("below the machine count {}", instance.machines()),
        ));
    }
    Ok(())
}

impl EtcInstance {
    /// The load `L_j` of every machine: the canonical pairwise sum over the tasks of `ETC[t][j]` where
    /// `s_t = j` and `+0.0` elsewhere. `schedule` must pass [`check_schedule`].
    pub fn loads(&self, schedule: &[u32]) -> Vec<f64> {
        let m = self.machines();
        (0..m)
            .map(|j| {
                pairwise_sum_by(self.tasks(), |t| {
                    if schedule[t] as usize == j {
                        f64::from(self.etc()[t * m + j])
                    } else {
                        0.0
                    }
                })
            })
            .collect()
    }

    /// Makespan and flowtime of a schedule that passes [`check_schedule`] (unchecked; indices out of range
    /// panic).
    pub fn objectives_unchecked(&self, schedule: &[u32]) -> Objectives {
        let m = self.machines();
        let makespan = self.loads(schedule).into_iter().fold(0.0, f64::max);
        let flowtime = pairwise_sum_by(self.tasks(), |t| {
            f64::from(self.etc()[t * m + schedule[t] as usize])
        });
        Objectives { makespan, flowtime }
    }

    /// Makespan and flowtime of `schedule`.
    ///
    /// # Errors
    /// As [`check_schedule`].
    pub fn objectives(&self, schedule: &[u32]) -> Result<Objectives> {
        check_schedule(self, schedule)?;
        Ok(self.objectives_unchecked(schedule))
    }

    /// `makespan(S)`.
    ///
    /// # Errors
    /// As [`check_schedule`].
    pub fn makespan(&self, schedule: &[u32]) -> Result<f64> {
        Ok(self.objectives(schedule)?.makespan)
    }

    /// `flowtime(S)`.
    ///
    /// # Errors
    /// As [`check_schedule`].
    pub fn flowtime(&self, schedule: &[u32]) -> Result<f64> {
        Ok(self.objectives(schedule)?.flowtime)
    }

    /// The DE paper's fitness `λ·makespan + (1 − λ)·flowtime/m`.
    ///
    /// # Errors
    /// As [`check_schedule`].
    pub fn fitness(&self, schedule: &[u32], lambda: f64) -> Result<f64> {
        let objectives = self.objectives(schedule)?;
        Ok(objectives.fitness(lambda, self.machines()))
    }
}

impl Objectives {
    /// `λ·makespan + (1 − λ)·(flowtime/m)`, in this order of operations (the CUDA twin's).
    pub fn fitness(&self, lambda: f64, machines: usize) -> f64 {
        lambda * self.makespan + (1.0 - lambda) * (self.flowtime / machines as f64)
    }
}
