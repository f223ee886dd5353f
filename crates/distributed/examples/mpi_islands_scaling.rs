//! Weak scaling of DE islands with one process per device: the island model over MPI ranks
//! (`RankedIslandModel`), timed as `cargo xtask bench --suite islands` times the one-process model, so
//! that the two can be set side by side. Needs the `mpi` feature (see the crate's README):
//!
//! ```text
//! cargo build --release -p evo-distributed --features mpi --example mpi_islands_scaling
//! mpiexec -n 2 target/release/examples/mpi_islands_scaling --placement cuda:0 --share local-gpu
//! ```
//!
//! DE/rand/1/bin on Rastrigin (`DeParams` defaults), migration every 50 generations (one migrant along the
//! ring), seed 2032, at M × D = 64 × 128 and 1024 × 512 (`--sizes 64x128,1024x512`). For `r = 1 … R` (`R`
//! the ranks `mpiexec` started), the first `r` ranks run `K = 8r` islands, 8 per rank
//! (`--islands-per-rank`), each rank on its own placement: `--placement TEXT` (default `cpu:1`) shared by
//! the ranks of a machine as `--share` says (evo-distributed's `RankShare`, default `same`; `--placement
//! cuda:0 --share local-gpu` gives rank `l` of a machine GPU `l`); the other ranks wait, asleep. Each run builds its
//! model, runs `G` generations (`--generations`, default 1000, a multiple of the interval) for the warm-up
//! count (`--warmup`, default 2), then times `G` generations for the sample count (`--samples`, default 11)
//! on rank 0's wall clock, every sample started after a barrier of the `r` ranks and ended by the model's
//! own closing exchange (every island's progress), so that it waits for every rank. The whole sweep (every
//! size on `1 … R` ranks) runs `--rounds` times (default 3), one after the other, so that a drift of the
//! machine (clocks, another tenant) reaches every rank count alike; the median of a rank count's samples over
//! every round gives generations · islands per second, `K · G / median`; speed-up is over the one-rank run
//! of the same size, efficiency is speed-up / `r` (the bench's target: 0.9).
//!
//! In the first round, rank 0 then runs the same `K` islands in one process on its own placement (untimed;
//! `--no-check` skips it) and compares the best vector and fitness bit for bit: islands are logical, so the ranks must not
//! change them. It prints one markdown line per size and rank count (a header first), ready for
//! docs/results/distributed.md, and writes them to `--out FILE` as well; a mismatch is marked in its line
//! and makes the program fail at the end.

use evo_benchmarks::DeRastrigin;
use evo_core::Engine;
use evo_de::DeParams;
use evo_distributed::mpi::{MpiRanks, Universe, initialize};
use evo_distributed::{IslandParams, Placement, RankPlacement, RankShare, Ranks, de};
use mpi::collective::CommunicatorCollectives;
use mpi::topology::{Color, Communicator, SimpleCommunicator};
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The run's seed (island `i` starts from `SEED + i`), the bench's.
const SEED: u64 = 2032;

/// The command line.
struct Options {
    sizes: Vec<(usize, usize)>,
    generations: u64,
    interval: u64,
    islands_per_rank: usize,
    warmup: usize,
    samples: usize,
    rounds: usize,
    placement: String,
    share: RankShare,
    timeout: Duration,
    check: bool,
    out: Option<PathBuf>,
}

/// One timed run: its samples and what rank 0's check found.
struct Timed {
    samples_ms: Vec<f64>,
    /// `None` without `--no-check`'s reference (or after the first round); otherwise whether the bests are
    /// equal bit for bit.
    same: Option<bool>,
}

/// One size on one rank count, over every round: rank 0's samples and its check.
#[derive(Default)]
struct Sweep {
    samples_ms: Vec<f64>,
    same: Option<bool>,
}

fn main() {
    let Some(universe) = initialize() else {
        eprintln!("mpi_islands_scaling: MPI was initialized already");
        std::process::exit(2);
    };
    match run(&universe) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(error) => {
            // One write for the whole line: the ranks share mpiexec's stderr.
            let line = format!("mpi_islands_scaling: error: {error}\n");
            let _ = std::io::stderr().write_all(line.as_bytes());
            // No MPI_Finalize: a rank that failed alone would leave it waiting for the others forever.
            std::process::exit(1);
        }
    }
}

/// Runs every size on `1 … R` ranks; `Ok(false)` when a check found a mismatch.
fn run(universe: &Universe) -> Result<bool, Box<dyn Error>> {
    let options = options()?;
    let world = universe.world();
    let rank = world.rank().unsigned_abs() as usize;
    let size = world.size().unsigned_abs() as usize;
    let all = MpiRanks::new(&world, options.timeout)?;
    let placement = rank_placement(&options, &all)?;
    // Every rank's placement, for rank 0's lines.
    let placements: Vec<String> = all
        .all_gather(placement.to_string().into_bytes(), "placements")?
        .into_iter()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .collect();
    let mut lines = vec![
        format!(
            "| size | scaling | processes | devices | islands | ms per {} generations | generations·islands/s | speed-up | efficiency | best = 1 process's |",
            grouped(options.generations as f64)
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    if rank == 0 {
        println!("{}\n{}", lines[0], lines[1]);
    }
    // sweeps[size][ranks - 1], filled on rank 0 only.
    let mut sweeps: Vec<Vec<Sweep>> = options
        .sizes
        .iter()
        .map(|_| (0..size).map(|_| Sweep::default()).collect())
        .collect();
    for round in 0..options.rounds {
        for (&(population, dimension), per_size) in options.sizes.iter().zip(&mut sweeps) {
            for ranks in 1..=size {
                // The first `ranks` ranks form the run's communicator; the others wait at the barrier below.
                let color = match rank < ranks {
                    true => Color::with_value(0),
                    false => Color::undefined(),
                };
                let timed = match world.split_by_color(color) {
                    Some(comm) => Some(time(
                        &options,
                        &comm,
                        (population, dimension),
                        placement.clone(),
                        round == 0,
                    )?),
                    None => None,
                };
                wait_for_all(&world);
                if let Some(timed) = timed.filter(|_| rank == 0) {
                    let sweep = &mut per_size[ranks - 1];
                    sweep.samples_ms.extend(timed.samples_ms);
                    sweep.same = sweep.same.or(timed.same);
                }
            }
        }
    }
    let mut all_same = true;
    // Only rank 0 gathered samples and prints.
    let printed = options.sizes.iter().zip(&mut sweeps).filter(|_| rank == 0);
    for (&(population, dimension), per_size) in printed {
        let mut one_rank = f64::NAN;
        for (index, sweep) in per_size.iter_mut().enumerate() {
            let ranks = index + 1;
            let median_ms = median(&mut sweep.samples_ms);
            let throughput = (options.islands_per_rank * ranks) as f64 * options.generations as f64
                / (median_ms * 1e-3);
            if ranks == 1 {
                one_rank = throughput;
            }
            let speedup = throughput / one_rank;
            let same = match sweep.same {
                None => "not checked",
                Some(true) => "yes (bits)",
                Some(false) => "MISMATCH",
            };
            all_same &= sweep.same != Some(false);
            let line = format!(
                "| {population} × {dimension} | weak, one process per device | {ranks} | {} | {} | {median_ms:.2} | {} | {:.2}× | {:.3} | {same} |",
                placements[..ranks].join("; "),
                options.islands_per_rank * ranks,
                grouped(throughput),
                speedup,
                speedup / ranks as f64,
            );
            println!("{line}");
            lines.push(line);
        }
    }
    if let Some(path) = options.out.as_ref().filter(|_| rank == 0) {
        let mut file = std::fs::File::create(path)?;
        for line in &lines {
            writeln!(file, "{line}")?;
        }
    }
    if !all_same {
        eprintln!(
            "mpi_islands_scaling: the islands over ranks ended with another best than in one process (lines marked MISMATCH)"
        );
    }
    Ok(all_same)
}

/// Times the weak-scaling run of `comm`'s ranks at one size; rank 0 also checks its best.
fn time(
    options: &Options,
    comm: &SimpleCommunicator,
    (population, dimension): (usize, usize),
    placement: Placement,
    check: bool,
) -> Result<Timed, Box<dyn Error>> {
    let ranks = MpiRanks::new(comm, options.timeout)?;
    let rank = ranks.rank();
    let islands = IslandParams::default()
        .with_islands(options.islands_per_rank * ranks.size())?
        .with_migration_interval(options.interval)?;
    let de_params = DeParams::default().with_population(population)?;
    let problem = DeRastrigin::new(dimension)?;
    let mut model = de::ranked_islands(
        &de_params,
        &problem,
        SEED,
        islands,
        placement.clone(),
        ranks,
    )?;
    for _ in 0..options.warmup {
        model.step_many(options.generations)?;
    }
    let mut samples_ms = Vec::with_capacity(options.samples);
    for _ in 0..options.samples {
        comm.barrier();
        let start = Instant::now();
        model.step_many(options.generations)?;
        samples_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let best = model.best()?;
    let same = match check && options.check && rank == 0 {
        true => {
            let mut one = de::islands(&de_params, &problem, SEED, islands, placement)?;
            one.step_many(model.progress().generation)?;
            let reference = one.best()?;
            Some(
                reference.1.to_bits() == best.1.to_bits()
                    && reference.0.len() == best.0.len()
                    && reference
                        .0
                        .iter()
                        .zip(&best.0)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
            )
        }
        false => None,
    };
    Ok(Timed { samples_ms, same })
}

/// A barrier of `comm` that sleeps between looks: MPI's own barrier spins, and the ranks that wait for a
/// run they are not part of should leave the machine's cores to the ranks being timed.
fn wait_for_all(comm: &SimpleCommunicator) {
    let mut barrier = comm.immediate_barrier();
    loop {
        match barrier.test() {
            Ok(_) => return,
            Err(pending) => {
                barrier = pending;
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// The median of `samples` (the mean of the middle two for an even count), as the bench takes it.
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    let middle = samples.len() / 2;
    match samples.len() {
        0 => f64::NAN,
        n if n % 2 == 0 => (samples[middle - 1] + samples[middle]) / 2.0,
        _ => samples[middle],
    }
}

/// `value` rounded to a whole number, its digits grouped by three with spaces ("169 055"), as
/// docs/results writes them.
fn grouped(value: f64) -> String {
    if !value.is_finite() {
        return "-".to_string();
    }
    let digits = format!("{:.0}", value.abs());
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(digit);
    }
    match value < 0.0 {
        true => format!("-{out}"),
        false => out,
    }
}

/// This rank's placement: the options' placement shared by the machine's ranks as `--share` says.
fn rank_placement(options: &Options, ranks: &MpiRanks) -> Result<Placement, Box<dyn Error>> {
    let whole: Placement = options.placement.parse()?;
    let shared = RankPlacement::new(whole, options.share)?;
    Ok(shared.for_rank_here(ranks.node_rank()?)?)
}

/// `M×D` pairs, comma-separated ("64x128,1024x512").
fn sizes(text: &str) -> Result<Vec<(usize, usize)>, Box<dyn Error>> {
    text.split(',')
        .map(|pair| {
            let (population, dimension) = pair.split_once('x').ok_or_else(|| {
                format!("--sizes: {pair:?} is not M×D written as <M>x<D> (e.g. 64x128)")
            })?;
            Ok((population.trim().parse()?, dimension.trim().parse()?))
        })
        .collect()
}

fn options() -> Result<Options, Box<dyn Error>> {
    let mut options = Options {
        sizes: vec![(64, 128), (1024, 512)],
        generations: 1000,
        interval: 50,
        islands_per_rank: 8,
        warmup: 2,
        samples: 11,
        rounds: 3,
        placement: "cpu:1".into(),
        share: RankShare::Same,
        timeout: Duration::from_secs(120),
        check: true,
        out: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--sizes" => options.sizes = sizes(&value()?)?,
            "--generations" => options.generations = value()?.parse()?,
            "--interval" => options.interval = value()?.parse()?,
            "--islands-per-rank" => options.islands_per_rank = value()?.parse()?,
            "--warmup" => options.warmup = value()?.parse()?,
            "--samples" => options.samples = value()?.parse()?,
            "--rounds" => options.rounds = value()?.parse()?,
            "--placement" => options.placement = value()?,
            "--share" => options.share = value()?.parse()?,
            "--timeout-s" => options.timeout = Duration::from_secs_f64(value()?.parse()?),
            "--no-check" => options.check = false,
            "--out" => options.out = Some(value()?.into()),
            _ => {
                return Err(format!(
                    "unknown argument {arg:?} (allowed: --sizes MxD,..., --generations G, --interval M, --islands-per-rank N, --warmup N, --samples N, --rounds N, --placement TEXT, --share same|local-gpu|split, --timeout-s S, --no-check, --out FILE)"
                )
                .into());
            }
        }
    }
    if options.interval == 0 || !options.generations.is_multiple_of(options.interval) {
        return Err(format!(
            "--generations {} must be a positive multiple of --interval {} (every sample ends with a migration, as in the bench)",
            options.generations, options.interval
        )
        .into());
    }
    if options.generations == 0
        || options.samples == 0
        || options.rounds == 0
        || options.islands_per_rank == 0
    {
        return Err(
            "--generations, --samples, --rounds and --islands-per-rank must be at least 1".into(),
        );
    }
    if options.sizes.is_empty() {
        return Err("--sizes needs at least one M×D".into());
    }
    Ok(options)
}
