//! Checks an engine's `restore` runs on a snapshot before loading it, shared by every algorithm so that
//! each refusal is an [`Error::InvalidSnapshot`] worded the same way: the field (with the element's index),
//! the value, and what is allowed.
//!
//! A snapshot read from a checkpoint file has passed its checksum, so these checks catch snapshots that were
//! built or edited by hand, or written by a faulty program; they never re-evaluate the objective (which
//! would cost a generation's evaluations and, for CUDA problems, a device). A snapshot whose fitness values
//! were changed but stay finite is therefore accepted; the run stays reproducible from that state.

use crate::error::{Error, Result};
use crate::problem::Bounds;

/// Every value finite: `field[i]` names the first that is not.
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the element.
pub fn finite(algorithm: &'static str, field: &str, values: &[f64]) -> Result<()> {
    match values.iter().position(|value| !value.is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::invalid_snapshot(
            algorithm,
            format!("{field}[{i}]"),
            values[i],
            "a finite number",
        )),
    }
}

/// Every row of `population` (row-major, `bounds.dimension()` genes per row) inside `bounds`.
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the first gene outside (or NaN), with its range.
pub fn within_bounds(
    algorithm: &'static str,
    field: &str,
    population: &[f32],
    bounds: &Bounds,
) -> Result<()> {
    let dimension = bounds.dimension().max(1);
    for (k, &value) in population.iter().enumerate() {
        let j = k % dimension;
        let (lower, upper) = (bounds.lower()[j], bounds.upper()[j]);
        if !(lower..=upper).contains(&value) {
            return Err(Error::invalid_snapshot(
                algorithm,
                format!("{field}[{}][{j}]", k / dimension),
                value,
                format!("in [{lower}, {upper}] (the problem's bounds)"),
            ));
        }
    }
    Ok(())
}

/// Every value in the closed range `[lower, upper]` (NaN refused).
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the first element outside.
pub fn in_range(
    algorithm: &'static str,
    field: &str,
    values: &[f32],
    lower: f32,
    upper: f32,
) -> Result<()> {
    match values
        .iter()
        .position(|value| !(lower..=upper).contains(value))
    {
        None => Ok(()),
        Some(i) => Err(Error::invalid_snapshot(
            algorithm,
            format!("{field}[{i}]"),
            values[i],
            format!("in [{lower}, {upper}]"),
        )),
    }
}

/// A counter equal to the value the algorithm's arithmetic gives (`expected`, `None` when that arithmetic
/// overflows `u64`, which no real run reaches).
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the counter and the expected value or the overflow.
pub fn counter(
    algorithm: &'static str,
    field: &str,
    value: u64,
    expected: Option<u64>,
    rule: &str,
) -> Result<()> {
    match expected {
        Some(expected) if expected == value => Ok(()),
        Some(expected) => Err(Error::invalid_snapshot(
            algorithm,
            field,
            value,
            format!("{expected} ({rule})"),
        )),
        None => Err(Error::invalid_snapshot(
            algorithm,
            field,
            value,
            format!("a value for which {rule} fits in 64 bits"),
        )),
    }
}

/// A counter no greater than `max`.
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the counter.
pub fn at_most(
    algorithm: &'static str,
    field: &str,
    value: u64,
    max: u64,
    why: &str,
) -> Result<()> {
    if value <= max {
        Ok(())
    } else {
        Err(Error::invalid_snapshot(
            algorithm,
            field,
            value,
            format!("at most {max} ({why})"),
        ))
    }
}

/// Two values equal (a seed, a shape).
///
/// # Errors
/// [`Error::InvalidSnapshot`] naming the field and the engine's value.
pub fn equal<T: PartialEq + std::fmt::Display>(
    algorithm: &'static str,
    field: &str,
    value: T,
    engine: T,
) -> Result<()> {
    if value == engine {
        Ok(())
    } else {
        Err(Error::invalid_snapshot(
            algorithm,
            field,
            value,
            format!("{engine} (this engine's)"),
        ))
    }
}
