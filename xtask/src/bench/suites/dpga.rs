//! Suite `dpga`: the DPGA/MCSM paper's g01 experiments (Umbarkar et al., Tables III–IV) and the CEC 2006 suite.
//!
//! - **(a) Time on g01, the paper's settings** (Table II: m = n = 128, P_c = 0.8, p_m = 0.09 per bit,
//!   elitism 0.1, crossbreeding 0.1; spec dpga.md §1): 10 runs (`--quick`: 3), one after the other, each on
//!   one CPU thread, until f − f* ≤ 1e-4 or 500 000 evaluations (the paper gives no t_max); the median time
//!   per run beside Table IV's 37.36 s (sequential) and 12.14 s (GTX Titan).
//! - **(b) g01 under the CEC 2006 budget**: 25 runs (`--quick`: 5) × 500 000 evaluations (`--quick`:
//!   100 000), stopping a run at f − f* ≤ 1e-4; feasible count, success count, mean/best/worst final
//!   objective beside Table III (sequential mean −10.874; best CUDA mean −11.12 on the GTX 660; optimum −15),
//!   for our defaults (Gray-coded variables, p_m = 1/L), for the defaults with the paper's plain binary
//!   encoding, and for the paper's preset (binary, p_m = 0.09). The full run checks the spec's acceptance
//!   (every run feasible, at least 24 of 25 successes with the defaults) and fails the command when it is
//!   missed.
//! - **(c) CEC 2006 g01–g24**, our defaults, 25 runs × 500 000 evaluations (`--quick`: 5 × 100 000): feasible
//!   rate, success rate (feasible and f − f* ≤ 1e-4; g20 has no feasible best-known point, so no success is
//!   counted there and its errors are to the infeasible best-known value), best/median/worst f − f* over the
//!   feasible runs, mean evaluations.
//!
//! CPU: rayon over the runs, each engine on one thread (run r from seed 2026 + r). GPU ([`gpu`]): the
//! CUDA batched engine `DpgaBatchCuda` (every run of a problem in the same launches, Exact profile), the same
//! seeds and stopping rules (each run's best is taken when its own rule stops it, while the batch goes on for
//! the others); (a) one run per batch, (b) the defaults and the paper's preset, (c) every problem. Each GPU
//! row's final bests must equal the CPU's bit for bit when both sides ran; with `--backend cuda` run 0 of every
//! GPU row is checked against one CPU run (27 runs in parallel before the GPU work). A difference fails the
//! command. The GPU lines give generations and µs per generation; a (b) row whose runs all spend the full
//! budget (the paper's preset: no run reaches −15) carries the target of 25 runs × 500 000 evaluations of g01
//! in under 1 s on an H100. The binary-encoded defaults of (b) have no GPU row.
//!
//! `--dpga-parts` (a comma-separated subset of `a`, `b`, `c`; default all) runs only those experiments on the
//! CPU; the GPU side runs only when all three do.

use std::time::Instant;

use clap::ValueEnum;

use evo_benchmarks::Cec2006Problem;
use evo_core::{ConstrainedProblem, Executor, Termination};
use evo_dpga::{DpgaCpu, DpgaParams, Encoding};
use rayon::prelude::*;

use statrs::statistics::Statistics;

use crate::bench::markdown::fixed;
use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult, median};

mod gpu;

use gpu::gpu_side;

/// Base seed (run r uses SEED + r).
const SEED: u64 = 2026;
/// CEC 2006 runs per problem.
const RUNS: usize = 25;
/// Runs with `--quick`.
const QUICK_RUNS: usize = 5;
/// CEC 2006 evaluation budget.
const EVALS: u64 = 500_000;
/// Budget with `--quick`.
const QUICK_EVALS: u64 = 100_000;
/// Timed runs of experiment (a) (Table IV has 10).
const TIMED_RUNS: usize = 10;
/// Timed runs with `--quick`.
const QUICK_TIMED_RUNS: usize = 3;
/// CEC 2006 success threshold on f − f*.
const SUCCESS: f64 = 1e-4;
/// Table IV: mean time to converge on g01, sequential, seconds.
const PAPER_SEQUENTIAL_S: f64 = 37.36;
/// Table IV: mean time on the GTX Titan, seconds.
const PAPER_TITAN_S: f64 = 12.14;
/// Table III: mean best of the sequential DPGA on g01.
const PAPER_SEQUENTIAL_MEAN: f64 = -10.874;
/// Table III: the best CUDA mean (GTX 660).
const PAPER_BEST_CUDA_MEAN: f64 = -11.12;

/// The outcome of one run.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    feasible: bool,
    objective: f64,
    evaluations: u64,
    seconds: f64,
}

/// The configurations of experiment (b).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Default,
    Paper,
    Binary,
}

/// The CPU's outcomes, for the GPU's bit-for-bit check.
struct CpuOutcomes {
    /// Experiment (a).
    paper_time: Vec<Outcome>,
    /// Experiment (b): the defaults, then the paper's preset.
    g01: [Vec<Outcome>; 2],
    /// Experiment (c): per problem, `None` when a run aborted.
    suite: Vec<Option<Vec<Outcome>>>,
}

/// The `dpga` suite.
pub struct Dpga;

/// An experiment of the suite (module docs), for `--dpga-parts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
    /// (a) time on g01 with the paper's settings (Table IV).
    A,
    /// (b) g01 quality under the CEC 2006 budget (Table III).
    B,
    /// (c) CEC 2006 g01-g24.
    C,
}

impl Part {
    /// The letter naming it.
    fn letter(self) -> &'static str {
        match self {
            Self::A => "a",
            Self::B => "b",
            Self::C => "c",
        }
    }
}

impl Suite for Dpga {
    fn name(&self) -> &'static str {
        "dpga"
    }

    fn description(&self) -> &'static str {
        "DPGA/MCSM: g01 time (paper's Table IV) and quality (Table III), CEC 2006 g01-g24 feasible/success rates and errors"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let (runs, evals, timed_runs) = if ctx.quick() {
            (QUICK_RUNS, QUICK_EVALS, QUICK_TIMED_RUNS)
        } else {
            (RUNS, EVALS, TIMED_RUNS)
        };
        let named = ctx.flags().dpga.parts.clone();
        let part = |part: Part| named.is_empty() || named.contains(&part);
        let cpu = if ctx.cpu() {
            Some(CpuOutcomes {
                paper_time: if part(Part::A) {
                    paper_time(ctx, timed_runs, &mut result)?
                } else {
                    Vec::new()
                },
                g01: if part(Part::B) {
                    g01_quality(ctx, runs, evals, &mut result)?
                } else {
                    [Vec::new(), Vec::new()]
                },
                suite: if part(Part::C) {
                    suite(ctx, runs, evals, &mut result)?
                } else {
                    Vec::new()
                },
            })
        } else {
            None
        };
        if [Part::A, Part::B, Part::C].into_iter().all(part) {
            gpu_side(ctx, runs, evals, timed_runs, cpu.as_ref(), &mut result)?;
        } else {
            let names: Vec<&str> = named.iter().map(|part| part.letter()).collect();
            result.notes.push(format!(
                "--dpga-parts {}: only those CPU experiments ran; GPU side skipped.",
                names.join(",")
            ));
        }
        Ok(result)
    }
}

/// Runs `runs` independent runs of `problem` (seeds SEED + r) with rayon over the runs, one thread each.
fn batch<P: ConstrainedProblem + Clone + Sync>(
    params: &DpgaParams,
    problem: &P,
    runs: usize,
    evals: u64,
    target: Option<f64>,
) -> anyhow::Result<Vec<Outcome>> {
    (0..runs)
        .into_par_iter()
        .map(|r| one_run(params, problem, SEED + r as u64, evals, target))
        .collect()
}

/// One run on one thread until `evals` evaluations or, when `target` is given, a feasible best ≤ target.
fn one_run<P: ConstrainedProblem + Clone>(
    params: &DpgaParams,
    problem: &P,
    seed: u64,
    evals: u64,
    target: Option<f64>,
) -> anyhow::Result<Outcome> {
    let start = Instant::now();
    let engine = DpgaCpu::new(params.clone(), problem.clone(), seed, 1)?;
    let mut termination = Termination::new().with_max_evaluations(evals);
    if let Some(target) = target {
        termination = termination.with_target_fitness(target)?;
    }
    let mut executor = Executor::new(engine).with_termination(termination)?;
    let report = executor.run()?;
    let best = executor.engine().best_evaluation();
    Ok(Outcome {
        feasible: best.feasible,
        objective: best.objective,
        evaluations: report.evaluations,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn g01() -> anyhow::Result<(Cec2006Problem, f64)> {
    let problem = Cec2006Problem::new(1)?;
    let optimum = problem.best_known_value();
    Ok((problem, optimum))
}

/// Experiment (a): the paper's preset on g01, runs one after the other on one thread each.
fn paper_time(
    ctx: &BenchContext,
    timed_runs: usize,
    result: &mut SuiteResult,
) -> anyhow::Result<Vec<Outcome>> {
    let (problem, optimum) = g01()?;
    let params = DpgaParams::paper();
    let bar = ctx.progress(timed_runs as u64, "dpga (a)");
    let mut outcomes = Vec::with_capacity(timed_runs);
    for r in 0..timed_runs {
        outcomes.push(one_run(
            &params,
            &problem,
            SEED + r as u64,
            EVALS,
            Some(optimum + SUCCESS),
        )?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut times: Vec<f64> = outcomes.iter().map(|o| o.seconds).collect();
    times.sort_by(f64::total_cmp);
    let median = median(&times);
    let mean_time = times.iter().mean();
    let rate = 1.0 / median;
    result.rows.push(Row {
        case: "g01, paper's Table II preset, one run on 1 thread".into(),
        backend: Backend::Cpu,
        device: format!("{} (1 thread)", ctx.cpu_device()),
        size: timed_runs as u64,
        median_ms: median * 1e3,
        samples: timed_runs,
        throughput: rate,
        unit: "runs/s".into(),
        reference: Some(Reference::new(
            "paper Table IV, sequential (37.36 s)",
            1.0 / PAPER_SEQUENTIAL_S,
            rate,
        )),
        check: None,
    });
    let objectives: Vec<f64> = outcomes.iter().map(|o| o.objective).collect();
    let feasible = outcomes.iter().filter(|o| o.feasible).count();
    let successes = outcomes
        .iter()
        .filter(|o| o.feasible && o.objective - optimum <= SUCCESS)
        .count();
    let mean_evals = outcomes.iter().map(|o| o.evaluations as f64).mean();
    let note = format!(
        "(a) g01 with the paper's Table II preset (p_m = 0.09 per bit, 20 bits per variable), {timed_runs} runs \
         one after the other on 1 CPU thread, each until f − f* ≤ 1e-4 or {EVALS} evaluations (the paper's \
         t_max is not given):\n\n\
         | | ours, CPU 1 thread | paper, sequential | paper, GTX Titan |\n\
         | --- | --- | --- | --- |\n\
         | time per run, s (median / mean) | {median:.2} / {mean_time:.2} | 37.36 (mean) | 12.14 (mean) |\n\
         | mean final best | {:.4} | −10.874 | −10.97 |\n\
         | feasible, successes | {feasible}/{timed_runs}, {successes}/{timed_runs} | | |\n\
         | mean evaluations | {mean_evals:.0} | | |\n\n\
         Speed-up of our 1-thread CPU run over the paper's sequential one: {:.2}× (over the GTX Titan: {:.2}×); \
         the work differs (our runs stop at the budget or at success, theirs at an unknown t_max).",
        objectives.iter().mean(),
        PAPER_SEQUENTIAL_S / median,
        PAPER_TITAN_S / median,
    );
    eprintln!("{note}\n");
    result.notes.push(note);
    Ok(outcomes)
}

/// Experiment (b): g01 under the CEC budget, our defaults and the paper's preset.
fn g01_quality(
    ctx: &BenchContext,
    runs: usize,
    evals: u64,
    result: &mut SuiteResult,
) -> anyhow::Result<[Vec<Outcome>; 2]> {
    let (problem, optimum) = g01()?;
    let mut kept: [Vec<Outcome>; 2] = [Vec::new(), Vec::new()];
    let mut table = vec![
        "| configuration | runs × evaluations | feasible | f − f* ≤ 1e-4 | mean | sd | best | worst | mean evaluations |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    for (name, params, variant) in [
        (
            "ours: defaults (Gray-coded, p_m = 1/L)",
            DpgaParams::default(),
            Variant::Default,
        ),
        (
            "ours: paper preset (binary, p_m = 0.09)",
            DpgaParams::paper(),
            Variant::Paper,
        ),
        (
            "ours: defaults with the paper's binary encoding",
            DpgaParams::default().with_encoding(Encoding::Binary),
            Variant::Binary,
        ),
    ] {
        let bar = ctx.progress(1, "dpga (b)");
        let start = Instant::now();
        let target = Some(optimum + SUCCESS);
        let outcomes = batch(&params, &problem, runs, evals, target)?;
        let seconds = start.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let feasible = outcomes.iter().filter(|o| o.feasible).count();
        let successes = outcomes
            .iter()
            .filter(|o| o.feasible && o.objective - optimum <= SUCCESS)
            .count();
        let objectives: Vec<f64> = outcomes.iter().map(|o| o.objective).collect();
        let best = objectives.iter().copied().fold(f64::INFINITY, f64::min);
        let worst = objectives.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean_evals = outcomes.iter().map(|o| o.evaluations as f64).mean();
        table.push(format!(
            "| {name} | {runs} × {evals} | {feasible}/{runs} | {successes}/{runs} | {:.4} | {} | {best:.6} | {worst:.6} | {mean_evals:.0} |",
            objectives.iter().mean(),
            fixed(objectives.iter().std_dev(), 4),
        ));
        match variant {
            Variant::Default => kept[0].clone_from(&outcomes),
            Variant::Paper => kept[1].clone_from(&outcomes),
            Variant::Binary => {}
        }
        let rate = runs as f64 / seconds;
        result.rows.push(Row {
            case: format!("g01 quality batch, {name}"),
            backend: Backend::Cpu,
            device: ctx.cpu_device().to_string(),
            size: runs as u64,
            median_ms: seconds * 1e3,
            samples: 1,
            throughput: rate,
            unit: "runs/s".into(),
            reference: None,
            check: Some(format!(
                "feasible {feasible}/{runs}, success {successes}/{runs}"
            )),
        });
        if variant == Variant::Default && !ctx.quick() && (feasible < runs || successes + 1 < runs)
        {
            result.failures.push(format!(
                "g01 acceptance missed with the defaults: feasible {feasible}/{runs}, f − f* ≤ 1e-4 in \
                 {successes}/{runs} (spec: every run feasible, at least {} successes)",
                runs - 1
            ));
        }
    }
    table.push(format!(
        "| paper Table III, sequential (10 runs) | ? | | | {PAPER_SEQUENTIAL_MEAN} | | | | |"
    ));
    table.push(format!(
        "| paper Table III, best CUDA mean (GTX 660, 10 runs) | ? | | | {PAPER_BEST_CUDA_MEAN} | 0.421 | | | |"
    ));
    table.push("| optimum | | | | −15 | | | | |".to_string());
    let note = format!(
        "(b) g01 under the CEC 2006 budget, runs stop at f − f* ≤ 1e-4 (rayon over runs, 1 thread each):\n\n{}",
        table.join("\n")
    );
    eprintln!("{note}\n");
    result.notes.push(note);
    Ok(kept)
}

/// Experiment (c): CEC 2006 g01–g24 with our defaults.
fn suite(
    ctx: &BenchContext,
    runs: usize,
    evals: u64,
    result: &mut SuiteResult,
) -> anyhow::Result<Vec<Option<Vec<Outcome>>>> {
    let params = DpgaParams::default();
    let problems = Cec2006Problem::all();
    let mut kept = Vec::with_capacity(problems.len());
    let bar = ctx.progress(problems.len() as u64, "dpga (c)");
    let start = Instant::now();
    let mut table = vec![
        "| g | feasible | success | best f − f* | median f − f* | worst f − f* | mean evaluations | s/run |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    let (mut total_feasible, mut total_success) = (0, 0);
    for problem in &problems {
        let best_known = problem.best_known_value();
        let target = problem.optimum().map(|f| f + SUCCESS);
        let outcomes = match batch(&params, problem, runs, evals, target) {
            Ok(outcomes) => outcomes,
            Err(error) => {
                // A run the engine aborts (e.g. a non-finite objective) is a result, not the end of the suite.
                let line = format!(
                    "| g{:02} | run aborted: {error:#} | | | | | | |",
                    problem.number()
                );
                eprintln!("dpga (c) {line}");
                result.failures.push(format!(
                    "g{:02}: a run aborted: {error:#}",
                    problem.number()
                ));
                table.push(line);
                kept.push(None);
                bar.inc(1);
                continue;
            }
        };
        let mut errors: Vec<f64> = outcomes
            .iter()
            .filter(|o| o.feasible)
            .map(|o| o.objective - best_known)
            .collect();
        errors.sort_by(f64::total_cmp);
        let feasible = errors.len();
        let successes = if target.is_some() {
            errors.iter().filter(|&&e| e <= SUCCESS).count()
        } else {
            0
        };
        total_feasible += feasible;
        total_success += successes;
        let stats = if errors.is_empty() {
            "— | — | —".to_string()
        } else {
            format!(
                "{:.3e} | {:.3e} | {:.3e}",
                errors[0],
                median(&errors),
                errors[errors.len() - 1]
            )
        };
        let mean_evals = outcomes.iter().map(|o| o.evaluations as f64).mean();
        let per_run = outcomes.iter().map(|o| o.seconds).mean();
        let success = if target.is_some() {
            format!("{successes}/{runs}")
        } else {
            "n/a (x* infeasible)".to_string()
        };
        let line = format!(
            "| g{:02} | {feasible}/{runs} | {success} | {stats} | {mean_evals:.0} | {per_run:.2} |",
            problem.number()
        );
        // Long runs: each row is also logged as soon as it is measured.
        eprintln!("dpga (c) {line}");
        table.push(line);
        kept.push(Some(outcomes));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let all = problems.len() * runs;
    result.rows.push(Row {
        case: format!("CEC 2006 g01–g24, {runs} runs × {evals} evaluations"),
        backend: Backend::Cpu,
        device: ctx.cpu_device().to_string(),
        size: all as u64,
        median_ms: seconds * 1e3,
        samples: 1,
        throughput: all as f64 / seconds,
        unit: "runs/s".into(),
        reference: None,
        check: Some(format!(
            "feasible {total_feasible}/{all}, success {total_success}/{}",
            all - runs
        )),
    });
    result.notes.push(format!(
        "(c) CEC 2006 g01–g24, our defaults (m = n = 128, 20 bits per variable, one-point crossover, p_m = 1/L, \
         MCSM, feasible initialisation), {runs} runs × {evals} evaluations, a run stops at f − f* ≤ 1e-4; \
         errors over the feasible runs; {seconds:.0} s wall on the CPU (rayon over runs):\n\n{}",
        table.join("\n")
    ));
    Ok(kept)
}
