//! `options=dict` turned into an algorithm's parameters through the crate's validating `with_*` setters, so
//! a value out of range is refused with the crate's own message (a `ValueError`).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{to_py, value_error};

/// One option: its key and the setter that takes it from a Python value.
type Setter<P> = (&'static str, fn(P, &Bound<'_, PyAny>) -> PyResult<P>);

/// Applies every key of `options` to `defaults` with its setter; an unknown key is a `ValueError` listing
/// the known ones.
fn apply<P>(
    algorithm: &str,
    defaults: P,
    options: Option<&Bound<'_, PyDict>>,
    setters: &[Setter<P>],
) -> PyResult<P> {
    let Some(options) = options else {
        return Ok(defaults);
    };
    let mut params = defaults;
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        let Some((_, set)) = setters.iter().find(|(name, _)| *name == key) else {
            let known: Vec<&str> = setters.iter().map(|(name, _)| *name).collect();
            return Err(value_error(format!(
                "{algorithm}: unknown option `{key}`; the options are {}",
                known.join(", ")
            )));
        };
        params = set(params, &value)?;
    }
    Ok(params)
}

/// DE's options: `population`, `differential_weight` (F), `crossover_rate` (CR).
pub fn de(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_de::DeParams> {
    apply(
        "de",
        evo_de::DeParams::default(),
        options,
        &[
            ("population", |p, v| {
                p.with_population(v.extract()?).map_err(to_py)
            }),
            ("differential_weight", |p, v| {
                p.with_differential_weight(v.extract()?).map_err(to_py)
            }),
            ("crossover_rate", |p, v| {
                p.with_crossover_rate(v.extract()?).map_err(to_py)
            }),
        ],
    )
}

/// MA-SW-Chains' options: `population`, `blx_alpha`, `nam_candidates`, `mutation_probability`,
/// `mutation_range`, `ls_ratio`, `ls_intensity`, `children_per_step`.
pub fn ma(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_ma_sw_chains::MaParams> {
    apply(
        "ma-sw-chains",
        evo_ma_sw_chains::MaParams::default(),
        options,
        &[
            ("population", |p, v| {
                p.with_population(v.extract()?).map_err(to_py)
            }),
            ("blx_alpha", |p, v| {
                p.with_blx_alpha(v.extract()?).map_err(to_py)
            }),
            ("nam_candidates", |p, v| {
                p.with_nam_candidates(v.extract()?).map_err(to_py)
            }),
            ("mutation_probability", |p, v| {
                p.with_mutation_probability(v.extract()?).map_err(to_py)
            }),
            ("mutation_range", |p, v| {
                p.with_mutation_range(v.extract()?).map_err(to_py)
            }),
            ("ls_ratio", |p, v| {
                p.with_ls_ratio(v.extract()?).map_err(to_py)
            }),
            ("ls_intensity", |p, v| {
                p.with_ls_intensity(v.extract()?).map_err(to_py)
            }),
            ("children_per_step", |p, v| {
                p.with_children_per_step(v.extract()?).map_err(to_py)
            }),
        ],
    )
}

/// The GA's options: `population`, `tournament_size`, `elite`, `crossover_rate`, `mutation_rate`.
pub fn ga(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_ga::GaParams> {
    apply(
        "ga",
        evo_ga::GaParams::default(),
        options,
        &[
            ("population", |p, v| {
                p.with_population(v.extract()?).map_err(to_py)
            }),
            ("tournament_size", |p, v| {
                p.with_tournament_size(v.extract()?).map_err(to_py)
            }),
            ("elite", |p, v| p.with_elite(v.extract()?).map_err(to_py)),
            ("crossover_rate", |p, v| {
                p.with_crossover_rate(v.extract()?).map_err(to_py)
            }),
            ("mutation_rate", |p, v| {
                p.with_mutation_rate(v.extract()?).map_err(to_py)
            }),
        ],
    )
}

/// DPGA's options: `main_size`, `reserve_size`, `bits_per_variable`, `crossover_rate`, `mutation_rate`,
/// `tournament_size`, `initialisation` (`"feasible"` or `"random"`), `init_max_draws`.
pub fn dpga(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_dpga::DpgaParams> {
    apply(
        "dpga",
        evo_dpga::DpgaParams::default(),
        options,
        &[
            ("main_size", |p, v| {
                p.with_main_size(v.extract()?).map_err(to_py)
            }),
            ("reserve_size", |p, v| {
                p.with_reserve_size(v.extract()?).map_err(to_py)
            }),
            ("bits_per_variable", |p, v| {
                p.with_bits_per_variable(v.extract()?).map_err(to_py)
            }),
            ("crossover_rate", |p, v| {
                p.with_crossover_rate(v.extract()?).map_err(to_py)
            }),
            ("mutation_rate", |p, v| {
                p.with_mutation_rate(v.extract()?).map_err(to_py)
            }),
            ("tournament_size", |p, v| {
                p.with_tournament_size(v.extract()?).map_err(to_py)
            }),
            ("initialisation", |p, v| {
                let name: String = v.extract()?;
                let initialisation = match name.as_str() {
                    "feasible" => evo_dpga::Initialisation::Feasible,
                    "random" => evo_dpga::Initialisation::Random,
                    _ => {
                        return Err(value_error(format!(
                            "dpga: initialisation must be \"feasible\" or \"random\", got \"{name}\""
                        )));
                    }
                };
                Ok(p.with_initialisation(initialisation))
            }),
            ("init_max_draws", |p, v| {
                p.with_init_max_draws(v.extract()?).map_err(to_py)
            }),
        ],
    )
}

/// QIGA's options: `population`, `generations`.
pub fn qiga(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_qiga::QigaParams> {
    apply(
        "qiga",
        evo_qiga::QigaParams::default(),
        options,
        &[
            ("population", |p, v| {
                p.with_population(v.extract()?).map_err(to_py)
            }),
            ("generations", |p, v| {
                p.with_generations(v.extract()?).map_err(to_py)
            }),
        ],
    )
}

/// The SGA's options: `population`, `generations`, `crossover_rate`, `mutation_rate`.
pub fn sga(options: Option<&Bound<'_, PyDict>>) -> PyResult<evo_qiga::SgaParams> {
    apply(
        "sga",
        evo_qiga::SgaParams::default(),
        options,
        &[
            ("population", |p, v| {
                p.with_population(v.extract()?).map_err(to_py)
            }),
            ("generations", |p, v| {
                p.with_generations(v.extract()?).map_err(to_py)
            }),
            ("crossover_rate", |p, v| {
                p.with_crossover_rate(v.extract()?).map_err(to_py)
            }),
            ("mutation_rate", |p, v| {
                p.with_mutation_rate(v.extract()?).map_err(to_py)
            }),
        ],
    )
}
