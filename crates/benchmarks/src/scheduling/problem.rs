//! The ETC scheduling problem as a continuous problem (the DE paper's encoding, §4.1).
//!
//! `x ∈ [0, m]ⁿ`; task `t` runs on machine `s_t = min(⌊clamp(x_t, 0, m)⌋, m − 1)` (simple truncation,
//! 0-based machines; NaN maps to machine 0), and the value is the [`EtcObjective`] of that schedule: the
//! paper's fitness `λ·makespan + (1 − λ)·flowtime/m` (the default) or the makespan alone (see the
//! [module docs](super)).

use super::{EtcInstance, Objectives};
use evo_core::{Bounds, ContinuousProblem, Error, Result};

/// λ of the DE paper's fitness when none is given: 0.75 (benchmarks.md (f).6: the paper does not state it;
/// 0.75 is the value used with this fitness in the grid-scheduling work it cites).
pub const DEFAULT_LAMBDA: f64 = 0.75;

/// What an [`EtcProblem`] minimises.
///
/// Every evaluator — the CPU's [`EtcProblem::evaluate`], the GPU kernels of evo-benchmarks and evo-de's fused
/// generation and local search — computes one formula, `λ·makespan + (1 − λ)·(flowtime/m)`, with the weight
/// [`EtcObjective::lambda`]. The makespan objective is that formula at `λ = 1`, which is the makespan bit for
/// bit: `1·makespan` is exact, `(1 − 1)·(flowtime/m)` is `+0` because a flowtime of finite `f32` times is
/// finite, and `makespan + 0 = makespan` (also under a fused multiply-add). So the CPU evaluates it as the
/// makespan itself and the GPU kernels need no second code path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EtcObjective {
    /// The DE paper's fitness `λ·makespan + (1 − λ)·flowtime/m` (eq. 5), `λ ∈ [0, 1]`; the paper presets use
    /// it with [`DEFAULT_LAMBDA`].
    PaperFitness {
        /// The weight of the makespan.
        lambda: f64,
    },
    /// The makespan `max_j L_j` alone, what a user who schedules work wants to minimise.
    Makespan,
}

impl Default for EtcObjective {
    /// The paper's fitness with [`DEFAULT_LAMBDA`].
    fn default() -> Self {
        Self::PaperFitness {
            lambda: DEFAULT_LAMBDA,
        }
    }
}

impl EtcObjective {
    /// The weight of the makespan in the evaluators' formula: λ, or 1 for the makespan.
    pub fn lambda(&self) -> f64 {
        match *self {
            Self::PaperFitness { lambda } => lambda,
            Self::Makespan => 1.0,
        }
    }

    /// The objective's value for `objectives` on `machines` machines (the same bits as
    /// [`Objectives::fitness`] at [`lambda`](Self::lambda), see the type's docs).
    pub fn value(&self, objectives: &Objectives, machines: usize) -> f64 {
        match *self {
            Self::PaperFitness { lambda } => objectives.fitness(lambda, machines),
            Self::Makespan => objectives.makespan,
        }
    }

    /// Checks λ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the paper's λ is not in `[0, 1]` (NaN included).
    pub fn check(&self) -> Result<()> {
        match *self {
            Self::PaperFitness { lambda } if !(0.0..=1.0).contains(&lambda) => Err(
                Error::invalid_parameter("EtcProblem", "lambda", lambda, "in [0, 1]"),
            ),
            _ => Ok(()),
        }
    }
}

/// An [`EtcInstance`] with an objective, evaluated from real-coded vectors.
#[derive(Debug, Clone)]
pub struct EtcProblem {
    instance: EtcInstance,
    objective: EtcObjective,
    bounds: Bounds,
    name: String,
}

impl EtcProblem {
    /// The problem of `instance` under the paper's fitness with weight `lambda`.
    ///
    /// # Errors
    /// As [`with_objective`](Self::with_objective).
    pub fn new(instance: EtcInstance, lambda: f64) -> Result<Self> {
        Self::with_objective(instance, EtcObjective::PaperFitness { lambda })
    }

    /// The problem of `instance` minimising `objective`; named `etc-<instance>` under the paper's fitness and
    /// `etc-makespan-<instance>` under the makespan.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the paper's λ is not in `[0, 1]` or the instance has more than 2^24
    /// machines.
    pub fn with_objective(instance: EtcInstance, objective: EtcObjective) -> Result<Self> {
        objective.check()?;
        if instance.machines() > 1 << 24 {
            return Err(Error::invalid_parameter(
                "EtcProblem",
                "machine count",
                instance.machines(),
                "at most 2^24 (so that m and the coordinates are exact in f32)",
            ));
        }
        let bounds = Bounds::uniform(instance.tasks(), 0.0, instance.machines() as f32)?;
        let name = match objective {
            EtcObjective::PaperFitness { .. } => format!("etc-{}", instance.name()),
            EtcObjective::Makespan => format!("etc-makespan-{}", instance.name()),
        };
        Ok(Self {
            instance,
            objective,
            bounds,
            name,
        })
    }

    /// The instance.
    pub fn instance(&self) -> &EtcInstance {
        &self.instance
    }

    /// The objective.
    pub fn objective(&self) -> EtcObjective {
        self.objective
    }

    /// The weight of the makespan in the evaluators' formula ([`EtcObjective::lambda`]: λ, or 1 for the
    /// makespan objective), what the GPU kernels and the local search take.
    pub fn lambda(&self) -> f64 {
        self.objective.lambda()
    }

    /// The machine of coordinate `x`: `min(⌊clamp(x, 0, m)⌋, m − 1)`; NaN gives 0. Twin:
    /// `evo_etc_machine_of` (CUDA).
    pub fn machine_of(&self, x: f32) -> u32 {
        let m = self.instance.machines() as f32;
        let clamped = if x > 0.0 { x.min(m) } else { 0.0 };
        let top = self.instance.machines() as u32 - 1;
        (clamped.floor() as u32).min(top)
    }

    /// The schedule of a real-coded vector.
    pub fn schedule_of(&self, x: &[f32]) -> Vec<u32> {
        x.iter().map(|&v| self.machine_of(v)).collect()
    }
}

impl ContinuousProblem for EtcProblem {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.instance.tasks()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        let schedule = self.schedule_of(x);
        let objectives = self.instance.objectives_unchecked(&schedule);
        self.objective.value(&objectives, self.instance.machines())
    }
}
