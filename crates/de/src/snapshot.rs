//! The whole state of a DE run, shared by the CPU and CUDA engines.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

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
                crate::params::ALGORITHM,
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
