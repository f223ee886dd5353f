//! A DE configuration written as one line of text, for configuration searches: the `tune` example takes
//! them as arguments and `cargo xtask bench --suite de` from `--de-table1-configs`.
//!
//! The form is `strategy/F/CR/crossover/adaptation`, optionally followed by `+eq`, then optionally by
//! `+ls<period>x<moves>[k<kicks>x<kick moves> | all]` (the opt-in local search of ETC schedules, an extension beyond the paper:
//! [`LocalSearch`]):
//!
//! | field | values |
//! | --- | --- |
//! | strategy | `rand1` (DE/rand/1), `best1` (DE/best/1), `ctb1` (DE/current-to-best/1) |
//! | `F` | a number in [0, 2] |
//! | `CR` | a number in [0, 1] |
//! | crossover | `bin` (binomial), `exp` (exponential) |
//! | adaptation | `fixed`, `jde` |
//! | `+eq` | a trial as good as its parent replaces it ([`Selection::BetterOrEqual`]) |
//! | `+ls<period>x<moves>` | local search of the best schedule every `period` generations, at most `moves` moves ([`LocalSearch::new`]) |
//! | `+ls<period>x<moves>all` | the same on every vector's schedule ([`Scope::All`]) |
//! | `+ls<period>x<moves>k<kicks>x<kick moves>` | the search of the best followed by `kicks` perturbed restarts of `kick moves` random task moves each, the best candidate kept ([`LocalSearch::with_kicks`]) |
//!
//! ```
//! use evo_de::{Crossover, DeConfig, Scope};
//! let config: DeConfig = "rand1/0.5/0.005/exp/fixed".parse()?;
//! let params = config.params(512)?;
//! assert_eq!(params.crossover(), Crossover::Exponential);
//! assert_eq!(params.crossover_rate(), 0.005);
//! assert_eq!(config.to_string(), "rand1/0.5/0.005/exp/fixed");
//! let memetic: DeConfig = "rand1/0.1/0.01/bin/fixed+ls500x64".parse()?;
//! let search = memetic.local_search().expect("+ls given");
//! assert_eq!((search.period(), search.max_moves()), (500, 64));
//! let everywhere: DeConfig = "rand1/0.1/0.01/bin/fixed+ls500x64all".parse()?;
//! assert_eq!(everywhere.local_search().map(|s| s.scope()), Some(Scope::All));
//! let kicked: DeConfig = "rand1/0.1/0.01/bin/fixed+ls500x64k32x4".parse()?;
//! assert_eq!(kicked.local_search().map(|s| (s.kicks(), s.kick_moves())), Some((32, 4)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::num::ParseFloatError;
use std::str::FromStr;

use crate::params::ALGORITHM;
use crate::{Adaptation, Crossover, DeParams, LocalSearch, Scope, Selection, Strategy};

/// The suffix that selects [`Selection::BetterOrEqual`].
const BETTER_OR_EQUAL_SUFFIX: &str = "+eq";
/// The start of the local search suffix, `+ls<period>x<moves>[all]`.
const LOCAL_SEARCH_SUFFIX: &str = "+ls";
/// The end of a local search suffix that searches every vector ([`Scope::All`]).
const ALL_VECTORS_SUFFIX: &str = "all";
/// The start of the kicks of a local search suffix, `k<kicks>x<moves>` ([`LocalSearch::with_kicks`]).
const KICKS_MARK: char = 'k';

/// Everything of [`DeParams`] but the population and the CUDA block size, and the opt-in local search,
/// parsed from and written as `strategy/F/CR/crossover/adaptation[+eq][+ls<period>x<moves>[k<kicks>x<kick moves> | all]]` (module docs). `F` and `CR` are checked against the ranges of
/// [`DeParams::with_differential_weight`] and [`DeParams::with_crossover_rate`] when parsed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeConfig {
    strategy: Strategy,
    differential_weight: f32,
    crossover_rate: f32,
    crossover: Crossover,
    adaptation: Adaptation,
    selection: Selection,
    local_search: Option<LocalSearch>,
}

/// Why a configuration text was rejected.
#[derive(Debug)]
#[non_exhaustive]
pub enum ParseConfigError {
    /// Not five fields separated by `/`.
    FieldCount {
        /// The text without the `+eq` suffix.
        text: String,
        /// How many fields it has.
        count: usize,
    },
    /// A strategy other than `rand1`, `best1`, `ctb1`.
    UnknownStrategy(String),
    /// A crossover other than `bin`, `exp`.
    UnknownCrossover(String),
    /// An adaptation other than `fixed`, `jde`.
    UnknownAdaptation(String),
    /// `F` or `CR` is not a number.
    Number {
        /// "differential weight F" or "crossover rate CR".
        name: &'static str,
        /// The field as written.
        text: String,
        /// The parser's error.
        source: ParseFloatError,
    },
    /// `F` or `CR` is a number outside its range, or the local search's period or moves is 0.
    OutOfRange(evo_core::Error),
    /// A `+ls` suffix not of the form `+ls<period>x<moves>[all]` with two whole numbers.
    LocalSearch(String),
}

impl fmt::Display for ParseConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FieldCount { text, count } => write!(
                f,
                "{ALGORITHM}: configuration `{text}` has {count} field(s), expected 5: \
                 strategy/F/CR/crossover/adaptation (e.g. rand1/0.5/0.005/bin/fixed)"
            ),
            Self::UnknownStrategy(text) => write!(
                f,
                "{ALGORITHM}: unknown strategy `{text}` (expected rand1, best1 or ctb1)"
            ),
            Self::UnknownCrossover(text) => write!(
                f,
                "{ALGORITHM}: unknown crossover `{text}` (expected bin or exp)"
            ),
            Self::UnknownAdaptation(text) => write!(
                f,
                "{ALGORITHM}: unknown adaptation `{text}` (expected fixed or jde)"
            ),
            Self::Number { name, text, source } => {
                write!(f, "{ALGORITHM}: {name} `{text}` is not a number: {source}")
            }
            Self::OutOfRange(error) => write!(f, "{error}"),
            Self::LocalSearch(text) => write!(
                f,
                "{ALGORITHM}: local search `{text}` is not +ls<period>x<moves>[all] or +ls<period>x<moves>k<kicks>x<kick moves> (e.g. +ls500x64, +ls500x64k32x4)"
            ),
        }
    }
}

impl std::error::Error for ParseConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Number { source, .. } => Some(source),
            Self::OutOfRange(error) => Some(error),
            _ => None,
        }
    }
}

impl FromStr for DeConfig {
    type Err = ParseConfigError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (text, local_search) = match text.rfind(LOCAL_SEARCH_SUFFIX) {
            Some(at) => (&text[..at], Some(parse_local_search(&text[at..])?)),
            None => (text, None),
        };
        let (fields, selection) = match text.strip_suffix(BETTER_OR_EQUAL_SUFFIX) {
            Some(rest) => (rest, Selection::BetterOrEqual),
            None => (text, Selection::StrictlyBetter),
        };
        let parts: Vec<&str> = fields.split('/').collect();
        let [strategy, f, cr, crossover, adaptation] = parts[..] else {
            return Err(ParseConfigError::FieldCount {
                text: fields.to_string(),
                count: parts.len(),
            });
        };
        let strategy = match strategy {
            "rand1" => Strategy::Rand1,
            "best1" => Strategy::Best1,
            "ctb1" => Strategy::CurrentToBest1,
            other => return Err(ParseConfigError::UnknownStrategy(other.to_string())),
        };
        let crossover = match crossover {
            "bin" => Crossover::Binomial,
            "exp" => Crossover::Exponential,
            other => return Err(ParseConfigError::UnknownCrossover(other.to_string())),
        };
        let adaptation = match adaptation {
            "fixed" => Adaptation::Fixed,
            "jde" => Adaptation::Jde,
            other => return Err(ParseConfigError::UnknownAdaptation(other.to_string())),
        };
        let number = |name: &'static str, text: &str| {
            text.parse::<f32>()
                .map_err(|source| ParseConfigError::Number {
                    name,
                    text: text.to_string(),
                    source,
                })
        };
        let differential_weight = number("differential weight F", f)?;
        let crossover_rate = number("crossover rate CR", cr)?;
        // The ranges are DeParams's; checking them here makes a parsed configuration always applicable.
        DeParams::default()
            .with_differential_weight(differential_weight)
            .and_then(|params| params.with_crossover_rate(crossover_rate))
            .map_err(ParseConfigError::OutOfRange)?;
        Ok(Self {
            strategy,
            differential_weight,
            crossover_rate,
            crossover,
            adaptation,
            selection,
            local_search,
        })
    }
}

/// The local search of a `+ls<period>x<moves>[all]` suffix.
fn parse_local_search(suffix: &str) -> Result<LocalSearch, ParseConfigError> {
    let malformed = || ParseConfigError::LocalSearch(suffix.to_string());
    let body = suffix
        .strip_prefix(LOCAL_SEARCH_SUFFIX)
        .ok_or_else(malformed)?;
    let (body, scope) = match body.strip_suffix(ALL_VECTORS_SUFFIX) {
        Some(rest) => (rest, Scope::All),
        None => (body, Scope::Best),
    };
    let (body, kicks) = match body.split_once(KICKS_MARK) {
        Some((rest, kicks)) => (rest, Some(kicks)),
        None => (body, None),
    };
    let whole = |text: &str| {
        if text.bytes().all(|b| b.is_ascii_digit()) {
            text.parse::<u32>().map_err(|_| malformed())
        } else {
            Err(malformed())
        }
    };
    let pair = |text: &str| {
        let (first, second) = text.split_once('x').ok_or_else(malformed)?;
        Ok::<_, ParseConfigError>((whole(first)?, whole(second)?))
    };
    let (period, moves) = pair(body)?;
    let search = LocalSearch::new(period, moves)
        .map(|search| search.with_scope(scope))
        .map_err(ParseConfigError::OutOfRange)?;
    match kicks {
        Some(text) => {
            let (kicks, kick_moves) = pair(text)?;
            search
                .with_kicks(kicks, kick_moves)
                .map_err(ParseConfigError::OutOfRange)
        }
        None => Ok(search),
    }
}

impl fmt::Display for DeConfig {
    /// The form [`FromStr`] reads; `F` and `CR` as the shortest decimals that parse back to the same `f32`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let strategy = match self.strategy {
            Strategy::Rand1 => "rand1",
            Strategy::Best1 => "best1",
            Strategy::CurrentToBest1 => "ctb1",
        };
        let crossover = match self.crossover {
            Crossover::Binomial => "bin",
            Crossover::Exponential => "exp",
            // Parsing never yields it: the text form has no name for the paper's literal crossover.
            Crossover::PaperLiteral => "paper",
        };
        let adaptation = match self.adaptation {
            Adaptation::Fixed => "fixed",
            Adaptation::Jde => "jde",
        };
        let suffix = match self.selection {
            Selection::StrictlyBetter => "",
            Selection::BetterOrEqual => BETTER_OR_EQUAL_SUFFIX,
        };
        write!(
            f,
            "{strategy}/{}/{}/{crossover}/{adaptation}{suffix}",
            self.differential_weight, self.crossover_rate
        )?;
        let Some(search) = self.local_search else {
            return Ok(());
        };
        write!(
            f,
            "{LOCAL_SEARCH_SUFFIX}{}x{}",
            search.period(),
            search.max_moves()
        )?;
        if search.kicks() > 0 {
            write!(f, "{KICKS_MARK}{}x{}", search.kicks(), search.kick_moves())?;
        }
        match search.scope() {
            Scope::Best => Ok(()),
            Scope::All => f.write_str(ALL_VECTORS_SUFFIX),
        }
    }
}

impl DeConfig {
    /// The local search of a `+ls` suffix, for the engines' `with_local_search`; `None` without one.
    pub fn local_search(&self) -> Option<LocalSearch> {
        self.local_search
    }

    /// The parameters of this configuration at population `M` (the CUDA block size stays at its default).
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `M` is outside [`DeParams::with_population`]'s range.
    pub fn params(&self, population: usize) -> evo_core::Result<DeParams> {
        Ok(DeParams::default()
            .with_population(population)?
            .with_differential_weight(self.differential_weight)?
            .with_crossover_rate(self.crossover_rate)?
            .with_strategy(self.strategy)
            .with_crossover(self.crossover)
            .with_adaptation(self.adaptation)
            .with_selection(self.selection))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<DeConfig, ParseConfigError> {
        text.parse()
    }

    #[test]
    fn every_field_maps_to_its_parameter() {
        let params = parse("ctb1/0.3/0.02/exp/jde+eq")
            .and_then(|config| config.params(1024).map_err(ParseConfigError::OutOfRange))
            .expect("valid configuration");
        assert_eq!(params.population(), 1024);
        assert_eq!(params.strategy(), Strategy::CurrentToBest1);
        assert_eq!(params.differential_weight().to_bits(), 0.3f32.to_bits());
        assert_eq!(params.crossover_rate().to_bits(), 0.02f32.to_bits());
        assert_eq!(params.crossover(), Crossover::Exponential);
        assert_eq!(params.adaptation(), Adaptation::Jde);
        assert_eq!(params.selection(), Selection::BetterOrEqual);

        let params = parse("best1/0.5/0.005/bin/fixed")
            .and_then(|config| config.params(64).map_err(ParseConfigError::OutOfRange))
            .expect("valid configuration");
        assert_eq!(params.strategy(), Strategy::Best1);
        assert_eq!(params.crossover(), Crossover::Binomial);
        assert_eq!(params.adaptation(), Adaptation::Fixed);
        assert_eq!(params.selection(), Selection::StrictlyBetter);
        assert_eq!(params.block_size(), DeParams::default().block_size());
    }

    #[test]
    fn display_writes_what_parse_reads() {
        for text in [
            "rand1/0.5/0.005/bin/fixed",
            "best1/0.1/0.001/exp/jde",
            "ctb1/0.9/0.02/bin/fixed+eq",
            "rand1/2/1/exp/fixed",
            "rand1/0/0/bin/jde",
            "rand1/0.1/0.01/bin/fixed+ls500x64",
            "best1/0.1/0.01/exp/fixed+eq+ls1x1",
            "rand1/0.1/0.01/bin/fixed+ls500x64all",
            "best1/0.1/0.01/exp/fixed+eq+ls1x1all",
        ] {
            let config = parse(text).expect("valid configuration");
            assert_eq!(config.to_string(), text);
            assert_eq!(parse(&config.to_string()).expect("round trip"), config);
        }
    }

    #[test]
    fn each_malformed_field_has_its_error() {
        assert!(matches!(
            parse("rand1/0.5/0.005/bin"),
            Err(ParseConfigError::FieldCount { count: 4, .. })
        ));
        assert!(matches!(
            parse("rand1/0.5/0.005/bin/fixed/x"),
            Err(ParseConfigError::FieldCount { count: 6, .. })
        ));
        assert!(matches!(
            parse("rand2/0.5/0.005/bin/fixed"),
            Err(ParseConfigError::UnknownStrategy(s)) if s == "rand2"
        ));
        assert!(matches!(
            parse("rand1/0.5/0.005/paper/fixed"),
            Err(ParseConfigError::UnknownCrossover(s)) if s == "paper"
        ));
        assert!(matches!(
            parse("rand1/0.5/0.005/bin/shade"),
            Err(ParseConfigError::UnknownAdaptation(s)) if s == "shade"
        ));
        assert!(matches!(
            parse("rand1/half/0.005/bin/fixed"),
            Err(ParseConfigError::Number {
                name: "differential weight F",
                ..
            })
        ));
        assert!(matches!(
            parse("rand1/0.5//bin/fixed"),
            Err(ParseConfigError::Number {
                name: "crossover rate CR",
                ..
            })
        ));
        // The suffix is only recognised at the end, and only once.
        assert!(matches!(
            parse("rand1/0.5/0.005/bin/fixed+eq+eq"),
            Err(ParseConfigError::UnknownAdaptation(s)) if s == "fixed+eq"
        ));
    }

    #[test]
    fn out_of_range_numbers_report_the_parameter_and_its_range() {
        let error = parse("rand1/0.5/1.5/bin/fixed").expect_err("CR above 1");
        assert!(matches!(error, ParseConfigError::OutOfRange(_)));
        assert_eq!(
            error.to_string(),
            "DE: crossover rate CR must be in [0, 1], got 1.5"
        );
        let error = parse("rand1/NaN/0.5/bin/fixed").expect_err("F is NaN");
        assert_eq!(
            error.to_string(),
            "DE: differential weight F must be in [0, 2], got NaN"
        );
    }

    #[test]
    fn messages_name_the_algorithm_and_the_expected_values() {
        let message = parse("rand1/0.5").expect_err("two fields").to_string();
        assert_eq!(
            message,
            "DE: configuration `rand1/0.5` has 2 field(s), expected 5: \
             strategy/F/CR/crossover/adaptation (e.g. rand1/0.5/0.005/bin/fixed)"
        );
        let message = parse("rand1/0.5/0.005/two/fixed")
            .expect_err("unknown crossover")
            .to_string();
        assert_eq!(message, "DE: unknown crossover `two` (expected bin or exp)");
    }

    #[test]
    fn the_local_search_suffix_is_parsed_and_validated() {
        let config = parse("rand1/0.1/0.01/bin/fixed+eq+ls250x16").expect("valid");
        let search = config.local_search().expect("+ls given");
        assert_eq!((search.period(), search.max_moves()), (250, 16));
        assert_eq!(search.scope(), Scope::Best);
        let everywhere = parse("rand1/0.1/0.01/bin/fixed+eq+ls250x16all").expect("valid");
        assert_eq!(
            everywhere.local_search(),
            Some(search.with_scope(Scope::All))
        );
        let params = config.params(64).expect("valid population");
        assert_eq!(params.selection(), Selection::BetterOrEqual);
        assert!(
            parse("rand1/0.1/0.01/bin/fixed")
                .unwrap()
                .local_search()
                .is_none()
        );
        for bad in [
            "+ls",
            "+ls500",
            "+lsx64",
            "+ls500x",
            "+ls-1x4",
            "+ls5x4x3",
            "+ls9999999999x1",
            "+ls500x64al",
            "+ls500x64All",
            "+ls500x64allall",
            "+ls500allx64",
            "+lsall",
        ] {
            let text = format!("rand1/0.1/0.01/bin/fixed{bad}");
            assert!(
                matches!(parse(&text), Err(ParseConfigError::LocalSearch(_))),
                "{text}"
            );
        }
        assert_eq!(
            parse("rand1/0.1/0.01/bin/fixed+ls0x4")
                .unwrap_err()
                .to_string(),
            "DE: local search period must be at least 1 generation, got 0"
        );
        assert_eq!(
            parse("rand1/0.1/0.01/bin/fixed+ls5")
                .unwrap_err()
                .to_string(),
            "DE: local search `+ls5` is not +ls<period>x<moves>[all] or \
             +ls<period>x<moves>k<kicks>x<kick moves> (e.g. +ls500x64, +ls500x64k32x4)"
        );
    }

    #[test]
    fn the_kicks_of_a_local_search_suffix_are_parsed_and_validated() {
        let config = parse("rand1/0.1/0.01/bin/fixed+ls500x64k32x4").expect("valid");
        let search = config.local_search().expect("+ls given");
        assert_eq!((search.period(), search.max_moves()), (500, 64));
        assert_eq!((search.kicks(), search.kick_moves()), (32, 4));
        assert_eq!(search.scope(), Scope::Best);
        assert_eq!(config.to_string(), "rand1/0.1/0.01/bin/fixed+ls500x64k32x4");
        for bad in [
            "+ls500x64k",
            "+ls500x64k32",
            "+ls500x64kx4",
            "+ls500x64k32x",
            "+ls500x64k32x4x1",
            "+ls500k32x4",
            "+ls500x64k-1x4",
        ] {
            let text = format!("rand1/0.1/0.01/bin/fixed{bad}");
            assert!(
                matches!(parse(&text), Err(ParseConfigError::LocalSearch(_))),
                "{text}"
            );
        }
        assert_eq!(
            parse("rand1/0.1/0.01/bin/fixed+ls500x64k8x0")
                .unwrap_err()
                .to_string(),
            format!(
                "DE: local search kick moves must be 1 ..= {}, got 0",
                crate::local_search::MAX_KICK_MOVES
            )
        );
        assert!(matches!(
            parse("rand1/0.1/0.01/bin/fixed+ls500x64k5000x4"),
            Err(ParseConfigError::OutOfRange(_))
        ));
    }

    #[test]
    fn a_population_out_of_range_is_rejected_when_applied() {
        let config = parse("rand1/0.5/0.005/bin/fixed").expect("valid configuration");
        assert!(config.params(3).is_err());
    }
}
