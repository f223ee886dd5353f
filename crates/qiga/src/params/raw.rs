//! The serde form of [`QigaParams`]: every field read from a file goes through the setters, so a value
//! read from TOML, JSON or the CLI is refused exactly like one built in Rust.

use super::{QigaParams, QuadrantRule, RotationAngles, SignChoice};
use crate::options::KnapsackOptions;
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default (the options the paper's, as when they are
/// skipped on output), an unknown one is refused (a misspelt key would otherwise fall back unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct QigaParamsRaw {
    population: usize,
    /// Checked by `RotationAngles`' own deserialization.
    angles: RotationAngles,
    sign: SignChoice,
    quadrant: QuadrantRule,
    generations: u64,
    block: u32,
    options: KnapsackOptions,
}

impl Default for QigaParamsRaw {
    fn default() -> Self {
        let d = QigaParams::default();
        Self {
            population: d.population,
            angles: d.angles,
            sign: d.sign,
            quadrant: d.quadrant,
            generations: d.generations,
            block: d.block,
            options: d.options,
        }
    }
}

impl TryFrom<QigaParamsRaw> for QigaParams {
    type Error = Error;

    fn try_from(raw: QigaParamsRaw) -> Result<Self, Error> {
        Ok(QigaParams::default()
            .with_population(raw.population)?
            .with_generations(raw.generations)?
            .with_block_size(raw.block)?
            .with_rotation_angles(raw.angles)
            .with_sign_choice(raw.sign)
            .with_quadrant_rule(raw.quadrant)
            .with_options(raw.options))
    }
}
