//! # evo
//!
//! The command line of evo-gpu: run any algorithm of the workspace on any built-in problem, on the CPU or a
//! CUDA GPU, with progress, checkpoints, resume after a crash or Ctrl-C, and result files.
//!
//! ```text
//! evo list                                   algorithms, problem specs, parameters (defaults, ranges)
//! evo run de --problem rastrigin:128 --generations 1000 --set population=256 --out out/
//! evo run ma-sw-chains --problem shifted-rastrigin:1000 --checkpoint run.ckpt --every 50
//! evo run de --problem user:rastrigin.toml --generations 200   your CUDA source, named by a TOML manifest
//! evo run de --problem rastrigin:64 --generations 500 --islands 4 --gpus 0,1   the island model on 2 GPUs
//! evo resume run.ckpt                        continue from the checkpoint (settings from run.ckpt.run.json)
//! evo devices                                CUDA devices
//! ```
//!
//! A `user:` problem runs on a CUDA device only (a source file has no CPU twin; see [`user`]).
//!
//! Parameters are the fields of each algorithm crate's serde params type (`evo_de::DeParams`, ...), set by
//! a TOML file (`--config`) or `--set key=value`, and validated by the crate's setters. A run writes
//! `result.json` (best solution and fitness, counters, wall time, backend, seed, problem, parameters, evo
//! version), `history.csv` and `convergence.svg` into `--out`.
//!
//! Exit status: 0 when the run reached a stopping rule, 1 on an error, 2 on a command-line usage error, 130
//! when Ctrl-C stopped the run (after the final checkpoint was written).

mod algorithm;
mod args;
mod commands;
mod devices;
mod engines;
mod island_run;
mod islands;
mod list;
mod output;
mod params;
mod problem;
mod run;
mod runfile;
mod spec;
mod split;
mod user;
mod validate;

use clap::Parser;
use std::io::IsTerminal;
use std::process::ExitCode;

use args::{Cli, Command};
use commands::Ending;

/// The conventional status of a process stopped by SIGINT.
const INTERRUPTED_STATUS: u8 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    let outcome = match &cli.command {
        Command::List => list::render().map(|text| {
            print!("{text}");
            Ending::Finished
        }),
        Command::Devices => devices::render().map(|text| {
            print!("{text}");
            Ending::Finished
        }),
        Command::Run(args) => commands::run(args),
        Command::Resume(args) => commands::resume(args),
    };
    match outcome {
        Ok(Ending::Finished) => ExitCode::SUCCESS,
        Ok(Ending::Interrupted) => ExitCode::from(INTERRUPTED_STATUS),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Progress lines and the executor's notes go to stderr; `RUST_LOG` overrides the default `info` level.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second subscriber cannot exist in this process, so the result carries no information.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}
