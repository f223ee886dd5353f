//! The ETC scheduling problem as a continuous problem (the DE paper's encoding, §4.1).
//!
//! `x ∈ [0, m]ⁿ`; task `t` runs on machine `s_t = min(⌊clamp(x_t, 0, m)⌋, m − 1)` (simple truncation,
//! 0-based machines; NaN maps to machine 0), and the fitness is `λ·makespan + (1 − λ)·flowtime/m` of that
//! schedule (see the [module docs](super)).

use super::EtcInstance;
use evo_core::{Bounds, ContinuousProblem, Error, Result};

/// λ of the DE paper's fitness when none is given: 0.75 (benchmarks.md (f).6: the paper does not state it;
/// 0.75 is the value used with this fitness in the grid-scheduling work it cites).
pub const DEFAULT_LAMBDA: f64 = 0.75;

/// An [`EtcInstance`] with a weight λ, evaluated from real-coded vectors.
#[derive(Debug, Clone)]
pub struct EtcProblem {
    instance: EtcInstance,
    lambda: f64,
    bounds: Bounds,
    name: String,
}

impl EtcProblem {
    /// The problem of `instance` with fitness weight `lambda`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `lambda` is not in `[0, 1]` or the instance has more than 2^24
    /// machines.
    pub fn new(instance: EtcInstance, lambda: f64) -> Result<Self> {
        if !(0.0..=1.0).contains(&lambda) {
            return Err(Error::invalid_parameter(
                "EtcProblem",
                "lambda",
                lambda,
                "in [0, 1]",
            ));
        }
        if instance.machines() > 1 << 24 {
            return Err(Error::invalid_parameter(
                "EtcProblem",
                "machine count",
                instance.machines(),
                "at most 2^24 (so that m and the coordinates are exact in f32)",
            ));
        }
        let bounds = Bounds::uniform(instance.tasks(), 0.0, instance.machines() as f32)?;
        let name = format!("etc-{}", instance.name());
        Ok(Self {
            instance,
            lambda,
            bounds,
            name,
        })
    }

    /// The instance.
    pub fn instance(&self) -> &EtcInstance {
        &self.instance
    }

    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
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
        self.instance
            .objectives_unchecked(&schedule)
            .fitness(self.lambda, self.instance.machines())
    }
}
