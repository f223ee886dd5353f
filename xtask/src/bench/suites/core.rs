//! Suite `core`: the foundation's kernels against their CPU twins.
//!
//! - **Canonical reduction.** `evo_core::reduce::pairwise_sum_f64` (rayon) against the `reduce_sum_f64` kernel
//!   (blocks of 256), over 10^5, 10^6 and 10^7 terms (and 10^8 in a full run), in GB/s of terms read. The
//!   terms are uploaded once, outside the timed region; the GPU time includes copying the sum back. The two
//!   sums must be bit-identical: a mismatch fails the command.
//! - **Portable math.** Every `MathFunction` in f32 and f64 over 10^6 inputs (10^7 in a full run), on the CPU
//!   with rayon against the `math_eval_*` kernels (Exact profile, blocks of 256), in Gevals/s. An evenly spaced
//!   sample of the GPU's outputs is compared bit for bit with the CPU's.

use evo_core::math::MathFunction;
use evo_core::reduce::pairwise_sum_f64;
use evo_gpu_runtime::{DeviceBuffer, DeviceCopy, Gpu, Profile, core_kernels};
use rayon::prelude::*;

use crate::bench::markdown::format_size;
use crate::bench::{
    Backend, BenchContext, Plot, Reference, Row, Series, Suite, SuiteResult, Timing,
};

/// Threads per block of both kernels.
const BLOCK: u32 = 256;
/// Elements compared bit for bit per math case.
const MATH_SAMPLE: usize = 65_536;
/// Elements per rayon task on the CPU side of the math cases.
const CPU_CHUNK: usize = 16_384;

/// The `core` suite.
pub struct Core;

impl Suite for Core {
    fn name(&self) -> &'static str {
        "core"
    }

    fn description(&self) -> &'static str {
        "foundation kernels vs their CPU twins: canonical f64 reduction (GB/s), portable math (Gevals/s)"
    }

    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult> {
        let mut result = SuiteResult::default();
        // A part that fails (a kernel that does not compile, say) is recorded, and the other part still runs.
        if let Err(error) = reduction(ctx, &mut result) {
            result.failures.push(format!("reduction: {error:#}"));
        }
        let n = if ctx.quick() { 1_000_000 } else { 10_000_000 };
        let bar = ctx.progress(2 * MathFunction::ALL.len() as u64, "math");
        let mut plot = MathPlot::default();
        if let Err(error) = math::<f32>(ctx, n, &bar, &mut result, &mut plot) {
            result.failures.push(format!("math f32: {error:#}"));
        }
        if let Err(error) = math::<f64>(ctx, n, &bar, &mut result, &mut plot) {
            result.failures.push(format!("math f64: {error:#}"));
        }
        bar.finish_and_clear();
        result.plots.push(plot.into_plot());
        result.notes.push(format!(
            "Exact profile, blocks of {BLOCK}. reduce_sum_f64: GB/s counts the 8 bytes of each term read; the GPU \
             time includes copying the sum back. math: x uniform in [-100, 100] (log and pow: (0, 100]; pow's y \
             in [-4, 4]); up to {MATH_SAMPLE} evenly spaced outputs compared bit for bit."
        ));
        Ok(result)
    }
}

/// SplitMix64's output function: a well-mixed 64-bit value for index `i` of input stream `stream`.
fn mix(i: u64, stream: u64) -> u64 {
    let mut z = (i ^ (stream << 56)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from the top 53 bits of `bits`.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `n` deterministic terms of mixed signs and magnitudes (2^-16 to 2^15), so that rounding matters.
fn reduction_terms(n: usize) -> Vec<f64> {
    (0..n as u64)
        .into_par_iter()
        .map(|i| {
            let bits = mix(i, 1);
            let exponent = (bits & 31) as i32 - 16;
            (2.0 * unit(bits) - 1.0) * 2f64.powi(exponent)
        })
        .collect()
}

fn reduction(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let mut sizes = vec![100_000usize, 1_000_000, 10_000_000];
    if !ctx.quick() {
        sizes.push(100_000_000);
    }
    let bar = ctx.progress(sizes.len() as u64, "reduce");
    let mut cpu_points = Vec::new();
    let mut gpu_points = Vec::new();
    for &n in &sizes {
        bar.set_message(format!("{} terms", format_size(n as u64)));
        let terms = reduction_terms(n);
        let bytes = 8.0 * n as f64;
        let row = |backend, device: String, timing: &Timing| Row {
            case: "reduce_sum_f64".to_string(),
            backend,
            device,
            size: n as u64,
            median_ms: timing.median_ms(),
            samples: timing.count(),
            throughput: timing.rate(bytes, 1e9),
            unit: "GB/s".to_string(),
            reference: None,
            check: None,
        };
        let mut cpu_rate = None;
        let cpu_sum = if ctx.cpu() {
            let (timing, sum) = ctx.time_cpu(|| Ok(pairwise_sum_f64(&terms)))?;
            let cpu_row = row(Backend::Cpu, ctx.cpu_device().to_string(), &timing);
            cpu_rate = Some(cpu_row.throughput);
            cpu_points.push((n as f64, cpu_row.throughput));
            result.rows.push(cpu_row);
            sum
        } else {
            pairwise_sum_f64(&terms)
        };
        if let Some(gpu) = ctx.gpu() {
            let on_device = gpu.upload(&terms)?;
            let (timing, gpu_sum) = ctx.time_gpu(gpu, || {
                Ok(core_kernels::reduce_sum_f64(gpu, &on_device, BLOCK)?)
            })?;
            let mut gpu_row = row(Backend::Cuda, ctx.gpu_device(), &timing);
            gpu_row.reference =
                cpu_rate.map(|rate| Reference::new("CPU twin", rate, gpu_row.throughput));
            gpu_row.check = Some(if gpu_sum.to_bits() == cpu_sum.to_bits() {
                "bit-identical".to_string()
            } else {
                let message = format!(
                    "MISMATCH: cpu {cpu_sum:e} ({:#018x}), cuda {gpu_sum:e} ({:#018x})",
                    cpu_sum.to_bits(),
                    gpu_sum.to_bits()
                );
                result
                    .failures
                    .push(format!("reduce_sum_f64 over {n} terms: {message}"));
                message
            });
            gpu_points.push((n as f64, gpu_row.throughput));
            result.rows.push(gpu_row);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    result.plots.push(Plot {
        title: "canonical f64 reduction (reduce_sum_f64)".to_string(),
        x_label: "terms".to_string(),
        y_label: "GB/s".to_string(),
        log_x: true,
        categories: None,
        series: series(cpu_points, gpu_points),
    });
    Ok(())
}

/// The CPU and GPU lines of a plot, leaving out an empty one.
fn series(cpu: Vec<(f64, f64)>, gpu: Vec<(f64, f64)>) -> Vec<Series> {
    [("cpu (rayon)", cpu), ("cuda", gpu)]
        .into_iter()
        .filter(|(_, points)| !points.is_empty())
        .map(|(name, points)| Series {
            name: name.to_string(),
            points,
        })
        .collect()
}

/// A float type the math cases run in: its name, its CPU function, its bits and its kernel.
trait Precision: DeviceCopy + Default {
    /// The suffix of its kernel and cases ("f32").
    const NAME: &'static str;
    /// The nearest value of this type.
    fn from_f64(value: f64) -> Self;
    /// The CPU twin: `MathFunction::apply_f32` or `apply_f64`.
    fn apply(function: MathFunction, x: Self, y: Self) -> Self;
    /// The bit pattern, widened.
    fn bits(self) -> u64;
    /// The CUDA kernel: `math_eval_f32` or `math_eval_f64`, Exact profile.
    fn eval_on_gpu(
        gpu: &Gpu,
        function: MathFunction,
        x: &Buffer<Self>,
        y: &Buffer<Self>,
        out: &mut Buffer<Self>,
    ) -> evo_core::Result<()>;
}

type Buffer<T> = DeviceBuffer<T>;

macro_rules! precision {
    ($t:ty, $apply:ident, $eval:ident) => {
        impl Precision for $t {
            const NAME: &'static str = stringify!($t);
            fn from_f64(value: f64) -> Self {
                value as $t
            }
            fn apply(function: MathFunction, x: Self, y: Self) -> Self {
                function.$apply(x, y)
            }
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn eval_on_gpu(
                gpu: &Gpu,
                function: MathFunction,
                x: &Buffer<$t>,
                y: &Buffer<$t>,
                out: &mut Buffer<$t>,
            ) -> evo_core::Result<()> {
                core_kernels::$eval(gpu, function, x, y, out, Profile::Exact, BLOCK)
            }
        }
    };
}

precision!(f32, apply_f32, math_eval_f32);
precision!(f64, apply_f64, math_eval_f64);

/// The math inputs of one precision: x over [-100, 100], x over (0, 100], and y over [-4, 4].
struct MathInputs<P> {
    signed: Vec<P>,
    positive: Vec<P>,
    y: Vec<P>,
}

impl<P: Precision> MathInputs<P> {
    fn new(n: usize) -> Self {
        let draw = |stream: u64, map: fn(f64) -> f64| -> Vec<P> {
            (0..n as u64)
                .into_par_iter()
                .map(|i| P::from_f64(map(unit(mix(i, stream)))))
                .collect()
        };
        Self {
            signed: draw(2, |u| 200.0 * u - 100.0),
            positive: draw(3, |u| 100.0 * (1.0 - u)),
            y: draw(4, |u| 8.0 * u - 4.0),
        }
    }

    /// The x inputs of `function`: log and pow need positive arguments.
    fn x_for(&self, function: MathFunction) -> &[P] {
        match function {
            MathFunction::Log | MathFunction::Pow => &self.positive,
            _ => &self.signed,
        }
    }
}

/// The categories and lines of the math plot, filled case by case.
#[derive(Default)]
struct MathPlot {
    cases: Vec<String>,
    cpu: Vec<(f64, f64)>,
    gpu: Vec<(f64, f64)>,
}

impl MathPlot {
    fn into_plot(self) -> Plot {
        Plot {
            title: "portable math (math_eval_*), Exact profile".to_string(),
            x_label: "function".to_string(),
            y_label: "Gevals/s".to_string(),
            log_x: false,
            categories: Some(self.cases),
            series: series(self.cpu, self.gpu),
        }
    }
}

fn math<P: Precision>(
    ctx: &BenchContext,
    n: usize,
    bar: &indicatif::ProgressBar,
    result: &mut SuiteResult,
    plot: &mut MathPlot,
) -> anyhow::Result<()> {
    let inputs = MathInputs::<P>::new(n);
    let on_device = match ctx.gpu() {
        Some(gpu) => Some((
            gpu.upload(&inputs.signed)?,
            gpu.upload(&inputs.positive)?,
            gpu.upload(&inputs.y)?,
            gpu.alloc::<P>(n)?,
        )),
        None => None,
    };
    let mut on_device = on_device;
    let mut cpu_out = vec![P::default(); n];
    for function in MathFunction::ALL.iter().copied() {
        let case = format!("{}_{}", function.name(), P::NAME);
        bar.set_message(case.clone());
        let position = plot.cases.len() as f64;
        plot.cases.push(case.clone());
        let xs = inputs.x_for(function);
        let row = |backend, device: String, timing: &Timing| Row {
            case: case.clone(),
            backend,
            device,
            size: n as u64,
            median_ms: timing.median_ms(),
            samples: timing.count(),
            throughput: timing.rate(n as f64, 1e9),
            unit: "Gevals/s".to_string(),
            reference: None,
            check: None,
        };
        let mut cpu_rate = None;
        if ctx.cpu() {
            let (timing, ()) = ctx.time_cpu(|| {
                cpu_out
                    .par_chunks_mut(CPU_CHUNK)
                    .zip(xs.par_chunks(CPU_CHUNK))
                    .zip(inputs.y.par_chunks(CPU_CHUNK))
                    .for_each(|((out, xs), ys)| {
                        for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
                            *o = P::apply(function, x, y);
                        }
                    });
                Ok(())
            })?;
            let cpu_row = row(Backend::Cpu, ctx.cpu_device().to_string(), &timing);
            cpu_rate = Some(cpu_row.throughput);
            plot.cpu.push((position, cpu_row.throughput));
            result.rows.push(cpu_row);
        }
        if let (Some(gpu), Some((signed, positive, y, out))) = (ctx.gpu(), on_device.as_mut()) {
            let x = match function {
                MathFunction::Log | MathFunction::Pow => &*positive,
                _ => &*signed,
            };
            let (timing, ()) =
                ctx.time_gpu(gpu, || Ok(P::eval_on_gpu(gpu, function, x, y, out)?))?;
            let gpu_values = out.to_vec()?;
            let mut gpu_row = row(Backend::Cuda, ctx.gpu_device(), &timing);
            gpu_row.reference =
                cpu_rate.map(|rate| Reference::new("CPU twin", rate, gpu_row.throughput));
            gpu_row.check = Some(compare_sample(
                &case,
                function,
                xs,
                &inputs.y,
                &gpu_values,
                result,
            ));
            plot.gpu.push((position, gpu_row.throughput));
            result.rows.push(gpu_row);
        }
        bar.inc(1);
    }
    Ok(())
}

/// Compares an evenly spaced sample of `gpu` with the CPU's values bit for bit; a mismatch is also recorded as
/// a failure of the suite.
fn compare_sample<P: Precision>(
    case: &str,
    function: MathFunction,
    xs: &[P],
    ys: &[P],
    gpu: &[P],
    result: &mut SuiteResult,
) -> String {
    let step = gpu.len().div_ceil(MATH_SAMPLE).max(1);
    let sampled: Vec<usize> = (0..gpu.len()).step_by(step).collect();
    let mismatches: Vec<usize> = sampled
        .par_iter()
        .copied()
        .filter(|&i| P::apply(function, xs[i], ys[i]).bits() != gpu[i].bits())
        .collect();
    match mismatches.first() {
        None => format!("bit-identical ({} sampled)", sampled.len()),
        Some(&i) => {
            let cpu = P::apply(function, xs[i], ys[i]);
            let message = format!(
                "MISMATCH in {} of {} sampled; first at {i}: x bits {:#x}, y bits {:#x}, cpu bits {:#x}, cuda bits {:#x}",
                mismatches.len(),
                sampled.len(),
                xs[i].bits(),
                ys[i].bits(),
                cpu.bits(),
                gpu[i].bits()
            );
            result.failures.push(format!("{case}: {message}"));
            message
        }
    }
}
