//! The whole state of a run as a plain host value, shared by [`MaCpu`](crate::MaCpu) and
//! [`MaCuda`](crate::MaCuda).

use serde::{Deserialize, Serialize};

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
    /// N.
    pub fn population_size(&self) -> usize {
        self.fitness.len()
    }

    /// The best slot by the total order (fitness by `total_cmp`, then the lower index).
    pub fn best_slot(&self) -> usize {
        crate::plan::best_slot(&self.fitness)
    }
}
