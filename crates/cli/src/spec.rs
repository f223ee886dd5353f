//! Problem specs: the text after `--problem`, parsed into a typed value (no file is read here).

use evo_benchmarks::GaFunction;
use evo_benchmarks::shifted::ShiftedFunction;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A built-in problem, as named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum ProblemSpec {
    /// `rastrigin:D`: the DE paper's unshifted Rastrigin on [-5.12, 5.12]^D.
    Rastrigin {
        /// D.
        dimension: usize,
    },
    /// `shifted-<function>:D`: one of the MA-SW-Chains paper's six shifted functions.
    Shifted {
        /// The function.
        function: ShiftedFunction,
        /// D.
        dimension: usize,
    },
    /// `cec2010:fN:D`: CEC 2010 large-scale function N (1..=20), D a multiple of 100.
    Cec2010 {
        /// N.
        number: u32,
        /// D.
        dimension: usize,
    },
    /// `cec2006:gNN`: CEC 2006 constrained problem NN (1..=24).
    Cec2006 {
        /// NN.
        number: u32,
    },
    /// `ga:fN:n`: the GA paper's function N (1..=8) in n variables of 16 bits.
    GaFunction {
        /// The function.
        function: GaFunction,
        /// n.
        variables: usize,
    },
    /// `knapsack:FILE`: a 0/1 knapsack instance file.
    Knapsack {
        /// The file as given.
        path: PathBuf,
    },
    /// `etc:FILE`: an HCSP ETC matrix (Braun et al.'s format), scheduled by DE.
    Etc {
        /// The file as given.
        path: PathBuf,
    },
    /// `user:MANIFEST.toml`: a user's CUDA source problem, described by a TOML manifest.
    User {
        /// The manifest as given.
        path: PathBuf,
    },
}

/// The kind of a spec, which decides which algorithms accept it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// `rastrigin:D`.
    Rastrigin,
    /// `shifted-*:D`.
    Shifted,
    /// `cec2010:fN:D`.
    Cec2010,
    /// `cec2006:gNN`.
    Cec2006,
    /// `ga:fN:n`.
    GaFunction,
    /// `knapsack:FILE`.
    Knapsack,
    /// `etc:FILE`.
    Etc,
    /// `user:MANIFEST.toml`.
    User,
}

impl ProblemKind {
    /// The spec syntax, for messages and `evo list`.
    pub const fn syntax(self) -> &'static str {
        match self {
            Self::Rastrigin => "rastrigin:D",
            Self::Shifted => "shifted-<function>:D",
            Self::Cec2010 => "cec2010:fN:D",
            Self::Cec2006 => "cec2006:gNN",
            Self::GaFunction => "ga:fN:n",
            Self::Knapsack => "knapsack:FILE",
            Self::Etc => "etc:FILE",
            Self::User => "user:MANIFEST.toml",
        }
    }

    /// What the spec names and its ranges, for `evo list`.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Rastrigin => "the DE paper's unshifted Rastrigin on [-5.12, 5.12]^D, D >= 1",
            Self::Shifted => {
                "the MA-SW-Chains paper's shifted functions (optimum -330), D in 1..=10^8; <function> is \
                 rastrigin, griewank, salomon, discus, sum-squares or schwefel-1.2"
            }
            Self::Cec2010 => {
                "CEC 2010 large-scale function N in 1..=20, D a multiple of 100 up to 10^8"
            }
            Self::Cec2006 => "CEC 2006 constrained problem g01..g24",
            Self::GaFunction => {
                "the GA paper's function f1..f8 (hypersphere, ridge, rosenbrock, step, griewank, schwefel, \
                 rastrigin, ackley) in n variables of 16 bits (binary for ga, continuous for de and \
                 ma-sw-chains)"
            }
            Self::Knapsack => {
                "a 0/1 knapsack file (capacity line, then `weight profit` lines); a relative FILE not found \
                 from the current folder is looked up in the data folder ($EVO_DATA_DIR)"
            }
            Self::Etc => {
                "an HCSP ETC matrix file (Braun et al.'s format: a `tasks machines 0` header, or none for \
                 512 x 16), makespan/flowtime objective with lambda 0.75; FILE is looked up like knapsack's"
            }
            Self::User => {
                "your own problem as CUDA source, described by a TOML manifest (keys below); runs on a CUDA \
                 device only (a source file has no CPU twin)"
            }
        }
    }

    /// Every kind, in the order `evo list` shows them.
    pub const ALL: [ProblemKind; 8] = [
        Self::Rastrigin,
        Self::Shifted,
        Self::Cec2010,
        Self::Cec2006,
        Self::GaFunction,
        Self::Knapsack,
        Self::Etc,
        Self::User,
    ];
}

/// Why a spec was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecError {
    /// The name before the first `:` is not a problem.
    #[error(
        "unknown problem `{name}` in `{spec}`; known problems: rastrigin:D, shifted-<function>:D, \
         cec2010:fN:D, cec2006:gNN, ga:fN:n, knapsack:FILE, etc:FILE, user:MANIFEST.toml (`evo list` \
         describes them)"
    )]
    UnknownProblem {
        /// The whole spec.
        spec: String,
        /// Its name part.
        name: String,
    },
    /// The spec has too few or too many `:`-separated fields.
    #[error("problem `{spec}` must be written `{syntax}`")]
    Shape {
        /// The whole spec.
        spec: String,
        /// The form it must have.
        syntax: &'static str,
    },
    /// A field does not hold an allowed value.
    #[error("problem `{spec}`: {field} `{value}` is not allowed; expected {allowed}")]
    Field {
        /// The whole spec.
        spec: String,
        /// Which field.
        field: &'static str,
        /// Its text.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// `cuda:FILE`: a source file given without the manifest that describes it.
    #[error(
        "problem `{spec}`: user CUDA source problems are not available as `cuda:FILE`; describe the \
         problem in a TOML manifest that names the source and give `user:MANIFEST.toml` (`evo list` shows \
         the manifest's keys)"
    )]
    UserSource {
        /// The whole spec.
        spec: String,
    },
    /// `user:FILE.cu`: the source itself where the manifest belongs.
    #[error(
        "problem `{spec}`: `user:` takes the TOML manifest that names the source and gives its kind and \
         shape, not the CUDA file itself (`evo list` shows the manifest's keys)"
    )]
    SourceNotManifest {
        /// The whole spec.
        spec: String,
    },
}

/// The shifted function named `name` (the part after `shifted-`).
fn shifted_function(name: &str) -> Option<ShiftedFunction> {
    ShiftedFunction::ALL
        .into_iter()
        .find(|function| function.name().strip_prefix("shifted-") == Some(name))
}

impl ProblemSpec {
    /// The kind of this spec.
    pub fn kind(&self) -> ProblemKind {
        match self {
            Self::Rastrigin { .. } => ProblemKind::Rastrigin,
            Self::Shifted { .. } => ProblemKind::Shifted,
            Self::Cec2010 { .. } => ProblemKind::Cec2010,
            Self::Cec2006 { .. } => ProblemKind::Cec2006,
            Self::GaFunction { .. } => ProblemKind::GaFunction,
            Self::Knapsack { .. } => ProblemKind::Knapsack,
            Self::Etc { .. } => ProblemKind::Etc,
            Self::User { .. } => ProblemKind::User,
        }
    }
}

impl FromStr for ProblemSpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<Self, SpecError> {
        let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let fields: Vec<&str> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split(':').collect()
        };
        let shape = |kind: ProblemKind| SpecError::Shape {
            spec: spec.to_string(),
            syntax: kind.syntax(),
        };
        let field = |field: &'static str, value: &str, allowed: &str| SpecError::Field {
            spec: spec.to_string(),
            field,
            value: value.to_string(),
            allowed: allowed.to_string(),
        };
        let dimension = |text: &str, allowed: &str| -> Result<usize, SpecError> {
            match text.parse::<usize>() {
                Ok(d) if d >= 1 => Ok(d),
                _ => Err(field("dimension", text, allowed)),
            }
        };
        // A number after a one-letter prefix (`f3`, `g01`).
        let numbered =
            |text: &str, prefix: char, what: &'static str, range: std::ops::RangeInclusive<u32>| {
                let allowed = format!("{prefix}{}..{prefix}{}", range.start(), range.end());
                text.strip_prefix(prefix)
                    .and_then(|digits| digits.parse::<u32>().ok())
                    .filter(|number| range.contains(number))
                    .ok_or_else(|| field(what, text, &allowed))
            };
        match name {
            "rastrigin" => match fields.as_slice() {
                [d] => Ok(Self::Rastrigin {
                    dimension: dimension(d, "an integer >= 1")?,
                }),
                _ => Err(shape(ProblemKind::Rastrigin)),
            },
            "cec2010" => match fields.as_slice() {
                [f, d] => Ok(Self::Cec2010 {
                    number: numbered(f, 'f', "function", 1..=20)?,
                    dimension: dimension(d, "a multiple of 100 up to 10^8")?,
                }),
                _ => Err(shape(ProblemKind::Cec2010)),
            },
            "cec2006" => match fields.as_slice() {
                [g] => Ok(Self::Cec2006 {
                    number: numbered(g, 'g', "problem", 1..=24)?,
                }),
                _ => Err(shape(ProblemKind::Cec2006)),
            },
            "ga" => match fields.as_slice() {
                [f, n] => {
                    let number = numbered(f, 'f', "function", 1..=8)?;
                    Ok(Self::GaFunction {
                        function: GaFunction::ALL[number as usize - 1],
                        variables: dimension(n, "an integer >= 1")?,
                    })
                }
                _ => Err(shape(ProblemKind::GaFunction)),
            },
            "knapsack" | "etc" => {
                let kind = if name == "knapsack" {
                    ProblemKind::Knapsack
                } else {
                    ProblemKind::Etc
                };
                // The path is everything after the first `:`, so a path may hold `:` itself.
                if rest.is_empty() {
                    return Err(shape(kind));
                }
                let path = PathBuf::from(rest);
                Ok(if name == "knapsack" {
                    Self::Knapsack { path }
                } else {
                    Self::Etc { path }
                })
            }
            "user" => {
                if rest.is_empty() {
                    return Err(shape(ProblemKind::User));
                }
                let path = PathBuf::from(rest);
                let extension = path.extension().and_then(|e| e.to_str());
                if matches!(extension, Some("cu" | "cuh")) {
                    return Err(SpecError::SourceNotManifest {
                        spec: spec.to_string(),
                    });
                }
                Ok(Self::User { path })
            }
            "cuda" => Err(SpecError::UserSource {
                spec: spec.to_string(),
            }),
            _ => match name.strip_prefix("shifted-") {
                Some(function_name) => {
                    let function = shifted_function(function_name).ok_or_else(|| {
                        field(
                            "function",
                            function_name,
                            "rastrigin, griewank, salomon, discus, sum-squares or schwefel-1.2",
                        )
                    })?;
                    match fields.as_slice() {
                        [d] => Ok(Self::Shifted {
                            function,
                            dimension: dimension(d, "an integer in 1..=10^8")?,
                        }),
                        _ => Err(shape(ProblemKind::Shifted)),
                    }
                }
                None => Err(SpecError::UnknownProblem {
                    spec: spec.to_string(),
                    name: name.to_string(),
                }),
            },
        }
    }
}

impl fmt::Display for ProblemSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rastrigin { dimension } => write!(f, "rastrigin:{dimension}"),
            Self::Shifted {
                function,
                dimension,
            } => write!(f, "{}:{dimension}", function.name()),
            Self::Cec2010 { number, dimension } => write!(f, "cec2010:f{number}:{dimension}"),
            Self::Cec2006 { number } => write!(f, "cec2006:g{number:02}"),
            Self::GaFunction {
                function,
                variables,
            } => {
                let number = GaFunction::ALL
                    .iter()
                    .position(|candidate| candidate == function)
                    .map_or(0, |index| index + 1);
                write!(f, "ga:f{number}:{variables}")
            }
            Self::Knapsack { path } => write!(f, "knapsack:{}", path.display()),
            Self::Etc { path } => write!(f, "etc:{}", path.display()),
            Self::User { path } => write!(f, "user:{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProblemSpec, SpecError> {
        text.parse()
    }

    #[test]
    fn every_form_parses_and_prints_back() {
        for text in [
            "rastrigin:1000",
            "shifted-rastrigin:64",
            "shifted-schwefel-1.2:10",
            "shifted-sum-squares:3",
            "cec2010:f3:1000000",
            "cec2006:g01",
            "cec2006:g24",
            "ga:f1:128",
            "ga:f8:2",
            "knapsack:data/k.txt",
            "etc:/a/b:c.0",
            "user:problems/rastrigin.toml",
        ] {
            let spec = parse(text).unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            parse("ga:f7:4").unwrap(),
            ProblemSpec::GaFunction {
                function: GaFunction::Rastrigin,
                variables: 4
            }
        );
    }

    #[test]
    fn errors_name_the_field_and_what_is_allowed() {
        let error = parse("cec2010:f21:1000").unwrap_err().to_string();
        assert_eq!(
            error,
            "problem `cec2010:f21:1000`: function `f21` is not allowed; expected f1..f20"
        );
        let error = parse("rastrigin:0").unwrap_err().to_string();
        assert!(error.contains("dimension `0`"), "{error}");
        let error = parse("rastrigin").unwrap_err().to_string();
        assert_eq!(error, "problem `rastrigin` must be written `rastrigin:D`");
        let error = parse("sphere:10").unwrap_err().to_string();
        assert!(error.starts_with("unknown problem `sphere`"), "{error}");
        let error = parse("shifted-foo:10").unwrap_err().to_string();
        assert!(error.contains("function `foo`"), "{error}");
        assert!(matches!(parse("cec2006:g1x"), Err(SpecError::Field { .. })));
        assert!(matches!(parse("knapsack:"), Err(SpecError::Shape { .. })));
        assert!(matches!(
            parse("cuda:kernel.cu"),
            Err(SpecError::UserSource { .. })
        ));
        assert!(matches!(
            parse("user:kernel.cu"),
            Err(SpecError::SourceNotManifest { .. })
        ));
        assert!(matches!(parse("user:"), Err(SpecError::Shape { .. })));
    }
}
