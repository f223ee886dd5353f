//! The fused CUDA path (`GaFusedCuda`, `GaFusedBatchCuda`: every step of G generations in one launch,
//! population in shared memory; block per run, or clustered: 8 blocks per run) equals the CPU engine bit for bit: the whole snapshot after every generation on
//! all eight functions, after G generations in one launch, for K runs in one launch, across a checkpoint, and
//! with precomputed draws (`set_precomputed_draws`: advances across the draw buffers' boundaries, restores).
//! Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Checkpointing, Engine, Executor, Termination};
use evo_ga::{GaCpu, GaFusedBatchCuda, GaFusedCuda, GaParams, GaSnapshot, PaperFunction};
use evo_gpu_runtime::Gpu;

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            let _ = writeln!(std::io::stderr().lock(), "SKIPPED (no CUDA device): {test}");
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

/// Panics at the first difference, naming the generation, the row, the word or fitness, and both values.
fn assert_same(context: &str, cpu: &GaSnapshot, gpu: &GaSnapshot) {
    let g = cpu.generation;
    assert_eq!(
        (cpu.generation, cpu.evaluations),
        (gpu.generation, gpu.evaluations),
        "{context}: counters"
    );
    let w = cpu.words();
    for (k, (a, b)) in cpu.population.iter().zip(&gpu.population).enumerate() {
        assert_eq!(
            a,
            b,
            "{context}: generation {g}, individual {}, word {}: cpu {a:#010x}, fused {b:#010x}",
            k / w,
            k % w
        );
    }
    for (i, (a, b)) in cpu.fitness.iter().zip(&gpu.fitness).enumerate() {
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "{context}: generation {g}, fitness of individual {i}: cpu {a:e}, fused {b:e}"
        );
    }
    assert_eq!(
        cpu.best, gpu.best,
        "{context}: generation {g}, best individual"
    );
    assert_eq!(
        cpu.best_fitness.to_bits(),
        gpu.best_fitness.to_bits(),
        "{context}: generation {g}, best fitness"
    );
    assert!(
        cpu.bit_identical(gpu),
        "{context}: generation {g}, snapshot"
    );
}

/// The fused engine, block per run or (clustered) a cluster of 8 blocks per run.
fn fused_engine(
    params: GaParams,
    problem: &PaperFunction,
    seed: u64,
    gpu: &Gpu,
    clustered: bool,
) -> GaFusedCuda {
    if clustered {
        GaFusedCuda::new_clustered(params, problem, seed, gpu).unwrap()
    } else {
        GaFusedCuda::new(params, problem, seed, gpu).unwrap()
    }
}

/// One generation per launch through `Engine::step`, compared after every generation.
fn check_every_generation(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    generations: u64,
    params: GaParams,
    seed: u64,
    clustered: bool,
) {
    let problem = PaperFunction::new(function, n).unwrap();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed).unwrap();
    let mut fused = fused_engine(params.clone(), &problem, seed, gpu, clustered);
    let context = format!(
        "{} n={n} clustered {clustered} block {} (runs with {})",
        function.name(),
        params.block_size(),
        fused.block_size()
    );
    assert_same(
        &context,
        &cpu.snapshot().unwrap(),
        &fused.snapshot().unwrap(),
    );
    for _ in 0..generations {
        cpu.step().unwrap();
        fused.step().unwrap();
        assert_same(
            &context,
            &cpu.snapshot().unwrap(),
            &fused.snapshot().unwrap(),
        );
        assert_eq!(cpu.progress(), fused.progress(), "{context}: progress");
    }
    assert_eq!(
        cpu.best().unwrap(),
        fused.best().unwrap(),
        "{context}: best"
    );
}

/// G generations per launch (the chunks in `launches`), compared after each launch.
fn check_launches(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    launches: &[u32],
    params: GaParams,
    seed: u64,
    clustered: bool,
) {
    let problem = PaperFunction::new(function, n).unwrap();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed).unwrap();
    let mut fused = fused_engine(params, &problem, seed, gpu, clustered);
    for &g in launches {
        fused.advance(g).unwrap();
        for _ in 0..g {
            cpu.step().unwrap();
        }
        let context = format!(
            "{} n={n} clustered {clustered}, launch of {g} generations",
            function.name()
        );
        assert_same(
            &context,
            &cpu.snapshot().unwrap(),
            &fused.snapshot().unwrap(),
        );
        assert_eq!(cpu.progress(), fused.progress(), "{context}: progress");
    }
}

#[test]
fn fused_engine_should_match_cpu_for_200_generations_on_all_eight_functions() {
    let Some(gpu) =
        gpu_or_skip("fused_engine_should_match_cpu_for_200_generations_on_all_eight_functions")
    else {
        return;
    };
    for (k, function) in GaFunction::ALL.into_iter().enumerate() {
        check_every_generation(
            &gpu,
            function,
            32,
            200,
            GaParams::new(),
            1000 + k as u64,
            false,
        );
    }
    // The block size does not change the results.
    let params = GaParams::new().with_block_size(64).unwrap();
    check_every_generation(&gpu, GaFunction::Griewank, 32, 20, params, 1004, false);
}

#[test]
fn fused_engine_should_match_cpu_at_n_128() {
    let Some(gpu) = gpu_or_skip("fused_engine_should_match_cpu_at_n_128") else {
        return;
    };
    for (k, function) in GaFunction::ALL.into_iter().enumerate() {
        check_every_generation(
            &gpu,
            function,
            128,
            20,
            GaParams::new(),
            77 + k as u64,
            false,
        );
    }
    let params = GaParams::new().with_block_size(1024).unwrap();
    check_every_generation(&gpu, GaFunction::Ackley, 128, 10, params, 78, false);
}

/// G generations per launch on all eight functions, at n = 128, and with other parameters.
fn check_g_generations(gpu: &Gpu, clustered: bool) {
    for function in GaFunction::ALL {
        check_launches(gpu, function, 32, &[200], GaParams::new(), 31, clustered);
    }
    check_launches(
        gpu,
        GaFunction::Rastrigin,
        128,
        &[1, 50, 7],
        GaParams::new(),
        32,
        clustered,
    );
    // Other parameters: odd N, tournament 3, two elites (then none), p_c < 1, a larger p_m, few variables.
    let params = GaParams::new()
        .with_population(37)
        .unwrap()
        .with_tournament_size(3)
        .unwrap()
        .with_elite(2)
        .unwrap()
        .with_crossover_rate(0.7)
        .unwrap()
        .with_mutation_rate(0.01)
        .unwrap()
        .with_block_size(64)
        .unwrap();
    check_launches(
        gpu,
        GaFunction::Ridge,
        5,
        &[60, 3],
        params.clone(),
        5,
        clustered,
    );
    check_launches(
        gpu,
        GaFunction::Rosenbrock,
        3,
        &[60],
        params.clone(),
        5,
        clustered,
    );
    let no_elite = params.with_elite(0).unwrap();
    check_launches(gpu, GaFunction::Ackley, 3, &[60], no_elite, 6, clustered);
}

#[test]
fn g_generations_in_one_launch_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("g_generations_in_one_launch_should_match_cpu") else {
        return;
    };
    check_g_generations(&gpu, false);
}

#[test]
fn clustered_fused_engine_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("clustered_fused_engine_should_match_cpu") else {
        return;
    };
    check_g_generations(&gpu, true);
    for (k, function) in GaFunction::ALL.into_iter().enumerate() {
        check_every_generation(
            &gpu,
            function,
            32,
            30,
            GaParams::new(),
            500 + k as u64,
            true,
        );
    }
    check_every_generation(
        &gpu,
        GaFunction::Griewank,
        128,
        10,
        GaParams::new(),
        600,
        true,
    );
}

#[test]
fn fused_batched_runs_should_match_separate_cpu_runs() {
    let Some(gpu) = gpu_or_skip("fused_batched_runs_should_match_separate_cpu_runs") else {
        return;
    };
    for (function, n, clustered) in [
        (GaFunction::Rastrigin, 32, false),
        (GaFunction::Ridge, 128, false),
        (GaFunction::Schwefel, 32, true),
        (GaFunction::Ridge, 128, true),
    ] {
        let problem = PaperFunction::new(function, n).unwrap();
        let params = GaParams::new();
        let base = u64::MAX - 1; // runs 0, 1, 2 have seeds 2^64 − 2, 2^64 − 1 and 0 (wrapping).
        let mut batch = if clustered {
            GaFusedBatchCuda::new_clustered(params.clone(), &problem, base, 3, &gpu).unwrap()
        } else {
            GaFusedBatchCuda::new(params.clone(), &problem, base, 3, &gpu).unwrap()
        };
        let mut cpus: Vec<_> = (0..3u64)
            .map(|r| GaCpu::new(params.clone(), problem.clone(), base.wrapping_add(r)).unwrap())
            .collect();
        for g in [0u32, 1, 9, 30] {
            batch.advance(g).unwrap();
            for cpu in &mut cpus {
                for _ in 0..g {
                    cpu.step().unwrap();
                }
            }
            for (run, cpu) in cpus.iter().enumerate() {
                let context = format!(
                    "fused batch run {run}, {} n={n}, clustered {clustered}",
                    function.name()
                );
                assert_same(
                    &context,
                    &cpu.snapshot().unwrap(),
                    &batch.snapshot(run).unwrap(),
                );
            }
        }
        batch.check_finite().unwrap();
        let best: Vec<f64> = cpus.iter().map(|c| c.progress().best_fitness).collect();
        assert_eq!(batch.best_fitness().unwrap(), best);
        assert!(batch.snapshot(3).is_err());
    }
}

#[test]
fn fused_snapshots_move_between_backends_and_checkpoints_resume() {
    let Some(gpu) = gpu_or_skip("fused_snapshots_move_between_backends_and_checkpoints_resume")
    else {
        return;
    };
    // CPU → fused → CPU.
    let problem = PaperFunction::new(GaFunction::Schwefel, 32).unwrap();
    let params = GaParams::new();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    for _ in 0..10 {
        cpu.step().unwrap();
    }
    let mut fused = GaFusedCuda::new(params.clone(), &problem, 9, &gpu).unwrap();
    fused.restore(&cpu.snapshot().unwrap()).unwrap();
    fused.advance(10).unwrap();
    let mut reference = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    for _ in 0..20 {
        reference.step().unwrap();
    }
    assert_same(
        "schwefel restored on the fused engine",
        &reference.snapshot().unwrap(),
        &fused.snapshot().unwrap(),
    );
    cpu.restore(&fused.snapshot().unwrap()).unwrap();
    cpu.step().unwrap();
    reference.step().unwrap();
    assert_same(
        "schwefel restored back on the CPU",
        &reference.snapshot().unwrap(),
        &cpu.snapshot().unwrap(),
    );

    // Executor checkpoint and resume on the fused engine equal an uninterrupted CPU run.
    let dir = std::env::temp_dir().join(format!("evo-ga-fused-checkpoint-{}", std::process::id()));
    let path = dir.join("ga.json");
    let whole = Executor::new(GaCpu::new(params.clone(), problem.clone(), 99).unwrap())
        .with_termination(Termination::new().with_max_generations(30))
        .unwrap()
        .run()
        .unwrap();
    let make = || GaFusedCuda::new(params.clone(), &problem, 99, &gpu).unwrap();
    Executor::new(make())
        .with_termination(Termination::new().with_max_generations(12))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 4).unwrap())
        .run()
        .unwrap();
    let resumed = Executor::new(make())
        .with_termination(Termination::new().with_max_generations(30))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 4).unwrap())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(resumed.generations, 30);
    assert_eq!(resumed.best, whole.best);
    assert_eq!(resumed.best_fitness.to_bits(), whole.best_fitness.to_bits());
    assert_eq!(resumed.evaluations, whole.evaluations);
}

#[test]
fn fused_engine_should_refuse_what_it_cannot_run() {
    let Some(gpu) = gpu_or_skip("fused_engine_should_refuse_what_it_cannot_run") else {
        return;
    };
    let problem = PaperFunction::new(GaFunction::Step, 2).unwrap();
    let paper = GaParams::new().with_paper_rng(16).unwrap();
    assert!(GaFusedCuda::new(paper, &problem, 0, &gpu).is_err());
    assert!(GaFusedBatchCuda::new(GaParams::new(), &problem, 0, 0, &gpu).is_err());
    // 4096 individuals of 2048 bits need 2 MiB of shared memory.
    let large = PaperFunction::new(GaFunction::Step, 128).unwrap();
    let params = GaParams::new().with_population(4096).unwrap();
    assert!(GaFusedCuda::new(params, &large, 0, &gpu).is_err());
    // Draw buffers beyond 2^31 words.
    let mut fused = GaFusedCuda::new(GaParams::new(), &large, 0, &gpu).unwrap();
    assert!(fused.set_precomputed_draws(u32::MAX).is_err());
}

/// Precomputed draws: `plan` is a list of (buffer generations, generations to advance); the buffers are
/// resized before each advance (0: drawn inside the fused kernel), and the snapshot is compared after it.
#[allow(clippy::too_many_arguments)]
fn check_draws(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    params: GaParams,
    seed: u64,
    clustered: bool,
    plan: &[(u32, u32)],
) {
    let problem = PaperFunction::new(function, n).unwrap();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed).unwrap();
    let mut fused = fused_engine(params, &problem, seed, gpu, clustered);
    for &(capacity, g) in plan {
        fused.set_precomputed_draws(capacity).unwrap();
        fused.advance(g).unwrap();
        for _ in 0..g {
            cpu.step().unwrap();
        }
        let context = format!(
            "{} n={n} clustered {clustered}, precomputed draws for {capacity} generations, advance {g}",
            function.name()
        );
        assert_same(
            &context,
            &cpu.snapshot().unwrap(),
            &fused.snapshot().unwrap(),
        );
        assert_eq!(cpu.progress(), fused.progress(), "{context}: progress");
    }
}

#[test]
fn precomputed_draws_should_match_cpu_across_buffer_boundaries() {
    let Some(gpu) = gpu_or_skip("precomputed_draws_should_match_cpu_across_buffer_boundaries")
    else {
        return;
    };
    // Buffers of 7 generations: advances below, at, just past and over twice the buffer, then the buffers
    // resized, switched off and on again mid-run.
    let plan = [
        (7, 1),
        (7, 6),
        (7, 7),
        (7, 8),
        (7, 15),
        (3, 4),
        (0, 5),
        (64, 20),
        (1, 2),
    ];
    let wide = GaParams::new().with_block_size(1024).unwrap();
    for clustered in [false, true] {
        for (k, function) in GaFunction::ALL.into_iter().enumerate() {
            check_draws(
                &gpu,
                function,
                32,
                wide.clone(),
                700 + k as u64,
                clustered,
                &plan,
            );
        }
        check_draws(
            &gpu,
            GaFunction::Ridge,
            128,
            wide.clone(),
            710,
            clustered,
            &plan,
        );
        check_draws(
            &gpu,
            GaFunction::Griewank,
            128,
            GaParams::new(),
            711,
            clustered,
            &plan,
        );
        // Odd N, tournament 3, two elites, p_c < 1, W = 3 (fewer words than staged entries).
        let odd = GaParams::new()
            .with_population(37)
            .unwrap()
            .with_tournament_size(3)
            .unwrap()
            .with_elite(2)
            .unwrap()
            .with_crossover_rate(0.7)
            .unwrap()
            .with_mutation_rate(0.01)
            .unwrap()
            .with_block_size(64)
            .unwrap();
        check_draws(
            &gpu,
            GaFunction::Rosenbrock,
            5,
            odd.clone(),
            712,
            clustered,
            &plan,
        );
        // p_m = 0.2: about 6 flipped bits per word, every word of a row non-zero, so most entries lie past
        // the staged ones (read from global memory); and p_m = 0 (no entries at all).
        check_draws(
            &gpu,
            GaFunction::Rastrigin,
            32,
            odd.clone().with_mutation_rate(0.2).unwrap(),
            713,
            clustered,
            &plan,
        );
        check_draws(
            &gpu,
            GaFunction::Step,
            32,
            odd.with_mutation_rate(0.0).unwrap(),
            714,
            clustered,
            &plan,
        );
    }
}

#[test]
fn precomputed_draws_should_serve_batches_and_restores() {
    let Some(gpu) = gpu_or_skip("precomputed_draws_should_serve_batches_and_restores") else {
        return;
    };
    // K = 3 runs (run r's draws at slot r · G + g), buffers of 8 generations.
    for (function, n, clustered) in [
        (GaFunction::Ackley, 32, false),
        (GaFunction::Ridge, 128, true),
    ] {
        let problem = PaperFunction::new(function, n).unwrap();
        let params = GaParams::new();
        let base = 40;
        let mut batch = if clustered {
            GaFusedBatchCuda::new_clustered(params.clone(), &problem, base, 3, &gpu).unwrap()
        } else {
            GaFusedBatchCuda::new(params.clone(), &problem, base, 3, &gpu).unwrap()
        };
        batch.set_precomputed_draws(8).unwrap();
        assert_eq!(batch.precomputed_draws(), 8);
        let mut cpus: Vec<_> = (0..3u64)
            .map(|r| GaCpu::new(params.clone(), problem.clone(), base + r).unwrap())
            .collect();
        for g in [1u32, 8, 9, 30] {
            batch.advance(g).unwrap();
            for cpu in &mut cpus {
                for _ in 0..g {
                    cpu.step().unwrap();
                }
            }
            for (run, cpu) in cpus.iter().enumerate() {
                assert_same(
                    &format!(
                        "fused batch with draws, run {run}, {} n={n}, clustered {clustered}",
                        function.name()
                    ),
                    &cpu.snapshot().unwrap(),
                    &batch.snapshot(run).unwrap(),
                );
            }
        }
    }

    // Restore mid-run (generation 10, inside a buffer's span) on an engine with draws, then advance across
    // buffer boundaries.
    let problem = PaperFunction::new(GaFunction::Schwefel, 32).unwrap();
    let params = GaParams::new();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    for _ in 0..10 {
        cpu.step().unwrap();
    }
    let mut fused = GaFusedCuda::new(params.clone(), &problem, 9, &gpu).unwrap();
    fused.set_precomputed_draws(4).unwrap();
    fused.advance(3).unwrap();
    fused.restore(&cpu.snapshot().unwrap()).unwrap();
    fused.advance(13).unwrap();
    for _ in 0..13 {
        cpu.step().unwrap();
    }
    assert_same(
        "schwefel restored at generation 10 on the fused engine with draws",
        &cpu.snapshot().unwrap(),
        &fused.snapshot().unwrap(),
    );

    // Executor checkpoint and resume (one generation per step) with draws equal an uninterrupted CPU run.
    let dir = std::env::temp_dir().join(format!("evo-ga-draws-checkpoint-{}", std::process::id()));
    let path = dir.join("ga.json");
    let whole = Executor::new(GaCpu::new(params.clone(), problem.clone(), 99).unwrap())
        .with_termination(Termination::new().with_max_generations(25))
        .unwrap()
        .run()
        .unwrap();
    let make = || {
        let mut engine = GaFusedCuda::new(params.clone(), &problem, 99, &gpu).unwrap();
        engine.set_precomputed_draws(5).unwrap();
        engine
    };
    Executor::new(make())
        .with_termination(Termination::new().with_max_generations(11))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 3).unwrap())
        .run()
        .unwrap();
    let resumed = Executor::new(make())
        .with_termination(Termination::new().with_max_generations(25))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 3).unwrap())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(resumed.generations, 25);
    assert_eq!(resumed.best, whole.best);
    assert_eq!(resumed.best_fitness.to_bits(), whole.best_fitness.to_bits());
    assert_eq!(resumed.evaluations, whole.evaluations);
}
