//! The whole state of a DE run, shared by the CPU and CUDA engines.

use crate::local_search::LocalSearch;
use crate::params::{ALGORITHM, DeParams};
use evo_core::{
    ContinuousProblem, Error, ProblemIdentity, Result, RunFingerprint, snapshot_checks,
};
use serde::{Deserialize, Serialize};

/// The run's fingerprint, shared by [`DeCpu`](crate::DeCpu) and [`DeCuda`](crate::DeCuda): the seed, the
/// parameters (the CUDA block size left out: results do not depend on it), the local search settings and
/// the problem (name, dimension and bounds; an ETC problem's name carries its instance's name).
pub(crate) fn fingerprint<P: ContinuousProblem + ?Sized>(
    seed: u64,
    params: &DeParams,
    problem: &P,
    local_search: Option<LocalSearch>,
) -> Result<RunFingerprint> {
    let identity = ProblemIdentity::continuous(problem.name(), problem.bounds());
    let mut fingerprint = RunFingerprint::new(seed, params, identity)?
        .with_parameter("local_search", &local_search)?;
    fingerprint.parameters.remove("block");
    Ok(fingerprint)
}

/// A DE run's state after a generation: restoring it on either backend continues the run bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeSnapshot {
    /// Generations completed; the next generation draws with step = this value.
    pub generation: u64,
    /// Evaluations so far (`M` for the initial population, then `M` per generation).
    pub evaluations: u64,
    /// The population size `M`.
    pub population_size: usize,
    /// The dimension `D`.
    pub dimension: usize,
    /// The population, row-major `M × D`.
    pub population: Vec<f32>,
    /// Its fitness.
    pub fitness: Vec<f64>,
    /// Every vector's `F_i` (constant without jDE).
    pub differential_weights: Vec<f32>,
    /// Every vector's `CR_i` (constant without jDE).
    pub crossover_rates: Vec<f32>,
}

impl DeSnapshot {
    /// Checks everything [`restore`](evo_core::Engine::restore) needs before taking the snapshot: the shape,
    /// counters that DE's arithmetic reaches (`evaluations = M·(generation + 1)`, `generation` below 2^32,
    /// the Philox step word), finite fitness, coordinates within the problem's bounds (DE repairs every trial
    /// into them, step 3.2), and every `F_i` in [0, 2] and `CR_i` in [0, 1].
    pub(crate) fn check_values<P: ContinuousProblem + ?Sized>(
        &self,
        population: usize,
        problem: &P,
    ) -> Result<()> {
        self.check_shape(population, problem.dimension())?;
        snapshot_checks::at_most(
            ALGORITHM,
            "generation",
            self.generation,
            u64::from(u32::MAX),
            "the Philox step word is 32 bits",
        )?;
        snapshot_checks::counter(
            ALGORITHM,
            "evaluations",
            self.evaluations,
            (population as u64).checked_mul(self.generation + 1),
            "M · (generation + 1)",
        )?;
        snapshot_checks::finite(ALGORITHM, "fitness", &self.fitness)?;
        snapshot_checks::within_bounds(
            ALGORITHM,
            "population",
            &self.population,
            problem.bounds(),
        )?;
        snapshot_checks::in_range(
            ALGORITHM,
            "differential_weights",
            &self.differential_weights,
            0.0,
            2.0,
        )?;
        snapshot_checks::in_range(
            ALGORITHM,
            "crossover_rates",
            &self.crossover_rates,
            0.0,
            1.0,
        )
    }

    /// Checks that the snapshot has the shape of an engine with `population × dimension`.
    pub(crate) fn check_shape(&self, population: usize, dimension: usize) -> Result<()> {
        let consistent = self.population_size == population
            && self.dimension == dimension
            && self.population.len() == population * dimension
            && self.fitness.len() == population
            && self.differential_weights.len() == population
            && self.crossover_rates.len() == population;
        if consistent {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                ALGORITHM,
                "snapshot shape",
                format!(
                    "M = {}, D = {} ({} coordinates, {} fitness values)",
                    self.population_size,
                    self.dimension,
                    self.population.len(),
                    self.fitness.len()
                ),
                format!("M = {population}, D = {dimension} with consistent lengths"),
            ))
        }
    }
}
