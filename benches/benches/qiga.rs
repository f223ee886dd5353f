//! evo-qiga: one generation of a batch of QIGA and SGA runs on the CPU, whole evolutions in one launch on the
//! GPU, on a generated strongly correlated knapsack of 250 items (the size of the paper's instance).
//! Ids: `{device}/qiga/{engine}/n250/r{runs}` (CPU: one generation; CUDA: 500 QIGA or 50 SGA generations).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use evo_benches::{cpu_prefix, gpu_or_note, gpu_prefix};
use evo_benchmarks::Knapsack;
use evo_core::Engine;
use evo_qiga::{
    QigaCpu, QigaCuda, QigaParams, RotationAngles, RunConfig, SgaCpu, SgaCuda, SgaParams,
};

/// Runs of the CPU batches (one generation per iteration).
const CPU_RUNS: usize = 16;
/// Runs of the GPU batches (whole evolutions per iteration).
const GPU_RUNS: usize = 1000;

fn qiga(c: &mut Criterion) {
    let problem = Knapsack::generate(250, 250).expect("instance");
    let gpu = gpu_or_note();
    let mut group = c.benchmark_group("qiga");
    group.sample_size(10);
    let params = QigaParams::default();
    let runs = RunConfig::batch(1, &vec![RotationAngles::ORIGINAL; CPU_RUNS]);
    let mut cpu = QigaCpu::batch(&params, &problem, runs, 0).expect("engine");
    group.throughput(Throughput::Elements(CPU_RUNS as u64));
    group.bench_function(
        format!("{}/qiga/generation/n250/r{CPU_RUNS}", cpu_prefix()),
        |b| b.iter(|| cpu.step().expect("step")),
    );
    let sga = SgaParams::default();
    let mut sga_cpu = SgaCpu::batch(&sga, &problem, 1, CPU_RUNS, 0).expect("engine");
    group.bench_function(
        format!("{}/qiga/sga_generation/n250/r{CPU_RUNS}", cpu_prefix()),
        |b| b.iter(|| sga_cpu.step().expect("step")),
    );
    if let Some(gpu) = &gpu {
        let runs = RunConfig::batch(1, &vec![RotationAngles::ORIGINAL; GPU_RUNS]);
        let mut cuda = QigaCuda::batch(&params, &problem, runs, gpu).expect("engine");
        group.throughput(Throughput::Elements(GPU_RUNS as u64));
        group.bench_function(
            format!("{}/qiga/evolution_500/n250/r{GPU_RUNS}", gpu_prefix(gpu)),
            |b| {
                b.iter(|| {
                    cuda.run_generations(500).expect("launch");
                    gpu.synchronize().expect("synchronize");
                })
            },
        );
        let mut sga_cuda = SgaCuda::batch(&sga, &problem, 1, GPU_RUNS, gpu).expect("engine");
        group.bench_function(
            format!("{}/qiga/sga_evolution_50/n250/r{GPU_RUNS}", gpu_prefix(gpu)),
            |b| {
                b.iter(|| {
                    sga_cuda.run_generations(50).expect("launch");
                    gpu.synchronize().expect("synchronize");
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, qiga);
criterion_main!(benches);
