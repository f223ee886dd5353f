//! The serde form of [`DeParams`]: every field read from a file goes through the setters, so a value read
//! from TOML, JSON or the CLI is refused exactly like one built in Rust.

use super::{Adaptation, Crossover, DeParams, Selection, Strategy};
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default, an unknown one is refused (a misspelt key
/// would otherwise fall back to the default unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct DeParamsRaw {
    population: usize,
    differential_weight: f32,
    crossover_rate: f32,
    strategy: Strategy,
    crossover: Crossover,
    selection: Selection,
    adaptation: Adaptation,
    block: u32,
}

impl Default for DeParamsRaw {
    fn default() -> Self {
        let d = DeParams::default();
        Self {
            population: d.population,
            differential_weight: d.differential_weight,
            crossover_rate: d.crossover_rate,
            strategy: d.strategy,
            crossover: d.crossover,
            selection: d.selection,
            adaptation: d.adaptation,
            block: d.block,
        }
    }
}

impl TryFrom<DeParamsRaw> for DeParams {
    type Error = Error;

    fn try_from(raw: DeParamsRaw) -> Result<Self, Error> {
        Ok(DeParams::default()
            .with_population(raw.population)?
            .with_differential_weight(raw.differential_weight)?
            .with_crossover_rate(raw.crossover_rate)?
            .with_block_size(raw.block)?
            .with_strategy(raw.strategy)
            .with_crossover(raw.crossover)
            .with_selection(raw.selection)
            .with_adaptation(raw.adaptation))
    }
}
