//! The fused CUDA path (`GaFusedCuda`, `GaFusedBatchCuda`: every step of G generations in one launch,
//! population in shared memory; block per run, or clustered: 8 blocks per run) equals the CPU engine bit for bit: the whole snapshot after every generation on
//! all eight functions, after G generations in one launch, for K runs in one launch, across a checkpoint, and
//! with precomputed draws (`set_precomputed_draws`: advances across the draw buffers' boundaries, restores).
//! Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{
    assert_lockstep, assert_resume_matches, assert_same, gpu_or_skip, other_params, steps,
};
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::Engine;
use evo_ga::{GaCpu, GaFusedBatchCuda, GaFusedCuda, GaParams, PaperFunction};
use evo_gpu_runtime::Gpu;

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
    assert_lockstep(&context, &mut cpu, &mut fused, generations);
    assert_eq!(
        cpu.best().unwrap(),
        fused.best().unwrap(),
        "{context}: best"
    );
}

/// [`check_every_generation`] on all eight functions with the paper's parameters, function k from seed
/// `first_seed + k`.
fn check_all_functions(gpu: &Gpu, n: usize, generations: u64, first_seed: u64, clustered: bool) {
    for (k, function) in GaFunction::ALL.into_iter().enumerate() {
        let seed = first_seed + k as u64;
        check_every_generation(
            gpu,
            function,
            n,
            generations,
            GaParams::new(),
            seed,
            clustered,
        );
    }
}

/// G generations per launch, compared after each launch. `plan` lists (precomputed draw buffers, generations
/// to advance): the buffers are resized to the given generations before the advance (0: drawn inside the
/// fused kernel), or left as they are (`None`: drawn inside the kernel unless set earlier).
#[allow(clippy::too_many_arguments)]
fn check_advances(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    params: GaParams,
    seed: u64,
    clustered: bool,
    plan: &[(Option<u32>, u32)],
) {
    let problem = PaperFunction::new(function, n).unwrap();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), seed).unwrap();
    let mut fused = fused_engine(params, &problem, seed, gpu, clustered);
    for &(capacity, g) in plan {
        let draws = match capacity {
            Some(capacity) => {
                fused.set_precomputed_draws(capacity).unwrap();
                format!("precomputed draws for {capacity} generations, advance {g}")
            }
            None => format!("launch of {g} generations"),
        };
        fused.advance(g).unwrap();
        steps(&mut cpu, u64::from(g));
        let context = format!("{} n={n} clustered {clustered}, {draws}", function.name());
        assert_same(
            &context,
            &cpu.snapshot().unwrap(),
            &fused.snapshot().unwrap(),
        );
        assert_eq!(cpu.progress(), fused.progress(), "{context}: progress");
    }
}

/// G generations per launch with the kernel's own draws: one launch per entry of `launches`.
fn check_launches(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    launches: &[u32],
    params: GaParams,
    seed: u64,
    clustered: bool,
) {
    let plan: Vec<_> = launches.iter().map(|&g| (None, g)).collect();
    check_advances(gpu, function, n, params, seed, clustered, &plan);
}

/// K = 3 runs (seeds `base`, `base + 1`, `base + 2`, wrapping) in one fused batch, with precomputed draw
/// buffers of `draws` generations when given, advanced by each of `advances` and compared run by run with
/// three CPU runs after each advance; returns the batch and the CPU runs for further checks.
fn check_batch(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    base: u64,
    clustered: bool,
    draws: Option<u32>,
    advances: &[u32],
) -> (GaFusedBatchCuda, Vec<GaCpu<PaperFunction>>) {
    let problem = PaperFunction::new(function, n).unwrap();
    let params = GaParams::new();
    let mut batch = if clustered {
        GaFusedBatchCuda::new_clustered(params.clone(), &problem, base, 3, gpu).unwrap()
    } else {
        GaFusedBatchCuda::new(params.clone(), &problem, base, 3, gpu).unwrap()
    };
    if let Some(draws) = draws {
        batch.set_precomputed_draws(draws).unwrap();
        assert_eq!(batch.precomputed_draws(), draws);
    }
    let mut cpus: Vec<_> = (0..3u64)
        .map(|r| GaCpu::new(params.clone(), problem.clone(), base.wrapping_add(r)).unwrap())
        .collect();
    for &g in advances {
        batch.advance(g).unwrap();
        for cpu in &mut cpus {
            steps(cpu, u64::from(g));
        }
        for (run, cpu) in cpus.iter().enumerate() {
            let context = format!(
                "fused batch run {run} (draws {draws:?}), {} n={n}, clustered {clustered}",
                function.name()
            );
            assert_same(
                &context,
                &cpu.snapshot().unwrap(),
                &batch.snapshot(run).unwrap(),
            );
        }
    }
    (batch, cpus)
}

#[test]
fn fused_engine_should_match_cpu_for_200_generations_on_all_eight_functions() {
    let Some(gpu) =
        gpu_or_skip("fused_engine_should_match_cpu_for_200_generations_on_all_eight_functions")
    else {
        return;
    };
    check_all_functions(&gpu, 32, 200, 1000, false);
    // The block size does not change the results.
    let params = GaParams::new().with_block_size(64).unwrap();
    check_every_generation(&gpu, GaFunction::Griewank, 32, 20, params, 1004, false);
}

#[test]
fn fused_engine_should_match_cpu_at_n_128() {
    let Some(gpu) = gpu_or_skip("fused_engine_should_match_cpu_at_n_128") else {
        return;
    };
    check_all_functions(&gpu, 128, 20, 77, false);
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
    let params = other_params();
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
    check_all_functions(&gpu, 32, 30, 500, true);
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

/// A short case for the sanitizers (racecheck runs the full tests too slowly): the clustered kernel for 3
/// generations one at a time and 4 in one launch, n = 32, Griewank (every shared-memory path: the slice
/// exchange, the keys, the ranks, the best).
#[test]
fn clustered_short_run_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("clustered_short_run_should_match_cpu") else {
        return;
    };
    check_every_generation(&gpu, GaFunction::Griewank, 32, 3, GaParams::new(), 77, true);
    check_launches(
        &gpu,
        GaFunction::Griewank,
        32,
        &[4],
        GaParams::new(),
        78,
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
        // Runs 0, 1, 2 have seeds 2^64 − 2, 2^64 − 1 and 0 (wrapping).
        let (batch, cpus) = check_batch(
            &gpu,
            function,
            n,
            u64::MAX - 1,
            clustered,
            None,
            &[0, 1, 9, 30],
        );
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
    steps(&mut cpu, 10);
    let mut fused = GaFusedCuda::new(params.clone(), &problem, 9, &gpu).unwrap();
    fused.restore(&cpu.snapshot().unwrap()).unwrap();
    fused.advance(10).unwrap();
    let mut reference = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    steps(&mut reference, 20);
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
    assert_resume_matches(
        "evo-ga-fused-checkpoint",
        GaCpu::new(params.clone(), problem.clone(), 99).unwrap(),
        || GaFusedCuda::new(params.clone(), &problem, 99, &gpu).unwrap(),
        12,
        30,
        4,
    );
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
fn check_draws(
    gpu: &Gpu,
    function: GaFunction,
    n: usize,
    params: GaParams,
    seed: u64,
    clustered: bool,
    plan: &[(u32, u32)],
) {
    let plan: Vec<_> = plan
        .iter()
        .map(|&(capacity, g)| (Some(capacity), g))
        .collect();
    check_advances(gpu, function, n, params, seed, clustered, &plan);
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
        let odd = other_params();
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
        check_batch(&gpu, function, n, 40, clustered, Some(8), &[1, 8, 9, 30]);
    }

    // Restore mid-run (generation 10, inside a buffer's span) on an engine with draws, then advance across
    // buffer boundaries.
    let problem = PaperFunction::new(GaFunction::Schwefel, 32).unwrap();
    let params = GaParams::new();
    let mut cpu = GaCpu::new(params.clone(), problem.clone(), 9).unwrap();
    steps(&mut cpu, 10);
    let mut fused = GaFusedCuda::new(params.clone(), &problem, 9, &gpu).unwrap();
    fused.set_precomputed_draws(4).unwrap();
    fused.advance(3).unwrap();
    fused.restore(&cpu.snapshot().unwrap()).unwrap();
    fused.advance(13).unwrap();
    steps(&mut cpu, 13);
    assert_same(
        "schwefel restored at generation 10 on the fused engine with draws",
        &cpu.snapshot().unwrap(),
        &fused.snapshot().unwrap(),
    );

    // Executor checkpoint and resume (one generation per step) with draws equal an uninterrupted CPU run.
    assert_resume_matches(
        "evo-ga-draws-checkpoint",
        GaCpu::new(params.clone(), problem.clone(), 99).unwrap(),
        || {
            let mut engine = GaFusedCuda::new(params.clone(), &problem, 99, &gpu).unwrap();
            engine.set_precomputed_draws(5).unwrap();
            engine
        },
        11,
        25,
        3,
    );
}
