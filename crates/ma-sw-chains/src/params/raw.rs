//! The serde form of [`MaParams`]: every field read from a file goes through the setters, so a value read
//! from TOML, JSON or the CLI is refused exactly like one built in Rust.

use super::MaParams;
use evo_core::Error;
use serde::Deserialize;

/// The fields as written; a missing field takes the default, an unknown one is refused (a misspelt key
/// would otherwise fall back to the default unnoticed).
#[derive(Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(super) struct MaParamsRaw {
    population: usize,
    blx_alpha: f32,
    nam_candidates: usize,
    mutation_probability: f32,
    mutation_range: f32,
    ls_ratio: f64,
    ls_intensity: u64,
    min_improvement: f64,
    rho_init: f32,
    rho_half_nearest: bool,
    success_limit: u32,
    failure_limit: u32,
    rho_expand: f32,
    rho_contract: f32,
    restart: bool,
    children_per_step: usize,
    max_evaluations: u64,
}

impl Default for MaParamsRaw {
    fn default() -> Self {
        let d = MaParams::default();
        Self {
            population: d.population,
            blx_alpha: d.blx_alpha,
            nam_candidates: d.nam_candidates,
            mutation_probability: d.mutation_probability,
            mutation_range: d.mutation_range,
            ls_ratio: d.ls_ratio,
            ls_intensity: d.ls_intensity,
            min_improvement: d.min_improvement,
            rho_init: d.rho_init,
            rho_half_nearest: d.rho_half_nearest,
            success_limit: d.success_limit,
            failure_limit: d.failure_limit,
            rho_expand: d.rho_expand,
            rho_contract: d.rho_contract,
            restart: d.restart,
            children_per_step: d.children_per_step,
            max_evaluations: d.max_evaluations,
        }
    }
}

impl TryFrom<MaParamsRaw> for MaParams {
    type Error = Error;

    /// Only the final combination is judged, not the order of the fields: the budget is opened wide first
    /// and set last (population and budget are checked against each other), the population comes before
    /// the NAM candidates checked against it, and the LS intensity before the LS ratio checked against it.
    fn try_from(raw: MaParamsRaw) -> Result<Self, Error> {
        Ok(MaParams::default()
            .with_max_evaluations(u64::from(u32::MAX))?
            .with_population(raw.population)?
            .with_nam_candidates(raw.nam_candidates)?
            .with_blx_alpha(raw.blx_alpha)?
            .with_mutation_probability(raw.mutation_probability)?
            .with_mutation_range(raw.mutation_range)?
            .with_ls_intensity(raw.ls_intensity)?
            .with_ls_ratio(raw.ls_ratio)?
            .with_min_improvement(raw.min_improvement)?
            .with_rho_init(raw.rho_init)?
            .with_sw_limits(raw.success_limit, raw.failure_limit)?
            .with_rho_factors(raw.rho_expand, raw.rho_contract)?
            .with_children_per_step(raw.children_per_step)?
            .with_max_evaluations(raw.max_evaluations)?
            .with_rho_half_nearest(raw.rho_half_nearest)
            .with_restart(raw.restart))
    }
}
