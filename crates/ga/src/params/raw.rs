//! The serde form of [`GaParams`]: every field read from a file goes through the setters, so a value read
//! from TOML, JSON or the CLI is refused exactly like one built in Rust.

use super::{GaParams, GaRng};
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default, an unknown one is refused (a misspelt key
/// would otherwise fall back to the default unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct GaParamsRaw {
    population: usize,
    tournament_size: usize,
    elite: usize,
    crossover_rate: f64,
    mutation_rate: Option<f64>,
    generations: u64,
    block: u32,
    rng: GaRng,
}

impl Default for GaParamsRaw {
    fn default() -> Self {
        let d = GaParams::default();
        Self {
            population: d.population,
            tournament_size: d.tournament_size,
            elite: d.elite,
            crossover_rate: d.crossover_rate,
            mutation_rate: d.mutation_rate,
            generations: d.generations,
            block: d.block,
            rng: d.rng,
        }
    }
}

impl TryFrom<GaParamsRaw> for GaParams {
    type Error = Error;

    /// The tournament and elite sizes are first lowered to their minimum so that only the final
    /// combination with the population is judged, not the order of the fields.
    fn try_from(raw: GaParamsRaw) -> Result<Self, Error> {
        let params = GaParams::default()
            .with_tournament_size(1)?
            .with_elite(0)?
            .with_population(raw.population)?
            .with_tournament_size(raw.tournament_size)?
            .with_elite(raw.elite)?
            .with_crossover_rate(raw.crossover_rate)?
            .with_generations(raw.generations)?
            .with_block_size(raw.block)?;
        let params = match raw.mutation_rate {
            Some(rate) => params.with_mutation_rate(rate)?,
            None => params,
        };
        match raw.rng {
            GaRng::Philox => Ok(params),
            GaRng::PaperXor128 { threads } => params.with_paper_rng(threads),
        }
    }
}
