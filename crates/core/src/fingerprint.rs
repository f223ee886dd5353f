//! The identity of a run, stored in every checkpoint so that a resume continues the same run.
//!
//! A [`RunFingerprint`] holds what makes two runs the same run: the seed, the algorithm's parameters and the
//! problem instance. It is backend independent (both engines of an algorithm build it with one helper), so a
//! checkpoint written on the CPU resumes on CUDA and back. When a checkpoint is resumed, its fingerprint is
//! compared with the engine's and the first difference is an [`Error::RunMismatch`] naming the field
//! ("seed", "parameter `crossover_rate`", "problem"). A deliberate change of parameters (a new budget, a
//! new rate) is allowed by naming them in [`ResumeOverrides`]; the seed and the problem never change within
//! a run.

use crate::error::{Error, Result};
use crate::problem::Bounds;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Seed, parameters and problem of a run (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFingerprint {
    /// The run's seed.
    pub seed: u64,
    /// The algorithm's parameters by key, each value written as JSON (`"crossover_rate": "0.9"`). Nested
    /// structs give dotted keys (`"angles.theta1"`); arrays and enums stay whole values.
    pub parameters: BTreeMap<String, String>,
    /// The problem instance.
    pub problem: ProblemIdentity,
}

impl RunFingerprint {
    /// The fingerprint of a run with `seed`, the algorithm's `parameters` (any serde struct; its fields give
    /// the keys) and `problem`.
    ///
    /// # Errors
    /// [`Error::Serialization`] when the parameters do not serialize as JSON.
    pub fn new(seed: u64, parameters: &impl Serialize, problem: ProblemIdentity) -> Result<Self> {
        let serialization = |error: serde_json::Error| Error::Serialization {
            what: "run parameters for a checkpoint fingerprint".to_string(),
            reason: error.to_string(),
        };
        // Through JSON text rather than `to_value`, so that an `f32` keeps its shortest form ("0.9", not
        // the digits of its widening to f64); distinct floats still give distinct texts.
        let text = serde_json::to_string(parameters).map_err(serialization)?;
        let value: serde_json::Value = serde_json::from_str(&text).map_err(serialization)?;
        let mut flat = BTreeMap::new();
        flatten(String::new(), &value, &mut flat);
        Ok(Self {
            seed,
            parameters: flat,
            problem,
        })
    }

    /// Adds (or replaces) one parameter, for facts outside the params struct that still define the run
    /// (a backend-independent option such as an RNG mode, or the rotation angles of a batch).
    ///
    /// # Errors
    /// [`Error::Serialization`] when the value does not serialize as JSON.
    pub fn with_parameter(mut self, key: &str, value: &impl Serialize) -> Result<Self> {
        let text = serde_json::to_string(value).map_err(|error| Error::Serialization {
            what: format!("run parameter `{key}` for a checkpoint fingerprint"),
            reason: error.to_string(),
        })?;
        self.parameters.insert(key.to_string(), text);
        Ok(self)
    }

    /// Compares a checkpoint's fingerprint (`self`) with the resuming run's (`this_run`), ignoring the
    /// parameters named in `overrides`.
    ///
    /// # Errors
    /// [`Error::RunMismatch`] naming the first field that differs, in the order seed, problem, parameters
    /// (by key); [`Error::InvalidParameter`] when an override names a parameter that neither run has (a
    /// typo would otherwise go unnoticed).
    pub fn check_resume(
        &self,
        this_run: &RunFingerprint,
        overrides: &ResumeOverrides,
        path: &std::path::Path,
    ) -> Result<()> {
        let mismatch = |field: String, checkpoint: String, this: String| Error::RunMismatch {
            path: path.to_path_buf(),
            field,
            checkpoint,
            this_run: this,
        };
        for key in &overrides.parameters {
            if !self.parameters.contains_key(key) && !this_run.parameters.contains_key(key) {
                let known: Vec<&str> = this_run.parameters.keys().map(String::as_str).collect();
                return Err(Error::invalid_parameter(
                    "ResumeOverrides",
                    "parameter",
                    key,
                    format!("one of the run's parameters: {}", known.join(", ")),
                ));
            }
        }
        if self.seed != this_run.seed {
            return Err(mismatch(
                "seed".to_string(),
                self.seed.to_string(),
                this_run.seed.to_string(),
            ));
        }
        if self.problem != this_run.problem {
            return Err(mismatch(
                "problem".to_string(),
                self.problem.to_string(),
                this_run.problem.to_string(),
            ));
        }
        let keys: BTreeSet<&String> = self
            .parameters
            .keys()
            .chain(this_run.parameters.keys())
            .collect();
        for key in keys {
            if overrides.parameters.contains(key.as_str()) {
                continue;
            }
            let absent = || "(absent)".to_string();
            let checkpoint = self.parameters.get(key);
            let this = this_run.parameters.get(key);
            if checkpoint != this {
                return Err(mismatch(
                    format!("parameter `{key}`"),
                    checkpoint.cloned().unwrap_or_else(absent),
                    this.cloned().unwrap_or_else(absent),
                ));
            }
        }
        Ok(())
    }
}

/// Writes nested objects as dotted keys; everything else is one JSON value.
fn flatten(prefix: String, value: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, field) in fields {
                let key = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(key, field, out);
            }
        }
        // A unit parameters struct has no parameters.
        serde_json::Value::Null if prefix.is_empty() => {}
        other => {
            let key = if prefix.is_empty() {
                "value".to_string()
            } else {
                prefix
            };
            out.insert(key, other.to_string());
        }
    }
}

/// What identifies a problem instance: its name, its size, and a digest of the instance data that the name
/// and size do not fix (bounds, item weights, a time matrix).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProblemIdentity {
    /// The problem's name ([`ContinuousProblem::name`](crate::ContinuousProblem::name) and the like).
    pub name: String,
    /// The dimension, bit count or item count.
    pub size: u64,
    /// A digest of the instance data ([`InstanceDigest`]); 0 when name and size identify the instance.
    pub instance: u64,
}

impl ProblemIdentity {
    /// A problem identified by its name and size alone.
    pub fn new(name: impl Into<String>, size: usize) -> Self {
        Self {
            name: name.into(),
            size: size as u64,
            instance: 0,
        }
    }

    /// A continuous problem: name, dimension and a digest of its bounds.
    pub fn continuous(name: impl Into<String>, bounds: &Bounds) -> Self {
        let digest = InstanceDigest::new()
            .f32s(bounds.lower())
            .f32s(bounds.upper())
            .finish();
        Self::new(name, bounds.dimension()).with_instance(digest)
    }

    /// Sets the instance digest.
    pub fn with_instance(mut self, digest: u64) -> Self {
        self.instance = digest;
        self
    }
}

impl fmt::Display for ProblemIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` of size {} (instance digest {:#018x})",
            self.name, self.size, self.instance
        )
    }
}

/// A 64-bit FNV-1a digest of instance data, for [`ProblemIdentity::instance`]. Not cryptographic: it tells
/// instances apart, it does not defend against forgery. Floats are digested by their bits.
#[derive(Clone, Copy, Debug)]
pub struct InstanceDigest(u64);

impl Default for InstanceDigest {
    fn default() -> Self {
        Self::new()
    }
}

impl InstanceDigest {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// An empty digest.
    pub fn new() -> Self {
        Self(Self::OFFSET)
    }

    /// Adds bytes.
    pub fn bytes(mut self, bytes: &[u8]) -> Self {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Self::PRIME);
        }
        self
    }

    /// Adds a length-prefixed run of `f32`s (the prefix keeps `[a] + [b, c]` apart from `[a, b] + [c]`).
    pub fn f32s(self, values: &[f32]) -> Self {
        values
            .iter()
            .fold(self.u64(values.len() as u64), |digest, value| {
                digest.bytes(&value.to_bits().to_le_bytes())
            })
    }

    /// Adds a length-prefixed run of `f64`s.
    pub fn f64s(self, values: &[f64]) -> Self {
        values
            .iter()
            .fold(self.u64(values.len() as u64), |digest, value| {
                digest.bytes(&value.to_bits().to_le_bytes())
            })
    }

    /// Adds a `u64`.
    pub fn u64(self, value: u64) -> Self {
        self.bytes(&value.to_le_bytes())
    }

    /// The digest.
    pub fn finish(self) -> u64 {
        self.0
    }
}

/// Parameters a resumed run may change on purpose (see the module docs).
///
/// ```
/// use evo_core::fingerprint::ResumeOverrides;
/// // Continue a run with a larger evaluation budget.
/// let overrides = ResumeOverrides::new().allow_parameter("max_evaluations");
/// assert!(overrides.allows("max_evaluations"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResumeOverrides {
    parameters: BTreeSet<String>,
}

impl ResumeOverrides {
    /// No overrides: the resumed run must match the checkpoint in every field.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows the parameter `key` (as [`RunFingerprint::parameters`] spells it) to differ; the resumed run
    /// uses the engine's value.
    pub fn allow_parameter(mut self, key: impl Into<String>) -> Self {
        self.parameters.insert(key.into());
        self
    }

    /// Whether `key` may differ.
    pub fn allows(&self, key: &str) -> bool {
        self.parameters.contains(key)
    }
}
