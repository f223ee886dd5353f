//! Suite `rng`: evo-rng's generators on the GPU and the CPU, beside NVIDIA's cuRAND and rand's generators.
//!
//! - **GPU fill of 2^28 uniform f32** (2^26 with `--quick`) into one device buffer: our addressed Philox
//!   (`rng_philox_fill_uniform_f32`, blocks of 256) against cuRAND's host API (`curandGenerateUniform` with
//!   the Philox4_32_10 and XORWOW generators) on the same buffer in the same run, and against the two
//!   bandwidth ceilings measured on that buffer: `cuMemsetD8` (pure writes) and a device-to-device copy
//!   (reads + writes; its GB/s count the bytes written). Also our normals (`rng_philox_fill_normal_f32`).
//!   GB/s count the 4 bytes written per draw. A sample of 2^20 GPU draws is compared bit for bit with the
//!   CPU fill.
//! - **CPU** (2^24 uniform f32, 2^22 with `--quick`): our Philox fill on one thread and on every thread
//!   (rayon, the fill's own chunks), beside rand's `StdRng` (ChaCha12) and `Xoshiro256PlusPlus` (one
//!   thread; rayon with one generator per 2^14-draw chunk seeded by the chunk index), and the paper
//!   generators xor128 and cuRAND-XORWOW on one thread, in G draws/s.

use evo_gpu_runtime::{CurandGenerator, CurandKind, DeviceBuffer, Gpu, curand_present};
use evo_rng::{CurandXorwow, Philox, Stream, Xor128, cuda, fill};
use rand::rngs::{StdRng, Xoshiro256PlusPlus};
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::bench::{
    Backend, BenchContext, Plot, Reference, Row, Series, Suite, SuiteResult, Timing,
};

/// Threads per block of our fill kernels.
const BLOCK: u32 = 256;
/// Draws per chunk of the parallel rand baselines (one generator per chunk).
const CPU_CHUNK: usize = 1 << 14;
/// GPU draws compared bit for bit with the CPU fill.
const CHECKED: usize = 1 << 20;

/// The `rng` suite.
pub struct Rng;

impl Suite for Rng {
    fn name(&self) -> &'static str {
        "rng"
    }

    fn description(&self) -> &'static str {
        "random number fills: our Philox on the GPU vs cuRAND and the write bandwidth; CPU vs rand's StdRng and Xoshiro256++"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        if let Some(gpu) = ctx.gpu() {
            let gpu = gpu.clone();
            if let Err(error) = gpu_fills(ctx, &gpu, &mut result) {
                result.failures.push(format!("gpu fills: {error:#}"));
            }
        }
        if ctx.cpu()
            && let Err(error) = cpu_fills(ctx, &mut result)
        {
            result.failures.push(format!("cpu fills: {error:#}"));
        }
        result.notes.push(format!(
            "GPU: Exact profile, blocks of {BLOCK}; GB/s = 4 bytes written per draw at the median time; the copy \
             ceiling counts the bytes written (it also reads as many). CPU: G draws/s; rayon baselines seed one \
             generator per {CPU_CHUNK}-draw chunk from the chunk index."
        ));
        Ok(result)
    }
}

fn gpu_row(ctx: &BenchContext, case: &str, n: usize, timing: &Timing) -> Row {
    Row {
        case: case.to_string(),
        backend: Backend::Cuda,
        device: ctx.gpu_device(),
        size: n as u64,
        median_ms: timing.median_ms(),
        samples: timing.count(),
        throughput: timing.rate(4.0 * n as f64, 1e9),
        unit: "GB/s".to_string(),
        reference: None,
        check: None,
    }
}

fn gpu_fills(ctx: &BenchContext, gpu: &Gpu, result: &mut SuiteResult) -> anyhow::Result<()> {
    let n: usize = if ctx.quick() { 1 << 26 } else { 1 << 28 };
    let sequence = Philox::new(2026).sequence(Stream::Fill, 0, 0);
    let mut out: DeviceBuffer<f32> = gpu.alloc(n)?;
    let source: DeviceBuffer<f32> = gpu.alloc_zeroed(n)?;
    let bar = ctx.progress(6, "rng gpu");

    let (timing, ()) = ctx.time_gpu(gpu, || Ok(out.fill_zero()?))?;
    let memset = gpu_row(ctx, "ceiling: cuMemsetD8 (writes)", n, &timing);
    let write_ceiling = memset.throughput;
    result.rows.push(memset);
    bar.inc(1);

    let (timing, ()) = ctx.time_gpu(gpu, || Ok(out.copy_from_device(&source)?))?;
    result
        .rows
        .push(gpu_row(ctx, "ceiling: device-to-device copy", n, &timing));
    bar.inc(1);

    let (timing, ()) = ctx.time_gpu(gpu, || {
        Ok(cuda::philox_fill_uniform_f32(
            gpu, &sequence, &mut out, BLOCK,
        )?)
    })?;
    let mut ours = gpu_row(ctx, "evo-rng philox uniform_f32", n, &timing);
    ours.reference = Some(Reference::new(
        "cuMemsetD8 write ceiling",
        write_ceiling,
        ours.throughput,
    ));
    let mut head = vec![0f32; CHECKED];
    let mut all = out.to_vec()?;
    all.truncate(CHECKED);
    fill::philox_uniform_f32(&sequence, &mut head);
    let identical = head
        .iter()
        .zip(&all)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    ours.check = Some(if identical {
        format!("first {CHECKED} bit-identical to the CPU")
    } else {
        result
            .failures
            .push("philox uniform_f32: GPU draws differ from the CPU fill".to_string());
        "MISMATCH with the CPU fill".to_string()
    });
    let ours_rate = ours.throughput;
    result.rows.push(ours);
    bar.inc(1);

    let (timing, ()) = ctx.time_gpu(gpu, || {
        Ok(cuda::philox_fill_normal_f32(
            gpu, &sequence, &mut out, BLOCK,
        )?)
    })?;
    let mut normals = gpu_row(ctx, "evo-rng philox normal_f32", n, &timing);
    normals.reference = Some(Reference::new(
        "cuMemsetD8 write ceiling",
        write_ceiling,
        normals.throughput,
    ));
    result.rows.push(normals);
    bar.inc(1);

    let mut curand_points = Vec::new();
    if curand_present() {
        for (kind, name) in [
            (
                CurandKind::Philox4x32_10,
                "cuRAND host Philox4_32_10 uniform",
            ),
            (CurandKind::Xorwow, "cuRAND host XORWOW uniform"),
        ] {
            let generator = CurandGenerator::new(gpu, kind, 2026)?;
            let (timing, ()) = ctx.time_gpu(gpu, || Ok(generator.fill_uniform_f32(&mut out)?))?;
            let mut row = gpu_row(ctx, name, n, &timing);
            row.reference = Some(Reference::new(
                "evo-rng philox uniform_f32",
                ours_rate,
                row.throughput,
            ));
            curand_points.push(row.throughput);
            result.rows.push(row);
            bar.inc(1);
        }
    } else {
        result
            .notes
            .push("libcurand was not found: the cuRAND rows were SKIPPED".to_string());
    }
    bar.finish_and_clear();
    let labels = ["memset", "ours philox", "cuRAND philox", "cuRAND xorwow"];
    let mut points = vec![(0.0, write_ceiling), (1.0, ours_rate)];
    points.extend(
        curand_points
            .iter()
            .enumerate()
            .map(|(i, &v)| (2.0 + i as f64, v)),
    );
    result.plots.push(Plot {
        title: format!("GPU fill of {n} uniform f32 (GB/s written)"),
        x_label: "generator".to_string(),
        y_label: "GB/s".to_string(),
        log_x: false,
        categories: Some(
            labels[..points.len()]
                .iter()
                .map(ToString::to_string)
                .collect(),
        ),
        series: vec![Series {
            name: "cuda".to_string(),
            points,
        }],
    });
    Ok(())
}

fn cpu_row(ctx: &BenchContext, case: &str, threads: &str, n: usize, timing: &Timing) -> Row {
    Row {
        case: format!("{case} ({threads})"),
        backend: Backend::Cpu,
        device: ctx.cpu_device().to_string(),
        size: n as u64,
        median_ms: timing.median_ms(),
        samples: timing.count(),
        throughput: timing.rate(n as f64, 1e9),
        unit: "G draws/s".to_string(),
        reference: None,
        check: None,
    }
}

/// `fill` on every rayon thread and inside a one-thread pool.
fn both_thread_counts(
    ctx: &BenchContext,
    case: &str,
    n: usize,
    fill: impl Fn(&mut [f32]) + Sync,
) -> anyhow::Result<(Row, Row)> {
    let mut out = vec![0f32; n];
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (timing, ()) = ctx.time_cpu(|| {
        one.install(|| fill(&mut out));
        Ok(())
    })?;
    let single = cpu_row(ctx, case, "1 thread", n, &timing);
    let (timing, ()) = ctx.time_cpu(|| {
        fill(&mut out);
        Ok(())
    })?;
    let all = cpu_row(
        ctx,
        case,
        &format!("{} threads", rayon::current_num_threads()),
        n,
        &timing,
    );
    Ok((single, all))
}

/// A rand generator's uniform f32 fill, one generator per chunk seeded by the chunk index.
fn rand_fill<R: rand::Rng + SeedableRng>(out: &mut [f32]) {
    out.par_chunks_mut(CPU_CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut rng = R::seed_from_u64(c as u64);
            for x in chunk {
                *x = rng.random::<f32>();
            }
        });
}

fn cpu_fills(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let n: usize = if ctx.quick() { 1 << 22 } else { 1 << 24 };
    let sequence = Philox::new(2026).sequence(Stream::Fill, 0, 0);
    let bar = ctx.progress(5, "rng cpu");
    let (ours_single, ours_all) =
        both_thread_counts(ctx, "evo-rng philox uniform_f32", n, |out| {
            fill::philox_uniform_f32(&sequence, out)
        })?;
    bar.inc(1);
    let (std_single, std_all) =
        both_thread_counts(ctx, "rand StdRng (ChaCha12) f32", n, rand_fill::<StdRng>)?;
    bar.inc(1);
    let (xo_single, xo_all) = both_thread_counts(
        ctx,
        "rand Xoshiro256++ f32",
        n,
        rand_fill::<Xoshiro256PlusPlus>,
    )?;
    bar.inc(1);
    let mut out = vec![0f32; n];
    let (timing, ()) = ctx.time_cpu(|| {
        let mut rng = Xor128::standard();
        for x in out.iter_mut() {
            *x = evo_rng::convert::uniform_f32(rng.next_word());
        }
        Ok(())
    })?;
    let xor128 = cpu_row(ctx, "evo-rng xor128 uniform_f32", "1 thread", n, &timing);
    bar.inc(1);
    let (timing, ()) = ctx.time_cpu(|| {
        let mut rng = CurandXorwow::new(2026, 0, 0);
        for x in out.iter_mut() {
            *x = rng.uniform_f32();
        }
        Ok(())
    })?;
    let xorwow = cpu_row(
        ctx,
        "evo-rng cuRAND-XORWOW uniform_f32",
        "1 thread",
        n,
        &timing,
    );
    bar.inc(1);
    bar.finish_and_clear();

    let mut ours_single = ours_single;
    ours_single.reference = Some(Reference::new(
        "rand Xoshiro256++ (1 thread)",
        xo_single.throughput,
        ours_single.throughput,
    ));
    let mut ours_all = ours_all;
    ours_all.reference = Some(Reference::new(
        "rand Xoshiro256++ (all threads)",
        xo_all.throughput,
        ours_all.throughput,
    ));
    let categories = vec![
        "philox (ours)".to_string(),
        "StdRng".to_string(),
        "Xoshiro256++".to_string(),
    ];
    let series = vec![
        Series {
            name: "1 thread".to_string(),
            points: vec![
                (0.0, ours_single.throughput),
                (1.0, std_single.throughput),
                (2.0, xo_single.throughput),
            ],
        },
        Series {
            name: "all threads".to_string(),
            points: vec![
                (0.0, ours_all.throughput),
                (1.0, std_all.throughput),
                (2.0, xo_all.throughput),
            ],
        },
    ];
    result.rows.extend([
        ours_single,
        ours_all,
        std_single,
        std_all,
        xo_single,
        xo_all,
        xor128,
        xorwow,
    ]);
    result.plots.push(Plot {
        title: format!("CPU fill of {n} uniform f32 (G draws/s)"),
        x_label: "generator".to_string(),
        y_label: "G draws/s".to_string(),
        log_x: false,
        categories: Some(categories),
        series,
    });
    Ok(())
}
