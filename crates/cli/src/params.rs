//! An algorithm's parameters from its crate's serde type: the defaults, then a TOML file, then `--set`.
//!
//! The defaults are serialized to a JSON object whose keys are the Rust type's field names; the file and the
//! `--set` values replace whole keys (an unknown key is an error listing the known ones); the object is then
//! deserialized, one changed key at a time so that a type error names its key, and rebuilt through the
//! crate's validating setters ([`crate::validate`]) so that a value out of range is refused as the Rust API
//! refuses it.

use anyhow::{Context, Result, anyhow, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::path::Path;

use crate::algorithm::Algorithm;
use crate::validate;

/// The validated parameters of one algorithm.
#[derive(Clone, Debug, PartialEq)]
pub enum AlgorithmParams {
    /// `de`.
    De(evo_de::DeParams),
    /// `ga`.
    Ga(evo_ga::GaParams),
    /// `qiga`.
    Qiga(evo_qiga::QigaParams),
    /// `sga`.
    Sga(evo_qiga::SgaParams),
    /// `dpga`.
    Dpga(evo_dpga::DpgaParams),
    /// `ma-sw-chains`.
    Ma(evo_ma_sw_chains::MaParams),
}

/// The default parameters of `algorithm` as a JSON object keyed by field name.
pub fn defaults(algorithm: Algorithm) -> Result<Map<String, Value>> {
    let value = match algorithm {
        Algorithm::De => to_value(&evo_de::DeParams::default()),
        Algorithm::Ga => to_value(&evo_ga::GaParams::default()),
        Algorithm::Qiga => to_value(&evo_qiga::QigaParams::default()),
        Algorithm::Sga => to_value(&evo_qiga::SgaParams::default()),
        Algorithm::Dpga => to_value(&evo_dpga::DpgaParams::default()),
        Algorithm::MaSwChains => to_value(&evo_ma_sw_chains::MaParams::default()),
    }?;
    match value {
        Value::Object(map) => Ok(map),
        other => {
            bail!("the default parameters of {algorithm} serialize to {other}, not to a table")
        }
    }
}

fn to_value(params: &impl Serialize) -> Result<Value> {
    serde_json::to_value(params).context("serializing parameters")
}

/// What `--config` and `--set` give: the algorithm's parameters, and the island model's keys
/// ([`crate::islands::KEYS`]) apart.
#[derive(Debug)]
pub struct Resolved {
    /// The validated parameters.
    pub params: AlgorithmParams,
    /// The island keys as given (judged by [`crate::islands::resolve`]).
    pub islands: Map<String, Value>,
}

/// The parameters of `algorithm`: its defaults, then the TOML file `config`, then each `key=value` of `sets`;
/// the island keys go apart.
///
/// # Errors
/// A file that cannot be read or is not TOML, a `--set` without `=`, an unknown key (the message lists the
/// known ones), a value of the wrong type, or a value the crate's setters refuse (the message names the
/// key and the allowed range).
pub fn resolve(algorithm: Algorithm, config: Option<&Path>, sets: &[String]) -> Result<Resolved> {
    let defaults = defaults(algorithm)?;
    let mut merged = defaults.clone();
    let mut islands = Map::new();
    if let Some(path) = config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the parameter file {}", path.display()))?;
        let table: toml::Table = toml::from_str(&text).map_err(|error| {
            anyhow!(
                "the parameter file {} is not valid TOML: {error}",
                path.display()
            )
        })?;
        for (key, value) in table {
            let value = serde_json::to_value(&value)
                .with_context(|| format!("parameter `{key}` in {}", path.display()))?;
            if crate::islands::KEYS.contains(&key.as_str()) {
                islands.insert(key, value);
                continue;
            }
            set_key(algorithm, &defaults, &mut merged, &key, value)
                .with_context(|| format!("in the parameter file {}", path.display()))?;
        }
    }
    for assignment in sets {
        let (key, text) = assignment.split_once('=').ok_or_else(|| {
            anyhow!("--set `{assignment}` must be written key=value (e.g. --set population=128)")
        })?;
        let key = key.trim();
        if crate::islands::KEYS.contains(&key) {
            islands.insert(key.to_string(), parse_value(text.trim()));
            continue;
        }
        set_key(
            algorithm,
            &defaults,
            &mut merged,
            key,
            parse_value(text.trim()),
        )?;
    }
    Ok(Resolved {
        params: from_map(algorithm, &defaults, merged)?,
        islands,
    })
}

/// A `--set` value: a TOML value (`128`, `0.5`, `true`, `[0, 0.1]`, `{ PaperXor128 = { threads = 64 } }`),
/// or else the bare text as a string, so enum variants need no quotes (`--set strategy=Best1`).
fn parse_value(text: &str) -> Value {
    let parsed: Option<toml::Table> = toml::from_str(&format!("value = {text}")).ok();
    parsed
        .and_then(|mut table| table.remove("value"))
        .and_then(|value| serde_json::to_value(value).ok())
        .unwrap_or_else(|| Value::String(text.to_string()))
}

/// Replaces `key` in `merged`, refusing a key the parameter type does not have.
fn set_key(
    algorithm: Algorithm,
    defaults: &Map<String, Value>,
    merged: &mut Map<String, Value>,
    key: &str,
    value: Value,
) -> Result<()> {
    if !defaults.contains_key(key) {
        let known: Vec<&str> = defaults.keys().map(String::as_str).collect();
        bail!(
            "unknown parameter `{key}` for {algorithm}; known parameters: {} (`evo list` shows their \
             defaults and ranges)",
            known.join(", ")
        );
    }
    merged.insert(key.to_string(), value);
    Ok(())
}

/// Deserializes `merged` and validates it through the crate's setters.
pub fn from_map(
    algorithm: Algorithm,
    defaults: &Map<String, Value>,
    merged: Map<String, Value>,
) -> Result<AlgorithmParams> {
    Ok(match algorithm {
        Algorithm::De => AlgorithmParams::De(validate::de(typed(algorithm, defaults, merged)?)?),
        Algorithm::Ga => AlgorithmParams::Ga(validate::ga(typed(algorithm, defaults, merged)?)?),
        Algorithm::Qiga => {
            AlgorithmParams::Qiga(validate::qiga(typed(algorithm, defaults, merged)?)?)
        }
        Algorithm::Sga => AlgorithmParams::Sga(validate::sga(typed(algorithm, defaults, merged)?)?),
        Algorithm::Dpga => {
            AlgorithmParams::Dpga(validate::dpga(typed(algorithm, defaults, merged)?)?)
        }
        Algorithm::MaSwChains => {
            AlgorithmParams::Ma(validate::ma(typed(algorithm, defaults, merged)?)?)
        }
    })
}

/// Deserializes the merged object. The params types validate through their own setters, so the whole set
/// is judged first (a combination may need several keys changed together); only when it is refused is each
/// changed key tried alone against the defaults, to name the key whose value does not fit by itself.
fn typed<T: DeserializeOwned>(
    algorithm: Algorithm,
    defaults: &Map<String, Value>,
    merged: Map<String, Value>,
) -> Result<T> {
    let whole_error = match serde_json::from_value::<T>(Value::Object(merged.clone())) {
        Ok(params) => return Ok(params),
        Err(error) => error,
    };
    for (key, value) in &merged {
        if defaults.get(key) == Some(value) {
            continue;
        }
        let mut probe = defaults.clone();
        probe.insert(key.clone(), value.clone());
        if let Err(error) = serde_json::from_value::<T>(Value::Object(probe)) {
            let default = defaults.get(key).map_or_else(String::new, Value::to_string);
            bail!(
                "parameter `{key}` of {algorithm}: the value {value} does not fit ({error}); the default is \
                 {default}"
            );
        }
    }
    Err(whole_error).with_context(|| format!("the parameters of {algorithm} do not fit together"))
}

impl AlgorithmParams {
    /// The parameters as a JSON object (the form of result.json and the run file).
    pub fn to_value(&self) -> Result<Value> {
        match self {
            Self::De(params) => to_value(params),
            Self::Ga(params) => to_value(params),
            Self::Qiga(params) => to_value(params),
            Self::Sga(params) => to_value(params),
            Self::Dpga(params) => to_value(params),
            Self::Ma(params) => to_value(params),
        }
    }

    /// Reads back parameters written by [`to_value`](Self::to_value), validating them again.
    pub fn from_value(algorithm: Algorithm, value: Value) -> Result<Self> {
        let defaults = defaults(algorithm)?;
        let Value::Object(map) = value else {
            bail!("the parameters of {algorithm} must be a table, got {value}");
        };
        let mut merged = defaults.clone();
        for (key, value) in map {
            set_key(algorithm, &defaults, &mut merged, &key, value)?;
        }
        from_map(algorithm, &defaults, merged)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn set_values_reach_the_params_type() {
        let params = resolve(
            Algorithm::De,
            None,
            &sets(&["population=128", "crossover_rate=0.25", "strategy=Best1"]),
        )
        .unwrap()
        .params;
        let AlgorithmParams::De(de) = params else {
            panic!("not DE")
        };
        assert_eq!(de.population(), 128);
        assert_eq!(de.crossover_rate(), 0.25);
        assert_eq!(de.strategy(), evo_de::Strategy::Best1);
    }

    #[test]
    fn unknown_key_lists_the_known_ones() {
        let error = resolve(Algorithm::De, None, &sets(&["populaton=10"])).unwrap_err();
        let text = format!("{error:#}");
        assert!(
            text.contains("unknown parameter `populaton` for de"),
            "{text}"
        );
        assert!(
            text.contains("known parameters: adaptation, block, crossover, crossover_rate"),
            "{text}"
        );
    }

    #[test]
    fn out_of_range_value_names_key_and_range() {
        let error = resolve(Algorithm::De, None, &sets(&["crossover_rate=1.5"])).unwrap_err();
        let text = format!("{error:#}");
        assert!(text.contains("parameter `crossover_rate`"), "{text}");
        assert!(text.contains("in [0, 1], got 1.5"), "{text}");
    }

    #[test]
    fn wrong_type_names_the_key() {
        let error = resolve(Algorithm::Ga, None, &sets(&["population=many"])).unwrap_err();
        let text = format!("{error:#}");
        assert!(text.contains("parameter `population` of ga"), "{text}");
        assert!(resolve(Algorithm::Ga, None, &sets(&["population"])).is_err());
    }

    #[test]
    fn toml_file_then_set() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ma.toml");
        std::fs::write(
            &path,
            "population = 20\nmax_evaluations = 3000\nrestart = false\n",
        )
        .unwrap();
        let params = resolve(
            Algorithm::MaSwChains,
            Some(&path),
            &sets(&["population=30"]),
        )
        .unwrap()
        .params;
        let AlgorithmParams::Ma(ma) = params else {
            panic!("not MA")
        };
        assert_eq!(
            (ma.population(), ma.max_evaluations(), ma.restart()),
            (30, 3000, false)
        );
        std::fs::write(&path, "colour = 3\n").unwrap();
        let text = format!(
            "{:#}",
            resolve(Algorithm::MaSwChains, Some(&path), &[]).unwrap_err()
        );
        assert!(text.contains("unknown parameter `colour`"), "{text}");
    }

    #[test]
    fn island_keys_go_apart_from_the_parameters() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("de.toml");
        std::fs::write(&path, "population = 20\nmigrants = 2\n").unwrap();
        let resolved = resolve(Algorithm::De, Some(&path), &sets(&["islands=4"])).unwrap();
        assert_eq!(resolved.islands.get("islands"), Some(&Value::from(4)));
        assert_eq!(resolved.islands.get("migrants"), Some(&Value::from(2)));
        let AlgorithmParams::De(de) = resolved.params else {
            panic!("not DE")
        };
        assert_eq!(de.population(), 20);
    }

    #[test]
    fn values_round_trip_for_every_algorithm() {
        for algorithm in Algorithm::ALL {
            let params = resolve(algorithm, None, &[]).unwrap().params;
            let again = AlgorithmParams::from_value(algorithm, params.to_value().unwrap()).unwrap();
            assert_eq!(params, again, "{algorithm}");
        }
    }
}
