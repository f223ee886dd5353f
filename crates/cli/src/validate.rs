//! Deserialized parameters rebuilt through the crates' validating `with_*` setters.
//!
//! The params types derive `Deserialize` on their private fields, so serde accepts any value of the right
//! type; the ranges live in the setters. Each function here starts from the defaults and calls every setter
//! with the deserialized value, so a value out of range gets the crate's own message, prefixed with the key.
//! Setters that check one field against another are called in an order whose intermediate states are always
//! allowed, so only the final combination can be refused. A field the rebuild does not carry over (a field
//! added to a crate and not here) is an error rather than a silently dropped value.

use anyhow::{Result, anyhow, bail};
use serde::Serialize;
use serde_json::Value;

/// The crate's result for `key`, its error prefixed with the key.
fn check<T>(key: &str, result: evo_core::Result<T>) -> Result<T> {
    result.map_err(|error| anyhow!("parameter `{key}`: {error}"))
}

/// Refuses a rebuild that lost a field of the deserialized value, naming the fields.
fn same<T: Serialize + PartialEq>(what: &str, rebuilt: T, given: &T) -> Result<T> {
    if &rebuilt == given {
        return Ok(rebuilt);
    }
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) =
        (serde_json::to_value(&rebuilt), serde_json::to_value(given))
    else {
        bail!("the parameters of {what} could not be compared after validation");
    };
    let lost: Vec<&str> = a
        .iter()
        .filter(|(key, value)| b.get(*key) != Some(*value))
        .map(|(key, _)| key.as_str())
        .collect();
    bail!(
        "the parameters {} of {what} are not covered by this version of evo's validation; set them through \
         the Rust API",
        lost.join(", ")
    )
}

/// A raw optional field (`null` or a number) of a params value, for setters whose getter resolves it.
fn optional_number(params: &impl Serialize, key: &str) -> Result<Option<f64>> {
    let value = serde_json::to_value(params)?;
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .map(Some)
            .ok_or_else(|| anyhow!("parameter `{key}`: {value} is not a number")),
    }
}

/// DE: every setter of [`evo_de::DeParams`].
pub fn de(p: evo_de::DeParams) -> Result<evo_de::DeParams> {
    let v = evo_de::DeParams::default();
    let v = check("population", v.with_population(p.population()))?;
    let v = check(
        "differential_weight",
        v.with_differential_weight(p.differential_weight()),
    )?;
    let v = check("crossover_rate", v.with_crossover_rate(p.crossover_rate()))?;
    let v = check("block", v.with_block_size(p.block_size()))?
        .with_strategy(p.strategy())
        .with_crossover(p.crossover())
        .with_selection(p.selection())
        .with_adaptation(p.adaptation());
    same("de", v, &p)
}

/// GA: the population first, since the tournament and elite sizes are checked against it.
pub fn ga(p: evo_ga::GaParams) -> Result<evo_ga::GaParams> {
    let v = evo_ga::GaParams::default();
    let v = check("population", v.with_population(p.population()))?;
    let v = check(
        "tournament_size",
        v.with_tournament_size(p.tournament_size()),
    )?;
    let v = check("elite", v.with_elite(p.elite()))?;
    let v = check("crossover_rate", v.with_crossover_rate(p.crossover_rate()))?;
    let v = match optional_number(&p, "mutation_rate")? {
        Some(rate) => check("mutation_rate", v.with_mutation_rate(rate))?,
        None => v,
    };
    let v = check("generations", v.with_generations(p.generations()))?;
    let v = check("block", v.with_block_size(p.block_size()))?;
    let v = match p.rng() {
        evo_ga::GaRng::Philox => v,
        evo_ga::GaRng::PaperXor128 { threads } => check("rng", v.with_paper_rng(threads))?,
    };
    same("ga", v, &p)
}

/// QIGA (the angles are checked by `RotationAngles`' own deserialization).
pub fn qiga(p: evo_qiga::QigaParams) -> Result<evo_qiga::QigaParams> {
    let v = evo_qiga::QigaParams::default();
    let v = check("population", v.with_population(p.population()))?;
    let v = check("angles", v.with_angles(p.angles().angles()))?;
    let v = check("generations", v.with_generations(p.generations()))?;
    let v = check("block", v.with_block_size(p.block_size()))?
        .with_sign_choice(p.sign_choice())
        .with_quadrant_rule(p.quadrant_rule());
    same("qiga", v, &p)
}

/// SGA.
pub fn sga(p: evo_qiga::SgaParams) -> Result<evo_qiga::SgaParams> {
    let v = evo_qiga::SgaParams::default();
    let v = check("population", v.with_population(p.population()))?;
    let v = check("generations", v.with_generations(p.generations()))?;
    let v = check("crossover_rate", v.with_crossover_rate(p.crossover_rate()))?;
    let v = check("mutation_rate", v.with_mutation_rate(p.mutation_rate()))?;
    same("sga", v, &p)
}

/// DPGA.
pub fn dpga(p: evo_dpga::DpgaParams) -> Result<evo_dpga::DpgaParams> {
    let v = evo_dpga::DpgaParams::default();
    let v = check("main_size", v.with_main_size(p.main_size()))?;
    let v = check("reserve_size", v.with_reserve_size(p.reserve_size()))?;
    let v = check(
        "bits_per_variable",
        v.with_bits_per_variable(p.bits_per_variable()),
    )?;
    let v = check("crossover_rate", v.with_crossover_rate(p.crossover_rate()))?;
    let v = match optional_number(&p, "mutation_rate")? {
        // The field is an f32 that serialized through f64, so the conversion back is exact.
        Some(rate) => check("mutation_rate", v.with_mutation_rate(rate as f32))?,
        None => v,
    };
    let v = check("elitism_rate", v.with_elitism_rate(p.elitism_rate()))?;
    let v = check(
        "crossbreed_rate",
        v.with_crossbreed_rate(p.crossbreed_rate()),
    )?;
    let v = check(
        "tournament_size",
        v.with_tournament_size(p.tournament_size()),
    )?;
    let v = check("init_max_draws", v.with_init_max_draws(p.init_max_draws()))?;
    let (min, max) = p.target_distance_range();
    let v = check(
        "initial_target_distance, distance_learning_rate, min_target_distance, max_target_distance",
        v.with_target_distance(
            p.initial_target_distance(),
            p.distance_learning_rate(),
            min,
            max,
        ),
    )?
    .with_crossover(p.crossover())
    .with_encoding(p.encoding())
    .with_constraint_handling(p.constraint_handling())
    .with_initialisation(p.initialisation());
    same("dpga", v, &p)
}

/// MA-SW-Chains: the budget is opened wide first and set last, because the population is checked against
/// it and it against the population; the LS intensity comes before the LS ratio that is checked against it.
pub fn ma(p: evo_ma_sw_chains::MaParams) -> Result<evo_ma_sw_chains::MaParams> {
    let v = evo_ma_sw_chains::MaParams::default();
    let v = check(
        "max_evaluations",
        v.with_max_evaluations(u64::from(u32::MAX)),
    )?;
    let v = check("population", v.with_population(p.population()))?;
    let v = check("nam_candidates", v.with_nam_candidates(p.nam_candidates()))?;
    let v = check("blx_alpha", v.with_blx_alpha(p.blx_alpha()))?;
    let v = check(
        "mutation_probability",
        v.with_mutation_probability(p.mutation_probability()),
    )?;
    let v = check("mutation_range", v.with_mutation_range(p.mutation_range()))?;
    let v = check("ls_intensity", v.with_ls_intensity(p.ls_intensity()))?;
    let v = check("ls_ratio", v.with_ls_ratio(p.ls_ratio()))?;
    let v = check(
        "min_improvement",
        v.with_min_improvement(p.min_improvement()),
    )?;
    let v = check("rho_init", v.with_rho_init(p.rho_init()))?;
    let v = check(
        "success_limit, failure_limit",
        v.with_sw_limits(p.success_limit(), p.failure_limit()),
    )?;
    let v = check(
        "rho_expand, rho_contract",
        v.with_rho_factors(p.rho_expand(), p.rho_contract()),
    )?;
    let v = check(
        "children_per_step",
        v.with_children_per_step(p.children_per_step()),
    )?;
    let v = check(
        "max_evaluations",
        v.with_max_evaluations(p.max_evaluations()),
    )?
    .with_rho_half_nearest(p.rho_half_nearest())
    .with_restart(p.restart());
    same("ma-sw-chains", v, &p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::Algorithm;
    use crate::params::{AlgorithmParams, resolve};

    fn sets(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    fn error(algorithm: Algorithm, items: &[&str]) -> String {
        format!("{:#}", resolve(algorithm, None, &sets(items)).unwrap_err())
    }

    #[test]
    fn a_lost_field_is_an_error_naming_it() {
        let given = evo_de::DeParams::default().with_population(8).unwrap();
        let text = same("de", evo_de::DeParams::default(), &given)
            .unwrap_err()
            .to_string();
        assert!(text.contains("parameters population of de"), "{text}");
    }

    #[test]
    fn only_the_final_combination_is_judged() {
        // Each of these passes through a state the setters would refuse if applied in the file's order.
        let ma = resolve(
            Algorithm::MaSwChains,
            None,
            &sets(&["population=2000000", "max_evaluations=10000000"]),
        )
        .unwrap()
        .params;
        assert!(matches!(ma, AlgorithmParams::Ma(p) if p.population() == 2_000_000));
        let ma = resolve(
            Algorithm::MaSwChains,
            None,
            &sets(&["population=10", "max_evaluations=30"]),
        )
        .unwrap()
        .params;
        assert!(matches!(ma, AlgorithmParams::Ma(p) if p.max_evaluations() == 30));
        let ga = resolve(
            Algorithm::Ga,
            None,
            &sets(&["tournament_size=300", "population=512"]),
        )
        .unwrap()
        .params;
        assert!(matches!(ga, AlgorithmParams::Ga(p) if p.tournament_size() == 300));
    }

    #[test]
    fn a_refused_value_or_combination_is_explained() {
        // Keys that fit alone but not together: the crate's own message names the parameters.
        let text = error(
            Algorithm::MaSwChains,
            &["population=1000", "max_evaluations=500"],
        );
        assert!(
            text.starts_with("the parameters of ma-sw-chains do not fit together"),
            "{text}"
        );
        assert!(
            text.contains("evaluation budget must be at least the population size 1000, got 500"),
            "{text}"
        );
        let text = error(Algorithm::Ga, &["population=4", "elite=4"]);
        assert!(
            text.starts_with("the parameters of ga do not fit together"),
            "{text}"
        );
        assert!(text.contains("elite"), "{text}");
        // A key that does not fit even alone is named.
        let text = error(Algorithm::Dpga, &["main_size=7"]);
        assert!(text.starts_with("parameter `main_size`"), "{text}");
        let text = error(Algorithm::Qiga, &["angles=[0.1, 0.1, 0.1, 0.1, 0.5]"]);
        assert!(text.contains("parameter `angles` of qiga"), "{text}");
        let text = error(Algorithm::Ga, &["rng={ PaperXor128 = { threads = 0 } }"]);
        assert!(text.starts_with("parameter `rng`"), "{text}");
        let text = error(Algorithm::Sga, &["mutation_rate=2"]);
        assert!(text.contains("P_m must be in [0, 1], got 2"), "{text}");
    }
}
