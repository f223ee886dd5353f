//! Suite `qiga`, part "beyond the paper" (issue 33): the QIGA with the knapsack options against the exact
//! optimum on Pisinger's four instance classes.
//!
//! For each class (uncorrelated, weakly and strongly correlated, subset-sum; `R = 1000`, seed 33) and size
//! (100, 1 000 and 10 000 items; 100 and 1 000 with `--quick`): the reference is the exact optimum
//! (`Knapsack::exact_optimum`, at most 2·10^9 table bits) or, where that table would be larger, the LP
//! (Dantzig) bound. Each variant runs 30 independent runs (seeds 2026 + r, tuned angles of the paper's Table 3,
//! 500 generations × 10 individuals) and the table gives the mean gap `(reference − best)/reference` of their
//! final bests, the worst run's gap, and the wall time of the batch (all 30 runs at once: rayon over runs on
//! the CPU, one block per run on the GPU), divided by 30 and whole (on the GPU a single run takes about the
//! batch's time: the runs of a batch run side by side). The SGA baseline runs at its default budget
//! (population 100, 50 generations: 5 100 evaluations against the QIGA's 5 010), as the paper and with every
//! option. The greedy solution is one deterministic answer. When both backends ran, the GPU's final bests
//! must equal the CPU's bit for bit.

use std::time::Instant;

use evo_benchmarks::Knapsack;
use evo_benchmarks::knapsack::KnapsackClass;
use evo_core::Engine;
use evo_qiga::{
    KnapsackOptions, LocalSearch, QigaCpu, QigaCuda, QigaParams, Repair, RotationAngles, RunConfig,
    SgaCpu, SgaCuda, SgaParams,
};

use crate::bench::{BenchContext, SuiteResult};

/// Runs per variant.
const RUNS: usize = 30;
/// Base seed of every batch.
const SEED: u64 = 2026;
/// The instances' seed.
const INSTANCE_SEED: u64 = 33;
/// Pisinger's data range R.
const RANGE: u32 = 1000;
/// QIGA generations after the initial one (the paper's).
const GENERATIONS: u32 = 500;
/// The largest DP table (bits) for the exact optimum: 250 MB.
const MAX_DP_CELLS: u64 = 2_000_000_000;

/// The variants of the table: the paper's QIGA and the options added one at a time.
fn variants() -> [(&'static str, KnapsackOptions); 4] {
    [
        ("QIGA (paper: index-order repair)", KnapsackOptions::PAPER),
        (
            "QIGA + greedy repair",
            KnapsackOptions {
                repair: Repair::Greedy,
                ..KnapsackOptions::PAPER
            },
        ),
        (
            "QIGA + greedy repair + seed",
            KnapsackOptions {
                repair: Repair::Greedy,
                greedy_seed: true,
                local_search: LocalSearch::Off,
            },
        ),
        (
            "QIGA + greedy repair + seed + local search",
            KnapsackOptions::PRACTICAL,
        ),
    ]
}

/// The SGA rows: the paper's baseline and every option.
fn sga_variants() -> [(&'static str, KnapsackOptions); 2] {
    [
        ("SGA (paper: index-order repair)", KnapsackOptions::PAPER),
        (
            "SGA + greedy repair + seed + local search",
            KnapsackOptions::PRACTICAL,
        ),
    ]
}

/// Adds the practical table to `result`.
pub fn run(ctx: &mut BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let sizes: &[usize] = if ctx.quick() {
        &[100, 1000]
    } else {
        &[100, 1000, 10_000]
    };
    let mut table = vec![
        "| class | items | reference | variant | backend | mean gap % | worst gap % | s per run | batch s |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    for &items in sizes {
        for class in KnapsackClass::ALL {
            let problem = Knapsack::generate_class(class, items, RANGE, INSTANCE_SEED)?;
            let start = Instant::now();
            let (reference, kind) = match problem.exact_optimum(MAX_DP_CELLS) {
                Ok(optimum) => (optimum.profit, "optimum"),
                Err(_) => (problem.lp_bound(), "LP bound"),
            };
            let reference_seconds = start.elapsed().as_secs_f64();
            let label = format!(
                "| {} | {items} | {kind} {reference:.0} ({reference_seconds:.2} s) |",
                class.short_name()
            );
            let greedy = problem.greedy_solution().1.profit;
            let gap = |best: f64| 100.0 * (reference - best) / reference;
            table.push(format!(
                "{label} greedy | – | {} | {} | – | – |",
                fixed(gap(greedy), 3),
                fixed(gap(greedy), 3)
            ));
            for (name, options) in variants() {
                let params = QigaParams::default()
                    .with_rotation_angles(RotationAngles::TUNED)
                    .with_options(options);
                let configs = RunConfig::batch(SEED, &vec![RotationAngles::TUNED; RUNS]);
                let cpu = if ctx.cpu() {
                    let (seconds, bests) = on_cpu(&params, &problem, configs.clone())?;
                    table.push(line(&label, name, "cpu", &bests, gap, seconds));
                    Some(bests)
                } else {
                    None
                };
                if let Some(gpu) = ctx.gpu() {
                    let gpu = gpu.clone();
                    let (seconds, bests) = on_gpu(&gpu, &params, &problem, configs)?;
                    table.push(line(&label, name, "cuda", &bests, gap, seconds));
                    compare(result, name, &problem, cpu.as_deref(), &bests);
                }
            }
            for (name, options) in sga_variants() {
                let params = SgaParams::default().with_options(options);
                let cpu = if ctx.cpu() {
                    let (seconds, bests) = sga_on_cpu(&params, &problem)?;
                    table.push(line(&label, name, "cpu", &bests, gap, seconds));
                    Some(bests)
                } else {
                    None
                };
                if let Some(gpu) = ctx.gpu() {
                    let gpu = gpu.clone();
                    let (seconds, bests) = sga_on_gpu(&gpu, &params, &problem)?;
                    table.push(line(&label, name, "cuda", &bests, gap, seconds));
                    compare(result, name, &problem, cpu.as_deref(), &bests);
                }
            }
        }
    }
    result.notes.push(format!(
        "Beyond the paper (issue 33): mean gap to the optimum (or the LP bound) over {RUNS} runs on Pisinger's \
         classes (R = {RANGE}, seed {INSTANCE_SEED}, C = ⌊Σw/2⌋), QIGA: tuned angles, {GENERATIONS} generations × 10 \
         individuals; SGA: population 100, 50 generations; s per run = batch wall time / {RUNS} (all runs at \
         once), batch s = the whole batch (on the GPU about one run's latency).\n\n{}",
        table.join("\n")
    ));
    Ok(())
}

fn fixed(value: f64, decimals: usize) -> String {
    format!("{value:.decimals$}")
}

fn line(
    label: &str,
    name: &str,
    backend: &str,
    bests: &[f64],
    gap: impl Fn(f64) -> f64,
    seconds: f64,
) -> String {
    let gaps: Vec<f64> = bests.iter().map(|&b| gap(b)).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let worst = gaps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "{label} {name} | {backend} | {} | {} | {} | {} |",
        fixed(mean, 3),
        fixed(worst, 3),
        fixed(seconds / bests.len() as f64, 4),
        fixed(seconds, 3)
    )
}

/// Records a failure when the GPU's final bests differ from the CPU's (when the CPU ran).
fn compare(
    result: &mut SuiteResult,
    name: &str,
    problem: &Knapsack,
    cpu: Option<&[f64]>,
    gpu: &[f64],
) {
    if let Some(cpu) = cpu {
        let same = cpu.iter().zip(gpu).all(|(a, b)| a.to_bits() == b.to_bits());
        if !same {
            result.failures.push(format!(
                "{name} on {}: GPU final bests differ from the CPU's",
                problem.instance_name()
            ));
        }
    }
}

fn sga_on_cpu(params: &SgaParams, problem: &Knapsack) -> anyhow::Result<(f64, Vec<f64>)> {
    let start = Instant::now();
    let mut engine = SgaCpu::batch(params, problem, SEED, RUNS, 0)?;
    for _ in 0..params.generations() {
        engine.step()?;
    }
    Ok((start.elapsed().as_secs_f64(), engine.state().best_profits()))
}

fn sga_on_gpu(
    gpu: &evo_gpu_runtime::Gpu,
    params: &SgaParams,
    problem: &Knapsack,
) -> anyhow::Result<(f64, Vec<f64>)> {
    // Compile (or load) the module outside the timed region with a one-run batch.
    SgaCuda::batch(params, problem, SEED, 1, gpu)?;
    gpu.synchronize()?;
    let start = Instant::now();
    let mut engine = SgaCuda::batch(params, problem, SEED, RUNS, gpu)?;
    engine.run_generations(u32::try_from(params.generations())?)?;
    let bests = engine.best_profits()?;
    Ok((start.elapsed().as_secs_f64(), bests))
}

fn on_cpu(
    params: &QigaParams,
    problem: &Knapsack,
    configs: Vec<RunConfig>,
) -> anyhow::Result<(f64, Vec<f64>)> {
    let start = Instant::now();
    let mut engine = QigaCpu::batch(params, problem, configs, 0)?;
    for _ in 0..GENERATIONS {
        engine.step()?;
    }
    Ok((start.elapsed().as_secs_f64(), engine.state().best_profits()))
}

fn on_gpu(
    gpu: &evo_gpu_runtime::Gpu,
    params: &QigaParams,
    problem: &Knapsack,
    configs: Vec<RunConfig>,
) -> anyhow::Result<(f64, Vec<f64>)> {
    // Compile (or load) the module outside the timed region with a one-run batch.
    QigaCuda::batch(params, problem, configs[..1].to_vec(), gpu)?;
    gpu.synchronize()?;
    let start = Instant::now();
    let mut engine = QigaCuda::batch(params, problem, configs, gpu)?;
    engine.run_generations(GENERATIONS)?;
    let bests = engine.best_profits()?;
    Ok((start.elapsed().as_secs_f64(), bests))
}
