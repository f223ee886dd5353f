//! Serde helpers that carry non-finite `f64` values through JSON.
//!
//! JSON has no literal for infinities or NaN, and `serde_json` writes them as `null`, which it then refuses
//! to read back as a number. A best fitness is `+inf` before anything was evaluated, so reports and
//! checkpoints would fail to round-trip. Fields marked `#[serde(with = "evo_core::serde_f64")]` are written
//! as a plain number when finite and as the strings `"inf"`, `"-inf"` or `"NaN"` otherwise; reading accepts
//! those forms and `null` (read as NaN). Finite values keep every bit (the crate enables serde_json's
//! `float_roundtrip`). Binary formats (those that are not human readable, such as the checkpoint codec)
//! carry every `f64` as its 8 bytes, so there the value passes through unchanged.
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Best {
//!     #[serde(with = "evo_core::serde_f64")]
//!     fitness: f64,
//! }
//! let json = serde_json::to_string(&Best { fitness: f64::INFINITY }).unwrap();
//! assert_eq!(json, r#"{"fitness":"inf"}"#);
//! assert_eq!(serde_json::from_str::<Best>(&json).unwrap(), Best { fitness: f64::INFINITY });
//! ```

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use std::fmt;

/// Writes `value` as a JSON number when finite, otherwise as `"inf"`, `"-inf"` or `"NaN"` (binary formats:
/// as the `f64` itself).
pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() || !serializer.is_human_readable() {
        serializer.serialize_f64(*value)
    } else if value.is_nan() {
        serializer.serialize_str("NaN")
    } else if value.is_sign_positive() {
        serializer.serialize_str("inf")
    } else {
        serializer.serialize_str("-inf")
    }
}

/// Reads a number, one of `"inf"`, `"-inf"`, `"NaN"`, or `null` (read as NaN).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    if deserializer.is_human_readable() {
        deserializer.deserialize_any(F64Visitor)
    } else {
        // Binary formats are not self-describing: the value is exactly the f64 `serialize` wrote.
        deserializer.deserialize_f64(F64Visitor)
    }
}

/// Accepts every form [`serialize`] writes, plus integers and `null`.
struct F64Visitor;

impl Visitor<'_> for F64Visitor {
    type Value = f64;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a number, \"inf\", \"-inf\", \"NaN\" or null")
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<f64, E> {
        Ok(value)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<f64, E> {
        // Integers come from hand-written files; the conversion is exact up to 2^53, far beyond any fitness
        // a person types.
        Ok(value as f64)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<f64, E> {
        Ok(value as f64)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<f64, E> {
        match value {
            "inf" | "+inf" | "infinity" | "Infinity" => Ok(f64::INFINITY),
            "-inf" | "-infinity" | "-Infinity" => Ok(f64::NEG_INFINITY),
            "NaN" | "nan" => Ok(f64::NAN),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }

    fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }
}
