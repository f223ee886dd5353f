//! The manifest of a `user:FILE.toml` problem: which CUDA source, which genome kind, its shape and data,
//! parsed and checked key by key (the user's source itself is checked by the problem types it builds).

use evo_benchmarks::cuda::{DataLength, Terms};
use serde::Deserialize;
use std::path::{Path, PathBuf};

use super::data::Element;

/// The genome kind of a user problem, which decides the entry point and the algorithms that run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Real vectors (`evo_user_terms`, optional `evo_user_combine`): de, ma-sw-chains.
    Real,
    /// Bit strings (`evo_user_fitness`): ga.
    Bits,
    /// A constrained problem (`evo_user_constrained`): dpga.
    Constrained,
}

impl Kind {
    /// The kind's name in the manifest.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Real => "real",
            Self::Bits => "bits",
            Self::Constrained => "constrained",
        }
    }

    /// The keys a manifest of this kind may hold besides `kind`, `source`, `name` and `data`.
    const fn keys(self) -> &'static [&'static str] {
        match self {
            Self::Real => &["dimension", "lower", "upper", "terms", "sums"],
            Self::Bits => &["bits", "optimum"],
            Self::Constrained => &[
                "dimension",
                "lower",
                "upper",
                "inequalities",
                "equalities",
                "equality_tolerance",
            ],
        }
    }
}

/// A bound: one value for every coordinate, or one per coordinate.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Limit {
    /// The same bound for every coordinate.
    One(f32),
    /// One bound per coordinate.
    Each(Vec<f32>),
}

/// A count written as a number or as text (`terms = "D-1"`, `length = "D"`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum CountOrText {
    Count(usize),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawData {
    name: String,
    file: PathBuf,
    #[serde(rename = "type")]
    element: Option<ElementName>,
    length: Option<CountOrText>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ElementName {
    F32,
    F64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    kind: Kind,
    source: PathBuf,
    name: Option<String>,
    dimension: Option<usize>,
    lower: Option<Limit>,
    upper: Option<Limit>,
    terms: Option<CountOrText>,
    sums: Option<usize>,
    bits: Option<usize>,
    optimum: Option<f64>,
    inequalities: Option<usize>,
    equalities: Option<usize>,
    equality_tolerance: Option<f64>,
    #[serde(default)]
    data: Vec<RawData>,
}

/// One data array of the manifest, its file found (not read yet).
#[derive(Clone, Debug, PartialEq)]
pub struct DataEntry {
    /// The name the source reads it by (`data.<name>`).
    pub name: String,
    /// The file, relative paths taken from the manifest's folder.
    pub file: PathBuf,
    /// The type asked for (`None`: the `.npy` file's own type, else f32).
    pub element: Option<Element>,
    /// The length it must have.
    pub length: DataLength,
}

/// What each kind's manifest gives besides the source.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `kind = "real"`.
    Real {
        /// D.
        dimension: usize,
        /// Lower bounds.
        lower: Limit,
        /// Upper bounds.
        upper: Limit,
        /// The terms per row.
        terms: Terms,
        /// The sums combined by `evo_user_combine` (`None`: the single sum is the fitness).
        sums: Option<usize>,
    },
    /// `kind = "bits"`.
    Bits {
        /// The bits per individual.
        bits: usize,
        /// The known optimum, if any.
        optimum: Option<f64>,
    },
    /// `kind = "constrained"`.
    Constrained {
        /// D.
        dimension: usize,
        /// Lower bounds.
        lower: Limit,
        /// Upper bounds.
        upper: Limit,
        /// m (`g_j ≤ 0`).
        inequalities: usize,
        /// q (`|h_j| ≤ ε`).
        equalities: usize,
        /// ε, when not the default.
        equality_tolerance: Option<f64>,
    },
}

/// A parsed, checked manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The problem's name (the compiled module is `user_<name>`): `name`, else the source file's stem.
    pub name: String,
    /// The CUDA source file, relative paths taken from the manifest's folder.
    pub source: PathBuf,
    /// The kind and its shape.
    pub shape: Shape,
    /// The data arrays.
    pub data: Vec<DataEntry>,
}

/// Why a manifest was refused.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The manifest cannot be read.
    #[error("cannot read the manifest {path}: {source}", path = path.display())]
    Read {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not TOML, an unknown key, or a value of the wrong type.
    #[error("manifest {path}: {message}", path = path.display())]
    Syntax {
        /// The manifest.
        path: PathBuf,
        /// The TOML reader's message (with the line).
        message: String,
    },
    /// A key the manifest's kind does not take.
    #[error(
        "manifest {path}: kind \"{kind}\" takes no `{key}`; it takes kind, source, name, data and {allowed}",
        path = path.display()
    )]
    KeyOfOtherKind {
        /// The manifest.
        path: PathBuf,
        /// The kind.
        kind: &'static str,
        /// The key.
        key: &'static str,
        /// The keys of the kind.
        allowed: String,
    },
    /// A key the kind needs is missing.
    #[error("manifest {path}: kind \"{kind}\" needs `{key}` ({what})", path = path.display())]
    Missing {
        /// The manifest.
        path: PathBuf,
        /// The kind.
        kind: &'static str,
        /// The key.
        key: &'static str,
        /// What it is.
        what: &'static str,
    },
    /// A value out of its range.
    #[error("manifest {path}: {key} = {value} is not allowed; expected {allowed}", path = path.display())]
    Value {
        /// The manifest.
        path: PathBuf,
        /// The key.
        key: String,
        /// The value as written.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A file the manifest names does not exist.
    #[error("manifest {path}: {key} file {file} does not exist", path = path.display(), file = file.display())]
    NoFile {
        /// The manifest.
        path: PathBuf,
        /// The key naming it (`source`, `data "y"`).
        key: String,
        /// The file as resolved.
        file: PathBuf,
    },
    /// A file the manifest names cannot be read.
    #[error("manifest {path}: cannot read {file}: {source}", path = path.display(), file = file.display())]
    ReadFile {
        /// The manifest.
        path: PathBuf,
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A data file that cannot be used.
    #[error("manifest {path}: data \"{name}\" ({file}): {reason}", path = path.display(), file = file.display())]
    Data {
        /// The manifest.
        path: PathBuf,
        /// The array's name.
        name: String,
        /// The file.
        file: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// The keys every kind takes, then the kind's own, for messages.
fn keys_of(kind: Kind) -> String {
    kind.keys().join(", ")
}

impl Manifest {
    /// Reads and checks the manifest at `path` (the files it names must exist; they are read later).
    ///
    /// # Errors
    /// [`ManifestError`] saying which key is wrong and what is allowed.
    pub fn load(path: &Path) -> Result<Self, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(path, &text)
    }

    /// Checks the manifest `text` of the file `path` (files resolved from its folder).
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn parse(path: &Path, text: &str) -> Result<Self, ManifestError> {
        let raw: Raw = toml::from_str(text).map_err(|error| ManifestError::Syntax {
            path: path.to_path_buf(),
            message: error.to_string().trim_end().to_string(),
        })?;
        let folder = path.parent().unwrap_or(Path::new(""));
        let kind = raw.kind;
        let given: [(&'static str, bool); 10] = [
            ("dimension", raw.dimension.is_some()),
            ("lower", raw.lower.is_some()),
            ("upper", raw.upper.is_some()),
            ("terms", raw.terms.is_some()),
            ("sums", raw.sums.is_some()),
            ("bits", raw.bits.is_some()),
            ("optimum", raw.optimum.is_some()),
            ("inequalities", raw.inequalities.is_some()),
            ("equalities", raw.equalities.is_some()),
            ("equality_tolerance", raw.equality_tolerance.is_some()),
        ];
        if let Some((key, _)) = given
            .iter()
            .find(|(key, present)| *present && !kind.keys().contains(key))
        {
            return Err(ManifestError::KeyOfOtherKind {
                path: path.to_path_buf(),
                kind: kind.name(),
                key,
                allowed: keys_of(kind),
            });
        }
        let missing = |key: &'static str, what: &'static str| ManifestError::Missing {
            path: path.to_path_buf(),
            kind: kind.name(),
            key,
            what,
        };
        let value = |key: &str, value: String, allowed: &'static str| ManifestError::Value {
            path: path.to_path_buf(),
            key: key.to_string(),
            value,
            allowed,
        };
        let dimension = || match raw.dimension {
            None => Err(missing("dimension", "the number of variables, at least 1")),
            Some(0) => Err(value("dimension", "0".into(), "at least 1")),
            Some(d) => Ok(d),
        };
        let bound = |key: &'static str, limit: &Option<Limit>, d: usize| match limit {
            None => Err(missing(
                key,
                "one number for every coordinate, or a list of D numbers",
            )),
            Some(Limit::Each(values)) if values.len() != d => Err(value(
                key,
                format!("a list of {} numbers", values.len()),
                "one number, or a list of D numbers (D = dimension)",
            )),
            Some(limit) => Ok(limit.clone()),
        };
        let shape = match kind {
            Kind::Real => {
                let dimension = dimension()?;
                let terms = match &raw.terms {
                    None => Terms::Dimension,
                    Some(terms) => parse_terms(terms)
                        .ok_or_else(|| value("terms", show(terms), TERMS_ALLOWED))?,
                };
                if let Some(sums) = raw.sums
                    && !(1..=evo_benchmarks::cuda::MAX_USER_SUMS).contains(&sums)
                {
                    return Err(value("sums", sums.to_string(), "1 ..= 4"));
                }
                Shape::Real {
                    dimension,
                    lower: bound("lower", &raw.lower, dimension)?,
                    upper: bound("upper", &raw.upper, dimension)?,
                    terms,
                    sums: raw.sums,
                }
            }
            Kind::Bits => Shape::Bits {
                bits: match raw.bits {
                    None => return Err(missing("bits", "the bits per individual, at least 1")),
                    Some(0) => return Err(value("bits", "0".into(), "at least 1")),
                    Some(bits) => bits,
                },
                optimum: raw.optimum,
            },
            Kind::Constrained => {
                let dimension = dimension()?;
                Shape::Constrained {
                    dimension,
                    lower: bound("lower", &raw.lower, dimension)?,
                    upper: bound("upper", &raw.upper, dimension)?,
                    inequalities: raw.inequalities.unwrap_or(0),
                    equalities: raw.equalities.unwrap_or(0),
                    equality_tolerance: raw.equality_tolerance,
                }
            }
        };
        let source = folder.join(&raw.source);
        if !source.is_file() {
            return Err(ManifestError::NoFile {
                path: path.to_path_buf(),
                key: "source".into(),
                file: source,
            });
        }
        let name = match raw.name {
            Some(name) => name,
            None => source
                .file_stem()
                .and_then(|stem| stem.to_str())
                .unwrap_or_default()
                .to_string(),
        };
        let data = raw
            .data
            .into_iter()
            .map(|entry| {
                let file = folder.join(&entry.file);
                if !file.is_file() {
                    return Err(ManifestError::NoFile {
                        path: path.to_path_buf(),
                        key: format!("data \"{}\"", entry.name),
                        file,
                    });
                }
                let length = match &entry.length {
                    None => DataLength::Any,
                    Some(length) => parse_length(length).ok_or_else(|| {
                        value(
                            &format!("data \"{}\" length", entry.name),
                            show(length),
                            LENGTH_ALLOWED,
                        )
                    })?,
                };
                Ok(DataEntry {
                    name: entry.name,
                    file,
                    element: entry.element.map(|element| match element {
                        ElementName::F32 => Element::F32,
                        ElementName::F64 => Element::F64,
                    }),
                    length,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            name,
            source,
            shape,
            data,
        })
    }
}

const TERMS_ALLOWED: &str = "\"D\" (one term per coordinate), \"D-k\" with k >= 1 (term i reads coordinates \
     i ..= i+k), or a count >= 1";

const LENGTH_ALLOWED: &str =
    "\"any\", \"D\" (one value per coordinate), \"terms\" (one per term), or a count >= 1";

fn show(value: &CountOrText) -> String {
    match value {
        CountOrText::Count(count) => count.to_string(),
        CountOrText::Text(text) => format!("{text:?}"),
    }
}

fn parse_terms(terms: &CountOrText) -> Option<Terms> {
    match terms {
        CountOrText::Count(0) => None,
        CountOrText::Count(count) => Some(Terms::Count(*count)),
        CountOrText::Text(text) if text == "D" => Some(Terms::Dimension),
        CountOrText::Text(text) => text
            .strip_prefix("D-")
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| k >= 1)
            .map(Terms::DimensionMinus),
    }
}

fn parse_length(length: &CountOrText) -> Option<DataLength> {
    match length {
        CountOrText::Count(0) => None,
        CountOrText::Count(count) => Some(DataLength::Exactly(*count)),
        CountOrText::Text(text) => match text.as_str() {
            "any" => Some(DataLength::Any),
            "D" => Some(DataLength::Dimension),
            "terms" => Some(DataLength::Terms),
            _ => None,
        },
    }
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
