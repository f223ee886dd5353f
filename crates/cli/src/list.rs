//! `evo list`: the algorithms, the problem specs, and each algorithm's parameters with defaults and ranges.
//!
//! The parameter names and defaults come from serializing each crate's default params value; the allowed
//! ranges are those the crates' setters enforce (their docs' tables), kept here as text. A test checks that
//! every serialized key has a range and every range a key, so a parameter added to a crate shows up here.

use anyhow::Result;
use serde_json::Value;
use std::fmt::Write as _;

use crate::algorithm::Algorithm;
use crate::params::defaults;
use crate::spec::ProblemKind;

/// The allowed values of each parameter, as the crate's setter checks them.
pub fn allowed(algorithm: Algorithm) -> &'static [(&'static str, &'static str)] {
    match algorithm {
        Algorithm::De => &[
            ("population", "4 ..= 2^31"),
            ("differential_weight", "[0, 2]"),
            ("crossover_rate", "[0, 1]"),
            ("strategy", "Rand1, Best1, CurrentToBest1"),
            ("crossover", "Binomial, PaperLiteral, Exponential"),
            ("selection", "StrictlyBetter, BetterOrEqual"),
            ("adaptation", "Fixed, Jde"),
            (
                "block",
                "a power of two in 32 ..= 1024 (CUDA only; results do not depend on it)",
            ),
        ],
        Algorithm::Ga => &[
            (
                "population",
                "2 ..= 4096, at least tournament_size and above elite",
            ),
            ("tournament_size", "1 ..= population"),
            ("elite", "0 ..< population"),
            ("crossover_rate", "[0, 1]"),
            (
                "mutation_rate",
                "[0, 1]; unset = 1/L (L = the problem's bits)",
            ),
            (
                "generations",
                ">= 1 (the budget when no stopping rule is given)",
            ),
            ("block", "a power of two in 32 ..= 1024 (CUDA only)"),
            (
                "rng",
                "\"Philox\" or { PaperXor128 = { threads = 1 ..= 2^20 } } (crossover rate 1 only)",
            ),
        ],
        Algorithm::Qiga => &[
            ("population", "1 ..= 64"),
            ("angles", "five angles, each in [0, 0.349] rad"),
            ("sign", "Plus, Random"),
            ("quadrant", "TrueSign, NowotniakQuirk"),
            (
                "generations",
                "1 ..= 2^32 - 2 (the budget when no stopping rule is given)",
            ),
            ("block", "a power of two in 32 ..= 1024 (CUDA only)"),
        ],
        Algorithm::Sga => &[
            ("population", "2 ..= 1024"),
            (
                "generations",
                "1 ..= 2^32 - 2 (the budget when no stopping rule is given)",
            ),
            ("crossover_rate", "[0, 1]"),
            ("mutation_rate", "[0, 1]"),
        ],
        Algorithm::Dpga => &[
            ("main_size", "even, in [2, 2^30)"),
            ("reserve_size", "even, in [2, 2^30)"),
            ("bits_per_variable", "1 ..= 32"),
            ("crossover_rate", "[0, 1]"),
            ("mutation_rate", "[0, 1]; unset = 1/L (L = total bits)"),
            ("elitism_rate", "[0, 1]"),
            ("crossbreed_rate", "[0, 1]"),
            ("tournament_size", "1 ..= 64, at most both population sizes"),
            ("crossover", "OnePoint, TwoPoint, Uniform"),
            ("encoding", "Binary, Gray"),
            ("constraint_handling", "Mcsm, Deb"),
            ("initialisation", "Feasible, Random"),
            ("init_max_draws", "[1, 2^32), at least main_size"),
            (
                "initial_target_distance",
                "[min_target_distance, max_target_distance]",
            ),
            ("distance_learning_rate", "finite, >= 0"),
            (
                "min_target_distance",
                "[0, 1], at most initial_target_distance",
            ),
            (
                "max_target_distance",
                "[0, 1], at least initial_target_distance",
            ),
        ],
        Algorithm::MaSwChains => &[
            (
                "population",
                ">= 4, above nam_candidates, at most max_evaluations",
            ),
            ("blx_alpha", "finite, >= 0"),
            ("nam_candidates", "1 ..= population - 1"),
            ("mutation_probability", "[0, 1]"),
            (
                "mutation_range",
                "finite, > 0 (fraction of the domain width)",
            ),
            (
                "ls_ratio",
                "(0, 1), with floor(ls_ratio * ls_intensity / (1 - ls_ratio)) >= 1",
            ),
            ("ls_intensity", "1 ..= 2^32 - 1"),
            ("min_improvement", "finite, >= 0"),
            ("rho_init", "finite, > 0"),
            ("rho_half_nearest", "true, false"),
            ("success_limit", ">= 1"),
            ("failure_limit", ">= 1"),
            ("rho_expand", "finite, > 1"),
            ("rho_contract", "(0, 1)"),
            ("restart", "true, false"),
            ("children_per_step", "1 ..= 1024"),
            (
                "max_evaluations",
                "population ..< 2^32 (the budget when no stopping rule is given)",
            ),
        ],
    }
}

/// The keys of a `user:` manifest and what each means, for `evo list`.
pub const MANIFEST_KEYS: &[(&str, &str)] = &[
    (
        "kind",
        "\"real\" (de, ma-sw-chains), \"bits\" (ga) or \"constrained\" (dpga)",
    ),
    (
        "source",
        "the CUDA file: real defines evo_user_terms (and evo_user_combine with sums), bits \
         evo_user_fitness, constrained evo_user_constrained",
    ),
    (
        "name",
        "the problem's name: ASCII letters, digits, - and _ (default: the source file's stem)",
    ),
    ("dimension", "real, constrained: D >= 1"),
    (
        "lower, upper",
        "real, constrained: one number, or a list of D numbers",
    ),
    (
        "terms",
        "real: \"D\" (default), \"D-k\" (term i reads x_i ..= x_i+k), or a count",
    ),
    (
        "sums",
        "real: 1 ..= 4 sums per term, combined by evo_user_combine (default: one sum, the fitness)",
    ),
    ("bits", "bits: bits per individual, >= 1"),
    ("optimum", "bits: the known optimum (optional)"),
    (
        "inequalities, equalities",
        "constrained: m (g_j <= 0) and q (|h_j| <= eps), default 0",
    ),
    ("equality_tolerance", "constrained: eps (optional)"),
    (
        "[[data]] name, file",
        "a read-only array data.<name> (data.<name>_len values) from a .npy, .csv/.txt or .bin/.f32/.f64 \
         file; with arrays, bits and constrained sources take const EvoUserData& data as their last \
         parameter",
    ),
    (
        "[[data]] type",
        "\"f32\" (default; a .npy file's own type) or \"f64\"",
    ),
    (
        "[[data]] length",
        "\"any\" (default), \"D\" (bits: the bit count), \"terms\" (bits: the bit count; constrained: m + q) \
         or a count",
    ),
];

/// The text `evo list` prints.
pub fn render() -> Result<String> {
    let mut out = String::new();
    writeln!(out, "Algorithms (evo run <algorithm> --problem <spec>):")?;
    for algorithm in Algorithm::ALL {
        let problems: Vec<&str> = algorithm
            .accepts()
            .iter()
            .map(|kind| kind.syntax())
            .collect();
        writeln!(
            out,
            "  {:<13} {}",
            algorithm.name(),
            algorithm.description()
        )?;
        writeln!(out, "  {:<13} problems: {}", "", problems.join(", "))?;
    }
    writeln!(out)?;
    writeln!(out, "Problems (--problem):")?;
    for kind in ProblemKind::ALL {
        writeln!(out, "  {:<21} {}", kind.syntax(), kind.description())?;
    }
    writeln!(
        out,
        "  User CUDA source problems are not available as cuda:FILE; they are given as \
         user:MANIFEST.toml,\n  a TOML manifest with these keys (relative files are taken from its folder):"
    )?;
    for (key, meaning) in MANIFEST_KEYS {
        writeln!(out, "    {key:<27} {meaning}")?;
    }
    writeln!(
        out,
        "  A user problem runs on a CUDA device only (a source file has no CPU twin): --backend cpu, or \
         auto\n  without a device, is an error. Examples: crates/cli/examples/user/."
    )?;
    for algorithm in Algorithm::ALL {
        writeln!(out)?;
        writeln!(
            out,
            "Parameters of {} (--set key=value, or key = value in --config FILE.toml):",
            algorithm.name()
        )?;
        let defaults = defaults(algorithm)?;
        for (key, range) in allowed(algorithm) {
            let default = defaults.get(*key).map_or_else(|| "-".to_string(), shortest);
            writeln!(out, "  {key:<24} default {default:<24} allowed {range}")?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "Island model of de, ga and ma-sw-chains (--islands K, or --set islands=K; the keys also in \
         --config):"
    )?;
    let model = evo_distributed::IslandParams::default();
    for (key, default, range) in island_keys(&model) {
        writeln!(out, "  {key:<24} default {default:<24} allowed {range}")?;
    }
    writeln!(
        out,
        "  Placement: --gpus 0,1 (CUDA devices; never a CPU fallback), --placement cpu:4,cuda:0, or the \
         --backend
  (auto = the CPU). With the mpi feature, mpiexec -n R evo run ... spreads the islands \
         over R ranks:\n  the ranks of a machine split --gpus, take one GPU each from a CUDA --backend's, and \
         use --placement whole."
    )?;
    Ok(out)
}

/// The island keys ([`crate::islands::KEYS`]) with their flag, default and allowed values.
fn island_keys(model: &evo_distributed::IslandParams) -> [(&'static str, String, &'static str); 3] {
    [
        (
            "islands",
            "none (one engine)".to_string(),
            ">= 1, island i from seed + i; --islands",
        ),
        (
            "migration_interval",
            model.migration_interval().to_string(),
            ">= 1 generations (ma-sw-chains: cycles); --migration-interval",
        ),
        (
            "migrants",
            model.migrants().to_string(),
            "1 ..= population/2; --migrants",
        ),
    ]
}

/// A default as text, an `f32` field's value in its own shortest form: serde_json widens `f32` to `f64`, so
/// 0.9f32 would print as 0.8999999761581421.
fn shortest(value: &Value) -> String {
    match value {
        Value::Number(number) if number.is_f64() => match number.as_f64() {
            Some(wide) if f64::from(wide as f32) == wide => format!("{}", wide as f32),
            _ => number.to_string(),
        },
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(shortest).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_parameter_has_a_range_and_every_range_a_parameter() {
        for algorithm in Algorithm::ALL {
            let mut keys: Vec<String> = defaults(algorithm).unwrap().keys().cloned().collect();
            let mut listed: Vec<String> = allowed(algorithm)
                .iter()
                .map(|(key, _)| key.to_string())
                .collect();
            keys.sort();
            listed.sort();
            assert_eq!(keys, listed, "{algorithm}");
        }
    }

    #[test]
    fn the_island_keys_are_listed() {
        let text = render().unwrap();
        for key in crate::islands::KEYS {
            assert!(
                text.contains(&format!("\n  {key}")),
                "{key} missing:\n{text}"
            );
        }
        assert!(text.contains("--gpus 0,1"), "{text}");
    }

    #[test]
    fn the_manifest_keys_are_listed() {
        let text = render().unwrap();
        for key in [
            "kind",
            "source",
            "dimension",
            "terms",
            "sums",
            "bits",
            "[[data]] name, file",
        ] {
            assert!(text.contains(&format!("    {key} ")), "{key}:\n{text}");
        }
    }

    #[test]
    fn f32_defaults_print_in_their_shortest_form() {
        let text = render().unwrap();
        assert!(text.contains("default 0.9 "), "{text}");
        assert!(!text.contains("0.8999999"), "{text}");
    }
}
