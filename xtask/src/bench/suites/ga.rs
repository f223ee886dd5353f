//! Suite `ga`: the GA paper (Oiso et al.) Table 4 beside our engines.
//!
//! For n = 32 and 128 and the eight functions (all 16 rows of Table 4, also under `--quick`, which takes fewer
//! generations per sample): time per generation of the CPU engine on 1 thread (the paper's CPU baseline) and
//! on all cores (rayon), of the paper-faithful CUDA engine (one kernel per step, the generation's kernels
//! replayed as one recorded CUDA graph, the best fitness read back once per sample; and, for comparison,
//! launched kernel by kernel with a read-back every generation), of the batched CUDA engine with K = 1 (fused reproduction kernel, no read-back) and of
//! the fused CUDA engine (every step of G generations in one launch, population in shared memory; block per
//! run, and clustered: 8 blocks per run; each without and with precomputed draws, the champions, crossover
//! points and mutation masks computed ahead by a launch over the whole GPU), with
//! N = 256 and the paper's Table 2 settings. CUDA engines are timed with CUDA events after warm-up (median
//! of the samples); the CPU with the wall clock. Table 4 is printed side by side in seconds per run: our time
//! per generation × Table 2's generation counts (5 000 at n = 32, 10 000 at n = 128; spec ga.md §6). After
//! timing, every CUDA engine's snapshot is compared with the 1-thread CPU engine's after the same number of
//! generations (they must be identical). Then K = 1000 runs: the batched engine (one launch sequence per
//! generation) and the fused batch (one launch for G generations of all runs), in run-generations per second.
//!
//! `--ga-fused-only` narrows the suite to the single-run target: Hypersphere only (n = 32 and 128), the CPU
//! 1-thread engine (the reference snapshot) and the four fused forms, then the two clustered forms with one run
//! at 20 (quick) or 100 generations per launch; under a minute with `--quick`.

use evo_benchmarks::ga_functions::GaFunction;
use evo_core::Engine;
use evo_ga::{GaBatchCuda, GaCpu, GaCuda, GaFusedBatchCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;

use crate::bench::markdown::fixed;
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

/// Times `generations` steps of GPU work per sample with CUDA events.
fn time_gpu_engine(
    ctx: &BenchContext,
    gpu: &Gpu,
    generations: u64,
    work: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<Measured> {
    let (timing, ()) = ctx.time_gpu(gpu, work)?;
    Ok(Measured {
        per_generation_us: timing.median_ms() * 1e3 / generations as f64,
        samples: timing.count(),
    })
}

/// The Table 2 parameters with 1024 threads per block for the fused engine (one block per run, so more warps
/// hide more latency; the engine halves the block while the kernel's registers do not allow it, and results do
/// not depend on it).
fn fused_params() -> anyhow::Result<GaParams> {
    Ok(GaParams::new().with_block_size(1024)?)
}

/// Generations per launch pair of the fused engine's precomputed draws (one run: 8.6 MiB at n = 128).
const DRAW_GENERATIONS: u32 = 64;

/// The four single-run forms of the fused engine: (name, clustered, precomputed draws).
const FUSED_VARIANTS: [(&str, bool, bool); 4] = [
    ("CUDA fused", false, false),
    ("CUDA fused + draws", false, true),
    ("CUDA fused clustered (8 blocks)", true, false),
    ("CUDA fused clustered (8 blocks) + draws", true, true),
];

/// One fused engine: `runs` runs, block per run or clustered, with or without precomputed draws.
fn fused_engine(
    problem: &PaperFunction,
    runs: usize,
    clustered: bool,
    draws: bool,
    gpu: &Gpu,
) -> anyhow::Result<GaFusedBatchCuda> {
    let mut engine = if clustered {
        GaFusedBatchCuda::new_clustered(fused_params()?, problem, SEED, runs, gpu)?
    } else {
        GaFusedBatchCuda::new(fused_params()?, problem, SEED, runs, gpu)?
    };
    if draws {
        engine.set_precomputed_draws(DRAW_GENERATIONS)?;
    }
    Ok(engine)
}

/// Fused-path targets on an H100 (issue 6): one run at n = 128, and K = 1000 runs at n = 128.
const FUSED_TARGET_US_PER_GENERATION: f64 = 10.0;
const FUSED_TARGET_RUN_GENERATIONS_PER_S: f64 = 100_000.0;

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
        "GA paper Table 4 side by side: CPU 1 thread, rayon, paper-faithful CUDA, batched CUDA, fused CUDA; K = 1000 runs"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let generations: u64 = if ctx.quick() { 5 } else { 50 };
        let fused_only = ctx.flags().ga.fused_only;
        let mut result = SuiteResult::default();
        let mut table = vec![
            "| function | n | paper CPU s | paper GPU s | paper speed-up | CPU 1 thread s | CPU rayon s | CUDA paper-faithful launch by launch s | CUDA paper-faithful s (graph) | paper GPU / paper-faithful | CUDA batched K=1 s | CUDA fused s (fastest form) | fused µs/gen | fused + draws µs/gen | fused clustered µs/gen | fused clustered + draws µs/gen | speed-up 1 thread / paper-faithful | speed-up 1 thread / fused |".to_string(),
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
        ];
        let bar = ctx.progress(TABLE_4.len() as u64, "ga");
        // Hypersphere n = 128, one run: µs per generation of each fused form (FUSED_VARIANTS' order).
        let mut fused_single_us = [f64::NAN; 4];
        // One run at n = 128 with `batch_generations` generations per launch (the batched-runs table), the
        // four fused forms in FUSED_VARIANTS order.
        let mut fused_long_launch_us = [f64::NAN; 4];
        for (function, n, cpu_s, gpu_s) in TABLE_4 {
            if fused_only && function != GaFunction::Hypersphere {
                bar.inc(1);
                continue;
            }
            bar.set_message(format!("{} n={n}", function.name()));
            let problem = PaperFunction::new(function, n)?;
            let params = GaParams::new();
            let paper_gens = paper_generations(n);
            let paper_cpu_us = cpu_s / paper_gens * 1e6;
            let paper_gpu_us = gpu_s / paper_gens * 1e6;
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
            let mut all_us = f64::NAN;
            if !fused_only {
                let mut all = GaCpu::with_threads(params.clone(), problem.clone(), SEED, 0)?;
                let all_t = time_engine(ctx, generations, || Ok(all.step()?))?;
                all_us = all_t.per_generation_us;
                result.rows.push(row(
                    case("CPU rayon"),
                    Backend::Cpu,
                    ctx.cpu_device().to_string(),
                    n,
                    &all_t,
                    Some(("paper CPU (Core2Duo E8500, 1 thread)", 1e6 / paper_cpu_us)),
                    None,
                ));
            }
            // Paper-faithful, batched K = 1, then the fused forms (FUSED_VARIANTS' order).
            let mut cells = [f64::NAN; 6];
            let mut launch_by_launch_us = f64::NAN;
            if let Some(gpu) = ctx.gpu() {
                // Every engine below runs warm-up + samples times `generations` generations, as `one` did.
                let expected = one.snapshot()?;
                // Cells 0 and 1 (paper-faithful, batched) stay NaN when narrowed to the fused forms.
                let first_cell = if fused_only { 2 } else { 0 };
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
                let mut timed = Vec::new();
                if !fused_only {
                    let mut cuda = GaCuda::new(params.clone(), &problem, SEED, gpu)?;
                    let cuda_t = time_gpu_engine(ctx, gpu, generations, || {
                        Ok(cuda.advance(generations as u32)?)
                    })?;
                    let same = cuda.snapshot()?.bit_identical(&expected);
                    let mut by_launch = GaCuda::new(params.clone(), &problem, SEED, gpu)?;
                    by_launch.set_graph_replay(false);
                    let by_launch_t = time_gpu_engine(ctx, gpu, generations, || {
                        for _ in 0..generations {
                            by_launch.step()?;
                        }
                        Ok(())
                    })?;
                    let by_launch_same = by_launch.snapshot()?.bit_identical(&expected);
                    launch_by_launch_us = by_launch_t.per_generation_us;
                    result.rows.push(row(
                        case("CUDA paper-faithful launch by launch"),
                        Backend::Cuda,
                        ctx.gpu_device(),
                        n,
                        &by_launch_t,
                        Some(("paper GPU (GTX 280)", 1e6 / paper_gpu_us)),
                        check(by_launch_same),
                    ));
                    if !by_launch_same {
                        result.failures.push(format!(
                            "CUDA paper-faithful launch by launch snapshot differs from the CPU's after {} \
                             generations ({} n={n})",
                            expected.generation,
                            function.name()
                        ));
                    }
                    let mut batch = GaBatchCuda::new(params.clone(), &problem, SEED, 1, gpu)?;
                    let batch_t = time_gpu_engine(ctx, gpu, generations, || {
                        for _ in 0..generations {
                            batch.step()?;
                        }
                        Ok(())
                    })?;
                    let batch_same = batch.snapshot(0)?.bit_identical(&expected);
                    timed.push(("CUDA paper-faithful", cuda_t, same));
                    timed.push(("CUDA batched K=1", batch_t, batch_same));
                }
                for (engine, clustered, draws) in FUSED_VARIANTS {
                    let mut fused = fused_engine(&problem, 1, clustered, draws, gpu)?;
                    let fused_t = time_gpu_engine(ctx, gpu, generations, || {
                        Ok(fused.advance(generations as u32)?)
                    })?;
                    fused.check_finite()?;
                    let fused_same = fused.snapshot(0)?.bit_identical(&expected);
                    timed.push((engine, fused_t, fused_same));
                }
                for &(engine, _, ok) in &timed {
                    if !ok {
                        result.failures.push(format!(
                            "{engine} snapshot differs from the CPU's after {} generations ({} n={n})",
                            expected.generation,
                            function.name()
                        ));
                    }
                }
                for (k, (engine, measured, ok)) in timed.iter().enumerate() {
                    cells[first_cell + k] = measured.per_generation_us;
                    result.rows.push(row(
                        case(engine),
                        Backend::Cuda,
                        ctx.gpu_device(),
                        n,
                        measured,
                        Some(("paper GPU (GTX 280)", 1e6 / paper_gpu_us)),
                        check(*ok),
                    ));
                }
                if n == 128 && function == GaFunction::Hypersphere {
                    fused_single_us.copy_from_slice(&cells[2..]);
                }
            }
            // The fastest fused form (NaN without a GPU).
            let fastest = cells[2..].iter().copied().fold(f64::NAN, f64::min);
            let seconds = |us: f64| us * paper_gens / 1e6;
            table.push(format!(
                "| {} | {n} | {cpu_s:.3} | {gpu_s:.3} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                function.name(),
                cpu_s / gpu_s,
                fixed(seconds(one_t.per_generation_us), 3),
                fixed(seconds(all_us), 3),
                fixed(seconds(launch_by_launch_us), 3),
                fixed(seconds(cells[0]), 3),
                fixed(gpu_s / seconds(cells[0]), 1),
                fixed(seconds(cells[1]), 3),
                fixed(seconds(fastest), 3),
                fixed(cells[2], 1),
                fixed(cells[3], 1),
                fixed(cells[4], 1),
                fixed(cells[5], 1),
                fixed(one_t.per_generation_us / cells[0], 1),
                fixed(one_t.per_generation_us / fastest, 1),
            ));
            bar.inc(1);
        }
        bar.finish_and_clear();
        result.notes.push(format!(
            "Table 4 side by side, seconds per run = time per generation × Table 2's generations (5 000 at n = 32, \
             10 000 at n = 128); N = 256, Table 2 settings; {generations} generations per sample, median of the \
             samples (CUDA: CUDA events after warm-up). Paper: Core2Duo E8500 one thread; GTX 280. The paper's \
             speed-up compares its own CPU and GPU; ours compare our 1-thread CPU engine with our CUDA engines. \
             The paper-faithful engine runs its kernels one per step: \"launch by launch\" launches each and reads \
             the best fitness back every generation; \"graph\" replays the generation's kernels as one recorded \
             CUDA graph and reads back once per sample of {generations} generations (the target: paper GPU / \
             paper-faithful ≥ 10). \
             The fused engine runs all {generations} generations of a sample in one launch (one block, or a \
             cluster of 8); with precomputed draws one draws launch over the whole GPU precedes it (buffers of \
             {DRAW_GENERATIONS} generations). \"CUDA fused s\" is the fastest of the four fused forms. A cell \
             without a value (the CUDA columns without a GPU) shows `-`.\n\n{}",
            table.join("\n")
        ));

        if let Some(gpu) = ctx.gpu() {
            let mut lines = vec![
                "| engine | function | n | K runs | generations per launch | µs per generation of all K | run-generations/s | vs K = 1 |".to_string(),
                "| --- | --- | --- | --- | --- | --- | --- | --- |".to_string(),
            ];
            let batch_generations: u64 = if ctx.quick() { 20 } else { 100 };
            let mut fused_batch_rate = f64::NAN;
            for n in [32, 128] {
                let problem = PaperFunction::new(GaFunction::Hypersphere, n)?;
                let paths: &[&str] = if fused_only {
                    &["CUDA fused clustered", "CUDA fused clustered + draws"]
                } else {
                    &[
                        "CUDA batched",
                        "CUDA fused",
                        "CUDA fused clustered",
                        "CUDA fused + draws",
                        "CUDA fused clustered + draws",
                    ]
                };
                for &path in paths {
                    let mut single_rate = f64::NAN;
                    let draws = path.ends_with("+ draws");
                    // Draw buffers grow with K (K = 1000 at n = 128: 134 MiB per generation), and many runs
                    // already fill the GPU: the forms with draws run one run only.
                    let runs_list: &[usize] = if draws || fused_only {
                        &[1]
                    } else {
                        &[1, 1000]
                    };
                    for &runs in runs_list {
                        let t = if path != "CUDA batched" {
                            let clustered = path.contains("clustered");
                            let mut batch = fused_engine(&problem, runs, clustered, draws, gpu)?;
                            let t = time_gpu_engine(ctx, gpu, batch_generations, || {
                                Ok(batch.advance(batch_generations as u32)?)
                            })?;
                            batch.check_finite()?;
                            t
                        } else {
                            let mut batch =
                                GaBatchCuda::new(GaParams::new(), &problem, SEED, runs, gpu)?;
                            time_gpu_engine(ctx, gpu, batch_generations, || {
                                for _ in 0..batch_generations {
                                    batch.step()?;
                                }
                                Ok(())
                            })?
                        };
                        let rate = runs as f64 * 1e6 / t.per_generation_us;
                        if runs == 1 {
                            single_rate = rate;
                            if n == 128 {
                                let form = usize::from(path.contains("clustered")) * 2
                                    + usize::from(draws);
                                if path != "CUDA batched" {
                                    fused_long_launch_us[form] = t.per_generation_us;
                                }
                            }
                        }
                        if path == "CUDA fused" && runs == 1000 && n == 128 {
                            fused_batch_rate = rate;
                        }
                        let (engine, per_launch) = if path == "CUDA batched" {
                            (path, "1".to_string())
                        } else {
                            (path, batch_generations.to_string())
                        };
                        lines.push(format!(
                            "| {engine} | hypersphere | {n} | {runs} | {per_launch} | {:.1} | {rate:.0} | {:.0}x |",
                            t.per_generation_us,
                            rate / single_rate
                        ));
                        result.rows.push(Row {
                            case: format!(
                                "{engine} K={runs} hypersphere n={n} N=256 per generation"
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
            }
            result.notes.push(format!(
                "Batched runs: K independent runs (seeds {SEED}, {SEED} + 1, …). CUDA batched: one launch sequence \
                 per generation (fused reproduction, evaluation, segmented sort, exchange, best; groups of 255 runs \
                 per evaluator launch). CUDA fused: one launch of {batch_generations} generations, block per run (up to \
                 1024 threads); clustered: a cluster of 8 blocks per run; + draws: the champions, crossover points and \
                 mutation masks of up to {DRAW_GENERATIONS} generations precomputed by one launch over the whole GPU \
                 before each fused launch.\n\n{}",
                lines.join("\n")
            ));
            let fastest_single = fused_single_us
                .iter()
                .chain(fused_long_launch_us.iter())
                .copied()
                .fold(f64::NAN, f64::min);
            result.notes.push(format!(
                "Fused-path targets (H100): one run, hypersphere n = 128, µs per generation with {generations} \
                 generations per launch (Table 4): block per run {}, + draws {}; cluster of 8 blocks {}, \
                 + draws {}; with {batch_generations} per launch (batched-runs table): block per run {}, \
                 + draws {}; cluster of 8 blocks {}, + draws {} (target ≤ \
                 {FUSED_TARGET_US_PER_GENERATION} µs, fastest form: {}); K = 1000 runs at n = 128: \
                 {} run-generations/s (target ≥ {FUSED_TARGET_RUN_GENERATIONS_PER_S}: {}).",
                fixed(fused_single_us[0], 1),
                fixed(fused_single_us[1], 1),
                fixed(fused_single_us[2], 1),
                fixed(fused_single_us[3], 1),
                fixed(fused_long_launch_us[0], 1),
                fixed(fused_long_launch_us[1], 1),
                fixed(fused_long_launch_us[2], 1),
                fixed(fused_long_launch_us[3], 1),
                if fastest_single <= FUSED_TARGET_US_PER_GENERATION {
                    "met"
                } else {
                    "NOT met"
                },
                fixed(fused_batch_rate, 0),
                if fused_batch_rate >= FUSED_TARGET_RUN_GENERATIONS_PER_S { "met" } else { "NOT met" },
            ));
        }
        Ok(result)
    }
}
