//! `evo run` and `evo resume`: configuration in, result files out.

use anyhow::{Context, Result, bail};
use evo_core::{BACKEND_REASON, Backend, Checkpointing, Report, TerminationReason};
use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::algorithm::Algorithm;
use crate::args::{DisplayArgs, IslandArgs, ResumeArgs, RunArgs};
use crate::island_run::World;
use crate::islands;
use crate::output;
use crate::params::{self, AlgorithmParams};
use crate::problem;
use crate::run::{Start, execute};
use crate::runfile::{Budget, CheckpointConfig, RUN_FILE_VERSION, RunConfig};
use crate::spec::ProblemSpec;
use crate::split;
use crate::user;

/// Generations between checkpoints when `--checkpoint` comes without `--every`.
pub const DEFAULT_CHECKPOINT_EVERY: u64 = 100;

/// `--history-every` when not given: evo-core's [`evo_core::default_history_every`] of the generation budget
/// (a hundredth of it, between 1 and 100; 100 without one), the rule of the `Run` builders. A history point
/// reads the best fitness, which on a CUDA engine waits for the device (the `doors` bench of `cargo xtask
/// bench`), and every checkpoint carries the history, so a long run's stays small.
pub fn default_history_every(budget: &Budget) -> u64 {
    evo_core::default_history_every(budget.generations)
}

/// How a command ended, for the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The run reached a stopping rule.
    Finished,
    /// Ctrl-C stopped it; the final checkpoint (if any) is saved.
    Interrupted,
}

/// `evo run`.
///
/// # Errors
/// Any configuration, problem, engine or output error.
pub fn run(args: &RunArgs) -> Result<Ending> {
    let spec: ProblemSpec = args.problem.parse()?;
    problem::check_accepted(args.algorithm, &spec)?;
    let resolved = params::resolve(args.algorithm, args.config.as_deref(), &args.set)?;
    let params = resolved.params;
    let backend: Backend = args
        .backend
        .parse()
        .with_context(|| format!("--backend {}", args.backend))?;
    let split = split::resolve(
        args.split,
        args.algorithm,
        &args.islands,
        !resolved.islands.is_empty(),
        backend,
    )?;
    // Under --split, --gpus lists the slices' devices, not the islands'.
    let island_args = IslandArgs {
        gpus: if split.is_some() {
            None
        } else {
            args.islands.gpus.clone()
        },
        ..args.islands.clone()
    };
    let islands = islands::resolve(
        args.algorithm,
        &island_args,
        &resolved.islands,
        &params,
        backend,
    )?;
    let budget = budget(args.algorithm, Budget::from_args(&args.budget), &params)?;
    budget.termination()?;
    let spec = problem::resolve_paths(&spec)?;
    let checkpoint = match &args.checkpoint {
        Some(path) => {
            if path.exists() {
                bail!(
                    "the checkpoint {} exists already; continue that run with `evo resume {}`, or remove \
                     it (and its .run.json) to start afresh",
                    path.display(),
                    path.display()
                );
            }
            let every = args.every.unwrap_or(DEFAULT_CHECKPOINT_EVERY);
            // Checked before anything is written, with the executor's own rule.
            Checkpointing::new(path, every).with_context(|| format!("--every {every}"))?;
            Some(CheckpointConfig {
                path: absolute(path)?,
                every,
            })
        }
        None => None,
    };
    let history_every = args
        .history_every
        .unwrap_or_else(|| default_history_every(&budget));
    if history_every == 0 {
        bail!("--history-every 0 is not allowed; expected a number of generations, at least 1");
    }
    let config = RunConfig {
        version: RUN_FILE_VERSION,
        evo_version: env!("CARGO_PKG_VERSION").to_string(),
        algorithm: args.algorithm,
        problem: spec.to_string(),
        params: params.to_value()?,
        seed: args.seed,
        backend,
        budget,
        checkpoint,
        out: absolute(&args.out)?,
        history_every,
        user_files: match &spec {
            ProblemSpec::User { path } => Some(user::files_digest(path)?),
            _ => None,
        },
        islands,
        split,
    };
    let world = World::join(config.islands.as_ref())?;
    if let Some(checkpoint) = &config.checkpoint
        && world.rank() == 0
    {
        config.save(&checkpoint.path)?;
    }
    finish(&config, &args.display, Start::Fresh, world)
}

/// `evo resume`.
///
/// # Errors
/// A missing or invalid run file, a checkpoint the engine refuses (corrupt, truncated, of another run),
/// and the errors of [`run`].
pub fn resume(args: &ResumeArgs) -> Result<Ending> {
    let mut config = RunConfig::load(&args.checkpoint)?;
    check_user_files(&config)?;
    let Some(checkpoint) = &mut config.checkpoint else {
        bail!(
            "the run file of {} names no checkpoint, so there is nothing to resume",
            args.checkpoint.display()
        );
    };
    // The files may have moved together since the run started.
    checkpoint.path = absolute(&args.checkpoint)?;
    if let Some(out) = &args.out {
        config.out = absolute(out)?;
    }
    if let Some(backend) = &args.backend {
        config.backend = backend
            .parse()
            .with_context(|| format!("--backend {backend}"))?;
        // An island run continues on the new backend as its placement (the checkpoint is placement-free).
        if let Some(islands) = &mut config.islands {
            let (placement, share) = islands::backend_placement(config.backend)?;
            islands.placement = placement.to_string();
            islands.share = share;
        }
    }
    if let Some(gpus) = &args.gpus {
        let Some(split) = &mut config.split else {
            bail!(
                "--gpus on resume lists the slices of a --split dimension run; the run of {} has no split \
                 (an island run continues on --backend)",
                args.checkpoint.display()
            );
        };
        split.gpus = split::parse_gpus(gpus)?;
    }
    let world = World::join(config.islands.as_ref())?;
    let rank = world.rank();
    let ending = finish(&config, &args.display, Start::Resume, world)?;
    // Only a resume that ran records the new folder or backend for the next one.
    if rank == 0 {
        config.save(&args.checkpoint)?;
    }
    Ok(ending)
}

/// Refuses to resume a `user:` problem whose files changed since the run started: the run would continue on
/// another function than the one its checkpoint was written on.
fn check_user_files(config: &RunConfig) -> Result<()> {
    let (Some(recorded), ProblemSpec::User { path }) =
        (&config.user_files, config.problem.parse()?)
    else {
        return Ok(());
    };
    let now = user::files_digest(&path)?;
    if &now != recorded {
        bail!(
            "problem `{}`: the manifest, its source or a data file changed since the run started (files \
             digest {now}, the run recorded {recorded}), so the checkpoint belongs to another problem; \
             restore the files, or start a new run with `evo run`",
            config.problem
        );
    }
    Ok(())
}

/// Runs, writes the result files and prints a summary (rank 0 alone, under `mpiexec`).
fn finish(config: &RunConfig, display: &DisplayArgs, start: Start, world: World) -> Result<Ending> {
    let report = match execute(config, display, start, &world) {
        Ok(report) => report,
        Err(error) => {
            world.abandon();
            return Err(error);
        }
    };
    if world.rank() == 0 {
        output::write_all(config, &report)?;
        print_summary(config, &report);
    }
    Ok(if report.termination == TerminationReason::Interrupted {
        Ending::Interrupted
    } else {
        Ending::Finished
    })
}

fn print_summary(config: &RunConfig, report: &Report<Value>) {
    // `drive` records both keys on every run.
    let metadata = |key| report.metadata.get(key).map_or("", String::as_str);
    println!(
        "{} on {}: best fitness {} after {} generations ({} evaluations, {:.3} s; {}); backend {}: {}",
        report.algorithm,
        config.problem,
        report.best_fitness,
        report.generations,
        report.evaluations,
        report.wall_time_s,
        report.termination,
        metadata("backend"),
        metadata(BACKEND_REASON)
    );
    println!("results in {}", config.out.display());
    if report.termination == TerminationReason::Interrupted
        && let Some(checkpoint) = &config.checkpoint
    {
        println!(
            "checkpoint saved; continue with: evo resume {}",
            checkpoint.path.display()
        );
    }
}

/// The command line's stopping rules, or the budget among the algorithm's parameters when none is given.
fn budget(algorithm: Algorithm, given: Budget, params: &AlgorithmParams) -> Result<Budget> {
    if !given.is_empty() {
        return Ok(given);
    }
    let mut budget = Budget::default();
    match params {
        AlgorithmParams::Ga(p) => budget.generations = Some(p.generations()),
        AlgorithmParams::Qiga(p) => budget.generations = Some(p.generations()),
        AlgorithmParams::Sga(p) => budget.generations = Some(p.generations()),
        AlgorithmParams::Ma(p) => budget.evaluations = Some(p.max_evaluations()),
        AlgorithmParams::De(_) | AlgorithmParams::Dpga(_) => bail!(
            "{algorithm} has no budget among its parameters: give --generations N, --evaluations N, \
             --seconds S or --target F"
        ),
    }
    Ok(budget)
}

fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path).with_context(|| format!("cannot make {} absolute", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generations(count: u64) -> Budget {
        Budget {
            generations: Some(count),
            ..Budget::default()
        }
    }

    #[test]
    fn the_default_history_keeps_about_a_hundred_points_at_most_100_generations_apart() {
        assert_eq!(default_history_every(&generations(30)), 1);
        assert_eq!(default_history_every(&generations(250)), 2);
        assert_eq!(default_history_every(&generations(5000)), 50);
        assert_eq!(default_history_every(&generations(10_000)), 100);
        assert_eq!(default_history_every(&generations(1_000_000)), 100);
        let evaluations = Budget {
            evaluations: Some(500_000),
            ..Budget::default()
        };
        assert_eq!(default_history_every(&evaluations), 100);
    }
}
