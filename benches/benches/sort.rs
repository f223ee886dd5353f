//! evo-sort: the CPU twins and the CUDA routines on the suite's sizes.
//! Ids: `{device}/sort/{routine}_f64/n{size}` (batched: `/s{segments}x{len}`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use evo_benches::{cpu_prefix, gpu_or_note, gpu_prefix};
use evo_sort::{cpu, cuda};

const BLOCK: u32 = 128;

/// `n` fitness values with ties: a multiplicative hash folded to 1000 distinct values.
fn fitness(n: usize) -> Vec<f64> {
    (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f64 % 1000.0 * 1e-3)
        .collect()
}

fn population(c: &mut Criterion) {
    let gpu = gpu_or_note();
    let mut group = c.benchmark_group("sort_population_f64");
    for n in [256usize, 1024, 4096] {
        let keys = fitness(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(
            BenchmarkId::new(format!("{}/sort/sort_population_f64", cpu_prefix()), n),
            &keys,
            |b, k| b.iter(|| cpu::sort_population(k).expect("sort")),
        );
        if let Some(gpu) = &gpu {
            let on_device = gpu.upload(&keys).expect("upload");
            let mut order = cuda::DevicePermutation::for_array(gpu, n).expect("order");
            let mut sorted = gpu.alloc::<f64>(n).expect("alloc");
            let id = BenchmarkId::new(format!("{}/sort/sort_population_f64", gpu_prefix(gpu)), n);
            group.bench_function(id, |b| {
                b.iter(|| {
                    cuda::sort_population(gpu, &on_device, &mut order, &mut sorted, BLOCK)
                        .expect("sort");
                    gpu.synchronize().expect("synchronize");
                })
            });
        }
    }
    group.finish();
}

fn batched(c: &mut Criterion) {
    let gpu = gpu_or_note();
    let (segments, len) = (10_000usize, 256usize);
    let keys = fitness(segments * len);
    let mut group = c.benchmark_group("sort_segments_f64");
    group.throughput(Throughput::Elements(keys.len() as u64));
    let name = format!("s{segments}x{len}");
    group.bench_function(
        format!("{}/sort/sort_segments_f64/{name}", cpu_prefix()),
        |b| b.iter(|| cpu::sort_segments(&keys, len).expect("sort")),
    );
    if let Some(gpu) = &gpu {
        let on_device = gpu.upload(&keys).expect("upload");
        let mut order = cuda::DevicePermutation::identity(gpu, segments, len).expect("order");
        let mut sorted = gpu.alloc::<f64>(keys.len()).expect("alloc");
        group.bench_function(
            format!("{}/sort/sort_segments_f64/{name}", gpu_prefix(gpu)),
            |b| {
                b.iter(|| {
                    cuda::sort_segments(gpu, &on_device, &mut order, &mut sorted, BLOCK)
                        .expect("sort");
                    gpu.synchronize().expect("synchronize");
                })
            },
        );
    }
    group.finish();
}

fn ranking(c: &mut Criterion) {
    let gpu = gpu_or_note();
    let n = 10_000_000usize;
    let keys = fitness(n);
    let mut group = c.benchmark_group("ranks_f64");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(format!("{}/sort/ranks_f64/n{n}", cpu_prefix()), |b| {
        b.iter(|| cpu::ranks(&keys).expect("ranks"))
    });
    if let Some(gpu) = &gpu {
        let on_device = gpu.upload(&keys).expect("upload");
        let mut ranks = gpu.alloc::<u32>(n).expect("alloc");
        group.bench_function(format!("{}/sort/ranks_f64/n{n}", gpu_prefix(gpu)), |b| {
            b.iter(|| {
                cuda::ranks(gpu, &on_device, &mut ranks, BLOCK).expect("ranks");
                gpu.synchronize().expect("synchronize");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, population, batched, ranking);
criterion_main!(benches);
