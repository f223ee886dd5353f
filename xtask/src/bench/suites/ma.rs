//! Suite `ma`: the MA-SW-Chains paper (Lastra, Molina, Benítez 2015), Tables 1–12 and 21–30, beside our
//! CUDA engine; the scale runs (10^7 and, opt-in, 10^8 variables: time and device memory); the CPU engine on
//! 1 thread and on all cores at 10^5 variables with a reduced budget.
//!
//! Full: the six shifted functions at D = 10^5, 5·10^5, 10^6, 1.5·10^6, 3·10^6 with the paper's 500 000
//! evaluations, 10 runs (20 for Schwefel 1.2, as the paper); the CEC 2010 subset F1, F2, F3, F4, F6, F8, F13,
//! F18, F20 at 10^5 and 10^6 with 500 000 evaluations (10 runs; the paper's 20 with `--ma-runs 20`); 10^7
//! with 50 000 evaluations; CPU at 10^5 with 20 000 evaluations. `--quick`: one run each of the six functions
//! at 10^5 and of shifted Rastrigin at 3·10^6 (the sizes of the time targets, ≤ 5 s and ≤ 60 s, which only a
//! full-budget run checks), CEC F1 and F2 at 10^5, all with 50 000 evaluations; 10^7 with 5 000 evaluations;
//! CPU at 10^5 with 1 000 evaluations, shifted Rastrigin and Schwefel 1.2 only. Times
//! include the engine's construction (upload, initial population); the kernels are compiled by a warm-up run
//! first.
//!
//! Case selection (so that a full run can be split into calls of a few minutes), flags of `cargo xtask bench`
//! ([`selection`]):
//! - `--ma-cases`: comma-separated selectors `part[:name[:D]]`, `part` one of `shifted`, `small`, `cec`,
//!   `scale`, `cpu`; `name` a function (`rastrigin` or `shifted-rastrigin`, `griewank`, `salomon`,
//!   `sum-squares`, `discus`, `schwefel-1.2`; CEC `f1` … `f20` of the subset; scale `rastrigin`) or `*`; `D`
//!   one of the part's numbers of variables or `*`. Example: `--ma-cases shifted:rastrigin:3000000,cec:f8`.
//!   Absent: every case of the mode except 10^8 and `small`.
//! - The 10^8 run (shifted Rastrigin, 50 000 evaluations, one run) is opt-in: `--ma-cases scale:*:100000000`
//!   (any mode). It needs about 68 GB (computed before allocating; it fits an 80 GB H100).
//! - The `small` part (opt-in, e.g. `--ma-cases small:*:100000`) runs the six functions on
//!   `[−1.22, 1.22]^D`, the domain size the paper's distances imply (docs/results/ma.md, "Quality").
//! - `--ma-runs`: runs per case of the shifted and CEC parts, in either mode (replaces 10/20, and 1 with
//!   `--quick`).
//! - `--ma-first-run`: the index of the first run (seed `2015 + index`; default 0), to split the runs of a
//!   case over calls: `--ma-runs 5` then `--ma-runs 5 --ma-first-run 5` are runs 0–9.

use std::time::Instant;

use evo_benchmarks::cuda::CudaProblem;
use evo_benchmarks::{Cec2010Problem, ShiftedFunction, ShiftedProblem};
use evo_core::Engine;
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::memory::device_bytes;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams};
use statrs::statistics::Statistics;

use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult};

mod selection;

pub use selection::Selector;
use selection::{Part, Selection};

const SEED: u64 = 2015;
const DIMS: [usize; 5] = [100_000, 500_000, 1_000_000, 1_500_000, 3_000_000];
/// The paper's evaluations per run.
const PAPER_BUDGET: u64 = 500_000;
/// Evaluations per run of the shifted and CEC parts with `--quick`: a tenth of the paper's, so that the time
/// targets are checked by the full mode (or `--ma-cases`), not by the quick run.
const QUICK_BUDGET: u64 = 50_000;

/// The CPU part's functions with `--quick`: a separable and a non-separable one, since a single-thread CPU
/// run at 10^5 variables costs seconds even at a reduced budget.
const QUICK_CPU_FUNCTIONS: [ShiftedFunction; 2] =
    [ShiftedFunction::Rastrigin, ShiftedFunction::Schwefel12];

/// Evaluations per run of the shifted and CEC parts.
fn gpu_budget(quick: bool) -> u64 {
    if quick { QUICK_BUDGET } else { PAPER_BUDGET }
}

/// What the notes say of `budget`: the paper's, or a fraction whose quality is not comparable with it.
fn budget_words(budget: u64) -> String {
    if budget == PAPER_BUDGET {
        "the paper's budget".to_string()
    } else {
        format!(
            "a quick run's budget, 1/{} of the paper's: the best values are not comparable with the paper's, \
             and the times are scaled",
            PAPER_BUDGET / budget
        )
    }
}

/// Tables 1–11: (CPU s, GPU s) per dimension.
const PAPER_TIME: [(ShiftedFunction, [(f64, f64); 5]); 6] = [
    (
        ShiftedFunction::Rastrigin,
        [
            (53_543.0, 851.8),
            (273_517.0, 3188.3),
            (547_424.0, 4150.4),
            (823_475.0, 5404.2),
            (1_632_003.0, 8776.9),
        ],
    ),
    (
        ShiftedFunction::Griewank,
        [
            (49_258.0, 1086.7),
            (240_820.0, 3460.8),
            (479_457.0, 4332.5),
            (727_870.0, 5519.2),
            (1_444_441.0, 8639.8),
        ],
    ),
    (
        ShiftedFunction::Salomon,
        [
            (26_957.0, 826.6),
            (136_214.0, 3250.7),
            (291_457.0, 3825.5),
            (454_624.0, 4781.4),
            (813_716.0, 7637.1),
        ],
    ),
    (
        ShiftedFunction::SumSquares,
        [
            (28_983.0, 881.6),
            (142_000.0, 3320.0),
            (312_872.0, 3991.9),
            (454_497.0, 4994.7),
            (877_941.0, 8119.1),
        ],
    ),
    (
        ShiftedFunction::Discus,
        [
            (27_233.0, 862.5),
            (136_382.0, 3275.0),
            (282_043.0, 3874.8),
            (406_658.0, 4850.1),
            (805_641.0, 7836.7),
        ],
    ),
    (
        ShiftedFunction::Schwefel12,
        [
            (32_743.0, 1197.7),
            (165_456.0, 4386.6),
            (331_086.0, 5334.2),
            (467_190.0, 6681.7),
            (939_027.0, 10_849.4),
        ],
    ),
];

/// Tables 2–12, GPU column: (mean best objective, mean distance to the optimum) per dimension.
const PAPER_QUALITY: [(ShiftedFunction, [(f64, f64); 5]); 6] = [
    (
        ShiftedFunction::Rastrigin,
        [
            (5.1e5, 3.4e2),
            (4.1e6, 7.2e2),
            (9.0e6, 9.9e2),
            (1.4e7, 1.2e3),
            (2.9e7, 1.7e3),
        ],
    ),
    (
        ShiftedFunction::Griewank,
        [
            (-3.2e2, 2.1e2),
            (-2.4e2, 5.9e2),
            (-1.4e2, 8.8e2),
            (-3.2e1, 1.1e3),
            (2.9e2, 1.6e3),
        ],
    ),
    (
        ShiftedFunction::Salomon,
        [
            (-3e2, 2.8e2),
            (-2.7e2, 6.4e2),
            (-2.4e2, 9.1e2),
            (-2.2e2, 1.1e3),
            (-1.7e2, 1.6e3),
        ],
    ),
    (
        ShiftedFunction::SumSquares,
        [
            (1.5e9, 2.2e2),
            (8.4e10, 6.1e2),
            (3.7e11, 8.9e2),
            (8.7e11, 1.1e3),
            (3.6e12, 1.6e3),
        ],
    ),
    (
        ShiftedFunction::Discus,
        [
            (7.7e4, 2.8e2),
            (4.1e5, 6.4e2),
            (8.3e5, 9.1e2),
            (1.3e6, 1.1e3),
            (2.5e6, 1.6e3),
        ],
    ),
    (
        ShiftedFunction::Schwefel12,
        [
            (6.8e6, 3.8e2),
            (2.7e8, 9.7e2),
            (8.7e10, 1.4e3),
            (4.9e11, 1.8e3),
            (1.0e15, 2.4e3),
        ],
    ),
];

/// Tables 21–29 (mean best, GPU, 20 runs) and Table 30 (distance of the best to the optimum) at 10^5 and
/// 10^6: (F, best 10^5, best 10^6, distance 10^5, distance 10^6).
const PAPER_CEC: [(u32, f64, f64, f64, f64); 9] = [
    (1, 1.4e13, 2.6e14, 1.4e4, 2.6e4),
    (2, 1.9e6, 2.0e7, 5.9e2, 1.9e3),
    (3, 2.1e1, 2.2e1, 4.5e3, 1.4e4),
    (4, 2.5e13, 2.8e14, 1.2e4, 3.8e4),
    (6, 2.2e1, 2.2e1, 3.8e3, 1.2e4),
    (8, 4.3e7, 1.1e8, 1.2e4, 3.8e4),
    (13, 1.3e14, 2.0e15, 1.3e4, 3.8e4),
    (18, 3.2e14, 4.2e15, 1.2e4, 3.7e4),
    (20, 3.2e14, 4.2e15, 1.2e4, 3.7e4),
];

/// The half-width of the `small` part's domain: an initial RMS distance to the optimum of about 0.9 per
/// variable, as the paper's distances imply (docs/results/ma.md, "Quality").
const SMALL_DOMAIN: f64 = 1.22;

/// The 10^8-variable scale case, run only when selected explicitly.
const HUNDRED_MILLION: usize = 100_000_000;

/// The `ma` suite.
pub struct Ma;

/// One run's outcome.
struct Outcome {
    seconds: f64,
    /// The best of the initial population.
    initial: f64,
    best: f64,
    distance: f64,
    held_bytes: u64,
}

fn distance_to(best: &[f32], optimum: impl Fn(usize) -> f64) -> f64 {
    best.iter()
        .enumerate()
        .map(|(i, &x)| {
            let d = f64::from(x) - optimum(i);
            d * d
        })
        .sum::<f64>()
        .sqrt()
}

fn run_gpu<P: CudaProblem>(
    gpu: &Gpu,
    problem: &P,
    params: &MaParams,
    seed: u64,
    optimum: impl Fn(usize) -> f64,
) -> anyhow::Result<Outcome> {
    let (free_before, _) = gpu.memory()?;
    let start = Instant::now();
    let mut engine = MaCuda::new(params.clone(), problem, seed, gpu)?;
    let initial = engine.progress().best_fitness;
    while engine.progress().evaluations < params.max_evaluations() {
        engine.step()?;
    }
    gpu.synchronize()?;
    let seconds = start.elapsed().as_secs_f64();
    let (free_after, _) = gpu.memory()?;
    let (best, fitness) = engine.best()?;
    Ok(Outcome {
        seconds,
        initial,
        best: fitness,
        distance: distance_to(&best, optimum),
        held_bytes: free_before.saturating_sub(free_after),
    })
}

fn run_cpu(problem: &ShiftedProblem, params: &MaParams, threads: usize) -> anyhow::Result<Outcome> {
    let start = Instant::now();
    let mut engine = MaCpu::new(params.clone(), problem, SEED, threads)?;
    let initial = engine.progress().best_fitness;
    while engine.progress().evaluations < params.max_evaluations() {
        engine.step()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let (best, fitness) = engine.best()?;
    let shift = problem.shift();
    Ok(Outcome {
        seconds,
        initial,
        best: fitness,
        distance: distance_to(&best, |i| f64::from(shift[i])),
        held_bytes: 0,
    })
}

#[allow(clippy::too_many_arguments)]
fn row(
    case: String,
    backend: Backend,
    device: String,
    dimension: usize,
    seconds: f64,
    runs: usize,
    evaluations: u64,
    reference: Option<(&str, f64)>,
) -> Row {
    let throughput = evaluations as f64 / seconds;
    Row {
        case,
        backend,
        device,
        size: dimension as u64,
        median_ms: seconds * 1e3,
        samples: runs,
        throughput,
        unit: "evaluations/s".to_string(),
        reference: reference.map(|(source, value)| Reference::new(source, value, throughput)),
        check: None,
    }
}

impl Ma {
    /// The six shifted functions; `part` [`Part::Shifted`] on their default domains, [`Part::Small`] on
    /// `[−SMALL_DOMAIN, SMALL_DOMAIN]^D` (opt-in).
    fn shifted_gpu(
        &self,
        ctx: &BenchContext,
        gpu: &Gpu,
        sel: &Selection,
        part: Part,
        result: &mut SuiteResult,
    ) -> anyhow::Result<()> {
        let small = part == Part::Small;
        let quick = ctx.quick();
        let budget = gpu_budget(quick);
        let params = MaParams::new().with_max_evaluations(budget)?;
        // --quick: every function at 10^5 and Rastrigin at 3·10^6 (the sizes of the two time targets).
        let cases: Vec<(ShiftedFunction, usize)> = PAPER_TIME
            .iter()
            .flat_map(|&(function, _)| DIMS.iter().map(move |&d| (function, d)))
            .filter(|&(function, d)| {
                !quick || d == DIMS[0] || (function == ShiftedFunction::Rastrigin && d == DIMS[4])
            })
            .filter(|&(function, d)| sel.wants(part, function.name(), d))
            .collect();
        if cases.is_empty() {
            return Ok(());
        }
        let mut table = vec![
            "| function | D | paper CPU s | paper GPU s | ours GPU s | vs paper GPU | paper GPU best | ours best | ours initial best | paper GPU distance | ours distance | paper distance/√D | ours distance/√D | runs |".to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        let bar = ctx.progress(cases.len() as u64, "ma");
        for &(function, d) in &cases {
            let times = PAPER_TIME
                .iter()
                .find(|(f, _)| *f == function)
                .map(|(_, t)| *t)
                .unwrap_or_default();
            let quality = PAPER_QUALITY
                .iter()
                .find(|(f, _)| *f == function)
                .map(|(_, q)| *q)
                .unwrap_or_default();
            let at = DIMS.iter().position(|&x| x == d).unwrap_or(0);
            bar.set_message(format!("{} D={d}", function.name()));
            let runs = match (sel.runs, quick, function) {
                (Some(runs), _, _) => runs,
                (None, true, _) => 1,
                (None, false, ShiftedFunction::Schwefel12) => 20,
                (None, false, _) => 10,
            };
            let problem = if small {
                ShiftedProblem::with_domain(function, d, -SMALL_DOMAIN, SMALL_DOMAIN)?
            } else {
                ShiftedProblem::new(function, d)?
            };
            let shift = problem.shift().to_vec();
            let outcomes = (0..runs)
                .map(|r| {
                    run_gpu(
                        gpu,
                        &problem,
                        &params,
                        SEED + sel.first_run + r as u64,
                        |i| f64::from(shift[i]),
                    )
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let seconds = outcomes.iter().map(|o| o.seconds).mean();
            let best = outcomes.iter().map(|o| o.best).mean();
            let distance = outcomes.iter().map(|o| o.distance).mean();
            let initial = outcomes.iter().map(|o| o.initial).mean();
            let (paper_cpu, paper_gpu) = times[at];
            let (paper_best, paper_distance) = quality[at];
            // The paper's figures are for 500 000 evaluations; scale its time to our budget for the ratio.
            let paper_gpu_scaled = paper_gpu * budget as f64 / PAPER_BUDGET as f64;
            result.rows.push(row(
                format!(
                    "CUDA {}{} D={d} {budget} evaluations, mean of {runs}",
                    function.name(),
                    if small { " (domain ±1.22)" } else { "" }
                ),
                Backend::Cuda,
                ctx.gpu_device(),
                d,
                seconds,
                runs,
                budget,
                Some(("paper GPU (GTX Titan)", PAPER_BUDGET as f64 / paper_gpu)),
            ));
            table.push(format!(
                    "| {} | {d} | {paper_cpu:.0} | {paper_gpu:.1} | {seconds:.2} | {:.0}x | {paper_best:.2e} | {best:.3e} | {initial:.3e} | {paper_distance:.2e} | {distance:.3e} | {:.3} | {:.3} | {runs} |",
                    function.name(),
                    paper_gpu_scaled / seconds,
                    paper_distance / (d as f64).sqrt(),
                    distance / (d as f64).sqrt(),
                ));
            bar.inc(1);
        }
        bar.finish_and_clear();
        result.notes.push(format!(
            "Six shifted functions on the GPU{}, {budget} evaluations per run ({}). Ours: MaCuda, Exact \
             profile, N = 60, 20 children per crossover step, seeds {SEED} + {}.. (one per run). Time targets: shifted \
             Rastrigin ≤ 5 s at 10^5 and ≤ 60 s at 3·10^6. The paper does not state its domains; its distance/√D \
             (the RMS distance per variable) is about 0.7–1.2 for all six functions at every D, which our domains \
             (evo_benchmarks::shifted, e.g. [−100, 100] for Discus) cannot give: compare the reduction from the \
             initial best, not the objective values (docs/results/ma.md).\n\n{}",
            if small {
                " on [−1.22, 1.22]^D (the domain size the paper's distances imply)"
            } else {
                " on their default domains"
            },
            budget_words(budget),
            sel.first_run,
            table.join("\n")
        ));
        Ok(())
    }

    fn cec_gpu(
        &self,
        ctx: &BenchContext,
        gpu: &Gpu,
        sel: &Selection,
        result: &mut SuiteResult,
    ) -> anyhow::Result<()> {
        let quick = ctx.quick();
        let budget = gpu_budget(quick);
        let runs = sel.runs.unwrap_or(if quick { 1 } else { 10 });
        let params = MaParams::new().with_max_evaluations(budget)?;
        let mut table = vec![
            "| F | D | paper GPU mean best | ours mean best | paper distance | ours distance | ours s | runs |"
                .to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for (number, best_1e5, best_1e6, dist_1e5, dist_1e6) in PAPER_CEC {
            if quick && number > 2 {
                continue;
            }
            let dims: &[(usize, f64, f64)] = if quick {
                &[(100_000, best_1e5, dist_1e5)]
            } else {
                &[
                    (100_000, best_1e5, dist_1e5),
                    (1_000_000, best_1e6, dist_1e6),
                ]
            };
            for &(d, paper, paper_distance) in dims {
                if !sel.wants(Part::Cec, &format!("f{number}"), d) {
                    continue;
                }
                let problem = Cec2010Problem::new(number, d)?;
                let optimum = problem.optimum_point();
                let outcomes = (0..runs)
                    .map(|r| {
                        run_gpu(
                            gpu,
                            &problem,
                            &params,
                            SEED + sel.first_run + r as u64,
                            |i| optimum[i],
                        )
                    })
                    .collect::<anyhow::Result<Vec<_>>>();
                match outcomes {
                    Ok(outcomes) => {
                        let seconds = outcomes.iter().map(|o| o.seconds).mean();
                        let best = outcomes.iter().map(|o| o.best).mean();
                        let distance = outcomes.iter().map(|o| o.distance).mean();
                        result.rows.push(row(
                            format!(
                                "CUDA cec2010-f{number} D={d} {budget} evaluations, mean of {runs}"
                            ),
                            Backend::Cuda,
                            ctx.gpu_device(),
                            d,
                            seconds,
                            runs,
                            budget,
                            None,
                        ));
                        table.push(format!(
                            "| F{number} | {d} | {paper:.1e} | {best:.3e} | {paper_distance:.1e} | {distance:.3e} | {seconds:.2} | {runs} |"
                        ));
                    }
                    Err(error) => table.push(format!(
                        "| F{number} | {d} | {paper:.1e} | not run: {error:#} | {paper_distance:.1e} | | | |"
                    )),
                }
            }
        }
        if table.len() > 2 {
            result.notes.push(format!(
                "CEC 2010 subset on the GPU, {budget} evaluations per run ({}; the paper ran 20 runs and did \
                 not publish these run times).\n\n{}",
                budget_words(budget),
                table.join("\n")
            ));
        }
        Ok(())
    }

    fn scale_gpu(
        &self,
        ctx: &BenchContext,
        gpu: &Gpu,
        sel: &Selection,
        result: &mut SuiteResult,
    ) -> anyhow::Result<()> {
        let quick = ctx.quick();
        // 10^7: 5 000 evaluations in --quick, 50 000 otherwise; 10^8 (opt-in): 50 000.
        let cases: Vec<(usize, u64)> = [
            (10_000_000, if quick { 5_000 } else { 50_000 }),
            (HUNDRED_MILLION, 50_000),
        ]
        .into_iter()
        .filter(|&(d, _)| sel.wants(Part::Scale, "rastrigin", d))
        .collect();
        if cases.is_empty() {
            return Ok(());
        }
        let mut table = vec![
            "| D | evaluations | s | evaluations/s | computed need GB | held by the run GB |"
                .to_string(),
            "| --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for (d, budget) in cases {
            let params = MaParams::new().with_max_evaluations(budget)?;
            let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, d)?;
            let shift = problem.shift().to_vec();
            let outcome = run_gpu(gpu, &problem, &params, SEED, |i| f64::from(shift[i]))?;
            result.rows.push(row(
                format!("CUDA shifted-rastrigin D={d} {budget} evaluations (scale)"),
                Backend::Cuda,
                ctx.gpu_device(),
                d,
                outcome.seconds,
                1,
                budget,
                None,
            ));
            table.push(format!(
                "| {d} | {budget} | {:.2} | {:.0} | {:.1} | {:.1} |",
                outcome.seconds,
                budget as f64 / outcome.seconds,
                device_bytes(&params, d) as f64 / 1e9,
                outcome.held_bytes as f64 / 1e9
            ));
        }
        result.notes.push(format!(
            "Scale: shifted Rastrigin, one run each; \"held by the run\" = free device memory before the engine was \
             built minus free memory after the run: the engine's resident buffers plus the buffer pool's idle \
             buffers, which keep every transient buffer the run allocated, so it bounds the peak from above \
             up to the size-class rounding.\n\n{}",
            table.join("\n")
        ));
        Ok(())
    }

    fn cpu(
        &self,
        ctx: &BenchContext,
        sel: &Selection,
        result: &mut SuiteResult,
    ) -> anyhow::Result<()> {
        // A quick run: one cycle of the memetic loop (500 evaluations of the steady-state GA, then a local
        // search of 500); at 10^5 variables a CPU evaluation with its share of the search takes milliseconds.
        let budget: u64 = if ctx.quick() { 1_000 } else { 20_000 };
        let d = DIMS[0];
        let params = MaParams::new().with_max_evaluations(budget)?;
        let mut table = vec![
            "| function | D | evaluations | paper CPU s (500 000 evaluations) | paper CPU s scaled | ours 1 thread s | ours rayon s | best (1 thread = rayon) |".to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for (function, times) in PAPER_TIME {
            let quick_case = QUICK_CPU_FUNCTIONS.contains(&function);
            if !sel.wants(Part::Cpu, function.name(), d) || (ctx.quick() && !quick_case) {
                continue;
            }
            let problem = ShiftedProblem::new(function, d)?;
            let one = run_cpu(&problem, &params, 1)?;
            let all = run_cpu(&problem, &params, 0)?;
            let paper = times[0].0;
            let scaled = paper * budget as f64 / 500_000.0;
            for (outcome, label) in [(&one, "1 thread"), (&all, "rayon")] {
                result.rows.push(row(
                    format!("CPU {label} {} D={d} {budget} evaluations", function.name()),
                    Backend::Cpu,
                    ctx.cpu_device().to_string(),
                    d,
                    outcome.seconds,
                    1,
                    budget,
                    Some(("paper CPU (i7-930)", 500_000.0 / paper)),
                ));
            }
            if one.best.to_bits() != all.best.to_bits() {
                result.failures.push(format!(
                    "{}: 1-thread and rayon CPU runs differ",
                    function.name()
                ));
            }
            table.push(format!(
                "| {} | {d} | {budget} | {paper:.0} | {scaled:.0} | {:.2} | {:.2} | {:.4e} |",
                function.name(),
                one.seconds,
                all.seconds,
                one.best
            ));
        }
        result.notes.push(format!(
            "CPU engine at D = 10^5 with a reduced budget.\n\n{}",
            table.join("\n")
        ));
        Ok(())
    }
}

impl Suite for Ma {
    fn name(&self) -> &'static str {
        "ma"
    }

    fn description(&self) -> &'static str {
        "MA-SW-Chains paper Tables 1-30: six shifted functions and CEC 2010 on the GPU, 10^7-10^8 scale runs, CPU at 10^5"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let flags = &ctx.flags().ma;
        let sel = Selection::new(&flags.cases, flags.runs, flags.first_run);
        let gpu_parts = [Part::Shifted, Part::Small, Part::Cec, Part::Scale]
            .into_iter()
            .any(|part| sel.wants_part(part));
        if let Some(gpu) = ctx.gpu().cloned().filter(|_| gpu_parts) {
            // Warm-up: compiles the ma and evaluation modules so the first timed run does not pay for NVRTC.
            let warm = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000)?;
            run_gpu(
                &gpu,
                &warm,
                &MaParams::new().with_max_evaluations(1_000)?,
                SEED,
                |_| 0.0,
            )?;
            self.shifted_gpu(ctx, &gpu, &sel, Part::Shifted, &mut result)?;
            self.shifted_gpu(ctx, &gpu, &sel, Part::Small, &mut result)?;
            self.cec_gpu(ctx, &gpu, &sel, &mut result)?;
            self.scale_gpu(ctx, &gpu, &sel, &mut result)?;
        }
        if ctx.cpu() && sel.wants_part(Part::Cpu) {
            self.cpu(ctx, &sel, &mut result)?;
        }
        Ok(result)
    }
}
