//! The command line, as clap parses it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use crate::algorithm::Algorithm;

/// Run evo-gpu's evolutionary algorithms on built-in problems, on the CPU or a CUDA GPU.
#[derive(Debug, Parser)]
#[command(name = "evo", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the algorithms, the problem specs and every algorithm's parameters (defaults and ranges).
    List,
    /// Run an algorithm on a problem and write result.json, history.csv and convergence.svg.
    // Boxed: its options are many times the size of the other commands'.
    Run(Box<RunArgs>),
    /// Continue a run from its checkpoint (the run's settings come from `<checkpoint>.run.json`).
    Resume(ResumeArgs),
    /// List the CUDA devices (name, memory, compute capability).
    Devices,
}

/// `evo run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The algorithm (`evo list` shows them).
    pub algorithm: Algorithm,

    /// The problem, e.g. `rastrigin:1000`, `cec2010:f3:1000000`, `cec2006:g01`, `ga:f1:128`,
    /// `knapsack:FILE`, `etc:FILE` (`evo list` shows every form). User CUDA source problems are not
    /// available from the command line.
    #[arg(long, short)]
    pub problem: String,

    /// A TOML file of parameters, with the names of the algorithm's Rust parameter type.
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,

    /// One parameter, `key=value` (a TOML value); repeatable, applied after --config.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,

    /// Where to run: auto, cpu, cpu:N (N threads, 0 = all cores), cuda or cuda:N (device N).
    #[arg(long, default_value = "auto")]
    pub backend: String,

    /// The run's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Stopping rules (any combination; the first that holds stops the run).
    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Save a checkpoint to FILE (and its settings to FILE.run.json) every --every generations and when the
    /// run stops; after a failed step or a crash, the last periodic checkpoint remains.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,

    /// Generations between two checkpoints [default: 100].
    #[arg(long, value_name = "N", requires = "checkpoint")]
    pub every: Option<u64>,

    /// The folder for result.json, history.csv and convergence.svg.
    #[arg(long, value_name = "DIR", default_value = "evo-out")]
    pub out: PathBuf,

    /// Record a history point (history.csv, the plot) every N generations [default: a hundredth of a
    /// --generations budget, between 1 and 100; 100 with any other budget]. A point needs the engine's
    /// best fitness on the host, which on CUDA ends a batch of generations launched back to back.
    #[arg(long, value_name = "N")]
    pub history_every: Option<u64>,

    /// Split one ma-sw-chains population over the GPUs of --gpus (evo-distributed's dimension split):
    /// `dimension` gives each entry of --gpus a slice of every individual's variables (a device listed
    /// twice holds two slices); the run equals the unsplit CUDA run bit for bit.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub split: Option<Split>,

    /// The island model (evo-distributed): `--islands K` and its options.
    #[command(flatten)]
    pub islands: IslandArgs,

    /// Output options shared with `evo resume`.
    #[command(flatten)]
    pub display: DisplayArgs,
}

/// What `--split` splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// MA-SW-Chains' variables, in slices over GPUs.
    Dimension,
}

/// `evo run --islands K`: de, ga and ma-sw-chains as `K` islands with ring migration (evo-distributed's
/// island model); the same keys are accepted by `--set` and `--config`.
#[derive(Debug, Args, Clone, Default)]
pub struct IslandArgs {
    /// Run K islands (K >= 1), island i from seed + i; the result depends only on the seed, K,
    /// --migration-interval, --migrants and the parameters, never on where the islands run.
    #[arg(long, value_name = "K")]
    pub islands: Option<usize>,

    /// Generations (ma-sw-chains: memetic cycles) between two migrations, >= 1 [default: 25].
    #[arg(long, value_name = "M", visible_alias = "migration-every")]
    pub migration_interval: Option<u64>,

    /// Individuals each island sends to the next one at a migration, 1 ..= population/2 [default: 1].
    #[arg(long, value_name = "N")]
    pub migrants: Option<usize>,

    /// Run the islands on these CUDA devices (e.g. 0,1,2,3), island i on the (i mod count)-th (with
    /// --split dimension: one slice per entry); never
    /// falls back to the CPU. Under mpiexec the ranks of a machine divide the list (one device each with
    /// as many ranks as devices; more ranks than devices is an error).
    #[arg(long, value_name = "LIST", conflicts_with = "placement")]
    pub gpus: Option<String>,

    /// Where the islands run, as evo-distributed's placement (`cpu:4,cpu:4`, `cuda:0,cpu:8`), every
    /// rank's whole under mpiexec [default: the --backend, auto = cpu:0; a CUDA backend under mpiexec
    /// gives each rank of a machine its own GPU from the backend's on].
    #[arg(long, value_name = "LIST")]
    pub placement: Option<String>,
}

/// The stopping rules of `evo run`.
#[derive(Debug, Args, Clone, Default)]
pub struct BudgetArgs {
    /// Stop after N generations.
    #[arg(long, value_name = "N")]
    pub generations: Option<u64>,

    /// Stop once N objective evaluations are spent.
    #[arg(long, value_name = "N")]
    pub evaluations: Option<u64>,

    /// Stop after S seconds of wall time (across resumes).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub seconds: Option<f64>,

    /// Stop once the best fitness is at most F.
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub target: Option<f64>,
}

/// `evo resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The checkpoint file written by `evo run --checkpoint FILE`.
    pub checkpoint: PathBuf,

    /// The folder for the result files (default: the run's).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Continue on another backend (default: the run's); the checkpoint is backend-independent.
    #[arg(long)]
    pub backend: Option<String>,

    /// Continue a `--split dimension` run over these CUDA devices, one slice per entry (default: the
    /// run's list); the checkpoint does not depend on the layout.
    #[arg(long, value_name = "LIST")]
    pub gpus: Option<String>,

    /// Output options shared with `evo run`.
    #[command(flatten)]
    pub display: DisplayArgs,
}

/// How progress is shown.
#[derive(Debug, Args, Clone)]
pub struct DisplayArgs {
    /// When stderr is not a terminal, log a progress line every N generations.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub log_every: u64,

    /// No progress bar and no progress lines.
    #[arg(long, short)]
    pub quiet: bool,
}
