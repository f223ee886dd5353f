//! Suite `ga`: the GA paper (Oiso et al.) Table 4 per generation, beside our engines.
//!
//! For n = 32 and 128 and the eight functions (`--quick`: Hypersphere and Griewank, the pair §4.4 quotes):
//! time per generation of the CPU engine on 1 thread (the paper's CPU baseline) and on all cores (rayon), of
//! the paper-faithful CUDA engine (one kernel per step; it reads the best fitness back every generation) and
//! of the batched CUDA engine with K = 1 (fused reproduction kernel, no read-back), with N = 256 and the
//! paper's Table 2 settings. The paper's figures are Table 4's run times divided by Table 2's generation
//! counts (5 000 at n = 32, 10 000 at n = 128; spec ga.md §6). After timing, the CUDA engines' snapshots are
//! compared with the 1-thread CPU engine's after the same number of generations (they must be identical).
//! Then the batched engine with K = 1000 runs in one launch per step, in run-generations per second.

use evo_benchmarks::ga_functions::GaFunction;
use evo_core::Engine;
use evo_ga::{GaBatchCuda, GaCpu, GaCuda, GaParams, PaperFunction};

use crate::bench::{Backend, BenchContext, Reference, Row, Suite, SuiteResult};

/// Table 4: (function, n, CPU s, GPU s) per run, mean of 10 trials.
const TABLE_4: [(GaFunction, usize, f64, f64); 16] = [
    (GaFunction::Hypersphere, 32, 8.492, 1.111),
    (GaFunction::Ridge, 32, 9.073, 1.156),
    (GaFunction::Rosenbrock, 32, 8.676, 1.099),
    (GaFunction::Step, 32, 8.863, 1.095),
    (GaFunction::Griewank, 32, 10.320, 1.134),
    (GaFunction::Schwefel, 32, 10.392, 1.116),
    (GaFunction::Rastrigin, 32, 9.928, 1.096),
    (GaFunction::Ackley, 32, 9.897, 1.123),
    (GaFunction::Hypersphere, 128, 66.154, 4.287),
    (GaFunction::Ridge, 128, 86.790, 4.953),
    (GaFunction::Rosenbrock, 128, 67.581, 4.275),
    (GaFunction::Step, 128, 69.437, 4.252),
    (GaFunction::Griewank, 128, 80.737, 4.380),
    (GaFunction::Schwefel, 128, 80.033, 4.343),
    (GaFunction::Rastrigin, 128, 77.639, 4.274),
    (GaFunction::Ackley, 128, 77.230, 4.304),
];

/// Table 2's generation count at `n`.
fn paper_generations(n: usize) -> f64 {
    if n == 32 { 5_000.0 } else { 10_000.0 }
}

const SEED: u64 = 2010;

/// The `ga` suite.
pub struct Ga;

struct Measured {
    per_generation_us: f64,
    samples: usize,
}

fn time_engine(
    ctx: &BenchContext,
    generations: u64,
    mut step: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<Measured> {
    let (timing, ()) = ctx.time_cpu(|| {
        for _ in 0..generations {
            step()?;
        }
        Ok(())
    })?;
    Ok(Measured {
        per_generation_us: timing.median_ms() * 1e3 / generations as f64,
        samples: timing.count(),
    })
}

#[allow(clippy::too_many_arguments)]
fn row(
    case: String,
    backend: Backend,
    device: String,
    n: usize,
    measured: &Measured,
    reference: Option<(&str, f64)>,
    check: Option<String>,
) -> Row {
    let throughput = 1e6 / measured.per_generation_us;
    Row {
        case,
        backend,
        device,
        size: n as u64,
        median_ms: measured.per_generation_us / 1e3,
        samples: measured.samples,
        throughput,
        unit: "generations/s".to_string(),
        reference: reference.map(|(source, value)| Reference::new(source, value, throughput)),
        check,
    }
}

impl Suite for Ga {
    fn name(&self) -> &'static str {
        "ga"
    }

    fn description(&self) -> &'static str {
        "GA paper Table 4 per generation: CPU 1 thread, rayon, paper-faithful CUDA, batched CUDA; K = 1000 runs per launch"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let generations: u64 = if ctx.quick() { 10 } else { 100 };
        let cases: Vec<_> = TABLE_4
            .iter()
            .filter(|(f, ..)| {
                !ctx.quick() || matches!(f, GaFunction::Hypersphere | GaFunction::Griewank)
            })
            .copied()
            .collect();
        let mut result = SuiteResult::default();
        let mut table = vec![
            "| function | n | paper CPU µs | paper GPU µs | paper speed-up | CPU 1 thread µs | CPU rayon µs | CUDA paper-faithful µs | CUDA batched K=1 µs | speed-up 1 thread / paper-faithful | speed-up 1 thread / batched |".to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        let bar = ctx.progress(cases.len() as u64, "ga");
        for (function, n, cpu_s, gpu_s) in cases {
            bar.set_message(format!("{} n={n}", function.name()));
            let problem = PaperFunction::new(function, n)?;
            let params = GaParams::new();
            let paper_cpu_us = cpu_s / paper_generations(n) * 1e6;
            let paper_gpu_us = gpu_s / paper_generations(n) * 1e6;
            let case =
                |engine: &str| format!("{engine} {} n={n} N=256 per generation", function.name());

            let mut one = GaCpu::with_threads(params.clone(), problem.clone(), SEED, 1)?;
            let one_t = time_engine(ctx, generations, || Ok(one.step()?))?;
            result.rows.push(row(
                case("CPU 1 thread"),
                Backend::Cpu,
                ctx.cpu_device().to_string(),
                n,
                &one_t,
                Some(("paper CPU (Core2Duo E8500, 1 thread)", 1e6 / paper_cpu_us)),
                None,
            ));
            let mut all = GaCpu::with_threads(params.clone(), problem.clone(), SEED, 0)?;
            let all_t = time_engine(ctx, generations, || Ok(all.step()?))?;
            result.rows.push(row(
                case("CPU rayon"),
                Backend::Cpu,
                ctx.cpu_device().to_string(),
                n,
                &all_t,
                Some(("paper CPU (Core2Duo E8500, 1 thread)", 1e6 / paper_cpu_us)),
                None,
            ));
            let mut cells = [f64::NAN; 2];
            if let Some(gpu) = ctx.gpu() {
                let expected = one.snapshot()?;
                let mut cuda = GaCuda::new(params.clone(), &problem, SEED, gpu)?;
                let cuda_t = time_engine(ctx, generations, || Ok(cuda.step()?))?;
                let same = cuda.snapshot()?.bit_identical(&expected);
                let mut batch = GaBatchCuda::new(params.clone(), &problem, SEED, 1, gpu)?;
                let batch_t = time_engine(ctx, generations, || {
                    batch.step()?;
                    if batch.generation() % generations == 0 {
                        batch.synchronize()?;
                    }
                    Ok(())
                })?;
                let batch_same = batch.snapshot(0)?.bit_identical(&expected);
                for (ok, engine) in [(same, "paper-faithful"), (batch_same, "batched")] {
                    if !ok {
                        result.failures.push(format!(
                            "{engine} CUDA snapshot differs from the CPU's after {} generations ({} n={n})",
                            expected.generation,
                            function.name()
                        ));
                    }
                }
                let check = |ok: bool| {
                    Some(
                        if ok {
                            "snapshot = CPU"
                        } else {
                            "SNAPSHOT DIFFERS"
                        }
                        .to_string(),
                    )
                };
                result.rows.push(row(
                    case("CUDA paper-faithful"),
                    Backend::Cuda,
                    ctx.gpu_device(),
                    n,
                    &cuda_t,
                    Some(("paper GPU (GTX 280)", 1e6 / paper_gpu_us)),
                    check(same),
                ));
                result.rows.push(row(
                    case("CUDA batched K=1"),
                    Backend::Cuda,
                    ctx.gpu_device(),
                    n,
                    &batch_t,
                    Some(("paper GPU (GTX 280)", 1e6 / paper_gpu_us)),
                    check(batch_same),
                ));
                cells = [cuda_t.per_generation_us, batch_t.per_generation_us];
            }
            table.push(format!(
                "| {} | {n} | {paper_cpu_us:.0} | {paper_gpu_us:.1} | {:.2} | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |",
                function.name(),
                cpu_s / gpu_s,
                one_t.per_generation_us,
                all_t.per_generation_us,
                cells[0],
                cells[1],
                one_t.per_generation_us / cells[0],
                one_t.per_generation_us / cells[1],
            ));
            bar.inc(1);
        }
        bar.finish_and_clear();
        result.notes.push(format!(
            "Time per generation (N = 256, Table 2 settings; {generations} generations per sample, median of the samples). \
             Paper: Table 4 seconds per run / Table 2 generations (Core2Duo E8500 one thread; GTX 280). The paper's \
             speed-up compares its own CPU and GPU; ours compares our 1-thread CPU engine with our CUDA engines. \
             Without a GPU the CUDA cells are NaN.\n\n{}",
            table.join("\n")
        ));

        if let Some(gpu) = ctx.gpu() {
            let mut lines = vec![
                "| function | n | K runs | µs per generation of all K | run-generations/s | vs K = 1 |".to_string(),
                "| --- | --- | --- | --- | --- | --- |".to_string(),
            ];
            for n in [32, 128] {
                let problem = PaperFunction::new(GaFunction::Hypersphere, n)?;
                let mut single_rate = f64::NAN;
                for runs in [1usize, 1000] {
                    let mut batch = GaBatchCuda::new(GaParams::new(), &problem, SEED, runs, gpu)?;
                    let t = time_engine(ctx, generations, || {
                        batch.step()?;
                        if batch.generation() % generations == 0 {
                            batch.synchronize()?;
                        }
                        Ok(())
                    })?;
                    let rate = runs as f64 * 1e6 / t.per_generation_us;
                    if runs == 1 {
                        single_rate = rate;
                    }
                    lines.push(format!(
                        "| hypersphere | {n} | {runs} | {:.1} | {rate:.0} | {:.0}x |",
                        t.per_generation_us,
                        rate / single_rate
                    ));
                    result.rows.push(Row {
                        case: format!(
                            "CUDA batched K={runs} hypersphere n={n} N=256 per generation"
                        ),
                        backend: Backend::Cuda,
                        device: ctx.gpu_device(),
                        size: runs as u64,
                        median_ms: t.per_generation_us / 1e3,
                        samples: t.samples,
                        throughput: rate,
                        unit: "run-generations/s".to_string(),
                        reference: None,
                        check: None,
                    });
                }
            }
            result.notes.push(format!(
                "Batched runs: K independent runs (seeds {SEED}, {SEED} + 1, …) advanced by the same launches \
                 (fused reproduction, evaluation, segmented sort, exchange, best; groups of 255 runs per evaluator \
                 launch).\n\n{}",
                lines.join("\n")
            ));
        }
        Ok(result)
    }
}
