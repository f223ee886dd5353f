//! MA-SW-Chains on shifted Rastrigin with 10^6 variables, on the GPU when there is one (the CPU otherwise).
//!
//! `cargo run --release -p evo-ma-sw-chains --example million [evaluations] [variables]` (defaults 500 000,
//! the paper's budget, and 10^6; on a CPU pass a smaller budget, e.g. 5000).

use clap::Parser;
use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::Backend;
use evo_ma_sw_chains::{MaParams, run};

/// MA-SW-Chains on shifted Rastrigin, on the GPU when there is one.
#[derive(Parser)]
struct Args {
    /// Evaluations (the paper's budget by default).
    #[arg(default_value_t = 500_000)]
    evaluations: u64,
    /// Variables.
    #[arg(default_value_t = 1_000_000)]
    variables: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Args {
        evaluations,
        variables,
    } = Args::parse();
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, variables)?;
    let params = MaParams::new().with_max_evaluations(evaluations)?;
    let report = run(params, &problem, 42, Backend::auto())?;
    println!(
        "{} on {}: best {:.6e} after {} evaluations, {} cycles, {:.2} s",
        report.algorithm,
        report.metadata.get("backend").map_or("?", String::as_str),
        report.best_fitness,
        report.evaluations,
        report.generations,
        report.wall_time_s
    );
    Ok(())
}
