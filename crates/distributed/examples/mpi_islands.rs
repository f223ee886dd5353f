//! DE, GA and MA-SW-Chains islands over MPI ranks, each checked bit for bit against the one-process island
//! model with the same seed and `K` (CPU engines). Needs the `mpi` feature (see the crate's README):
//!
//! ```text
//! cargo build -p evo-distributed --features mpi --example mpi_islands
//! mpiexec -n 3 target/debug/examples/mpi_islands --out ranks3.txt
//! ```
//!
//! Rank 0 also runs the one-process model (on one CPU thread) and compares the reports (wall times aside);
//! the program fails when they differ. The ranks run their islands on `--placement TEXT` (default `cpu:1`),
//! shared by the ranks of a machine as `--share` says (evo-distributed's `RankShare`, default `same`: every
//! rank on the whole placement): `--placement cuda:0 --share local-gpu` gives each rank its node-local GPU,
//! `--placement cuda:0,cuda:1 --share split` divides the listed GPUs among a machine's ranks, and the CUDA
//! islands are then checked against the CPU model. `--out FILE` (rank 0) writes one line per algorithm (its report's generations,
//! evaluations, best fitness bits and a digest of the whole report), so that runs on different numbers of
//! ranks can be compared by their files too.
//!
//! Checkpoints and faults: with `--checkpoints DIR` every rank writes the whole run's checkpoint to
//! `DIR/<algorithm>.rank<r>.ckpt` every 5 generations, and `--resume` makes every rank resume from rank 0's
//! files where they exist, on any number of ranks. `EVO_MPI_FAIL_RANK=r EVO_MPI_FAIL_GENERATION=g` makes
//! rank `r` exit (without a word to the others, as a crash would) once the DE run reaches generation `g`;
//! the other ranks then fail with an error naming rank `r` after `--timeout-s` seconds (default 10), which
//! under MPICH needs `mpiexec -disable-auto-cleanup` (otherwise the launcher kills them first).

use evo_benchmarks::ga_functions::GaFunction;
use evo_benchmarks::{DeRastrigin, ShiftedFunction, ShiftedProblem};
use evo_core::{Checkpointing, Engine, Executor, Observer, Progress, Report, Termination};
use evo_de::DeParams;
use evo_distributed::mpi::{MpiRanks, initialize};
use evo_distributed::{
    IslandParams, NodeRank, Placement, RankPlacement, RankShare, Ranks, de, ga, ma,
};
use evo_ga::{GaParams, PaperFunction};
use evo_ma_sw_chains::MaParams;
use serde::Serialize;
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The run's seed.
const SEED: u64 = 2032;
/// Checkpoints every this many generations.
const CHECKPOINT_EVERY: u64 = 5;

/// The command line.
struct Options {
    checkpoints: Option<PathBuf>,
    resume: bool,
    out: Option<PathBuf>,
    timeout: Duration,
    placement: String,
    share: RankShare,
}

/// The injected fault: this rank exits at this generation of the DE run.
struct Fault {
    rank: usize,
    generation: u64,
}

fn main() {
    let Some(universe) = initialize() else {
        eprintln!("mpi_islands: MPI was initialized already");
        std::process::exit(2);
    };
    if let Err(error) = run(&universe) {
        // One write for the whole line: the ranks share mpiexec's stderr, and eprintln! writes a line in
        // pieces that another rank's line can land between.
        let line = format!("mpi_islands: error: {error}\n");
        let _ = std::io::stderr().write_all(line.as_bytes());
        // No MPI_Finalize: with a rank lost it would wait for that rank forever.
        std::process::exit(1);
    }
}

fn run(universe: &evo_distributed::mpi::Universe) -> Result<(), Box<dyn Error>> {
    let options = options()?;
    let fault = fault()?;
    let ranks = || MpiRanks::new(&universe.world(), options.timeout);
    let rank = ranks()?.rank();
    let size = ranks()?.size();
    let mut lines = Vec::new();

    // DE: K = 5 islands of jDE on Rastrigin in 8 dimensions.
    let de_params = DeParams::default()
        .with_population(16)?
        .with_adaptation(evo_de::Adaptation::Jde);
    let problem = DeRastrigin::new(8)?;
    let islands = island_params(5, 4, 3)?;
    let (node, placement) = rank_placement(&options, &ranks()?)?;
    println!(
        "mpi_islands: rank {rank} of {size}, node-local rank {} of {}: islands on {placement}",
        node.local_rank(),
        node.local_size()
    );
    // The one-process model runs on rank 0 alone, on one CPU thread.
    let reference = rank == 0;
    let one_thread: Placement = "cpu:1".parse()?;
    let model = de::ranked_islands(
        &de_params,
        &problem,
        SEED,
        islands,
        placement.clone(),
        ranks()?,
    )?;
    let ranked = run_ranked(model, "de", 40, &options, rank, fault.as_ref())?;
    if reference {
        let one = de::islands(&de_params, &problem, SEED, islands, one_thread.clone())?;
        lines.push(compare(&ranked, &run_one(one, 40)?, size)?);
    }

    // GA: K = 4 islands on the paper's Rastrigin with 8 variables.
    let ga_params = GaParams::new().with_population(32)?.with_elite(2)?;
    let function = PaperFunction::new(GaFunction::Rastrigin, 8)?;
    let islands = island_params(4, 4, 5)?;
    let model = ga::ranked_islands(
        &ga_params,
        &function,
        SEED,
        islands,
        placement.clone(),
        ranks()?,
    )?;
    let ranked = run_ranked(model, "ga", 30, &options, rank, None)?;
    if reference {
        let one = ga::islands(&ga_params, &function, SEED, islands, one_thread.clone())?;
        lines.push(compare(&ranked, &run_one(one, 30)?, size)?);
    }

    // MA-SW-Chains: K = 3 islands on shifted Rastrigin in 10 dimensions, 8 memetic cycles.
    let ma_params = MaParams::new().with_max_evaluations(200_000)?;
    let shifted = ShiftedProblem::new(ShiftedFunction::Rastrigin, 10)?;
    let islands = island_params(3, 2, 4)?;
    let model = ma::ranked_islands(&ma_params, &shifted, SEED, islands, placement, ranks()?)?;
    let ranked = run_ranked(model, "ma", 8, &options, rank, None)?;
    if reference {
        let one = ma::islands(&ma_params, &shifted, SEED, islands, one_thread)?;
        lines.push(compare(&ranked, &run_one(one, 8)?, size)?);
    }

    if let Some(path) = options.out.as_ref().filter(|_| reference) {
        let mut file = std::fs::File::create(path)?;
        for line in &lines {
            writeln!(file, "{line}")?;
        }
    }
    Ok(())
}

/// This rank's place on its machine and its placement: the options' placement shared by the machine's
/// ranks as `--share` says.
fn rank_placement(
    options: &Options,
    ranks: &MpiRanks,
) -> Result<(NodeRank, Placement), Box<dyn Error>> {
    let whole: Placement = options.placement.parse()?;
    let shared = RankPlacement::new(whole, options.share)?;
    let node = ranks.node_rank()?;
    Ok((node, shared.for_rank_here(node)?))
}

fn island_params(islands: usize, interval: u64, migrants: usize) -> evo_core::Result<IslandParams> {
    IslandParams::default()
        .with_islands(islands)?
        .with_migration_interval(interval)?
        .with_migrants(migrants)
}

/// The model over the ranks, run for `generations` with the options' checkpoints and the fault.
fn run_ranked<E: Engine>(
    model: E,
    name: &str,
    generations: u64,
    options: &Options,
    rank: usize,
    fault: Option<&Fault>,
) -> Result<Report<E::Solution>, Box<dyn Error>> {
    // A history point every step makes every batch one step on every rank (see RankedIslandModel).
    let mut executor = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))?
        .with_history_every(1)?;
    if let Some(dir) = &options.checkpoints {
        let path = |r: usize| dir.join(format!("{name}.rank{r}.ckpt"));
        // No last good snapshot: it would gather every island on every rank after every step.
        let checkpointing =
            Checkpointing::new(path(rank), CHECKPOINT_EVERY)?.with_last_good_snapshot(false);
        executor = executor.with_checkpointing(checkpointing);
        if options.resume && path(0).exists() {
            executor = executor.resume_from(path(0))?;
            if rank == 0 {
                let generation = executor.engine().progress().generation;
                println!("{name}: resumed from rank 0's checkpoint at generation {generation}");
            }
        }
    }
    if let Some(fault) = fault.filter(|fault| fault.rank == rank) {
        executor = executor.with_observer(Crash {
            generation: fault.generation,
        });
    }
    Ok(executor.run()?.without_wall_times())
}

/// The one-process model run for `generations`.
fn run_one<E: Engine>(model: E, generations: u64) -> Result<Report<E::Solution>, Box<dyn Error>> {
    let report = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))?
        .with_history_every(1)?
        .run()?;
    Ok(report.without_wall_times())
}

/// Rank 0's verdict on one algorithm (the run on the ranks against the one-process model): the line for `--out`, or an error when the reports differ.
fn compare<S: Serialize>(
    ranked: &Report<S>,
    one: &Report<S>,
    size: usize,
) -> Result<String, Box<dyn Error>> {
    let bytes = postcard::to_allocvec(ranked)?;
    if bytes != postcard::to_allocvec(one)? {
        return Err(format!(
            "{}: the report on {size} ranks differs from the one-process run's (best {} vs {}, evaluations {} vs {})",
            ranked.algorithm, ranked.best_fitness, one.best_fitness, ranked.evaluations, one.evaluations
        )
        .into());
    }
    let line = format!(
        "{}\tgenerations {}\tevaluations {}\tbest_fitness_bits {:#018x}\treport_digest {:#018x}",
        ranked.algorithm,
        ranked.generations,
        ranked.evaluations,
        ranked.best_fitness.to_bits(),
        fnv1a(&bytes)
    );
    println!("{line}\t{size} ranks = 1 process, bit for bit");
    Ok(line)
}

/// FNV-1a, 64 bits: a digest of a report's bytes for the `--out` file.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Exits the process at a generation, without a word to the other ranks, as a crash would.
struct Crash {
    generation: u64,
}

impl Observer for Crash {
    fn on_step(&mut self, progress: &Progress, _elapsed: Duration) {
        if progress.generation >= self.generation {
            eprintln!(
                "mpi_islands: EVO_MPI_FAIL_RANK: exiting at generation {}",
                progress.generation
            );
            std::process::exit(17);
        }
    }
}

fn options() -> Result<Options, Box<dyn Error>> {
    let mut options = Options {
        checkpoints: None,
        resume: false,
        out: None,
        timeout: Duration::from_secs(10),
        placement: "cpu:1".into(),
        share: RankShare::Same,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--checkpoints" => options.checkpoints = Some(value()?.into()),
            "--resume" => options.resume = true,
            "--out" => options.out = Some(value()?.into()),
            "--timeout-s" => options.timeout = Duration::from_secs_f64(value()?.parse()?),
            "--placement" => options.placement = value()?,
            "--share" => options.share = value()?.parse()?,
            _ => {
                return Err(format!(
                    "unknown argument {arg:?} (allowed: --checkpoints DIR, --resume, --out FILE, --timeout-s S, --placement TEXT, --share same|local-gpu|split)"
                )
                .into());
            }
        }
    }
    if options.resume && options.checkpoints.is_none() {
        return Err("--resume needs --checkpoints DIR".into());
    }
    Ok(options)
}

fn fault() -> Result<Option<Fault>, Box<dyn Error>> {
    let (Ok(rank), Ok(generation)) = (
        std::env::var("EVO_MPI_FAIL_RANK"),
        std::env::var("EVO_MPI_FAIL_GENERATION"),
    ) else {
        return Ok(None);
    };
    Ok(Some(Fault {
        rank: rank.parse()?,
        generation: generation.parse()?,
    }))
}
