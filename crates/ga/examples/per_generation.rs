//! Time per generation of the GA engines on the paper's settings (N = 256, n = 32 and 128):
//! CPU 1 thread, CPU rayon (all cores), and the paper-faithful CUDA engine when a GPU is present; then the
//! batched engine with K = 1 and K = 1000 runs in generations of all runs per second.
//!
//! `cargo run --release -p evo-ga --example per_generation [generations]`
//!
//! Each figure is the wall time of `generations` steps after 5 warm-up steps, divided by the steps; the CUDA
//! engine synchronises every step (it reads the best fitness back), so its figure includes that round trip.

use std::time::Instant;

use clap::Parser;
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Engine, Result};
use evo_ga::{GaBatchCuda, GaCpu, GaCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;

fn per_step(engine: &mut impl Engine, steps: u64) -> Result<f64> {
    for _ in 0..5 {
        engine.step()?;
    }
    let start = Instant::now();
    for _ in 0..steps {
        engine.step()?;
    }
    Ok(start.elapsed().as_secs_f64() / steps as f64 * 1e6)
}

/// Time per generation of the GA engines on the paper's settings.
#[derive(Parser)]
struct Args {
    /// Timed steps per figure, after 5 warm-up steps.
    #[arg(default_value_t = 200)]
    generations: u64,
}

fn main() -> Result<()> {
    let steps = Args::parse().generations;
    let gpu = Gpu::first_available()?;
    println!(
        "| function | n | CPU 1 thread µs | CPU rayon µs | CUDA µs | speed-up 1 thread / CUDA |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for n in [32, 128] {
        for function in GaFunction::ALL {
            let problem = PaperFunction::new(function, n)?;
            let params = GaParams::new();
            let one = per_step(
                &mut GaCpu::with_threads(params.clone(), problem.clone(), 1, 1)?,
                steps,
            )?;
            let all = per_step(
                &mut GaCpu::with_threads(params.clone(), problem.clone(), 1, 0)?,
                steps,
            )?;
            let cuda = match &gpu {
                Some(gpu) => Some(per_step(
                    &mut GaCuda::new(params, &problem, 1, gpu)?,
                    steps * 5,
                )?),
                None => None,
            };
            let cuda_text = cuda.map_or("-".to_string(), |t| format!("{t:.1}"));
            let ratio = cuda.map_or("-".to_string(), |t| format!("{:.1}", one / t));
            println!(
                "| {} | {n} | {one:.1} | {all:.1} | {cuda_text} | {ratio} |",
                function.name()
            );
        }
    }
    if let Some(gpu) = &gpu {
        println!();
        println!(
            "| batched runs K | function | n | µs per generation of all K | run-generations/s |"
        );
        println!("| --- | --- | --- | --- | --- |");
        for n in [32, 128] {
            for function in [GaFunction::Hypersphere, GaFunction::Griewank] {
                let problem = PaperFunction::new(function, n)?;
                for runs in [1usize, 1000] {
                    let mut batch = GaBatchCuda::new(GaParams::new(), &problem, 1, runs, gpu)?;
                    for _ in 0..3 {
                        batch.step()?;
                    }
                    batch.synchronize()?;
                    let start = Instant::now();
                    for _ in 0..steps {
                        batch.step()?;
                    }
                    batch.synchronize()?;
                    let seconds = start.elapsed().as_secs_f64();
                    println!(
                        "| {runs} | {} | {n} | {:.1} | {:.0} |",
                        function.name(),
                        seconds / steps as f64 * 1e6,
                        (runs as u64 * steps) as f64 / seconds
                    );
                }
            }
        }
    }
    Ok(())
}
