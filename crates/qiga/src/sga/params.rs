//! The parameters of the SGA baseline, validated by `with_*` setters.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::options::KnapsackOptions;

mod raw;

/// The name errors give for the baseline.
pub(crate) const SGA: &str = "SGA";

/// The SGA baseline of the paper's §4 (spec qiga.md §7). Start from [`SgaParams::default`]:
///
/// | parameter | default | allowed |
/// | --- | --- | --- |
/// | population | 100 | 2 ..= 1024 |
/// | generations after the initial one | 50 | 1 ..= 2^32 − 2 |
/// | one-point crossover probability P_c | 0.65 | [0, 1] |
/// | per-bit mutation probability P_m | 0.05 | [0, 1] |
/// | knapsack options (repair, greedy seed, local search) | [`KnapsackOptions::PAPER`] (all off) | [`KnapsackOptions`] |
///
/// The options act as on the QIGA (module [`options`](crate::options)), adapted to a population:
/// [`Repair::Greedy`](crate::Repair::Greedy) repairs every individual of every generation; the greedy seed
/// replaces individual 0 of generation 0, after the repair, by the greedy solution (improved by the local
/// search when that is on) and starts the best so far there; the local search improves the individual that
/// replaces the best so far (step 6) in place, so the population and the elite carry the improvement.
///
/// Elitism of one (the previous best replaces the new worst when better) is always on.
///
/// ```
/// use evo_qiga::SgaParams;
/// let params = SgaParams::default().with_crossover_rate(0.9)?;
/// assert_eq!(params.population(), 100);
/// let error = SgaParams::default().with_mutation_rate(2.0).unwrap_err();
/// assert_eq!(error.to_string(), "SGA: mutation probability P_m must be in [0, 1], got 2");
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// Deserialization (a TOML or JSON file, the CLI's `--set`) runs every field through these setters, so it
/// refuses what they refuse with the same message; a missing field takes its default and an unknown field
/// is refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "raw::SgaParamsRaw")]
pub struct SgaParams {
    population: usize,
    generations: u64,
    crossover_rate: f32,
    mutation_rate: f32,
    /// Left out of the serialised form (and so of the fingerprint) while it is the paper's.
    #[serde(default, skip_serializing_if = "KnapsackOptions::is_paper")]
    options: KnapsackOptions,
}

/// The largest SGA population (one CUDA block holds one thread per individual).
pub const MAX_SGA_POPULATION: usize = 1024;

impl Default for SgaParams {
    fn default() -> Self {
        Self {
            population: 100,
            generations: 50,
            crossover_rate: 0.65,
            mutation_rate: 0.05,
            options: KnapsackOptions::PAPER,
        }
    }
}

impl SgaParams {
    /// Sets the population size.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `2 ..= 1024`.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        if !(2..=MAX_SGA_POPULATION).contains(&population) {
            return Err(Error::invalid_parameter(
                SGA,
                "population size",
                population,
                format!("in 2 ..= {MAX_SGA_POPULATION}"),
            ));
        }
        self.population = population;
        Ok(self)
    }

    /// Sets the number of generations after the initial one.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `1 ..= 2^32 − 2`.
    pub fn with_generations(mut self, generations: u64) -> Result<Self> {
        if !(1..=u64::from(u32::MAX) - 1).contains(&generations) {
            return Err(Error::invalid_parameter(
                SGA,
                "number of generations",
                generations,
                "in 1 ..= 2^32 − 2",
            ));
        }
        self.generations = generations;
        Ok(self)
    }

    /// Sets the one-point crossover probability P_c (per pair).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `[0, 1]`.
    pub fn with_crossover_rate(mut self, rate: f32) -> Result<Self> {
        if !(0.0..=1.0).contains(&rate) {
            return Err(Error::invalid_parameter(
                SGA,
                "crossover probability P_c",
                rate,
                "in [0, 1]",
            ));
        }
        self.crossover_rate = rate;
        Ok(self)
    }

    /// Sets the per-bit mutation probability P_m.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `[0, 1]`.
    pub fn with_mutation_rate(mut self, rate: f32) -> Result<Self> {
        if !(0.0..=1.0).contains(&rate) {
            return Err(Error::invalid_parameter(
                SGA,
                "mutation probability P_m",
                rate,
                "in [0, 1]",
            ));
        }
        self.mutation_rate = rate;
        Ok(self)
    }

    /// Sets the knapsack options (the paper's are all off; see the table above).
    pub fn with_options(mut self, options: KnapsackOptions) -> Self {
        self.options = options;
        self
    }

    /// The knapsack options.
    pub fn options(&self) -> KnapsackOptions {
        self.options
    }

    /// The population size.
    pub fn population(&self) -> usize {
        self.population
    }

    /// Generations after the initial one.
    pub fn generations(&self) -> u64 {
        self.generations
    }

    /// P_c.
    pub fn crossover_rate(&self) -> f32 {
        self.crossover_rate
    }

    /// P_m.
    pub fn mutation_rate(&self) -> f32 {
        self.mutation_rate
    }
}
