//! Independent-task scheduling on ETC matrices (the DE paper's problem).
//!
//! An instance is an expected-time-to-compute matrix `ETC[t][j]` (`f32`, task-major, `n` tasks × `m`
//! machines). A schedule `S = (s_1..s_n)` puts task `t` on machine `s_t ∈ {0..m−1}`; with no prior load,
//!
//! ```text
//! L_j          = Σ_{t: s_t = j} ETC[t][j]                  (load of machine j)
//! makespan(S)  = max_j L_j                                  (DE paper eq. 3)
//! flowtime(S)  = Σ_t ETC[t][s_t]                            (eq. 4 read literally, W_i = 0)
//! fit(S)       = λ·makespan(S) + (1 − λ)·flowtime(S)/m      (eq. 5, λ = 0.75 by default)
//! ```
//!
//! An [`EtcProblem`] minimises the paper's fitness (the default, [`EtcObjective::PaperFitness`]) or the
//! makespan alone ([`EtcObjective::Makespan`], the formula at `λ = 1`, equal to the makespan bit for bit).
//!
//! Every sum is the canonical pairwise tree of `evo_core::reduce` over the `n` tasks in `f64` (a load is the
//! tree of the terms `ETC[t][j]` for `s_t = j` and `+0.0` otherwise), so the GPU evaluation
//! (`kernels/common/problems/etc.cuh`) gives the same bits. The optimum is unknown; the best known schedules
//! of Braun et al.'s 512 × 16 instances ship beside them ([`EtcInstance::best_known`] loads them and
//! recomputes their makespans), and the constructive heuristics [`min_min`] and [`sufferage`] give the
//! classic baselines (and seeds for DE's initial population).
//!
//! Instances: Braun et al.'s files ([`EtcInstance::from_file`]) or the range-based generator
//! ([`EtcInstance::generate`]) for the 12 classes ([`EtcClass`]) and any size. As a continuous problem
//! ([`EtcProblem`]) a vector `x ∈ [0, m]ⁿ` maps to the schedule `s_t = min(⌊x_t⌋, m − 1)` (DE paper §4.1).
//!
//! Sources: Braun et al., *A comparison of eleven static heuristics for mapping a class of independent tasks
//! onto heterogeneous distributed computing systems*, JPDC 61 (2001) 810–837; Krömer, Snášel, Platoš,
//! Abraham, *Many-threaded implementation of differential evolution for the CUDA platform*, §4.1,
//! eq. (1)–(5); Maheswaran, Ali, Siegel, Hensgen, Freund, *Dynamic mapping of a class of independent tasks
//! onto heterogeneous computing systems*, JPDC 59 (1999) 107–131 (Sufferage); instances and best known
//! schedules of chgogos/hcsp.
//!
//! ```
//! use evo_benchmarks::scheduling::{DEFAULT_LAMBDA, EtcClass, EtcInstance, min_min};
//!
//! let instance = EtcInstance::generate(EtcClass::all()[3], 512, 16, 7)?; // u_c_lolo, 512 x 16
//! let baseline = min_min(&instance);
//! let objectives = instance.objectives(&baseline.schedule)?;
//! assert!((objectives.makespan - baseline.makespan).abs() < 1e-6 * baseline.makespan);
//! let fitness = objectives.fitness(DEFAULT_LAMBDA, instance.machines());
//! assert!(fitness <= objectives.makespan);
//! # Ok::<(), evo_core::Error>(())
//! ```

mod best_known;
mod generator;
#[cfg(test)]
mod heuristic_tests;
mod loader;
mod min_min;
mod problem;
mod schedule;
mod sufferage;
#[cfg(test)]
mod tests;

pub use best_known::KnownSchedule;
pub use generator::{Consistency, EtcClass, Heterogeneity};
pub use min_min::{HeuristicSchedule, min_min};
pub use problem::{DEFAULT_LAMBDA, EtcObjective, EtcProblem};
pub use schedule::{Objectives, check_schedule};
pub use sufferage::sufferage;

use evo_core::{Error, Result};

/// An ETC matrix: `tasks × machines` expected execution times, task-major.
#[derive(Debug, Clone, PartialEq)]
pub struct EtcInstance {
    name: String,
    tasks: usize,
    machines: usize,
    etc: Vec<f32>,
}

impl EtcInstance {
    /// An instance from a task-major matrix (`etc[t · machines + j]` = `ETC[t][j]`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for zero tasks or machines, more than `u32::MAX` of either, a matrix of the
    /// wrong length, or a value that is negative or not finite. Zero is a valid time (published instances
    /// round short tasks to `0.00`); a `-0` is stored as `+0`, so every sum and maximum sees one zero.
    pub fn new(
        name: impl Into<String>,
        tasks: usize,
        machines: usize,
        mut etc: Vec<f32>,
    ) -> Result<Self> {
        const WHO: &str = "EtcInstance";
        if tasks == 0 || u32::try_from(tasks).is_err() {
            return Err(Error::invalid_parameter(
                WHO,
                "task count",
                tasks,
                "in 1..=4294967295",
            ));
        }
        if machines == 0 || u32::try_from(machines).is_err() {
            return Err(Error::invalid_parameter(
                WHO,
                "machine count",
                machines,
                "in 1..=4294967295",
            ));
        }
        if Some(etc.len()) != tasks.checked_mul(machines) {
            return Err(Error::invalid_parameter(
                WHO,
                "ETC length",
                etc.len(),
                format!("{tasks} tasks x {machines} machines"),
            ));
        }
        if let Some(k) = etc.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(Error::invalid_parameter(
                WHO,
                "ETC value",
                format!(
                    "{} (task {}, machine {})",
                    etc[k],
                    k / machines,
                    k % machines
                ),
                "finite and >= 0",
            ));
        }
        // Every value is now `>= 0`, so `abs` changes only the sign of a `-0`.
        for value in &mut etc {
            *value = value.abs();
        }
        Ok(Self {
            name: name.into(),
            tasks,
            machines,
            etc,
        })
    }

    /// The instance's name ("u_c_hihi.0").
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of tasks `n`.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// The number of machines `m`.
    pub fn machines(&self) -> usize {
        self.machines
    }

    /// The task-major matrix.
    pub fn etc(&self) -> &[f32] {
        &self.etc
    }

    /// `ETC[task][machine]`.
    ///
    /// # Panics
    /// When `task` or `machine` is out of range.
    pub fn time(&self, task: usize, machine: usize) -> f32 {
        assert!(
            machine < self.machines,
            "machine {machine} of {}",
            self.machines
        );
        self.etc[task * self.machines + machine]
    }
}
