//! Quality after the paper's budgets: every function at one n, several seeds, on the CPU (the CUDA engine's
//! trajectories are the same bit for bit, see tests/cuda.rs) or on the GPU.
//!
//! `cargo run --release -p evo-ga --example quality -- <n> <generations> <seeds> <out.csv> [cpu|cuda|cuda-batch]`
//!
//! `cuda-batch` runs the seeds of a function as one [`GaBatchCuda`] (the same trajectories as one run per seed).
//!
//! Writes `function,n,seed,generation,best_fitness` rows: the best so far every 50 generations and at the end.

use std::io::Write;

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

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = || {
        Error::invalid_parameter(
            "quality",
            "arguments",
            args.join(" "),
            "<n> <generations> <seeds> <out.csv> [cpu|cuda|cuda-batch]",
        )
    };
    let n: usize = args.get(1).and_then(|a| a.parse().ok()).ok_or_else(usage)?;
    let generations: u64 = args.get(2).and_then(|a| a.parse().ok()).ok_or_else(usage)?;
    let seeds: u64 = args.get(3).and_then(|a| a.parse().ok()).ok_or_else(usage)?;
    let out = args.get(4).ok_or_else(usage)?.clone();
    let backend = args.get(5).map_or("cpu", String::as_str);
    if backend == "cuda-batch" {
        return batched(n, generations, seeds, &out);
    }
    let cuda = backend == "cuda";
    let jobs: Vec<(GaFunction, u64)> = GaFunction::ALL
        .into_iter()
        .flat_map(|f| (0..seeds).map(move |s| (f, s)))
        .collect();
    let run = |&(function, seed): &(GaFunction, u64)| -> Result<String> {
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
        let mut rows = String::new();
        for point in &report.history {
            rows += &format!(
                "{},{n},{seed},{},{:e}\n",
                function.name(),
                point.generation,
                point.best_fitness
            );
        }
        Ok(rows)
    };
    let rows: Vec<String> = if cuda {
        jobs.iter().map(run).collect::<Result<_>>()?
    } else {
        jobs.par_iter().map(run).collect::<Result<_>>()?
    };
    let mut file = std::fs::File::create(&out).map_err(|e| Error::io(&out, e))?;
    writeln!(file, "function,n,seed,generation,best_fitness").map_err(|e| Error::io(&out, e))?;
    for block in rows {
        file.write_all(block.as_bytes())
            .map_err(|e| Error::io(&out, e))?;
    }
    Ok(())
}

fn batched(n: usize, generations: u64, seeds: u64, out: &str) -> Result<()> {
    let gpu = Gpu::open(0)?;
    let mut text = String::from("function,n,seed,generation,best_fitness\n");
    for function in GaFunction::ALL {
        let problem = PaperFunction::new(function, n)?;
        let mut batch = GaBatchCuda::new(GaParams::new(), &problem, 0, seeds as usize, &gpu)?;
        let record = |batch: &GaBatchCuda, text: &mut String| -> Result<()> {
            for (seed, best) in batch.best_fitness()?.iter().enumerate() {
                *text += &format!(
                    "{},{n},{seed},{},{best:e}\n",
                    function.name(),
                    batch.generation()
                );
            }
            Ok(())
        };
        record(&batch, &mut text)?;
        for generation in 1..=generations {
            batch.step()?;
            if generation % 50 == 0 || generation == generations {
                record(&batch, &mut text)?;
            }
        }
    }
    std::fs::write(out, text).map_err(|e| Error::io(out, e))
}
