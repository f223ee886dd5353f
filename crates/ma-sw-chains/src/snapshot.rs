//! The whole state of a run as a plain host value, shared by [`MaCpu`](crate::MaCpu) and
//! [`MaCuda`](crate::MaCuda).

use crate::params::{ALGORITHM, MaParams};
use evo_core::{
    Bounds, ContinuousProblem, Error, ProblemIdentity, Result, RunFingerprint, snapshot_checks,
};
use serde::{Deserialize, Serialize};

/// The run's fingerprint, shared by [`MaCpu`](crate::MaCpu) and [`MaCuda`](crate::MaCuda): seed,
/// parameters and problem (name, dimension, bounds).
pub fn fingerprint<P: ContinuousProblem + ?Sized>(
    seed: u64,
    params: &MaParams,
    problem: &P,
) -> Result<RunFingerprint> {
    RunFingerprint::new(
        seed,
        params,
        ProblemIdentity::continuous(problem.name(), problem.bounds()),
    )
}

/// A Solis–Wets chain stored with a population slot (spec step 9): ρ, the bias vector and the counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// The step size ρ.
    pub rho: f32,
    /// Consecutive successes.
    pub successes: u32,
    /// Consecutive failures.
    pub failures: u32,
    /// The bias vector b (D values).
    pub bias: Vec<f32>,
}

/// The state after a memetic cycle (or right after initialisation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaSnapshot {
    /// The run's seed.
    pub seed: u64,
    /// D.
    pub dimension: usize,
    /// N rows of D genes, row-major; rows are physical slots (index-based sorting never moves them).
    pub population: Vec<f32>,
    /// The fitness of each slot.
    pub fitness: Vec<f64>,
    /// Each slot's non-improved counter (spec step 8: S_LS = slots whose counter is 0).
    pub non_improved: Vec<u32>,
    /// Each slot's stored chain, if any.
    pub chains: Vec<Option<Chain>>,
    /// Evaluations so far, initialisation included.
    pub evaluations: u64,
    /// Memetic cycles completed.
    pub cycles: u64,
    /// Children created so far (the SSGA draws' step counter).
    pub children: u32,
    /// Solis–Wets iterations so far (the noise's step counter).
    pub ls_iterations: u32,
    /// Restarts so far (the restart draws' step counter).
    pub restarts: u32,
}

impl MaSnapshot {
    /// Checks the values `restore` takes (after the shape, which the engine checks): finite fitness, genes
    /// within the problem's bounds (every operator keeps them there), every chain's ρ finite and positive
    /// and its bias finite, and at least one evaluation per slot and per memetic cycle (`evaluations ≥ N +
    /// cycles`).
    ///
    /// # Errors
    /// [`Error::InvalidSnapshot`] naming the first value out of range.
    pub fn check_values(&self, bounds: &Bounds) -> Result<()> {
        snapshot_checks::finite(ALGORITHM, "fitness", &self.fitness)?;
        snapshot_checks::within_bounds(ALGORITHM, "population", &self.population, bounds)?;
        for (slot, chain) in self.chains.iter().enumerate() {
            let Some(chain) = chain else { continue };
            if !(chain.rho.is_finite() && chain.rho > 0.0) {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    format!("chains[{slot}].rho"),
                    chain.rho,
                    "a finite step size > 0",
                ));
            }
            if let Some(j) = chain.bias.iter().position(|b| !b.is_finite()) {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    format!("chains[{slot}].bias[{j}]"),
                    chain.bias[j],
                    "a finite number",
                ));
            }
        }
        let least = (self.fitness.len() as u64).checked_add(self.cycles);
        match least {
            Some(least) if self.evaluations >= least => Ok(()),
            _ => Err(Error::invalid_snapshot(
                ALGORITHM,
                "evaluations",
                self.evaluations,
                format!(
                    "at least N + cycles = {} + {} (each cycle evaluates)",
                    self.fitness.len(),
                    self.cycles
                ),
            )),
        }
    }

    /// N.
    pub fn population_size(&self) -> usize {
        self.fitness.len()
    }

    /// The best slot by the total order (fitness by `total_cmp`, then the lower index).
    pub fn best_slot(&self) -> usize {
        crate::plan::best_slot(&self.fitness)
    }
}
