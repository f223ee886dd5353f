//! The suite flags of `cargo xtask bench`: the knobs that narrow or split one suite's work, each named after its
//! suite (`--ma-…`, `--de-…`, `--eval-…`, `--ga-…`, `--dpga-…`) and shown under the suite's heading in `--help`.
//!
//! Each value is parsed into its suite's own type here, so a bad value stops the command before anything runs,
//! with clap naming the flag and the suite's parser saying what is allowed. A suite flag that would change
//! nothing, because its suite is not selected or `--de-parts` leaves out Table 1, is an error too
//! ([`SuiteFlags::check`]). The environment variables these flags replaced are refused by name
//! ([`check_replaced_variables`]), so an old command line fails instead of running the whole suite.

use clap::Args;

use crate::bench::suites::{de, dpga, eval, ma};

/// Every suite's flags.
#[derive(Debug, Clone, Default, Args)]
pub struct SuiteFlags {
    #[command(flatten)]
    pub ma: MaFlags,
    #[command(flatten)]
    pub de: DeFlags,
    #[command(flatten)]
    pub eval: EvalFlags,
    #[command(flatten)]
    pub ga: GaFlags,
    #[command(flatten)]
    pub dpga: DpgaFlags,
}

/// Flags of suite `ma`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Suite ma (MA-SW-Chains)")]
pub struct MaFlags {
    /// The cases to run, comma-separated selectors `part[:name[:D]]`: part `shifted`, `small`, `cec`, `scale`
    /// or `cpu`; name a function of the part (`rastrigin`, `griewank`, `salomon`, `sum-squares`, `discus`,
    /// `schwefel-1.2`; CEC `f1`, `f2`, `f3`, `f4`, `f6`, `f8`, `f13`, `f18`, `f20`; scale `rastrigin`) or `*`;
    /// D one of the part's numbers of variables or `*`. E.g. `shifted:rastrigin:3000000,cec:f8`. Default:
    /// every case of the mode except the opt-in ones, `small` and the 10^8 run (`scale:*:100000000`).
    #[arg(
        long = "ma-cases",
        id = "ma_cases",
        value_name = "SELECTORS",
        value_delimiter = ','
    )]
    pub cases: Vec<ma::Selector>,
    /// Runs per case of the shifted and CEC parts, in either mode. Default: 10 (20 for Schwefel 1.2, as the
    /// paper), 1 with --quick.
    #[arg(long = "ma-runs", id = "ma_runs", value_name = "N", value_parser = parse_positive)]
    pub runs: Option<usize>,
    /// The index of the first run (seed 2015 + index), to split a case's runs over calls:
    /// `--ma-runs 5` then `--ma-runs 5 --ma-first-run 5` are runs 0-9.
    #[arg(
        long = "ma-first-run",
        id = "ma_first_run",
        value_name = "INDEX",
        default_value_t = 0
    )]
    pub first_run: u64,
}

/// Flags of suite `de`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Suite de (differential evolution)")]
pub struct DeFlags {
    /// The parts to run, comma-separated, so that a long full run can be split over calls or GPUs. Default:
    /// all three.
    #[arg(
        long = "de-parts",
        id = "de_parts",
        value_name = "PARTS",
        value_enum,
        value_delimiter = ','
    )]
    pub parts: Vec<de::Part>,
    /// A configuration sweep replacing Table 1 and the Min-Min tables: `;`-separated configurations, each
    /// `strategy/F/CR/crossover/adaptation[+eq][+ls<period>x<moves>[all|k<kicks>x<kick moves>]]` or `default`
    /// (the suite's own, which may take the `+ls…` suffix), e.g. `rand1/0.5/0.005/bin/fixed;default+ls500x64`;
    /// 1 s per cell. Default: no sweep (the suite's Table 1).
    #[arg(
        long = "de-table1-configs",
        id = "de_table1_configs",
        value_name = "CONFIGS",
        value_delimiter = ';'
    )]
    pub table1_configs: Vec<de::SweepConfig>,
    /// The populations of the sweep, comma-separated, of 64, 512 and 1024. Default: all three. Needs
    /// --de-table1-configs.
    #[arg(
        long = "de-table1-populations", id = "de_table1_populations",
        value_name = "POPULATIONS",
        value_delimiter = ',',
        value_parser = de::parse_population,
        requires = "de_table1_configs"
    )]
    pub table1_populations: Vec<usize>,
    /// The instance files of Table 1 (or of the sweep), comma-separated, e.g. `u_c_hihi.0,u_s_lolo.0`.
    /// Default: all twelve; with --quick and no sweep, u_c_hihi.0, u_i_lohi.0 and u_s_lolo.0.
    #[arg(
        long = "de-table1-instances", id = "de_table1_instances",
        value_name = "FILES",
        value_delimiter = ',',
        value_parser = de::parse_instance
    )]
    pub table1_instances: Vec<&'static str>,
    /// The local search of the makespan part, a JSON `LocalSearch` (keys period, max_moves, scope, kicks,
    /// kick_moves, neighbourhood, iterations, iteration_moves), e.g. `{"period": 20, "max_moves": 64,
    /// "kicks": 64, "kick_moves": 4, "neighbourhood": "AnyPair", "iterations": 8, "iteration_moves": 3}`.
    /// Default on the GPU: every 50 generations, 64 moves of the `MakespanBalance` neighbourhood, 256 kicks
    /// of 4 moves, 32 iterations of 2 moves; on the CPU: every 20 generations, 64 moves, 64 kicks of 4.
    #[arg(
        long = "de-makespan-search",
        id = "de_makespan_search",
        value_name = "JSON",
        value_parser = de::parse_makespan_search
    )]
    pub makespan_search: Option<evo_de::LocalSearch>,
    /// The instance files of the makespan part, comma-separated, e.g. `u_c_lohi.0,u_s_hihi.0`. Default: all
    /// twelve.
    #[arg(
        long = "de-makespan-instances", id = "de_makespan_instances",
        value_name = "FILES",
        value_delimiter = ',',
        value_parser = de::parse_instance
    )]
    pub makespan_instances: Vec<&'static str>,
    /// The seeds of the makespan part, comma-separated: one run per instance and seed, e.g. `1,2,3,4,5`.
    /// Default: the suite's seed, 2011.
    #[arg(
        long = "de-makespan-seeds",
        id = "de_makespan_seeds",
        value_name = "SEEDS",
        value_delimiter = ','
    )]
    pub makespan_seeds: Vec<u64>,
}

/// Flags of suite `eval` (for profiling one case).
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Suite eval (batched evaluation)")]
pub struct EvalFlags {
    /// The functions, comma-separated, of shifted-rastrigin, shifted-griewank and shifted-schwefel-1.2.
    /// Default: all three.
    #[arg(
        long = "eval-functions", id = "eval_functions",
        value_name = "NAMES",
        value_delimiter = ',',
        value_parser = eval::parse_function
    )]
    pub functions: Vec<evo_benchmarks::ShiftedFunction>,
    /// The numbers of variables, comma-separated, of 1000000 and 10000000. Default: both.
    #[arg(
        long = "eval-dimensions", id = "eval_dimensions",
        value_name = "D",
        value_delimiter = ',',
        value_parser = eval::parse_dimension
    )]
    pub dimensions: Vec<usize>,
    /// The individuals per batch, comma-separated, of 1 and 20. Default: both.
    #[arg(
        long = "eval-batches", id = "eval_batches",
        value_name = "N",
        value_delimiter = ',',
        value_parser = eval::parse_batch
    )]
    pub batches: Vec<usize>,
}

/// Flags of suite `ga`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Suite ga (genetic algorithm)")]
pub struct GaFlags {
    /// Only the single-run target: Hypersphere at n = 32 and 128, the 1-thread CPU reference and the fused
    /// CUDA forms (under a minute with --quick).
    #[arg(long = "ga-fused-only", id = "ga_fused_only")]
    pub fused_only: bool,
}

/// Flags of suite `dpga`.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Suite dpga (DPGA/MCSM)")]
pub struct DpgaFlags {
    /// The CPU experiments to run, comma-separated; the GPU side runs only when all three do. Default: all
    /// three.
    #[arg(
        long = "dpga-parts",
        id = "dpga_parts",
        value_name = "PARTS",
        value_enum,
        value_delimiter = ','
    )]
    pub parts: Vec<dpga::Part>,
}

impl SuiteFlags {
    /// Each suite flag given, as (flag, its suite).
    fn given(&self) -> Vec<(&'static str, &'static str)> {
        let MaFlags {
            cases,
            runs,
            first_run,
        } = &self.ma;
        let DeFlags {
            parts,
            table1_configs,
            table1_populations,
            table1_instances,
            makespan_search,
            makespan_instances,
            makespan_seeds,
        } = &self.de;
        let EvalFlags {
            functions,
            dimensions,
            batches,
        } = &self.eval;
        [
            (!cases.is_empty(), "--ma-cases", "ma"),
            (runs.is_some(), "--ma-runs", "ma"),
            (*first_run != 0, "--ma-first-run", "ma"),
            (!parts.is_empty(), "--de-parts", "de"),
            (!table1_configs.is_empty(), "--de-table1-configs", "de"),
            (
                !table1_populations.is_empty(),
                "--de-table1-populations",
                "de",
            ),
            (!table1_instances.is_empty(), "--de-table1-instances", "de"),
            (makespan_search.is_some(), "--de-makespan-search", "de"),
            (
                !makespan_instances.is_empty(),
                "--de-makespan-instances",
                "de",
            ),
            (!makespan_seeds.is_empty(), "--de-makespan-seeds", "de"),
            (!functions.is_empty(), "--eval-functions", "eval"),
            (!dimensions.is_empty(), "--eval-dimensions", "eval"),
            (!batches.is_empty(), "--eval-batches", "eval"),
            (self.ga.fused_only, "--ga-fused-only", "ga"),
            (!self.dpga.parts.is_empty(), "--dpga-parts", "dpga"),
        ]
        .into_iter()
        .filter(|(given, _, _)| *given)
        .map(|(_, flag, suite)| (flag, suite))
        .collect()
    }

    /// An error naming every suite flag whose suite is not among `selected` (the suites that run), or a Table 1
    /// flag of `de` when `--de-parts` leaves Table 1 out.
    pub fn check(&self, selected: &[&str]) -> anyhow::Result<()> {
        let idle: Vec<String> = self
            .given()
            .into_iter()
            .filter(|(_, suite)| !selected.contains(suite))
            .map(|(flag, suite)| format!("{flag} (suite {suite})"))
            .collect();
        anyhow::ensure!(
            idle.is_empty(),
            "{} given, but {} not selected; select {} with --suite, or drop {}",
            idle.join(", "),
            if idle.len() > 1 {
                "their suites are"
            } else {
                "its suite is"
            },
            if idle.len() > 1 {
                "their suites"
            } else {
                "its suite"
            },
            if idle.len() > 1 {
                "the flags"
            } else {
                "the flag"
            }
        );
        let de = &self.de;
        let table1_flags = !de.table1_configs.is_empty() || !de.table1_instances.is_empty();
        anyhow::ensure!(
            !table1_flags || de.parts.is_empty() || de.parts.contains(&de::Part::Table1),
            "--de-table1-configs and --de-table1-instances act on Table 1, which --de-parts leaves out; \
             add table1 to --de-parts"
        );
        let makespan_flags = de.makespan_search.is_some()
            || !de.makespan_instances.is_empty()
            || !de.makespan_seeds.is_empty();
        anyhow::ensure!(
            !makespan_flags || de.parts.is_empty() || de.parts.contains(&de::Part::Makespan),
            "--de-makespan-search, --de-makespan-instances and --de-makespan-seeds act on the makespan \
             part, which --de-parts leaves out; add makespan to --de-parts"
        );
        Ok(())
    }
}

/// The environment variables that earlier versions of `bench` read, each with the flag that replaced it.
const REPLACED_VARIABLES: [(&str, &str); 12] = [
    ("EVO_MA_CASES", "--ma-cases"),
    ("EVO_MA_RUNS", "--ma-runs"),
    ("EVO_MA_FIRST_RUN", "--ma-first-run"),
    ("EVO_DE_PARTS", "--de-parts"),
    ("EVO_DE_TABLE1_CONFIGS", "--de-table1-configs"),
    ("EVO_DE_TABLE1_POPULATIONS", "--de-table1-populations"),
    ("EVO_DE_TABLE1_INSTANCES", "--de-table1-instances"),
    ("EVO_EVAL_FUNCTIONS", "--eval-functions"),
    ("EVO_EVAL_DIMENSIONS", "--eval-dimensions"),
    ("EVO_EVAL_BATCHES", "--eval-batches"),
    ("EVO_GA_FUSED_ONLY", "--ga-fused-only"),
    ("EVO_DPGA_BENCH_PARTS", "--dpga-parts"),
];

/// An error naming each replaced variable that `is_set` reports, with its flag: a command line written for an
/// earlier version would otherwise run the whole suite instead of the part it asked for.
pub fn check_replaced_variables(is_set: impl Fn(&str) -> bool) -> anyhow::Result<()> {
    let set: Vec<String> = REPLACED_VARIABLES
        .iter()
        .filter(|(variable, _)| is_set(variable))
        .map(|(variable, flag)| format!("{variable} (now {flag})"))
        .collect();
    anyhow::ensure!(
        set.is_empty(),
        "bench no longer reads {}; unset {} (`cargo xtask bench --help`)",
        set.join(", "),
        if set.len() > 1 {
            "them and give the flags instead"
        } else {
            "it and give the flag instead"
        }
    );
    Ok(())
}

/// A positive integer.
fn parse_positive(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{text}` is not a positive integer"))
}

#[cfg(test)]
#[path = "bench_tests.rs"]
mod tests;
