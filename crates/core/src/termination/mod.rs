//! When a run stops.

mod interrupt;
mod stop_token;

pub use interrupt::request_interrupt;
pub(crate) use interrupt::{install_handler, take_interrupt};
pub use stop_token::StopToken;

use crate::engine::Progress;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// The stopping rules of a run; the first rule that holds ends it.
///
/// At least one of generations, evaluations, target fitness, wall time or stagnation must be set (a run that
/// can never end is a bug); [`Termination::validate`] and the executor check it. Setters that can reject a
/// value return `Result`, the others return `Self`.
///
/// The rules are checked before every step, so a run that already satisfies one (for example a restored
/// run past its generation limit) takes no step. When several hold at once, the reason reported is the first
/// in this order: target fitness, generations, evaluations, wall time, stagnation, Ctrl-C or the stop token.
///
/// ```
/// use evo_core::Termination;
/// use std::time::Duration;
/// let termination = Termination::new()
///     .with_max_generations(1000)
///     .with_target_fitness(1e-8)?
///     .with_max_wall_time(Duration::from_secs(60))?
///     .with_stagnation(50, 1e-12)?;
/// termination.validate()?;
/// assert!(Termination::new().validate().is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Termination {
    max_generations: Option<u64>,
    max_evaluations: Option<u64>,
    target_fitness: Option<f64>,
    max_wall_time: Option<Duration>,
    stagnation: Option<Stagnation>,
    ctrl_c: bool,
    stop_token: Option<StopToken>,
}

/// The stagnation rule: stop after `generations` consecutive generations in which the best fitness did not
/// improve by more than `min_improvement`.
///
/// Improvement is measured against the best fitness at the last counted improvement, so a slow creep of
/// many tiny improvements still counts once their sum exceeds `min_improvement`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stagnation {
    /// Consecutive generations without improvement that end the run (at least 1).
    pub generations: u64,
    /// The decrease of the best fitness that counts as an improvement (finite, at least 0).
    pub min_improvement: f64,
}

/// Which rule ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TerminationReason {
    /// The best fitness reached the target (`best <= target`).
    TargetFitness,
    /// The generation limit was reached.
    MaxGenerations,
    /// The evaluation limit was reached.
    MaxEvaluations,
    /// The wall-time limit was reached (time before a resume included).
    WallTime,
    /// The best fitness stagnated.
    Stagnation,
    /// Ctrl-C was pressed, [`request_interrupt`] was called, or the run's [`StopToken`] was stopped.
    Interrupted,
}

impl fmt::Display for TerminationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TargetFitness => "target fitness reached",
            Self::MaxGenerations => "generation limit reached",
            Self::MaxEvaluations => "evaluation limit reached",
            Self::WallTime => "wall-time limit reached",
            Self::Stagnation => "best fitness stagnated",
            Self::Interrupted => "interrupted",
        })
    }
}

impl Termination {
    /// No rule set yet; add at least one before running.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops once `generation >= max` (0 evaluates the initial population only).
    pub fn with_max_generations(mut self, max: u64) -> Self {
        self.max_generations = Some(max);
        self
    }

    /// Stops once `evaluations >= max`; the generation that crosses the limit completes, so a run may
    /// overshoot by less than one generation's evaluations.
    pub fn with_max_evaluations(mut self, max: u64) -> Self {
        self.max_evaluations = Some(max);
        self
    }

    /// Stops once the best fitness is `<= target`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `target` is not finite.
    pub fn with_target_fitness(mut self, target: f64) -> Result<Self> {
        if !target.is_finite() {
            return Err(Error::invalid_parameter(
                "Termination",
                "target fitness",
                target,
                "finite",
            ));
        }
        self.target_fitness = Some(target);
        Ok(self)
    }

    /// Stops once the run's elapsed time (including time before a resume) is `>= max`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `max` is zero.
    pub fn with_max_wall_time(mut self, max: Duration) -> Result<Self> {
        if max.is_zero() {
            return Err(Error::invalid_parameter(
                "Termination",
                "max wall time",
                format!("{max:?}"),
                "greater than zero",
            ));
        }
        self.max_wall_time = Some(max);
        Ok(self)
    }

    /// Stops after `generations` consecutive generations without an improvement of more than
    /// `min_improvement` (see [`Stagnation`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `generations` is 0 or `min_improvement` is negative or not finite.
    pub fn with_stagnation(mut self, generations: u64, min_improvement: f64) -> Result<Self> {
        if generations == 0 {
            return Err(Error::invalid_parameter(
                "Termination",
                "stagnation generations",
                generations,
                "at least 1",
            ));
        }
        if !min_improvement.is_finite() || min_improvement < 0.0 {
            return Err(Error::invalid_parameter(
                "Termination",
                "stagnation min_improvement",
                min_improvement,
                "finite and at least 0",
            ));
        }
        self.stagnation = Some(Stagnation {
            generations,
            min_improvement,
        });
        Ok(self)
    }

    /// Also stops (gracefully, after the current step, with a final checkpoint) on Ctrl-C or
    /// [`request_interrupt`]. Off by default: watching Ctrl-C installs a process-wide signal handler on the
    /// first run (a library should not take over the key press unasked), after which Ctrl-C no longer kills
    /// the process outright; a second Ctrl-C during a run still exits with status 130. Ctrl-C alone does not
    /// satisfy [`validate`](Self::validate).
    pub fn with_ctrl_c(mut self, enabled: bool) -> Self {
        self.ctrl_c = enabled;
        self
    }

    /// Also stops (gracefully, after the current step, as Ctrl-C does) once `token` or a clone of it is
    /// stopped. Unlike Ctrl-C the request belongs to this run alone: runs carrying other tokens go on. A
    /// token alone does not satisfy [`validate`](Self::validate).
    pub fn with_stop_token(mut self, token: StopToken) -> Self {
        self.stop_token = Some(token);
        self
    }

    /// The generation limit.
    pub fn max_generations(&self) -> Option<u64> {
        self.max_generations
    }

    /// The evaluation limit.
    pub fn max_evaluations(&self) -> Option<u64> {
        self.max_evaluations
    }

    /// The target fitness.
    pub fn target_fitness(&self) -> Option<f64> {
        self.target_fitness
    }

    /// The wall-time limit.
    pub fn max_wall_time(&self) -> Option<Duration> {
        self.max_wall_time
    }

    /// The stagnation rule.
    pub fn stagnation(&self) -> Option<Stagnation> {
        self.stagnation
    }

    /// Whether Ctrl-C stops the run.
    pub fn ctrl_c(&self) -> bool {
        self.ctrl_c
    }

    /// The run's own stop token, if any.
    pub fn stop_token(&self) -> Option<&StopToken> {
        self.stop_token.as_ref()
    }

    /// Checks that the run can end.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when none of generations, evaluations, target fitness, wall time or
    /// stagnation is set.
    pub fn validate(&self) -> Result<()> {
        let can_end = self.max_generations.is_some()
            || self.max_evaluations.is_some()
            || self.target_fitness.is_some()
            || self.max_wall_time.is_some()
            || self.stagnation.is_some();
        if can_end {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                "Termination",
                "stopping rules",
                "none",
                "at least one of max generations, max evaluations, target fitness, max wall time or stagnation",
            ))
        }
    }

    /// The first rule that holds, in the documented order. Polling Ctrl-C lowers its flag, so it is checked
    /// last and only when no other rule already ends the run.
    pub(crate) fn check(
        &self,
        progress: &Progress,
        elapsed: Duration,
        stagnation: &StagnationState,
    ) -> Option<TerminationReason> {
        if self
            .target_fitness
            .is_some_and(|target| progress.best_fitness <= target)
        {
            Some(TerminationReason::TargetFitness)
        } else if self
            .max_generations
            .is_some_and(|max| progress.generation >= max)
        {
            Some(TerminationReason::MaxGenerations)
        } else if self
            .max_evaluations
            .is_some_and(|max| progress.evaluations >= max)
        {
            Some(TerminationReason::MaxEvaluations)
        } else if self.max_wall_time.is_some_and(|max| elapsed >= max) {
            Some(TerminationReason::WallTime)
        } else if self
            .stagnation
            .is_some_and(|rule| stagnation.stagnant_generations >= rule.generations)
        {
            Some(TerminationReason::Stagnation)
        } else if self.stop_token.as_ref().is_some_and(StopToken::is_stopped)
            || (self.ctrl_c && take_interrupt())
        {
            Some(TerminationReason::Interrupted)
        } else {
            None
        }
    }

    /// The improvement threshold the stagnation counter uses (0 when no stagnation rule is set, so the
    /// counter still means "generations since the best last improved").
    pub(crate) fn min_improvement(&self) -> f64 {
        self.stagnation.map_or(0.0, |rule| rule.min_improvement)
    }
}

/// The stagnation counter, part of the executor's checkpointed state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct StagnationState {
    /// The best fitness at the last counted improvement.
    #[serde(with = "crate::serde_f64")]
    pub(crate) reference: f64,
    /// Generations since then.
    pub(crate) stagnant_generations: u64,
}

impl StagnationState {
    /// Starts counting from the initial best fitness.
    pub(crate) fn new(best_fitness: f64) -> Self {
        Self {
            reference: best_fitness,
            stagnant_generations: 0,
        }
    }

    /// Records one generation whose best fitness is `best_fitness`.
    pub(crate) fn update(&mut self, best_fitness: f64, min_improvement: f64) {
        if best_fitness < self.reference - min_improvement {
            self.reference = best_fitness;
            self.stagnant_generations = 0;
        } else {
            self.stagnant_generations += 1;
        }
    }
}
