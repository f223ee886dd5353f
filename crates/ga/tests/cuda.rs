//! The paper-faithful CUDA engine equals the CPU engine bit for bit: the whole snapshot (sorted population,
//! fitness, best, counters) after every generation, on all eight functions, Exact profile, at two block
//! sizes. Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{assert_lockstep, assert_same, gpu_or_skip, other_params, steps};
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::Engine;
use evo_ga::{GaCpu, GaCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;

fn check(gpu: &Gpu, function: GaFunction, n: usize, generations: u64, params: GaParams, seed: u64) {
    let problem = PaperFunction::new(function, n).unwrap();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed).unwrap();
    let mut cuda = GaCuda::new(params.clone(), &problem, seed, gpu).unwrap();
    let context = format!("{} n={n} block {}", function.name(), params.block_size());
    assert_lockstep(&context, &mut cpu, &mut cuda, generations);
}

#[test]
fn cuda_engine_should_match_cpu_for_200_generations_on_all_eight_functions() {
    let Some(gpu) =
        gpu_or_skip("cuda_engine_should_match_cpu_for_200_generations_on_all_eight_functions")
    else {
        return;
    };
    for (k, function) in GaFunction::ALL.into_iter().enumerate() {
        for block in [128, 256] {
            let params = GaParams::new().with_block_size(block).unwrap();
            check(&gpu, function, 32, 200, params, 1000 + k as u64);
        }
    }
}

#[test]
fn cuda_engine_should_match_cpu_at_n_128() {
    let Some(gpu) = gpu_or_skip("cuda_engine_should_match_cpu_at_n_128") else {
        return;
    };
    for function in GaFunction::ALL {
        check(&gpu, function, 128, 30, GaParams::new(), 77);
    }
}

#[test]
fn cuda_engine_should_match_cpu_with_other_parameters() {
    let Some(gpu) = gpu_or_skip("cuda_engine_should_match_cpu_with_other_parameters") else {
        return;
    };
    let params = other_params();
    check(&gpu, GaFunction::Ridge, 5, 60, params.clone(), 5);
    check(
        &gpu,
        GaFunction::Ackley,
        3,
        60,
        params.with_elite(0).unwrap(),
        6,
    );
}

#[test]
fn snapshots_move_between_backends() {
    let Some(gpu) = gpu_or_skip("snapshots_move_between_backends") else {
        return;
    };
    let problem = PaperFunction::new(GaFunction::Griewank, 32).unwrap();
    let params = GaParams::new();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    steps(&mut cpu, 10);
    let mut cuda = GaCuda::new(params, &problem, 9, &gpu).unwrap();
    cuda.restore(&cpu.snapshot().unwrap()).unwrap();
    for _ in 0..10 {
        cpu.step().unwrap();
        cuda.step().unwrap();
    }
    assert_same(
        "griewank restored on the GPU",
        &cpu.snapshot().unwrap(),
        &cuda.snapshot().unwrap(),
    );
    assert_eq!(cpu.best().unwrap(), cuda.best().unwrap());
}

#[test]
fn graph_replay_off_and_on_and_many_generations_per_advance_should_match_cpu() {
    let Some(gpu) =
        gpu_or_skip("graph_replay_off_and_on_and_many_generations_per_advance_should_match_cpu")
    else {
        return;
    };
    for (function, n) in [(GaFunction::Rastrigin, 32), (GaFunction::Ridge, 128)] {
        let problem = PaperFunction::new(function, n).unwrap();
        let params = GaParams::new();
        let mut cpu = GaCpu::new(params.clone(), problem.clone(), 31).unwrap();
        let mut cuda = GaCuda::new(params.clone(), &problem, 31, &gpu).unwrap();
        assert!(cuda.graph_replay(), "replay is the default");
        // Launch by launch, then replays of 1, 7 and 0 generations, then launch by launch again.
        cuda.set_graph_replay(false);
        let context = format!("{} n={n}", function.name());
        assert_lockstep(
            &format!("{context}, launch by launch"),
            &mut cpu,
            &mut cuda,
            5,
        );
        cuda.set_graph_replay(true);
        for generations in [1u32, 7, 0, 12] {
            steps(&mut cpu, u64::from(generations));
            cuda.advance(generations).unwrap();
            assert_same(
                &format!("{context}, replayed {generations} generations"),
                &cpu.snapshot().unwrap(),
                &cuda.snapshot().unwrap(),
            );
            assert_eq!(cpu.progress(), cuda.progress(), "{context}");
        }
        cuda.set_graph_replay(false);
        assert_lockstep(
            &format!("{context}, launch by launch again"),
            &mut cpu,
            &mut cuda,
            3,
        );
        // A restore into an engine whose graph is recorded: the replays continue from the snapshot.
        cuda.set_graph_replay(true);
        cuda.advance(2).unwrap();
        let mut back = GaCpu::new(params.clone(), problem.clone(), 31).unwrap();
        steps(&mut back, 4);
        cuda.restore(&back.snapshot().unwrap()).unwrap();
        steps(&mut back, 9);
        cuda.advance(9).unwrap();
        assert_same(
            &format!("{context}, restored under replay"),
            &back.snapshot().unwrap(),
            &cuda.snapshot().unwrap(),
        );
    }
}

#[test]
fn batched_runs_should_match_separate_cpu_runs() {
    let Some(gpu) = gpu_or_skip("batched_runs_should_match_separate_cpu_runs") else {
        return;
    };
    for (function, n) in [(GaFunction::Rastrigin, 32), (GaFunction::Ridge, 128)] {
        let problem = PaperFunction::new(function, n).unwrap();
        let params = GaParams::new();
        let base = u64::MAX - 1; // runs 0, 1, 2 have seeds 2^64 − 2, 2^64 − 1 and 0 (wrapping).
        let mut batch = evo_ga::GaBatchCuda::new(params.clone(), &problem, base, 3, &gpu).unwrap();
        let mut cpus: Vec<_> = (0..3u64)
            .map(|r| GaCpu::new(params.clone(), problem.clone(), base.wrapping_add(r)).unwrap())
            .collect();
        for generation in 0..=60 {
            if generation > 0 {
                batch.step().unwrap();
                cpus.iter_mut().for_each(|cpu| cpu.step().unwrap());
            }
            for (run, cpu) in cpus.iter().enumerate() {
                let context = format!("batch run {run}, {} n={n}", function.name());
                assert_same(
                    &context,
                    &cpu.snapshot().unwrap(),
                    &batch.snapshot(run).unwrap(),
                );
            }
        }
        let best: Vec<f64> = cpus.iter().map(|c| c.progress().best_fitness).collect();
        assert_eq!(batch.best_fitness().unwrap(), best);
    }
}

#[test]
fn batched_runs_spanning_several_groups_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("batched_runs_spanning_several_groups_should_match_cpu") else {
        return;
    };
    // N = 2048: 31 runs per evaluator launch, so 33 runs make two groups.
    let problem = PaperFunction::new(GaFunction::Step, 2).unwrap();
    let params = GaParams::new().with_population(2048).unwrap();
    let mut batch = evo_ga::GaBatchCuda::new(params.clone(), &problem, 40, 33, &gpu).unwrap();
    for _ in 0..5 {
        batch.step().unwrap();
    }
    for run in [0usize, 30, 31, 32] {
        let mut cpu = GaCpu::new(params.clone(), problem.clone(), 40 + run as u64).unwrap();
        steps(&mut cpu, 5);
        assert_same(
            &format!("group test, run {run}"),
            &cpu.snapshot().unwrap(),
            &batch.snapshot(run).unwrap(),
        );
    }
    assert!(batch.snapshot(33).is_err());
}

#[test]
fn paper_rng_mode_cuda_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("paper_rng_mode_cuda_should_match_cpu") else {
        return;
    };
    for (function, n, threads) in [(GaFunction::Griewank, 32, 4096), (GaFunction::Ridge, 5, 7)] {
        let params = GaParams::new().with_paper_rng(threads).unwrap();
        check(&gpu, function, n, 60, params, 3);
    }
    let problem = PaperFunction::new(GaFunction::Step, 2).unwrap();
    let params = GaParams::new().with_paper_rng(16).unwrap();
    assert!(evo_ga::GaBatchCuda::new(params, &problem, 0, 2, &gpu).is_err());
}
