//! evo-ga: the paper-faithful CUDA engine and the batched CUDA engine give the CPU engine's snapshot at every
//! generation, bit for bit (Exact profile): the sorted population (words), the fitness, the best so far and
//! the counters. Cases (issue "evo-ga" must-show): the eight functions at n = 32 for 200 generations after
//! the initial one; a batch of 3 runs (seeds wrapping past 2^64) at n = 32 and n = 128.

use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Engine, Result};
use evo_ga::{GaBatchCuda, GaCpu, GaCuda, GaParams, GaSnapshot, PaperFunction};
use evo_gpu_runtime::Gpu;

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{Comparison, compare_slices};
use crate::tolerance::Tolerance;

/// The kernels the single-run checks exercise.
pub const KERNEL: &str = "ga_* (per-step pipeline)";
/// The kernels the batched checks exercise.
pub const BATCH_KERNEL: &str = "ga_batch_reproduce_u32";
/// Generations after the initial one in the main cases.
pub const GENERATIONS: u64 = 200;

fn merge(a: Comparison, b: Comparison) -> Comparison {
    Comparison {
        cases: a.cases + b.cases,
        max_ulps: a.max_ulps.max(b.max_ulps),
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a.first_mismatch.or(b.first_mismatch),
    }
}

fn counters(s: &GaSnapshot) -> [f64; 3] {
    [s.generation as f64, s.evaluations as f64, s.bits as f64]
}

fn widen(words: &[u32]) -> Vec<f64> {
    words.iter().map(|&w| f64::from(w)).collect()
}

/// Compares two snapshots field by field; words are compared as exact integers widened to `f64` (every `u32`
/// is exact in `f64`, so "same value" is "same bits").
pub fn compare_snapshots(cpu: &GaSnapshot, gpu: &GaSnapshot) -> Comparison {
    let generation = cpu.generation;
    let words = cpu.words().max(1);
    let exact = Tolerance::Exact;
    let mut total = compare_slices(
        "counters",
        generation,
        1,
        &counters(cpu),
        &counters(gpu),
        exact,
        |i| ["generation", "evaluations", "bits"][i].to_string(),
    );
    total = merge(
        total,
        compare_slices(
            "population",
            generation,
            words,
            &widen(&cpu.population),
            &widen(&gpu.population),
            exact,
            |k| format!("word {} of individual {}", k % words, k / words),
        ),
    );
    total = merge(
        total,
        compare_slices(
            "fitness",
            generation,
            1,
            &cpu.fitness,
            &gpu.fitness,
            exact,
            |i| format!("individual {i}"),
        ),
    );
    total = merge(
        total,
        compare_slices(
            "best",
            generation,
            words,
            &widen(&cpu.best),
            &widen(&gpu.best),
            exact,
            |k| format!("word {k} of the best"),
        ),
    );
    merge(
        total,
        compare_slices(
            "best fitness",
            generation,
            1,
            &[cpu.best_fitness],
            &[gpu.best_fitness],
            exact,
            |_| String::new(),
        ),
    )
}

fn compare_engine(
    gpu: &Gpu,
    problem: &PaperFunction,
    params: &GaParams,
    seed: u64,
    generations: u64,
) -> Result<Comparison> {
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed)?;
    let mut cuda = GaCuda::new(params.clone(), problem, seed, gpu)?;
    let mut total = compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?);
    for _ in 0..generations {
        if !total.passed() {
            break;
        }
        cpu.step()?;
        cuda.step()?;
        total = merge(
            total,
            compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?),
        );
    }
    Ok(total)
}

fn compare_batch(
    gpu: &Gpu,
    problem: &PaperFunction,
    params: &GaParams,
    base_seed: u64,
    runs: usize,
    generations: u64,
) -> Result<Comparison> {
    let mut batch = GaBatchCuda::new(params.clone(), problem, base_seed, runs, gpu)?;
    let mut cpus = (0..runs as u64)
        .map(|r| GaCpu::new(params.clone(), problem.clone(), base_seed.wrapping_add(r)))
        .collect::<Result<Vec<_>>>()?;
    let mut total = Comparison {
        cases: 0,
        max_ulps: 0,
        mismatches: 0,
        first_mismatch: None,
    };
    for generation in 0..=generations {
        if generation > 0 {
            batch.step()?;
            for cpu in &mut cpus {
                cpu.step()?;
            }
        }
        for (run, cpu) in cpus.iter().enumerate() {
            total = merge(
                total,
                compare_snapshots(&cpu.snapshot()?, &batch.snapshot(run)?),
            );
        }
        if !total.passed() {
            break;
        }
    }
    Ok(total)
}

/// `GaCuda` against `GaCpu` on `function` at `n` for `generations` generations, blocks of `block` threads.
pub fn check_engine(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    generations: u64,
    block: u32,
) -> CheckReport {
    let check = format!(
        "ga {} n={n}, {generations} generations, block {block}",
        function.name()
    );
    let result = PaperFunction::new(function, n).and_then(|problem| {
        let params = GaParams::new().with_block_size(block)?;
        compare_engine(gpu, &problem, &params, 1000 + n as u64, generations)
    });
    match result {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

/// `GaBatchCuda` with `runs` runs against as many `GaCpu` runs (seeds wrapping past 2^64).
pub fn check_batch(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    runs: usize,
    generations: u64,
    block: u32,
) -> CheckReport {
    let check = format!(
        "ga batch of {runs} runs, {} n={n}, {generations} generations, block {block}",
        function.name()
    );
    let result = PaperFunction::new(function, n).and_then(|problem| {
        let params = GaParams::new().with_block_size(block)?;
        compare_batch(gpu, &problem, &params, u64::MAX - 1, runs, generations)
    });
    match result {
        Ok(comparison) => CheckReport::from_comparison(check, BATCH_KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, BATCH_KERNEL, &error),
    }
}

/// Every GA check at both block sizes.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &block in &BLOCK_SIZES {
        for function in GaFunction::ALL {
            reports.push(check_engine(gpu, function, 32, GENERATIONS, block));
        }
        reports.push(check_batch(gpu, GaFunction::Rastrigin, 32, 3, 60, block));
        reports.push(check_batch(gpu, GaFunction::Ridge, 128, 3, 30, block));
    }
    reports
}
