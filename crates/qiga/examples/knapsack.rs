//! One QIGA run on a knapsack file (the paper's format: the capacity, then `weight profit` lines), on the GPU
//! when there is one: `cargo run --release -p evo-qiga --example knapsack -- <file> [seed]`.

use clap::Parser;
use evo_benchmarks::Knapsack;
use evo_core::Backend;
use evo_qiga::{QigaParams, RotationAngles};

/// One QIGA run on a knapsack file.
#[derive(Parser)]
struct Args {
    /// The knapsack file: the capacity, then `weight profit` lines.
    file: String,
    /// The run's seed.
    #[arg(default_value_t = 1)]
    seed: u64,
}

fn main() -> anyhow::Result<()> {
    let Args { file, seed } = Args::parse();
    let problem = Knapsack::from_file(&file)?;
    let params = QigaParams::default().with_rotation_angles(RotationAngles::TUNED);
    let report = evo_qiga::run(&params, &problem, seed, Backend::auto())?;
    let chosen: Vec<usize> = report
        .best
        .iter()
        .enumerate()
        .filter_map(|(i, bit)| bit.then_some(i))
        .collect();
    println!(
        "{}: best profit {:.2} with {} items after {} evaluations on {}",
        problem.instance_name(),
        -report.best_fitness,
        chosen.len(),
        report.evaluations,
        report.metadata.get("backend").map_or("?", String::as_str)
    );
    println!("items: {chosen:?}");
    Ok(())
}
