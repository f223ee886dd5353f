//! One QIGA run on a knapsack file (the paper's format: the capacity, then `weight profit` lines), on the GPU
//! when there is one: `cargo run --release -p evo-qiga --example knapsack -- <file> [seed]`.

use evo_benchmarks::Knapsack;
use evo_core::Backend;
use evo_qiga::{QigaParams, RotationAngles};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: knapsack <file> [seed]"))?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
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
