//! Probe: independent DPGA runs of one CEC 2006 problem with chosen parameters, one line per run.
//!
//! `cargo run --release -p evo-dpga --example dpga_probe -- <g> <runs> <max_evals> [key=value ...]`
//! with keys `preset` (`default` or `paper`), `pm` (per-bit mutation rate), `bits`, `m`, `n`, `pc`,
//! `tournament`, `elitism`, `crossbreed`, `crossover` (`one`, `two`, `uniform`), `handling` (`mcsm`, `deb`),
//! `init` (`feasible`, `random`), `encoding` (`gray`, `binary`; set after `preset`, which resets it), `seed`
//! (base seed; run r uses seed + r). Runs are spread over every core,
//! one thread per run. Prints per run: feasible, f, f − f*, evaluations, seconds; then a summary.

use std::time::Instant;

use clap::Parser;
use evo_benchmarks::Cec2006Problem;
use evo_core::{Executor, Termination};
use evo_dpga::{ConstraintHandling, Crossover, DpgaCpu, DpgaParams, Encoding, Initialisation};
use rayon::prelude::*;

fn parse(args: &[String]) -> Result<(DpgaParams, u64), Box<dyn std::error::Error>> {
    let mut params = DpgaParams::default();
    let mut seed = 2026;
    for arg in args {
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got {arg}"))?;
        params = match key {
            "preset" if value == "paper" => DpgaParams::paper(),
            "preset" => DpgaParams::default(),
            "pm" => params.with_mutation_rate(value.parse()?)?,
            "bits" => params.with_bits_per_variable(value.parse()?)?,
            "m" => params.with_main_size(value.parse()?)?,
            "n" => params.with_reserve_size(value.parse()?)?,
            "pc" => params.with_crossover_rate(value.parse()?)?,
            "tournament" => params.with_tournament_size(value.parse()?)?,
            "elitism" => params.with_elitism_rate(value.parse()?)?,
            "crossbreed" => params.with_crossbreed_rate(value.parse()?)?,
            "crossover" => params.with_crossover(match value {
                "two" => Crossover::TwoPoint,
                "uniform" => Crossover::Uniform,
                _ => Crossover::OnePoint,
            }),
            "handling" => params.with_constraint_handling(if value == "deb" {
                ConstraintHandling::Deb
            } else {
                ConstraintHandling::Mcsm
            }),
            "init" => params.with_initialisation(if value == "random" {
                Initialisation::Random
            } else {
                Initialisation::Feasible
            }),
            "encoding" => params.with_encoding(match value {
                "binary" => Encoding::Binary,
                "gray" => Encoding::Gray,
                other => return Err(format!("unknown encoding {other}").into()),
            }),
            "seed" => {
                seed = value.parse()?;
                params
            }
            other => return Err(format!("unknown key {other}").into()),
        };
    }
    Ok((params, seed))
}

/// Independent DPGA runs of one CEC 2006 problem, one line per run.
#[derive(Parser)]
struct Args {
    /// The CEC 2006 problem number (1 to 24).
    g: u32,
    /// Independent runs.
    runs: u64,
    /// Evaluations per run.
    max_evals: u64,
    /// Parameters as `key=value` (see the example's docs).
    settings: Vec<String>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Args {
        g,
        runs,
        max_evals,
        settings,
    } = Args::parse();
    let (params, seed) = parse(&settings)?;
    let problem = Cec2006Problem::new(g)?;
    let optimum = problem.best_known_value();
    let start = Instant::now();
    let results: Vec<Result<(bool, f64, u64, f64), String>> = (0..runs)
        .into_par_iter()
        .map(|r| {
            let t = Instant::now();
            let engine = DpgaCpu::new(params.clone(), problem.clone(), seed + r, 1)
                .map_err(|e| e.to_string())?;
            let termination = Termination::new()
                .with_max_evaluations(max_evals)
                .with_target_fitness(optimum + 1e-4)
                .map_err(|e| e.to_string())?;
            let mut executor = Executor::new(engine)
                .with_termination(termination)
                .map_err(|e| e.to_string())?;
            let report = executor.run().map_err(|e| e.to_string())?;
            let best = executor.engine().best_evaluation();
            if std::env::var_os("DPGA_PROBE_X").is_some() {
                eprintln!("run {r} x {:?}", report.best);
            }
            Ok((
                best.feasible,
                best.objective,
                report.evaluations,
                t.elapsed().as_secs_f64(),
            ))
        })
        .collect();
    let mut successes = 0;
    let mut feasible = 0;
    let mut values = Vec::new();
    for (r, result) in results.iter().enumerate() {
        let (ok, f, evals, secs) = result.clone()?;
        let error = f - optimum;
        println!("run {r:2}: feasible {ok} f {f:.6} err {error:.3e} evals {evals} time {secs:.2}s");
        if ok {
            feasible += 1;
            values.push(f);
            if error <= 1e-4 {
                successes += 1;
            }
        }
    }
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    println!(
        "g{g:02} {params:?}\nfeasible {feasible}/{runs} success {successes}/{runs} mean {mean:.4} total {:.1}s",
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
