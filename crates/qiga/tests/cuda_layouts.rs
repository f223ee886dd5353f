//! The CUDA engine keeps a run's state in the block's shared memory when it fits and in global memory
//! otherwise (`kernels/cuda/qiga.cu`, `qiga_generations_in`); both layouts equal the CPU engine bit for bit.
//! The workspace's equivalence suite (knapsack-250, population 10, one launch per generation) exercises the
//! shared layout; these tests add many generations per launch in it, and take a population × items too large
//! for it, with exact sums (the warp repair) and inexact ones (the serial repair), the paper's options and the
//! practical ones. Skip (printing SKIPPED) without a GPU; fail instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::Knapsack;
use evo_benchmarks::knapsack::KnapsackClass;
use evo_core::Engine;
use evo_gpu_runtime::Gpu;
use evo_qiga::cuda::launch::shared_layout;
use evo_qiga::params::MAX_POPULATION;
use evo_qiga::{
    KnapsackOptions, QigaCpu, QigaCuda, QigaParams, QuadrantRule, RotationAngles, RunConfig,
    SignChoice,
};

/// Items enough that 64 individuals exceed any shared memory per block (227 KiB on an H100): 64 × 2 000 genes
/// take 660 KB.
const ITEMS: usize = 2_000;

fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            eprintln!("SKIPPED (no CUDA device): {test}");
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

fn runs() -> Vec<RunConfig> {
    let tuned = RotationAngles::try_from([0.231, 0.039, 0.282, 0.349, 0.349]).unwrap();
    RunConfig::batch(7, &[RotationAngles::ORIGINAL, tuned])
}

/// Steps the CPU and the CUDA engine side by side: `single` generations one launch each, then one launch of
/// `batched` generations; the snapshots must be equal after each. `shared` is the layout the test means to
/// reach.
fn assert_equal_runs(
    gpu: &Gpu,
    params: &QigaParams,
    problem: &Knapsack,
    shared: bool,
    single: u32,
    batched: u32,
) {
    assert_eq!(
        shared_layout(gpu, params.population(), problem.len()).unwrap(),
        shared,
        "the layout of {} × {} genes",
        params.population(),
        problem.len()
    );
    let mut cpu = QigaCpu::batch(params, problem, runs(), 1).unwrap();
    let mut cuda = QigaCuda::batch(params, problem, runs(), gpu).unwrap();
    assert_eq!(
        cpu.snapshot().unwrap(),
        cuda.snapshot().unwrap(),
        "generation 0"
    );
    for generation in 1..=single {
        cpu.step().unwrap();
        cuda.step().unwrap();
        assert_eq!(
            cpu.snapshot().unwrap(),
            cuda.snapshot().unwrap(),
            "generation {generation}"
        );
    }
    for _ in 0..batched {
        cpu.step().unwrap();
    }
    cuda.run_generations(batched).unwrap();
    assert_eq!(
        cpu.snapshot().unwrap(),
        cuda.snapshot().unwrap(),
        "generation {} (one launch of {batched})",
        single + batched
    );
}

fn params(population: usize, options: KnapsackOptions) -> QigaParams {
    QigaParams::default()
        .with_population(population)
        .unwrap()
        .with_options(options)
}

#[test]
fn the_global_layout_with_exact_sums_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("the_global_layout_with_exact_sums_should_match_cpu") else {
        return;
    };
    let problem =
        Knapsack::generate_class(KnapsackClass::StronglyCorrelated, ITEMS, 1_000, 3).unwrap();
    assert_equal_runs(
        &gpu,
        &params(MAX_POPULATION, KnapsackOptions::PAPER),
        &problem,
        false,
        6,
        10,
    );
}

#[test]
fn the_global_layout_with_inexact_sums_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("the_global_layout_with_inexact_sums_should_match_cpu") else {
        return;
    };
    let problem = Knapsack::generate(ITEMS + 1, 5).unwrap();
    let params =
        params(MAX_POPULATION, KnapsackOptions::PAPER).with_sign_choice(SignChoice::Random);
    assert_equal_runs(&gpu, &params, &problem, false, 4, 6);
}

#[test]
fn the_global_layout_with_the_practical_options_should_match_cpu() {
    let Some(gpu) = gpu_or_skip("the_global_layout_with_the_practical_options_should_match_cpu")
    else {
        return;
    };
    let problem =
        Knapsack::generate_class(KnapsackClass::WeaklyCorrelated, ITEMS + 3, 1_000, 9).unwrap();
    assert_equal_runs(
        &gpu,
        &params(MAX_POPULATION, KnapsackOptions::PRACTICAL),
        &problem,
        false,
        4,
        6,
    );
}

#[test]
fn many_generations_per_launch_in_the_shared_layout_should_match_cpu() {
    let Some(gpu) =
        gpu_or_skip("many_generations_per_launch_in_the_shared_layout_should_match_cpu")
    else {
        return;
    };
    let exact = Knapsack::generate_class(KnapsackClass::Uncorrelated, 250, 100, 4).unwrap();
    let inexact = Knapsack::generate(253, 6).unwrap();
    for problem in [&exact, &inexact] {
        for population in [10, 33] {
            let paper = params(population, KnapsackOptions::PAPER);
            assert_equal_runs(&gpu, &paper, problem, true, 3, 60);
            let quirks = paper
                .with_sign_choice(SignChoice::Random)
                .with_quadrant_rule(QuadrantRule::NowotniakQuirk);
            assert_equal_runs(&gpu, &quirks, problem, true, 2, 40);
            let practical = params(population, KnapsackOptions::PRACTICAL);
            assert_equal_runs(&gpu, &practical, problem, true, 2, 40);
        }
    }
}
