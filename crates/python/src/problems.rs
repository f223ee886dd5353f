//! Built-in problems by name: `"rastrigin:10"`, `"cec2010:f3:1000"`, `"cec2006:g01"`, `"knapsack:FILE"`...
//!
//! The `evo` command has the same names, but its parser lives in that binary crate; this is the small
//! subset of it the Python door needs, with the dimension optionally taken from `bounds` instead of the name.

use evo_benchmarks::scheduling::DEFAULT_LAMBDA;
use evo_benchmarks::{
    Cec2006Problem, Cec2010Problem, DeRastrigin, EtcInstance, EtcProblem, GaFunction, Knapsack,
    ShiftedFunction, ShiftedProblem,
};
use pyo3::PyResult;
use std::path::PathBuf;

use crate::errors::{to_py, value_error};

/// The names `minimize` accepts, for messages.
pub const SYNTAX: &str = "rastrigin[:D], shifted-<function>[:D], cec2010:fN[:D], cec2006:gNN, ga:fN[:n], \
                          knapsack:FILE or etc:FILE";

/// A built-in problem, built (instances generated, files read).
pub enum Builtin {
    /// The DE paper's Rastrigin.
    Rastrigin(DeRastrigin),
    /// One of MA-SW-Chains' shifted functions.
    Shifted(ShiftedProblem),
    /// A CEC 2010 large-scale function.
    Cec2010(Box<Cec2010Problem>),
    /// A CEC 2006 constrained problem.
    Cec2006(Cec2006Problem),
    /// One of the GA paper's functions, binary for the GA and continuous for DE and MA-SW-Chains.
    Ga {
        /// The function.
        function: GaFunction,
        /// Its variables.
        variables: usize,
    },
    /// A 0/1 knapsack instance file.
    Knapsack(Knapsack),
    /// An ETC scheduling instance file.
    Etc(Box<EtcProblem>),
}

impl Builtin {
    /// The kind's syntax, for messages.
    pub fn syntax(&self) -> &'static str {
        match self {
            Self::Rastrigin(_) => "rastrigin",
            Self::Shifted(_) => "shifted-<function>",
            Self::Cec2010(_) => "cec2010",
            Self::Cec2006(_) => "cec2006",
            Self::Ga { .. } => "ga",
            Self::Knapsack(_) => "knapsack",
            Self::Etc(_) => "etc",
        }
    }
}

/// Parses and builds `spec`; `dimension` (the length of `bounds`, when given) stands in for a missing
/// dimension field, and must agree with one that is given.
///
/// # Errors
/// `ValueError` for an unknown name, a malformed field, a missing dimension, a dimension that disagrees
/// with `bounds`, the problem's own refusals and unreadable files.
pub fn build(spec: &str, dimension: Option<usize>) -> PyResult<Builtin> {
    let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let fields: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(':').collect()
    };
    let bad = |what: &str| value_error(format!("problem `{spec}`: {what}; problems are {SYNTAX}"));
    let size =
        |field: Option<&&str>| -> PyResult<usize> {
            let given =
                match field {
                    Some(text) => Some(text.parse::<usize>().ok().filter(|&d| d >= 1).ok_or_else(
                        || bad(&format!("dimension `{text}` is not an integer >= 1")),
                    )?),
                    None => None,
                };
            match (given, dimension) {
                (Some(d), Some(b)) if d != b => Err(bad(&format!(
                    "dimension {d} in the name but {b} bounds were given"
                ))),
                (Some(d), _) | (None, Some(d)) => Ok(d),
                (None, None) => Err(bad("no dimension: add it to the name or pass bounds")),
            }
        };
    let numbered = |field: Option<&&str>, prefix: char, range: std::ops::RangeInclusive<u32>| {
        field
            .and_then(|text| text.strip_prefix(prefix))
            .and_then(|digits| digits.parse::<u32>().ok())
            .filter(|number| range.contains(number))
            .ok_or_else(|| {
                bad(&format!(
                    "expected {prefix}{}..{prefix}{} after `{name}:`",
                    range.start(),
                    range.end()
                ))
            })
    };
    let too_many = |allowed: usize| {
        if fields.len() > allowed {
            Err(bad("too many `:` fields"))
        } else {
            Ok(())
        }
    };
    Ok(match name {
        "rastrigin" => {
            too_many(1)?;
            Builtin::Rastrigin(DeRastrigin::new(size(fields.first())?).map_err(to_py)?)
        }
        "cec2010" => {
            too_many(2)?;
            let number = numbered(fields.first(), 'f', 1..=20)?;
            Builtin::Cec2010(Box::new(
                Cec2010Problem::new(number, size(fields.get(1))?).map_err(to_py)?,
            ))
        }
        "cec2006" => {
            too_many(1)?;
            let problem =
                Cec2006Problem::new(numbered(fields.first(), 'g', 1..=24)?).map_err(to_py)?;
            if dimension.is_some_and(|d| d != evo_core::ConstrainedProblem::dimension(&problem)) {
                return Err(bad(&format!(
                    "the problem has {} variables but bounds of another length were given",
                    evo_core::ConstrainedProblem::dimension(&problem)
                )));
            }
            Builtin::Cec2006(problem)
        }
        "ga" => {
            too_many(2)?;
            let number = numbered(fields.first(), 'f', 1..=8)?;
            Builtin::Ga {
                function: GaFunction::ALL[number as usize - 1],
                variables: size(fields.get(1))?,
            }
        }
        "knapsack" | "etc" => {
            if rest.is_empty() {
                return Err(bad("no file after the `:`"));
            }
            let path = find_file(spec, rest)?;
            if name == "knapsack" {
                Builtin::Knapsack(Knapsack::from_file(&path).map_err(to_py)?)
            } else {
                let instance = EtcInstance::from_file(&path).map_err(to_py)?;
                Builtin::Etc(Box::new(
                    EtcProblem::new(instance, DEFAULT_LAMBDA).map_err(to_py)?,
                ))
            }
        }
        _ => {
            let function = name
                .strip_prefix("shifted-")
                .and_then(|short| {
                    ShiftedFunction::ALL
                        .into_iter()
                        .find(|f| f.name().strip_prefix("shifted-") == Some(short))
                })
                .ok_or_else(|| bad(&format!("unknown problem `{name}`")))?;
            too_many(1)?;
            Builtin::Shifted(ShiftedProblem::new(function, size(fields.first())?).map_err(to_py)?)
        }
    })
}

/// The file as given when it exists; a relative path that does not is looked up in the benchmark data
/// folder (`$EVO_DATA_DIR`), as the `evo` command does.
fn find_file(spec: &str, text: &str) -> PyResult<PathBuf> {
    let path = PathBuf::from(text);
    if path.is_file() {
        return Ok(path);
    }
    if path.is_relative()
        && let Some(candidate) = evo_benchmarks::data::shared_data_dir().map(|dir| dir.join(&path))
        && candidate.is_file()
    {
        return Ok(candidate);
    }
    Err(value_error(format!(
        "problem `{spec}`: no such file {text} (a relative path is also looked up in $EVO_DATA_DIR)"
    )))
}
