//! Suite `qiga`: the QIGA paper's quality experiment and its speed figures on knapsack-250.
//!
//! - **Quality** (the paper's Fig. 9 and the statistics of Nowotniak's 3 000-run result files, spec qiga.md
//!   §5): the final best profit of 3 000 independent runs (30 with `--quick`) of the QIGA with the original
//!   angles and with the tuned angles of Table 3 (first row), 500 generations × 10 individuals, and of the SGA
//!   baseline (population 100, 50 generations). Mean, sd, min and max beside the published figures; a
//!   histogram of the final bests in bins of 1 profit unit (the paper's peaks sit every 5 units). A mean
//!   further from the published one than its tolerance (2 for the original angles, 3 from 1458 for the tuned
//!   ones, 6 for the SGA, whose undocumented details in the paper are our decisions; widened to 4 standard errors when fewer runs make the mean noisier) fails the
//!   command.
//! - **Speed**: evolutions per second (one evolution = one run of 500 generations × 10 individuals): the CPU
//!   batch on every core, the CUDA batch (all runs in one launch, one block per run, Exact profile), beside the
//!   paper's 7.324 (ANSI C, Core i7) and 882.7 (GTX 295, grid 50×20) evolutions/s. When both backends ran, the
//!   GPU's final bests must equal the CPU's bit for bit (same seeds).
//! - **Beyond the paper** ([`practical`], issue 33): the knapsack options against the exact optimum on
//!   Pisinger's four classes, 100 to 10 000 items.

mod practical;

use std::time::Instant;

use evo_benchmarks::Knapsack;
use evo_benchmarks::data::shared_data_dir;
use evo_core::Engine;
use evo_gpu_runtime::Gpu;
use evo_qiga::{
    QigaCpu, QigaCuda, QigaParams, RotationAngles, RunConfig, SgaCpu, SgaCuda, SgaParams,
};
use statrs::statistics::Statistics;

use crate::bench::markdown::fixed;
use crate::bench::{Backend, BenchContext, Plot, Reference, Row, Series, Suite, SuiteResult};

/// Base seed of every batch (run r uses seed + r).
const SEED: u64 = 2026;
/// Runs per case (the published histograms: 3 000 per algorithm in the result files).
const RUNS: usize = 3000;
/// Runs per case with `--quick`: enough for the mean's check, whose tolerance widens to four standard errors.
const QUICK_RUNS: usize = 30;
/// QIGA generations after the initial one.
const GENERATIONS: u32 = 500;
/// Paper: evolutions/s of the ANSI C implementation on a Core i7 2.93 GHz.
const PAPER_CPU_RATE: f64 = 7.324;
/// Paper: evolutions/s on a GTX 295 (grid 50×20).
const PAPER_GPU_RATE: f64 = 882.7;

/// One quality case and the published figures it is held to.
struct Case {
    name: &'static str,
    published_mean: f64,
    published_sd: f64,
    target: f64,
    tolerance: f64,
}

const ORIGINAL: Case = Case {
    name: "QIGA, original angles",
    published_mean: 1406.24,
    published_sd: 8.52,
    target: 1406.24,
    tolerance: 2.0,
};
const TUNED: Case = Case {
    name: "QIGA, tuned angles (Table 3, row 1)",
    published_mean: 1456.83,
    published_sd: 15.91,
    target: 1458.0,
    tolerance: 3.0,
};
const SGA: Case = Case {
    name: "SGA",
    published_mean: 1377.20,
    published_sd: 10.33,
    target: 1377.20,
    tolerance: 6.0,
};

/// The `qiga` suite.
pub struct Qiga;

impl Suite for Qiga {
    fn name(&self) -> &'static str {
        "qiga"
    }

    fn description(&self) -> &'static str {
        "QIGA paper on knapsack-250: final-best statistics and histogram of 3000 runs (original, tuned, SGA) vs published, evolutions/s CPU and GPU"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        let Some(dir) = shared_data_dir() else {
            result.notes.push(
                "SKIPPED: the benchmark data folder (knapsack-250) is absent; set EVO_DATA_DIR"
                    .into(),
            );
            practical::run(ctx, &mut result)?;
            return Ok(result);
        };
        let problem = Knapsack::from_file(dir.join("knapsack/knapsack-250.txt"))?;
        let runs = if ctx.quick() { QUICK_RUNS } else { RUNS };
        let mut samples: Vec<(String, Vec<f64>)> = Vec::new();
        let mut table = vec![
            "| case | backend | runs | mean | sd | min | max | published mean ± sd | verdict |"
                .to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        for (case, angles) in [
            (&ORIGINAL, RotationAngles::ORIGINAL),
            (&TUNED, RotationAngles::TUNED),
        ] {
            let configs = RunConfig::batch(SEED, &vec![angles; runs]);
            let cpu = if ctx.cpu() {
                let (seconds, bests) = qiga_cpu(ctx, &problem, configs.clone())?;
                result.rows.push(row(
                    ctx,
                    case,
                    Backend::Cpu,
                    runs,
                    seconds,
                    PAPER_CPU_RATE,
                    "paper, ANSI C on Core i7",
                ));
                Some(bests)
            } else {
                None
            };
            let gpu = match ctx.gpu() {
                Some(gpu) => {
                    let gpu = gpu.clone();
                    let (seconds, bests) = qiga_cuda(&gpu, &problem, configs)?;
                    let mut r = row(
                        ctx,
                        case,
                        Backend::Cuda,
                        runs,
                        seconds,
                        PAPER_GPU_RATE,
                        "paper, GTX 295",
                    );
                    if let Some(cpu) = &cpu {
                        let same = cpu
                            .iter()
                            .zip(&bests)
                            .all(|(a, b)| a.to_bits() == b.to_bits());
                        r.check = Some(if same {
                            "final bests bit-identical to the CPU's".into()
                        } else {
                            "DIFFERS from the CPU".into()
                        });
                        if !same {
                            result.failures.push(format!(
                                "{}: GPU final bests differ from the CPU's",
                                case.name
                            ));
                        }
                    }
                    result.rows.push(r);
                    Some(bests)
                }
                None => None,
            };
            for (backend, bests) in [("cpu", cpu), ("cuda", gpu)] {
                if let Some(bests) = bests {
                    judge(case, backend, &bests, &mut table, &mut result);
                    samples.push((format!("{} ({backend})", case.name), bests));
                }
            }
        }
        let sga_cpu_bests = if ctx.cpu() {
            let (seconds, bests) = sga_cpu(ctx, &problem, runs)?;
            result.rows.push(row(
                ctx,
                &SGA,
                Backend::Cpu,
                runs,
                seconds,
                PAPER_CPU_RATE,
                "paper's QIGA, ANSI C",
            ));
            judge(&SGA, "cpu", &bests, &mut table, &mut result);
            samples.push(("SGA (cpu)".into(), bests.clone()));
            Some(bests)
        } else {
            None
        };
        if let Some(gpu) = ctx.gpu() {
            let gpu = gpu.clone();
            let (seconds, bests) = sga_cuda(&gpu, &problem, runs)?;
            let mut r = row(
                ctx,
                &SGA,
                Backend::Cuda,
                runs,
                seconds,
                PAPER_GPU_RATE,
                "paper's QIGA, GTX 295",
            );
            if let Some(cpu) = &sga_cpu_bests {
                let same = cpu
                    .iter()
                    .zip(&bests)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                r.check = Some(if same {
                    "final bests bit-identical to the CPU's".into()
                } else {
                    "DIFFERS from the CPU".into()
                });
                if !same {
                    result
                        .failures
                        .push("SGA: GPU final bests differ from the CPU's".into());
                }
            }
            result.rows.push(r);
            judge(&SGA, "cuda", &bests, &mut table, &mut result);
            samples.push(("SGA (cuda)".into(), bests));
        }
        result.notes.push(format!(
            "Final best profit over {runs} runs on knapsack-250 (optimum in [1533.82, 1533.87]); published: \
             Nowotniak's 3000-run result files (spec qiga.md §5).\n\n{}",
            table.join("\n")
        ));
        result.notes.push(format!(
            "Histogram (text form: bins of 5 profit units, one # per 1 % of the runs; the SVG has bins of 1 unit):\n\n{}",
            text_histogram(&samples)
        ));
        result.notes.push(
            "Speed: evolutions/s = runs / wall time of the whole batch (CPU: rayon over runs on every core; CUDA: \
             one launch of 500 generations, one block of 256 threads per run, Exact profile, device synchronized). \
             The paper gives no SGA speed; its rows compare with the paper's QIGA rates."
                .into(),
        );
        result.plots.push(histogram_plot(&samples));
        practical::run(ctx, &mut result)?;
        Ok(result)
    }
}

fn row(
    ctx: &BenchContext,
    case: &Case,
    backend: Backend,
    runs: usize,
    seconds: f64,
    paper: f64,
    source: &str,
) -> Row {
    let rate = runs as f64 / seconds;
    Row {
        case: case.name.to_string(),
        backend,
        device: match backend {
            Backend::Cpu => ctx.cpu_device().to_string(),
            Backend::Cuda => ctx.gpu_device(),
        },
        size: runs as u64,
        median_ms: seconds * 1e3,
        samples: 1,
        throughput: rate,
        unit: "evolutions/s".into(),
        reference: Some(Reference::new(source, paper, rate)),
        check: None,
    }
}

fn qiga_cpu(
    ctx: &BenchContext,
    problem: &Knapsack,
    configs: Vec<RunConfig>,
) -> anyhow::Result<(f64, Vec<f64>)> {
    let bar = ctx.progress(u64::from(GENERATIONS), "qiga cpu");
    let start = Instant::now();
    let mut engine = QigaCpu::batch(&QigaParams::default(), problem, configs, 0)?;
    for _ in 0..GENERATIONS {
        engine.step()?;
        bar.inc(1);
    }
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok((seconds, engine.state().best_profits()))
}

fn qiga_cuda(
    gpu: &Gpu,
    problem: &Knapsack,
    configs: Vec<RunConfig>,
) -> anyhow::Result<(f64, Vec<f64>)> {
    // Compile (or load) the module outside the timed region with a one-run batch.
    QigaCuda::batch(&QigaParams::default(), problem, configs[..1].to_vec(), gpu)?;
    gpu.synchronize()?;
    let start = Instant::now();
    let mut engine = QigaCuda::batch(&QigaParams::default(), problem, configs, gpu)?;
    engine.run_generations(GENERATIONS)?;
    let bests = engine.best_profits()?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((seconds, bests))
}

fn sga_cuda(gpu: &Gpu, problem: &Knapsack, runs: usize) -> anyhow::Result<(f64, Vec<f64>)> {
    let params = SgaParams::default();
    SgaCuda::batch(&params, problem, SEED, 1, gpu)?;
    gpu.synchronize()?;
    let start = Instant::now();
    let mut engine = SgaCuda::batch(&params, problem, SEED, runs, gpu)?;
    engine.run_generations(u32::try_from(params.generations())?)?;
    let bests = engine.best_profits()?;
    Ok((start.elapsed().as_secs_f64(), bests))
}

fn sga_cpu(ctx: &BenchContext, problem: &Knapsack, runs: usize) -> anyhow::Result<(f64, Vec<f64>)> {
    let params = SgaParams::default();
    let bar = ctx.progress(params.generations(), "sga cpu");
    let start = Instant::now();
    let mut engine = SgaCpu::batch(&params, problem, SEED, runs, 0)?;
    for _ in 0..params.generations() {
        engine.step()?;
        bar.inc(1);
    }
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok((seconds, engine.state().best_profits()))
}

/// Mean, sample sd (NaN for fewer than two values), min, max.
fn statistics(values: &[f64]) -> (f64, f64, f64, f64) {
    (
        values.mean(),
        values.std_dev(),
        Statistics::min(values),
        Statistics::max(values),
    )
}

/// Adds the case's line to the table and a failure when its mean is outside the tolerance (widened to four
/// standard errors of the mean for small samples).
fn judge(
    case: &Case,
    backend: &str,
    bests: &[f64],
    table: &mut Vec<String>,
    result: &mut SuiteResult,
) {
    let (mean, sd, min, max) = statistics(bests);
    let allowed = case.tolerance.max(4.0 * sd / (bests.len() as f64).sqrt());
    let ok = (mean - case.target).abs() <= allowed;
    table.push(format!(
        "| {} | {backend} | {} | {mean:.2} | {} | {min:.2} | {max:.2} | {:.2} ± {:.2} | {} (|mean − {:.2}| ≤ {allowed:.2}) |",
        case.name,
        bests.len(),
        fixed(sd, 2),
        case.published_mean,
        case.published_sd,
        if ok { "PASS" } else { "FAIL" },
        case.target,
    ));
    if !ok {
        result.failures.push(format!(
            "{} ({backend}): mean {mean:.2} is more than {allowed:.2} from {:.2}",
            case.name, case.target
        ));
    }
}

/// Bins of one profit unit from the smallest to the largest value seen.
fn bins(samples: &[(String, Vec<f64>)]) -> (i64, i64) {
    let all = samples.iter().flat_map(|(_, v)| v.iter().copied());
    let low = all.clone().fold(f64::INFINITY, f64::min).floor() as i64;
    let high = all.fold(f64::NEG_INFINITY, f64::max).floor() as i64;
    (low, high)
}

fn counts(values: &[f64], low: i64, high: i64) -> Vec<u64> {
    let mut counts = vec![0u64; (high - low + 1).max(1) as usize];
    for v in values {
        counts[(v.floor() as i64 - low) as usize] += 1;
    }
    counts
}

fn histogram_plot(samples: &[(String, Vec<f64>)]) -> Plot {
    let (low, high) = bins(samples);
    Plot {
        title: "Final best profit on knapsack-250 (count per 1-unit bin), like the paper's Fig. 9"
            .into(),
        x_label: "best profit".into(),
        y_label: "runs".into(),
        log_x: false,
        categories: None,
        series: samples
            .iter()
            .map(|(name, values)| Series {
                name: name.clone(),
                points: counts(values, low, high)
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| ((low + i as i64) as f64 + 0.5, c as f64))
                    .collect(),
            })
            .collect(),
    }
}

/// A coarse text histogram (bins of 5 units, one `#` per 1 % of the runs), one column per sample.
fn text_histogram(samples: &[(String, Vec<f64>)]) -> String {
    if samples.is_empty() {
        return String::new();
    }
    let (low, high) = bins(samples);
    let low = low - low.rem_euclid(5);
    let mut lines = vec!["```text".to_string()];
    for (name, values) in samples {
        lines.push(format!("{name}:"));
        let mut bin = low;
        while bin <= high {
            let count = values
                .iter()
                .filter(|v| (bin as f64..(bin + 5) as f64).contains(*v))
                .count();
            let bar = "#".repeat((100 * count).div_ceil(values.len().max(1)).min(100));
            if count > 0 {
                lines.push(format!("  {bin:>5}–{:<5} {count:>5} {bar}", bin + 5));
            }
            bin += 5;
        }
    }
    lines.push("```".into());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_known_samples() {
        let (mean, sd, min, max) =
            statistics(&[1406.0, 1401.0, 1411.0, 1396.0, 1416.0, 1406.0, 1391.0]);
        assert_eq!(
            [mean, sd, min, max].map(|v| format!("{v:.6}")),
            ["1403.857143", "8.591247", "1391.000000", "1416.000000"]
        );
        // One run has no sample sd: its cell shows `-`, and the tolerance stays the case's own.
        let (mean, sd, ..) = statistics(&[1406.0]);
        assert_eq!((mean, fixed(sd, 2)), (1406.0, "-".to_string()));
    }
}
