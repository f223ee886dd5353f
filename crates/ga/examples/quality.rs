//! Quality after the paper's budgets: every function at one n, several seeds, on the CPU (the CUDA engine's
//! trajectories are the same bit for bit, see tests/cuda.rs) or on the GPU.
//!
//! `cargo run --release -p evo-ga --example quality -- <n> <generations> <seeds> <out.csv> [cpu|cuda|cuda-batch]`
//!
//! `cuda-batch` runs the seeds of a function as one [`GaBatchCuda`] (the same trajectories as one run per seed).
//!
//! Writes `function,n,seed,generation,best_fitness` rows: the best so far every 50 generations and at the end.

use clap::{Parser, ValueEnum};
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Engine, Error, Executor, Report, Result, Termination};
use evo_ga::{GaBatchCuda, GaCpu, GaCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;
use rayon::prelude::*;

fn execute<E: Engine>(engine: E, generations: u64) -> Result<Report<E::Solution>> {
    Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(generations))?
        .with_history_every(50)?
        .run()
}

/// Where the runs execute.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Where {
    /// The CPU engine, one thread per run, runs in parallel.
    Cpu,
    /// One CUDA engine per run, one after the other.
    Cuda,
    /// The seeds of a function as one batched CUDA engine.
    CudaBatch,
}

/// Quality after the paper's budgets: every function at one n, several seeds.
#[derive(Parser)]
struct Args {
    /// Variables per individual.
    n: usize,
    /// Generations per run.
    generations: u64,
    /// Seeds (runs) per function.
    seeds: u64,
    /// The CSV file to write.
    out: String,
    /// Where the runs execute.
    #[arg(value_enum, default_value_t = Where::Cpu)]
    backend: Where,
}

fn main() -> Result<()> {
    let Args {
        n,
        generations,
        seeds,
        out,
        backend,
    } = Args::parse();
    if backend == Where::CudaBatch {
        return batched(n, generations, seeds, &out);
    }
    let cuda = backend == Where::Cuda;
    let jobs: Vec<(GaFunction, u64)> = GaFunction::ALL
        .into_iter()
        .flat_map(|f| (0..seeds).map(move |s| (f, s)))
        .collect();
    let run = |&(function, seed): &(GaFunction, u64)| -> Result<Vec<Record>> {
        let problem = PaperFunction::new(function, n)?;
        let report = if cuda {
            let gpu = Gpu::open(0)?;
            execute(
                GaCuda::new(GaParams::new(), &problem, seed, &gpu)?,
                generations,
            )?
        } else {
            execute(
                GaCpu::with_threads(GaParams::new(), problem, seed, 1)?,
                generations,
            )?
        };
        Ok(report
            .history
            .iter()
            .map(|point| record(function, n, seed, point.generation, point.best_fitness))
            .collect())
    };
    let rows: Vec<Vec<Record>> = if cuda {
        jobs.iter().map(run).collect::<Result<_>>()?
    } else {
        jobs.par_iter().map(run).collect::<Result<_>>()?
    };
    write_csv(&out, rows.into_iter().flatten())
}

/// One CSV row: function, n, seed, generation, best fitness (in `{:e}` form, every digit kept).
type Record = [String; 5];

fn record(function: GaFunction, n: usize, seed: u64, generation: u64, best: f64) -> Record {
    [
        function.name().to_string(),
        n.to_string(),
        seed.to_string(),
        generation.to_string(),
        format!("{best:e}"),
    ]
}

/// Writes the header and `rows` to `out`.
fn write_csv(out: &str, rows: impl IntoIterator<Item = Record>) -> Result<()> {
    let fail = |e: csv::Error| Error::io(out, e.into());
    let mut writer = csv::Writer::from_path(out).map_err(fail)?;
    writer
        .write_record(["function", "n", "seed", "generation", "best_fitness"])
        .map_err(fail)?;
    for row in rows {
        writer.write_record(&row).map_err(fail)?;
    }
    writer.flush().map_err(|e| Error::io(out, e))
}

fn batched(n: usize, generations: u64, seeds: u64, out: &str) -> Result<()> {
    let gpu = Gpu::open(0)?;
    let mut rows = Vec::new();
    for function in GaFunction::ALL {
        let problem = PaperFunction::new(function, n)?;
        let mut batch = GaBatchCuda::new(GaParams::new(), &problem, 0, seeds as usize, &gpu)?;
        let take = |batch: &GaBatchCuda, rows: &mut Vec<Record>| -> Result<()> {
            for (seed, &best) in batch.best_fitness()?.iter().enumerate() {
                rows.push(record(function, n, seed as u64, batch.generation(), best));
            }
            Ok(())
        };
        take(&batch, &mut rows)?;
        for generation in 1..=generations {
            batch.step()?;
            if generation % 50 == 0 || generation == generations {
                take(&batch, &mut rows)?;
            }
        }
    }
    write_csv(out, rows)
}
