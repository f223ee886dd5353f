//! The serde form of [`SgaParams`]: every field read from a file goes through the setters, so a value read
//! from TOML, JSON or the CLI is refused exactly like one built in Rust.

use super::SgaParams;
use crate::options::KnapsackOptions;
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default, an unknown one is refused (a misspelt key
/// would otherwise fall back to the default unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct SgaParamsRaw {
    population: usize,
    generations: u64,
    crossover_rate: f32,
    mutation_rate: f32,
    options: KnapsackOptions,
}

impl Default for SgaParamsRaw {
    fn default() -> Self {
        let d = SgaParams::default();
        Self {
            population: d.population,
            generations: d.generations,
            crossover_rate: d.crossover_rate,
            mutation_rate: d.mutation_rate,
            options: d.options,
        }
    }
}

impl TryFrom<SgaParamsRaw> for SgaParams {
    type Error = Error;

    fn try_from(raw: SgaParamsRaw) -> Result<Self, Error> {
        Ok(SgaParams::default()
            .with_population(raw.population)?
            .with_generations(raw.generations)?
            .with_crossover_rate(raw.crossover_rate)?
            .with_mutation_rate(raw.mutation_rate)?
            .with_options(raw.options))
    }
}
