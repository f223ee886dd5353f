//! evo-rng: the Philox fill on the CPU and the GPU, beside rand's generators and cuRAND's host API.
//! Ids: `{device}/rng/{generator}_{conversion}/n{size}`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use evo_benches::{cpu_prefix, gpu_or_note, gpu_prefix};
use evo_gpu_runtime::{CurandGenerator, CurandKind, curand_present};
use evo_rng::{Philox, Stream, cuda, fill};
use rand::rngs::{StdRng, Xoshiro256PlusPlus};
use rand::{RngExt, SeedableRng};

const CPU_N: usize = 1 << 20;
const GPU_N: usize = 1 << 26;

fn cpu(c: &mut Criterion) {
    let sequence = Philox::new(7).sequence(Stream::Fill, 0, 0);
    let mut out = vec![0f32; CPU_N];
    let mut group = c.benchmark_group("rng_cpu");
    group.throughput(Throughput::Elements(CPU_N as u64));
    let prefix = cpu_prefix();
    group.bench_function(format!("{prefix}/rng/philox_uniform_f32/n{CPU_N}"), |b| {
        b.iter(|| fill::philox_uniform_f32(&sequence, &mut out))
    });
    group.bench_function(format!("cpu-1t/rng/std_rng_f32/n{CPU_N}"), |b| {
        let mut rng = StdRng::seed_from_u64(7);
        b.iter(|| out.iter_mut().for_each(|x| *x = rng.random::<f32>()))
    });
    group.bench_function(format!("cpu-1t/rng/xoshiro256pp_f32/n{CPU_N}"), |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        b.iter(|| out.iter_mut().for_each(|x| *x = rng.random::<f32>()))
    });
    group.finish();
}

fn gpu(c: &mut Criterion) {
    let Some(gpu) = gpu_or_note() else { return };
    let sequence = Philox::new(7).sequence(Stream::Fill, 0, 0);
    let mut out = gpu.alloc::<f32>(GPU_N).expect("alloc");
    let mut group = c.benchmark_group("rng_gpu");
    group.throughput(Throughput::Bytes(4 * GPU_N as u64));
    let prefix = gpu_prefix(&gpu);
    group.bench_function(format!("{prefix}/rng/philox_uniform_f32/n{GPU_N}"), |b| {
        b.iter(|| {
            cuda::philox_fill_uniform_f32(&gpu, &sequence, &mut out, 256).expect("fill");
            gpu.synchronize().expect("synchronize");
        })
    });
    if curand_present() {
        for (kind, name) in [
            (CurandKind::Philox4x32_10, "curand_philox"),
            (CurandKind::Xorwow, "curand_xorwow"),
        ] {
            let generator = CurandGenerator::new(&gpu, kind, 7).expect("curand");
            group.bench_function(format!("{prefix}/rng/{name}_uniform_f32/n{GPU_N}"), |b| {
                b.iter(|| {
                    generator.fill_uniform_f32(&mut out).expect("fill");
                    gpu.synchronize().expect("synchronize");
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, cpu, gpu);
criterion_main!(benches);
