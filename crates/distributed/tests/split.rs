//! The population split (feature `nccl`): DE and MA-SW-Chains on a `SplitProblem` hold the same snapshots, bit
//! for bit, as on one GPU, for a built-in problem and a user's CUDA source; a bad row is named by its row in
//! the engine's population. Tests that need two GPUs print `SKIPPED (needs 2 GPUs, found N)` and pass on a
//! machine with fewer, also under `EVO_REQUIRE_GPU=1`; without any GPU, every test but the CPU ones prints
//! SKIPPED, and fails instead under `EVO_REQUIRE_GPU=1`. With the GPUs present, a missing libnccl skips the
//! several-GPU tests with the library's error, and fails them under `EVO_REQUIRE_GPU=1`.

#![cfg(feature = "nccl")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use evo_benchmarks::DeRastrigin;
use evo_benchmarks::cuda::{
    DeviceRealProblem, EvalSettings, RealEvaluator, Terms, UserData, UserProblem, UserTwin,
};
use evo_core::{Bounds, Engine, Error};
use evo_de::{DeCuda, DeParams, DeviceEvaluated, DeviceProblem};
use evo_distributed::{SplitEvaluator, SplitProblem};
use evo_gpu_runtime::{Gpu, Profile};
use evo_ma_sw_chains::{MaCuda, MaParams};

const SEED: u64 = 2032;
const GENERATIONS: usize = 50;

fn required() -> bool {
    std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

fn announce(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Every GPU when there are at least `needed`; `None` (printing why) otherwise. No GPU at all fails under
/// `EVO_REQUIRE_GPU=1`; fewer than `needed` never does (the GPUs are not there to test).
fn gpus_or_skip(test: &str, needed: usize) -> Option<Vec<Gpu>> {
    let gpus =
        Gpu::all().unwrap_or_else(|e| panic!("{test}: the CUDA devices could not be opened: {e}"));
    if gpus.is_empty() || !evo_gpu_runtime::nvrtc_present() {
        assert!(
            !required(),
            "{test}: no CUDA device or NVRTC, but EVO_REQUIRE_GPU=1 requires them"
        );
        announce(&format!("SKIPPED (no CUDA device or NVRTC): {test}"));
        return None;
    }
    if gpus.len() < needed {
        announce(&format!(
            "SKIPPED (needs {needed} GPUs, found {}): {test}",
            gpus.len()
        ));
        return None;
    }
    Some(gpus)
}

/// `result`, or `None` (printing the error) when libnccl is missing outside `EVO_REQUIRE_GPU=1`.
fn nccl_or_skip<T>(test: &str, result: evo_core::Result<T>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(error @ Error::LibraryNotFound { .. }) if !required() => {
            announce(&format!("SKIPPED ({error}): {test}"));
            None
        }
        Err(error) => panic!("{test}: {error}"),
    }
}

/// Rosenbrock as a user's CUDA source with its Rust twin (term i reads x_i and x_{i+1}).
#[derive(Clone)]
struct Rosenbrock;

impl UserTwin for Rosenbrock {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let (a, b) = (f64::from(x[i]), f64::from(x[i + 1]));
        t[0] = 100.0 * ((b - a * a) * (b - a * a)) + (1.0 - a) * (1.0 - a);
    }
}

const ROSENBROCK: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    const double a = (double)x[i], b = (double)x[i + 1];
    t[0] = 100.0 * ((b - a * a) * (b - a * a)) + (1.0 - a) * (1.0 - a);
}
"#;

fn rosenbrock(dimension: usize) -> UserProblem<Rosenbrock> {
    UserProblem::new(
        "rosenbrock",
        Bounds::uniform(dimension, -5.0, 10.0).unwrap(),
        ROSENBROCK,
        Rosenbrock,
    )
    .unwrap()
    .with_terms(Terms::DimensionMinus(1))
    .unwrap()
}

/// The square root of every coordinate: NaN for a negative one.
struct Roots;

impl UserTwin for Roots {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        t[0] = f64::from(x[i]).sqrt();
    }
}

const ROOTS: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    t[0] = sqrt((double)x[i]);
}
"#;

/// M = 37 (blocks of unequal size on 2 or 4 GPUs), jDE.
fn de_params() -> DeParams {
    DeParams::default()
        .with_population(37)
        .unwrap()
        .with_adaptation(evo_de::Adaptation::Jde)
}

/// The snapshots' bytes after each of `GENERATIONS` generations of `engine`.
fn de_history<P: DeviceProblem>(mut engine: DeCuda<P>) -> Vec<Vec<u8>> {
    (0..GENERATIONS)
        .map(|_| {
            engine.step().unwrap();
            postcard::to_allocvec(&engine.snapshot().unwrap()).unwrap()
        })
        .collect()
}

fn assert_same_history(what: &str, split: &[Vec<u8>], one_gpu: &[Vec<u8>]) {
    assert_eq!(split.len(), one_gpu.len());
    for (g, (a, b)) in split.iter().zip(one_gpu).enumerate() {
        assert!(
            a == b,
            "{what}: the snapshots differ after generation {}",
            g + 1
        );
    }
}

/// DE on `problem` split over `gpus` with the engine on `engine`, against DE on `engine` alone.
fn de_split_matches_one_gpu<P: DeviceRealProblem + Clone>(
    test: &str,
    what: &str,
    problem: &P,
    gpus: &[Gpu],
    engine: &Gpu,
) -> bool {
    let one_gpu = de_history(
        DeCuda::new(de_params(), DeviceEvaluated(problem.clone()), SEED, engine).unwrap(),
    );
    let split = SplitProblem::new(problem.clone(), gpus.to_vec()).unwrap();
    let Some(engine) = nccl_or_skip(test, DeCuda::new(de_params(), split, SEED, engine)) else {
        return false;
    };
    assert_same_history(what, &de_history(engine), &one_gpu);
    true
}

#[test]
fn a_split_over_one_gpu_is_the_identity_for_50_generations_of_de() {
    let test = "a_split_over_one_gpu_is_the_identity_for_50_generations_of_de";
    let Some(gpus) = gpus_or_skip(test, 1) else {
        return;
    };
    let one = &gpus[..1];
    assert!(de_split_matches_one_gpu(
        test,
        "Rastrigin",
        &DeRastrigin::new(12).unwrap(),
        one,
        &gpus[0]
    ));
    assert!(de_split_matches_one_gpu(
        test,
        "user Rosenbrock",
        &rosenbrock(12),
        one,
        &gpus[0]
    ));
    let listed_twice = SplitProblem::new(
        DeRastrigin::new(4).unwrap(),
        vec![gpus[0].clone(), gpus[0].clone()],
    );
    assert!(listed_twice.unwrap_err().to_string().contains("twice"));
}

#[test]
fn de_split_over_every_gpu_should_match_one_gpu() {
    let test = "de_split_over_every_gpu_should_match_one_gpu";
    let Some(gpus) = gpus_or_skip(test, 2) else {
        return;
    };
    if de_split_matches_one_gpu(
        test,
        "Rastrigin",
        &DeRastrigin::new(12).unwrap(),
        &gpus,
        &gpus[0],
    ) {
        assert!(de_split_matches_one_gpu(
            test,
            "user Rosenbrock",
            &rosenbrock(12),
            &gpus,
            &gpus[0]
        ));
    }
}

#[test]
fn an_engine_on_the_second_gpu_is_rank_0_of_its_split() {
    let test = "an_engine_on_the_second_gpu_is_rank_0_of_its_split";
    let Some(gpus) = gpus_or_skip(test, 2) else {
        return;
    };
    let problem = DeRastrigin::new(9).unwrap();
    let elsewhere = SplitEvaluator::new(&problem, &gpus[..1], &gpus[1]).unwrap_err();
    assert!(
        matches!(elsewhere, Error::InvalidParameter { .. }),
        "{elsewhere}"
    );
    let Some(evaluator) = nccl_or_skip(test, SplitEvaluator::new(&problem, &gpus, &gpus[1])) else {
        return;
    };
    let mut expected: Vec<usize> = vec![1, 0];
    expected.extend(2..gpus.len());
    assert_eq!(evaluator.devices(), expected);
    assert!(de_split_matches_one_gpu(
        test,
        "Rastrigin on GPU 1",
        &problem,
        &gpus,
        &gpus[1]
    ));
}

#[test]
fn ma_sw_chains_split_over_every_gpu_should_match_one_gpu() {
    let test = "ma_sw_chains_split_over_every_gpu_should_match_one_gpu";
    let Some(gpus) = gpus_or_skip(test, 2) else {
        return;
    };
    let params = MaParams::default().with_population(21).unwrap();
    let problem = DeRastrigin::new(16).unwrap();
    let split = SplitProblem::new(problem.clone(), gpus.clone()).unwrap();
    let history =
        |engine: &mut dyn FnMut() -> Vec<u8>| (0..20).map(|_| engine()).collect::<Vec<_>>();
    let mut one = MaCuda::new(params.clone(), &problem, SEED, &gpus[0]).unwrap();
    let one_gpu = history(&mut || {
        one.step().unwrap();
        postcard::to_allocvec(&one.snapshot().unwrap()).unwrap()
    });
    let Some(mut spread) = nccl_or_skip(test, MaCuda::new(params, &split, SEED, &gpus[0])) else {
        return;
    };
    let split_history = history(&mut || {
        spread.step().unwrap();
        postcard::to_allocvec(&spread.snapshot().unwrap()).unwrap()
    });
    assert_same_history("MA-SW-Chains on Rastrigin", &split_history, &one_gpu);
}

#[test]
fn a_non_finite_row_on_another_gpu_is_named_by_its_engine_row() {
    let test = "a_non_finite_row_on_another_gpu_is_named_by_its_engine_row";
    let Some(gpus) = gpus_or_skip(test, 2) else {
        return;
    };
    let d = 4;
    let problem = UserProblem::new(
        "roots",
        Bounds::uniform(d, -1.0, 1.0).unwrap(),
        ROOTS,
        Roots,
    )
    .unwrap();
    let Some(evaluator) = nccl_or_skip(test, SplitEvaluator::new(&problem, &gpus, &gpus[0])) else {
        return;
    };
    // Ten rows: with W GPUs the last row is on the last GPU.
    let n = 10;
    let bad = n - 1;
    let mut rows = vec![0.25f32; n * d];
    rows[bad * d + 2] = -1.0;
    let population = gpus[0].upload(&rows).unwrap();
    let mut fitness = gpus[0].alloc_zeroed::<f64>(n).unwrap();
    let settings = EvalSettings {
        profile: Profile::Exact,
        block: 128,
    };
    match evaluator.evaluate(&population, &mut fitness, settings) {
        Err(Error::NonFiniteFitness { individual, .. }) => assert_eq!(individual, bad),
        other => panic!("{test}: expected NonFiniteFitness for row {bad}, got {other:?}"),
    }
    // The good rows' values arrived, each equal to the twin's.
    let values = fitness.to_vec().unwrap();
    let twin = evo_core::ContinuousProblem::evaluate(&problem, &rows[..d]);
    for (row, value) in values.iter().enumerate().filter(|&(row, _)| row != bad) {
        assert_eq!(value.to_bits(), twin.to_bits(), "row {row}");
    }
}
