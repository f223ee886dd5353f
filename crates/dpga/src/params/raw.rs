//! The serde form of [`DpgaParams`]: every field read from a file goes through the setters, so a value
//! read from TOML, JSON or the CLI is refused exactly like one built in Rust. The relations between fields
//! (tournament size against the populations, draws against `m`, `|C|` against `n`) are left to the engine,
//! as for a value built in Rust.

use super::{ConstraintHandling, Crossover, DpgaParams, Encoding, Initialisation, binary_encoding};
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default (the encoding binary, as snapshots written
/// before the option existed were), an unknown one is refused (a misspelt key would otherwise fall back to
/// the default unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct DpgaParamsRaw {
    main_size: usize,
    reserve_size: usize,
    bits_per_variable: u32,
    crossover_rate: f32,
    mutation_rate: Option<f32>,
    elitism_rate: f64,
    crossbreed_rate: f64,
    tournament_size: usize,
    crossover: Crossover,
    #[serde(default = "binary_encoding")]
    encoding: Encoding,
    constraint_handling: ConstraintHandling,
    initialisation: Initialisation,
    init_max_draws: u64,
    initial_target_distance: f64,
    distance_learning_rate: f64,
    min_target_distance: f64,
    max_target_distance: f64,
}

impl Default for DpgaParamsRaw {
    fn default() -> Self {
        let d = DpgaParams::default();
        Self {
            main_size: d.main_size,
            reserve_size: d.reserve_size,
            bits_per_variable: d.bits_per_variable,
            crossover_rate: d.crossover_rate,
            mutation_rate: d.mutation_rate,
            elitism_rate: d.elitism_rate,
            crossbreed_rate: d.crossbreed_rate,
            tournament_size: d.tournament_size,
            crossover: d.crossover,
            encoding: d.encoding,
            constraint_handling: d.constraint_handling,
            initialisation: d.initialisation,
            init_max_draws: d.init_max_draws,
            initial_target_distance: d.initial_target_distance,
            distance_learning_rate: d.distance_learning_rate,
            min_target_distance: d.min_target_distance,
            max_target_distance: d.max_target_distance,
        }
    }
}

impl TryFrom<DpgaParamsRaw> for DpgaParams {
    type Error = Error;

    fn try_from(raw: DpgaParamsRaw) -> Result<Self, Error> {
        let params = DpgaParams::default()
            .with_main_size(raw.main_size)?
            .with_reserve_size(raw.reserve_size)?
            .with_bits_per_variable(raw.bits_per_variable)?
            .with_crossover_rate(raw.crossover_rate)?
            .with_elitism_rate(raw.elitism_rate)?
            .with_crossbreed_rate(raw.crossbreed_rate)?
            .with_tournament_size(raw.tournament_size)?
            .with_init_max_draws(raw.init_max_draws)?
            .with_target_distance(
                raw.initial_target_distance,
                raw.distance_learning_rate,
                raw.min_target_distance,
                raw.max_target_distance,
            )?
            .with_crossover(raw.crossover)
            .with_encoding(raw.encoding)
            .with_constraint_handling(raw.constraint_handling)
            .with_initialisation(raw.initialisation);
        match raw.mutation_rate {
            Some(rate) => params.with_mutation_rate(rate),
            None => Ok(params),
        }
    }
}
