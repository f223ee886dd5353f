//! The paper's meta-optimisation of the rotation angles on knapsack-250: 10 genomes, 50 outer generations,
//! 50 QIGA runs of 500 generations per genome, on every visible GPU (the CPU when there is none; that takes
//! hours, so pass smaller settings: `-- <outer generations> <runs per genome>`).
//!
//! `cargo run --release -p evo-qiga --example meta [-- <generations> <runs> <knapsack file>]`

use std::path::PathBuf;

use clap::Parser;
use evo_benchmarks::Knapsack;
use evo_benchmarks::data::shared_data_dir;
use evo_gpu_runtime::{DevicePool, Gpu};
use evo_qiga::meta::{CpuEvaluator, GpuEvaluator, MetaEvaluator, MetaParams, meta_optimise};

/// The paper's meta-optimisation of the rotation angles.
#[derive(Parser)]
struct Args {
    /// Outer generations.
    #[arg(default_value_t = 50)]
    generations: u32,
    /// QIGA runs per genome.
    #[arg(default_value_t = 50)]
    runs: usize,
    /// The knapsack file (default: knapsack-250 of the data folder).
    file: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let Args {
        generations,
        runs,
        file,
    } = Args::parse();
    let file = match file {
        Some(path) => path,
        None => shared_data_dir()
            .ok_or_else(|| {
                anyhow::anyhow!("no data folder: pass a knapsack file or set EVO_DATA_DIR")
            })?
            .join("knapsack/knapsack-250.txt"),
    };
    let problem = Knapsack::from_file(&file)?;
    let params = MetaParams::default()
        .with_generations(generations)?
        .with_runs_per_candidate(runs)?;
    let evaluator: Box<dyn MetaEvaluator> = match Gpu::first_available()? {
        Some(_) => {
            let pool = DevicePool::all()?;
            println!("inner runs on {} GPU(s)", pool.len());
            Box::new(GpuEvaluator::new(pool))
        }
        None => {
            println!("no GPU: inner runs on the CPU");
            Box::new(CpuEvaluator::new(0))
        }
    };
    let start = std::time::Instant::now();
    let result = meta_optimise(&params, &problem, 2011, evaluator.as_ref())?;
    for generation in &result.history {
        println!(
            "generation {:>3}: best {:.2}, mean {:.2}",
            generation.generation, generation.best, generation.mean
        );
    }
    println!(
        "best angles θ1..θ5 = {:.3?} rad, meta-fitness {:.2} ({:.1} s)",
        result.best.angles(),
        result.best_fitness,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
