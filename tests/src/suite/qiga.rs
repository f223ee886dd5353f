//! evo-qiga: the CUDA engine's snapshot equals the CPU engine's at every generation, bit for bit (Exact
//! profile): θ of every qubit, the repaired observations, their profits, b and f(b) of every run.
//!
//! Cases (spec qiga.md; issue "evo-qiga" must-show): knapsack-250 (the shipped instance when the data folder
//! is present, otherwise a generated strongly correlated instance of 250 items, named in the check), 500
//! generations after the initial one, for
//! - one run with the original angles;
//! - a batch of 100 runs, each with its own seed and its own angles (drawn uniformly in [0, 0.349]);
//! - a batch of 10 runs with random ±1 signs and Nowotniak's quadrant quirk (50 generations), for the
//!   options' paths.

use evo_benchmarks::Knapsack;
use evo_benchmarks::data::shared_data_dir;
use evo_core::{Engine, Result};
use evo_gpu_runtime::{DevicePool, Gpu};
use evo_qiga::meta::{CpuEvaluator, GpuEvaluator, MetaParams, meta_optimise};
use evo_qiga::{
    QigaCpu, QigaCuda, QigaParams, QigaSnapshot, QuadrantRule, RotationAngles, RunConfig, SgaCpu,
    SgaCuda, SgaParams, SgaSnapshot, SignChoice,
};
use evo_rng::{Philox, Stream};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{Comparison, compare_slices};
use crate::tolerance::Tolerance;

/// The kernel every check exercises.
pub const KERNEL: &str = "qiga_run_generations";

/// Generations after the initial one in the main cases (the paper's run length).
pub const GENERATIONS: u64 = 500;

/// Runs in the batch case.
pub const BATCH_RUNS: usize = 100;

/// knapsack-250 from the data folder, or a generated instance of 250 items; the name says which.
///
/// # Errors
/// When the shipped file exists but does not load.
pub fn knapsack_250() -> Result<Knapsack> {
    match shared_data_dir().map(|dir| dir.join("knapsack/knapsack-250.txt")) {
        Some(path) if path.is_file() => Knapsack::from_file(path),
        _ => Knapsack::generate(250, 250),
    }
}

/// `runs` angle sets drawn uniformly in `[0, 0.349]` from stream `MetaInit` of seed `seed`.
pub fn random_angles(seed: u64, runs: usize) -> Vec<RotationAngles> {
    let rng = Philox::new(seed);
    (0..runs)
        .map(|r| {
            let sequence = rng.sequence(Stream::MetaInit, 0, r as u32);
            let angles: [f32; 5] = std::array::from_fn(|k| {
                evo_rng::convert::uniform_in(sequence.word(k as u32), 0.0, evo_qiga::MAX_ANGLE)
            });
            RotationAngles::new(angles).unwrap_or_default()
        })
        .collect()
}

/// Steps the CPU and the CUDA engine of the same batch side by side for `generations` generations and
/// compares their snapshots after every one (generation 0 included).
pub fn check_runs(
    gpu: &Gpu,
    problem: &Knapsack,
    params: &QigaParams,
    runs: Vec<RunConfig>,
    generations: u64,
    label: &str,
) -> CheckReport {
    let check = format!(
        "{label} on {}, {} run(s), {generations} generations, block {}",
        problem.instance_name(),
        runs.len(),
        params.block_size()
    );
    match compare_runs(gpu, problem, params, runs, generations) {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

fn compare_runs(
    gpu: &Gpu,
    problem: &Knapsack,
    params: &QigaParams,
    runs: Vec<RunConfig>,
    generations: u64,
) -> Result<Comparison> {
    let mut cpu = QigaCpu::batch(params, problem, runs.clone(), 0)?;
    let mut cuda = QigaCuda::batch(params, problem, runs, gpu)?;
    let mut total = compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?);
    for _ in 0..generations {
        if !total.passed() {
            break;
        }
        cpu.step()?;
        cuda.step()?;
        let comparison = compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?);
        total = merge(total, comparison);
    }
    Ok(total)
}

fn merge(a: Comparison, b: Comparison) -> Comparison {
    Comparison {
        cases: a.cases + b.cases,
        max_ulps: a.max_ulps.max(b.max_ulps),
        mismatches: a.mismatches + b.mismatches,
        first_mismatch: a.first_mismatch.or(b.first_mismatch),
    }
}

/// Compares two snapshots field by field; bit rows are compared as exact integers widened to `f64` (every
/// `u32` is exact in `f64`, so "same value" is "same bits").
pub fn compare_snapshots(cpu: &QigaSnapshot, gpu: &QigaSnapshot) -> Comparison {
    let generation = cpu.generation;
    let mut total = compare_slices(
        "generation",
        generation,
        1,
        &[cpu.generation as f64, cpu.runs.len() as f64],
        &[gpu.generation as f64, gpu.runs.len() as f64],
        Tolerance::Exact,
        |_| "generation counter and run count".into(),
    );
    for (r, (c, g)) in cpu.runs.iter().zip(&gpu.runs).enumerate() {
        let context = |i: usize| format!("run {r} (seed {}), element {i}", c.config.seed);
        let widen = |words: &[u32]| words.iter().map(|&w| f64::from(w)).collect::<Vec<_>>();
        let parts = [
            compare_slices(
                "θ",
                generation,
                cpu.items,
                &c.theta,
                &g.theta,
                Tolerance::Exact,
                context,
            ),
            compare_slices(
                "repaired observation words",
                generation,
                c.observed.len() / cpu.population.max(1),
                &widen(&c.observed),
                &widen(&g.observed),
                Tolerance::Exact,
                context,
            ),
            compare_slices(
                "profit",
                generation,
                1,
                &c.profits,
                &g.profits,
                Tolerance::Exact,
                context,
            ),
            compare_slices(
                "best b words",
                generation,
                1,
                &widen(&c.best),
                &widen(&g.best),
                Tolerance::Exact,
                context,
            ),
            compare_slices(
                "f(b)",
                generation,
                1,
                &[c.best_profit],
                &[g.best_profit],
                Tolerance::Exact,
                context,
            ),
        ];
        for part in parts {
            total = merge(total, part);
        }
    }
    total
}

/// The three cases at one block size.
pub fn run_at(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let problem = match knapsack_250() {
        Ok(problem) => problem,
        Err(error) => {
            return vec![CheckReport::from_error(
                "loading knapsack-250".into(),
                KERNEL,
                &error,
            )];
        }
    };
    let params = match QigaParams::default().with_block_size(block) {
        Ok(params) => params,
        Err(error) => return vec![CheckReport::from_error("block size".into(), KERNEL, &error)],
    };
    let single = vec![RunConfig {
        seed: 2026,
        angles: RotationAngles::ORIGINAL,
    }];
    let batch = RunConfig::batch(7_000, &random_angles(8, BATCH_RUNS));
    let options = params
        .clone()
        .with_sign_choice(SignChoice::Random)
        .with_quadrant_rule(QuadrantRule::NowotniakQuirk);
    vec![
        check_runs(gpu, &problem, &params, single, GENERATIONS, "single run"),
        check_runs(
            gpu,
            &problem,
            &params,
            batch,
            GENERATIONS,
            "batch, per-run angles",
        ),
        check_runs(
            gpu,
            &problem,
            &options,
            RunConfig::batch(31, &random_angles(9, 10)),
            50,
            "random signs + quirk",
        ),
    ]
}

/// The meta-optimisation with its inner runs on every visible GPU ([`GpuEvaluator`] over
/// `DevicePool::all`) equals the one on the CPU: same genomes and meta-fitness at every outer generation
/// (population 4, 2 outer generations, 5 runs of 60 generations per genome, knapsack-250).
pub fn check_meta(_gpu: &Gpu, block: u32) -> CheckReport {
    let check = format!("meta-optimisation over DevicePool::all vs CPU, block {block}");
    let outcome = (|| -> Result<Comparison> {
        let problem = knapsack_250()?;
        let inner = QigaParams::default()
            .with_block_size(block)?
            .with_generations(60)?;
        let params = MetaParams::default()
            .with_population(4)?
            .with_generations(2)?
            .with_runs_per_candidate(5)?
            .with_inner(inner);
        let cpu = meta_optimise(&params, &problem, 3, &CpuEvaluator::new(0))?;
        let gpu = meta_optimise(&params, &problem, 3, &GpuEvaluator::new(DevicePool::all()?))?;
        let flatten = |result: &evo_qiga::meta::MetaResult| -> Vec<f64> {
            result
                .history
                .iter()
                .flat_map(|g| {
                    g.population.iter().flat_map(|(angles, f)| {
                        angles.angles().into_iter().map(f64::from).chain([*f])
                    })
                })
                .collect()
        };
        Ok(compare_slices(
            "meta genomes and fitness",
            0,
            6,
            &flatten(&cpu),
            &flatten(&gpu),
            Tolerance::Exact,
            |i| format!("history element {i} (θ1..θ5, f̃ per genome)"),
        ))
    })();
    match outcome {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

/// The SGA baseline: CPU and CUDA snapshots (population words, profits, best, f(best)) after every one of
/// 50 generations for 100 runs on knapsack-250.
pub fn check_sga(gpu: &Gpu) -> CheckReport {
    let check = "SGA, 100 runs, 50 generations".to_string();
    let outcome = (|| -> Result<Comparison> {
        let problem = knapsack_250()?;
        let params = SgaParams::default();
        let mut cpu = SgaCpu::batch(&params, &problem, 500, 100, 0)?;
        let mut cuda = SgaCuda::batch(&params, &problem, 500, 100, gpu)?;
        let mut total = compare_sga(&cpu.snapshot()?, &cuda.snapshot()?);
        for _ in 0..params.generations() {
            cpu.step()?;
            cuda.step()?;
            total = merge(total, compare_sga(&cpu.snapshot()?, &cuda.snapshot()?));
        }
        Ok(total)
    })();
    match outcome {
        Ok(comparison) => {
            CheckReport::from_comparison(check, "qiga_sga_run_generations", &comparison)
        }
        Err(error) => CheckReport::from_error(check, "qiga_sga_run_generations", &error),
    }
}

fn compare_sga(cpu: &SgaSnapshot, gpu: &SgaSnapshot) -> Comparison {
    let flatten = |s: &SgaSnapshot| -> Vec<f64> {
        s.runs
            .iter()
            .flat_map(|run| {
                run.individuals
                    .iter()
                    .chain(&run.best)
                    .map(|&w| f64::from(w))
                    .chain(run.profits.iter().copied())
                    .chain([run.best_profit])
                    .collect::<Vec<_>>()
            })
            .chain([s.generation as f64])
            .collect()
    };
    compare_slices(
        "SGA state (population words, best words, profits, f(best))",
        cpu.generation,
        1,
        &flatten(cpu),
        &flatten(gpu),
        Tolerance::Exact,
        |i| format!("flattened state element {i}"),
    )
}

/// A CPU snapshot after 10 generations restored into the CUDA engine continues as the CPU engine does
/// (QIGA, 20 runs, to generation 40).
pub fn check_restore_across_backends(gpu: &Gpu) -> CheckReport {
    let check = "QIGA snapshot from the CPU restored on the GPU".to_string();
    let outcome = (|| -> Result<Comparison> {
        let problem = knapsack_250()?;
        let params = QigaParams::default();
        let runs = RunConfig::batch(90, &random_angles(10, 20));
        let mut cpu = QigaCpu::batch(&params, &problem, runs.clone(), 0)?;
        for _ in 0..10 {
            cpu.step()?;
        }
        // The same runs (seeds and angles): restore refuses a snapshot of other runs.
        let mut cuda = QigaCuda::batch(&params, &problem, runs, gpu)?;
        cuda.restore(&cpu.snapshot()?)?;
        for _ in 0..30 {
            cpu.step()?;
            cuda.step()?;
        }
        Ok(compare_snapshots(&cpu.snapshot()?, &cuda.snapshot()?))
    })();
    match outcome {
        Ok(comparison) => CheckReport::from_comparison(check, KERNEL, &comparison),
        Err(error) => CheckReport::from_error(check, KERNEL, &error),
    }
}

/// Every case at both block sizes.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    BLOCK_SIZES
        .iter()
        .flat_map(|&block| run_at(gpu, block))
        .chain([
            check_meta(gpu, 256),
            check_sga(gpu),
            check_restore_across_backends(gpu),
        ])
        .collect()
}
