//! The makespan runs of `cargo xtask bench --suite de --de-parts makespan` on the CPU engine for a fixed
//! number of generations instead of a wall time: the CPU engine makes the CUDA engine's generations bit for
//! bit, so a run of G generations here ends with the GPU run's schedule after its G generations, at any
//! speed. Prints the makespan of the best schedule, and its ratio to the instance's best known `.sol`
//! schedule, at every checkpoint (and the CPU time so far).
//!
//! ```text
//! cargo run --release -p evo-de --example makespan -- <dir>/u_c_lohi.0 <generations> \
//!     --seeds 2011,1,2 --checkpoints 3000,10000 \
//!     --search '{"period":50,"max_moves":64,"kicks":128,"kick_moves":4,"neighbourhood":"MakespanBalance","iterations":32,"iteration_moves":2}'
//! ```
//!
//! The DE configuration is the bench's: M = 64, F = 0.1, CR = 0.002, DE/rand/1/bin, better-or-equal
//! selection, the initial population seeded with the Min-Min and Sufferage schedules.

use clap::Parser;
use evo_benchmarks::scheduling::{EtcInstance, EtcObjective, EtcProblem};
use evo_core::Engine;
use evo_de::{DeCpu, DeParams, Heuristic, LocalSearch, Selection};
use std::path::PathBuf;
use std::time::Instant;

/// Runs the bench's makespan configuration on the CPU for a fixed number of generations.
#[derive(Parser)]
struct Args {
    /// The ETC instance file; its best known `.sol` schedules are read from the same folder.
    instance: PathBuf,
    /// Generations per run.
    generations: u64,
    /// The seeds, comma-separated: one run each.
    #[arg(long, value_delimiter = ',', default_value = "2011")]
    seeds: Vec<u64>,
    /// The generations (at most `generations`) at which to print the best makespan, comma-separated; the
    /// last generation is always printed.
    #[arg(long, value_delimiter = ',')]
    checkpoints: Vec<u64>,
    /// The local search, a JSON `LocalSearch` (the bench's `--de-makespan-search`).
    #[arg(long)]
    search: String,
    /// The engine's rayon threads (0: one per core); the results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let search: LocalSearch = serde_json::from_str(&args.search)?;
    let dir = args
        .instance
        .parent()
        .ok_or("the instance path has no folder")?;
    let instance = EtcInstance::from_file(&args.instance)?;
    let best_known = instance.best_known(dir)?.makespan;
    let problem = EtcProblem::with_objective(instance, EtcObjective::Makespan)?;
    let name = args
        .instance
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let mut checkpoints: Vec<u64> = args
        .checkpoints
        .iter()
        .copied()
        .filter(|&g| g > 0 && g < args.generations)
        .collect();
    checkpoints.push(args.generations);
    checkpoints.sort_unstable();
    checkpoints.dedup();
    println!("instance\tseed\tgenerations\tmakespan\tratio\tcpu_s");
    for &seed in &args.seeds {
        let params = DeParams::default()
            .with_population(64)?
            .with_differential_weight(0.1)?
            .with_crossover_rate(0.002)?
            .with_selection(Selection::BetterOrEqual);
        let mut engine = DeCpu::new(params, problem.clone(), seed, args.threads)?
            .with_heuristic_seeds(&Heuristic::ALL)?
            .with_local_search(search)?;
        let start = Instant::now();
        let mut done = 0;
        for &checkpoint in &checkpoints {
            for _ in done..checkpoint {
                engine.step()?;
            }
            done = checkpoint;
            let makespan = engine.progress().best_fitness;
            println!(
                "{name}\t{seed}\t{checkpoint}\t{makespan:.1}\t{:.4}\t{:.1}",
                makespan / best_known,
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}
