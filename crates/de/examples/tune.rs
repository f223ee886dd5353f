//! Configuration search with the CPU engine: runs DE for a fixed number of generations on one problem with
//! each configuration given and prints the best fitness at every quarter of the budget. The generation budget
//! stands for what the CUDA engine does in a given wall time (generations per second × seconds), so the CPU
//! finds the configuration the GPU bench should use.
//!
//! ```text
//! cargo run --release -p evo-de --example tune -- etc:<file> <M> <generations> <config>...
//! cargo run --release -p evo-de --example tune -- rastrigin:<D> <M> <generations> <config>...
//! ```
//!
//! A configuration is [`DeConfig`]'s text, `strategy/F/CR/crossover/adaptation[+eq]`, e.g.
//! `rand1/0.5/0.005/bin/fixed` or `best1/0.5/0.9/exp/jde`; strategies `rand1`, `best1`, `ctb1`
//! (current-to-best); crossovers `bin`, `exp`; adaptations `fixed`, `jde`; `+eq` lets a trial as good as its
//! parent replace it; `+ls<period>x<moves>` (after `+eq`) turns on the local search of ETC schedules (an
//! extension beyond the paper), of the best vector, or of every vector with `+ls<period>x<moves>all`;
//! `+ls<period>x<moves>k<kicks>x<kick moves>` adds kicks to the search of the best (an iterated local search). Add `+minmin` (last) to an ETC configuration to seed the Min-Min schedule.

use clap::Parser;
use evo_benchmarks::DeRastrigin;
use evo_benchmarks::scheduling::{EtcInstance, EtcProblem};
use evo_core::{ContinuousProblem, Engine};
use evo_de::{DeConfig, DeCpu, DeParams, LocalSearch, min_min_vector};
use std::time::Instant;

/// What a configuration asks for: the parameters, the local search and the Min-Min seed.
type Parsed = (DeParams, Option<LocalSearch>, bool);

/// The run's parameters, local search and whether it seeds the Min-Min schedule: `+minmin` is this
/// example's, the rest is [`DeConfig`]'s form.
fn parse(config: &str, population: usize) -> Result<Parsed, Box<dyn std::error::Error>> {
    let (config, seeded) = match config.strip_suffix("+minmin") {
        Some(rest) => (rest, true),
        None => (config, false),
    };
    let config = config.parse::<DeConfig>()?;
    Ok((config.params(population)?, config.local_search(), seeded))
}

fn run<P: ContinuousProblem>(
    engine: DeCpu<P>,
    generations: u64,
    config: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut engine = engine;
    let start = Instant::now();
    let mut quarters = Vec::new();
    for g in 1..=generations {
        engine.step()?;
        if g % (generations / 4).max(1) == 0 {
            quarters.push(format!("{:.6e}", engine.progress().best_fitness));
        }
    }
    println!(
        "{config:32} {}   ({:.1} s)",
        quarters.join(" "),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs DE on the CPU with each configuration and prints the best fitness at every quarter of the budget.
#[derive(Parser)]
struct Args {
    /// The problem: `etc:<file>` (an ETC instance) or `rastrigin:<D>`.
    problem: String,
    /// The population size M.
    population: usize,
    /// Generations per configuration.
    generations: u64,
    /// Configurations, `strategy/F/CR/crossover/adaptation[+eq][+ls…][+minmin]`.
    configs: Vec<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Args {
        problem,
        population,
        generations,
        configs,
    } = Args::parse();
    const SEED: u64 = 2011;
    for config in &configs {
        let (params, local_search, seeded) = parse(config, population)?;
        if let Some(file) = problem.strip_prefix("etc:") {
            let problem = EtcProblem::new(EtcInstance::from_file(file)?, 0.75)?;
            let seeds = if seeded {
                vec![min_min_vector(&problem)]
            } else {
                Vec::new()
            };
            let mut engine = DeCpu::new(params, problem, SEED, 0)?.with_initial_vectors(&seeds)?;
            if let Some(search) = local_search {
                engine = engine.with_local_search(search)?;
            }
            run(engine, generations, config)?;
        } else if let Some(d) = problem.strip_prefix("rastrigin:") {
            let mut engine = DeCpu::new(params, DeRastrigin::new(d.parse()?)?, SEED, 0)?;
            if let Some(search) = local_search {
                engine = engine.with_local_search(search)?;
            }
            run(engine, generations, config)?;
        } else {
            return Err(format!("unknown problem {problem}").into());
        }
    }
    Ok(())
}
