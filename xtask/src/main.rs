//! # xtask
//!
//! The maintainer commands of evo-gpu, run as `cargo xtask <command>` (the alias lives in
//! `.cargo/config.toml`). One thin binary, one module per subcommand:
//!
//! | command | module | what it does |
//! | --- | --- | --- |
//! | `verify-kernels` | [`verify_kernels`] | NVRTC-compiles every kernel module, checks its entry points, then runs the equivalence suite on a GPU |
//! | `bench` | [`bench`](mod@bench) | runs the benchmark suites, prints markdown tables, writes `target/bench/<suite>.{md,json,svg}` |
//! | `cache` | [`cache`] | shows or clears the on-disk PTX cache |
//! | `first-launch` | [`first_launch`] | times process start to driver, module and first kernel ready |
//! | `tidy` | [`tidy`] | checks the tree's unwritten rules: no commits in source, a map entry per crate, short files |
//!
//! The argument grammar is in [`flags`]. A GPU machine without a Rust toolchain runs the release binary
//! (`target/release/xtask <command>`) from the repository root; every command works without a GPU and says
//! what it skipped.

mod bench;
mod cache;
mod first_launch;
mod flags;
mod table;
mod tidy;
mod verify_kernels;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

fn main() -> ExitCode {
    // `first-launch` measures from here, so this is the first thing the process does.
    let process_start = Instant::now();
    let cli = flags::Cli::parse();
    let outcome = match cli.command {
        flags::Command::VerifyKernels(args) => verify_kernels::run(&args),
        flags::Command::Bench(args) => bench::run(&args),
        flags::Command::Cache(args) => cache::run(&args),
        flags::Command::FirstLaunch(args) => first_launch::run(&args, process_start),
        flags::Command::Tidy => tidy::run(),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
