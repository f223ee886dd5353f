//! The command-line grammar of xtask, in one place (as rust-analyzer's `xtask/src/flags.rs`).
//!
//! Every value a user types is validated here or by the command that uses it, and a bad value is a clear error,
//! never a panic.

mod bench;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use evo_gpu_runtime::Profile;

pub use bench::{EvalFlags, SuiteFlags, check_replaced_variables};

/// Maintainer commands of evo-gpu.
#[derive(Debug, Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", about, version)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// One subcommand per module of xtask.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// NVRTC-compile every kernel module, check its entry points, then run the equivalence suite on a GPU.
    VerifyKernels(VerifyKernelsArgs),
    /// Run benchmark suites and write `target/bench/<suite>.{md,json,svg}`.
    Bench(Box<BenchArgs>),
    /// Show or clear the on-disk PTX cache.
    Cache(CacheArgs),
    /// Time process start to driver ready, module ready and first kernel done.
    FirstLaunch(FirstLaunchArgs),
    /// Check that no source file names a commit or a results folder, that every crate has a section in
    /// docs/ARCHITECTURE.md and that no source file is over 800 lines without a reason.
    Tidy,
}

/// Arguments of `first-launch`.
#[derive(Debug, Args)]
pub struct FirstLaunchArgs {
    /// Run two fresh processes on an empty temporary PTX cache (the first compiles, the second reads the
    /// cache) and print both timings with the ratios.
    #[arg(long)]
    pub compare: bool,
}

/// Arguments of `verify-kernels`.
#[derive(Debug, Args)]
pub struct VerifyKernelsArgs {
    /// Only compile and check entry points; do not run the equivalence suite even on a GPU machine.
    #[arg(long)]
    pub compile_only: bool,
    /// Target architecture (sm_XY, compute_XY or XY); repeat for several. Default: the GPUs present, else
    /// sm_70, sm_80 and sm_90.
    #[arg(long = "arch", value_name = "ARCH", value_parser = parse_arch)]
    pub archs: Vec<String>,
    /// Compile profile(s) to check.
    #[arg(long, value_enum, default_value_t = ProfileChoice::Exact)]
    pub profile: ProfileChoice,
    /// Also write each module's PTX to DIR as `<module>.<arch>.<profile>.ptx` (for `ptxas -v` and the
    /// disassembler on a machine without a GPU).
    #[arg(long, value_name = "DIR")]
    pub ptx_dir: Option<std::path::PathBuf>,
}

/// Which compile profiles `verify-kernels` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProfileChoice {
    /// The Exact profile only (bit-identical to the CPU).
    Exact,
    /// The Fast profile only (CUDA intrinsics).
    Fast,
    /// Both profiles.
    Both,
}

impl ProfileChoice {
    /// The profiles this choice names, Exact first.
    pub fn profiles(self) -> Vec<Profile> {
        match self {
            ProfileChoice::Exact => vec![Profile::Exact],
            ProfileChoice::Fast => vec![Profile::Fast],
            ProfileChoice::Both => vec![Profile::Exact, Profile::Fast],
        }
    }
}

/// What `bench` reads from the environment: settings of the machine and the checkout, not of the measurement
/// (those are flags).
const BENCH_ENVIRONMENT: &str = "\
Environment:
  EVO_DATA_DIR       the folder of the benchmark data (hcsp-512x16, knapsack-250); default ../shared/data
                     beside the project root; the suites that need it say where they looked
  EVO_COMMIT         the commit recorded in the outputs instead of git's (a binary copied to another machine,
                     whose checkout may be stale); default `git rev-parse --short HEAD`
  EVO_GPU_CACHE_DIR  the on-disk PTX cache (`cargo xtask cache --show` prints it); default the user's cache
                     directory";

/// Arguments of `bench`.
#[derive(Debug, Args)]
#[command(after_help = BENCH_ENVIRONMENT)]
pub struct BenchArgs {
    /// Fewer sizes, runs and instances than the full mode (a few minutes on a 2-core machine); every
    /// output says it is a quick run.
    #[arg(long)]
    pub quick: bool,
    /// A suite to run; repeat for several. Default: every suite. `--list` shows them.
    #[arg(long = "suite", value_name = "NAME")]
    pub suites: Vec<String>,
    /// Which backends to measure.
    #[arg(long, value_enum, default_value_t = BackendChoice::Both)]
    pub backend: BackendChoice,
    /// Directory for the `<suite>.md`, `.json` and `.svg` files.
    #[arg(long, value_name = "DIR", default_value = "target/bench")]
    pub out: PathBuf,
    /// List the suites and exit.
    #[arg(long)]
    pub list: bool,
    /// The suites' own flags, each under its suite's heading.
    #[command(flatten)]
    pub suite_flags: SuiteFlags,
}

/// Which backends `bench` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// The CPU engines only (rayon).
    Cpu,
    /// The CUDA engines only; an error on a machine without a GPU.
    Cuda,
    /// Both; the CUDA side is skipped, and the output says so, on a machine without a GPU.
    Both,
}

/// Arguments of `cache`: exactly one of `--show` and `--clear`.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct CacheArgs {
    /// Print the cache directory, its number of entries and their size.
    #[arg(long)]
    pub show: bool,
    /// Delete every cached PTX file.
    #[arg(long)]
    pub clear: bool,
}

/// Validates an architecture and writes it as `sm_XY`, accepting `sm_XY`, `compute_XY` and `XY`.
pub fn parse_arch(arch: &str) -> Result<String, String> {
    let virtual_arch = evo_gpu_runtime::virtual_arch(arch.trim()).map_err(|e| e.to_string())?;
    let digits = virtual_arch.trim_start_matches("compute_");
    Ok(format!("sm_{digits}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
    }

    #[test]
    fn the_grammar_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn verify_kernels_collects_repeated_archs_and_normalizes_them() {
        let cli = parse(&[
            "verify-kernels",
            "--compile-only",
            "--arch",
            "sm_70",
            "--arch",
            "90",
            "--profile",
            "both",
        ])
        .expect("valid arguments");
        let Command::VerifyKernels(args) = cli.command else {
            panic!("parsed as another command: {cli:?}");
        };
        assert!(args.compile_only);
        assert_eq!(args.archs, ["sm_70", "sm_90"]);
        assert_eq!(args.profile.profiles(), [Profile::Exact, Profile::Fast]);
    }

    #[test]
    fn verify_kernels_defaults_to_exact_and_no_arch() {
        let Command::VerifyKernels(args) = parse(&["verify-kernels"]).expect("valid").command
        else {
            panic!("parsed as another command");
        };
        assert!(!args.compile_only);
        assert!(args.archs.is_empty());
        assert_eq!(args.profile.profiles(), [Profile::Exact]);
    }

    #[test]
    fn a_bad_arch_is_a_clear_error() {
        let error = parse(&["verify-kernels", "--arch", "volta"]).expect_err("not an architecture");
        assert!(error.to_string().contains("sm_XY"), "{error}");
    }

    #[test]
    fn bench_defaults() {
        let Command::Bench(args) = parse(&["bench"]).expect("valid").command else {
            panic!("parsed as another command");
        };
        assert!(!args.quick && !args.list);
        assert!(args.suites.is_empty());
        assert_eq!(args.backend, BackendChoice::Both);
        assert_eq!(args.out, PathBuf::from("target/bench"));
    }

    #[test]
    fn bench_collects_suites_and_backend() {
        let cli = parse(&[
            "bench",
            "--quick",
            "--suite",
            "core",
            "--suite",
            "ga",
            "--backend",
            "cpu",
            "--out",
            "x",
        ])
        .expect("valid");
        let Command::Bench(args) = cli.command else {
            panic!("parsed as another command");
        };
        assert!(args.quick);
        assert_eq!(args.suites, ["core", "ga"]);
        assert_eq!(args.backend, BackendChoice::Cpu);
        assert_eq!(args.out, PathBuf::from("x"));
    }

    #[test]
    fn bench_rejects_an_unknown_backend() {
        assert!(parse(&["bench", "--backend", "tpu"]).is_err());
    }

    #[test]
    fn cache_needs_exactly_one_action() {
        assert!(parse(&["cache"]).is_err());
        assert!(parse(&["cache", "--show", "--clear"]).is_err());
        let Command::Cache(args) = parse(&["cache", "--clear"]).expect("valid").command else {
            panic!("parsed as another command");
        };
        assert!(args.clear && !args.show);
    }

    #[test]
    fn first_launch_takes_only_compare() {
        assert!(matches!(
            parse(&["first-launch"]).expect("valid").command,
            Command::FirstLaunch(FirstLaunchArgs { compare: false })
        ));
        assert!(matches!(
            parse(&["first-launch", "--compare"])
                .expect("valid")
                .command,
            Command::FirstLaunch(FirstLaunchArgs { compare: true })
        ));
        assert!(parse(&["first-launch", "--quick"]).is_err());
    }
}
