//! The foundation's kernels against their CPU twins: the canonical reduction and the portable math.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use evo_benches::{cpu_prefix, gpu_or_note, gpu_prefix};
use evo_core::math::MathFunction;
use evo_core::reduce::pairwise_sum_f64;
use evo_gpu_runtime::{Profile, core_kernels};

const SIZES: [usize; 3] = [10_000, 1_000_000, 10_000_000];

fn reduce(c: &mut Criterion) {
    let gpu = gpu_or_note();
    let mut group = c.benchmark_group("reduce_sum_f64");
    for n in SIZES {
        let terms: Vec<f64> = (0..n).map(|i| (i as f64).sqrt()).collect();
        group.throughput(Throughput::Bytes(8 * n as u64));
        group.bench_with_input(
            BenchmarkId::new(format!("{}/core/reduce_sum_f64", cpu_prefix()), n),
            &terms,
            |b, t| b.iter(|| pairwise_sum_f64(t)),
        );
        if let Some(gpu) = &gpu {
            let on_device = gpu.upload(&terms).expect("upload");
            let id = BenchmarkId::new(format!("{}/core/reduce_sum_f64", gpu_prefix(gpu)), n);
            // reduce_sum_f64 copies the sum back to the host, which waits for the kernels: the device is
            // synchronized inside the timed region.
            group.bench_with_input(id, &on_device, |b, d| {
                b.iter(|| core_kernels::reduce_sum_f64(gpu, d, 256).expect("reduce"))
            });
        }
    }
    group.finish();
}

fn math(c: &mut Criterion) {
    let gpu = gpu_or_note();
    let n = 1_000_000usize;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32) * 1.0e-4 + 0.001).collect();
    let mut group = c.benchmark_group("math_f32");
    group.throughput(Throughput::Elements(n as u64));
    for function in MathFunction::ALL {
        let cpu_id = format!("{}/core/{}_f32/n{n}", cpu_prefix(), function.name());
        group.bench_function(cpu_id, |b| {
            b.iter(|| {
                xs.iter()
                    .map(|&x| function.apply_f32(x, 0.6))
                    .fold(0.0f32, |a, v| a + v)
            })
        });
        if let Some(gpu) = &gpu {
            let x = gpu.upload(&xs).expect("upload");
            let y = gpu.upload(&vec![0.6f32; n]).expect("upload");
            let mut out = gpu.alloc::<f32>(n).expect("alloc");
            let id = format!("{}/core/{}_f32/n{n}", gpu_prefix(gpu), function.name());
            group.bench_function(id, |b| {
                b.iter(|| {
                    core_kernels::math_eval_f32(
                        gpu,
                        function,
                        &x,
                        &y,
                        &mut out,
                        Profile::Exact,
                        256,
                    )
                    .expect("launch");
                    gpu.synchronize().expect("synchronize");
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, reduce, math);
criterion_main!(benches);
