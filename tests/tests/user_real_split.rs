//! The work split of a user real-vector problem's device evaluation (issue 29, "Speed"): rows of fewer than
//! 32 terms sharing a warp, rows of one block, rows of several tiles and a finish kernel, each giving the Rust
//! twin's bits under the Exact profile, for one to four combined sums and data arrays; and an engine that
//! checks the fitness itself (MA-SW-Chains) getting evaluations that only queue their launches. GPU checks
//! skip without a device and fail under `EVO_REQUIRE_GPU=1`.

use evo_benchmarks::cuda::{
    DataLength, DeviceRealProblem, EvalSettings, RealEvaluator, Terms, UserData, UserProblem,
    UserTwin,
};
use evo_core::math::{cos_f64, exp_f64};
use evo_core::{Bounds, ContinuousProblem, Engine, Error, Result};
use evo_equivalence::gate::gpu_or_skip;
use evo_equivalence::suite::ma::compare_snapshots;
use evo_equivalence::suite::user_real::{self, UserCase, ackley, check_ma, rosenbrock};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Dimensions around every boundary of the split: below a warp (1, 3, 5, 17, 31), one warp (32), one block
/// (33, 100, 255, 256), one tile of several rounds (257, 1000, 2047, 2048), several tiles (2049, 5000) and a
/// long row (100 000, 49 tiles of 2048).
const DIMENSIONS: [usize; 17] = [
    1, 2, 3, 5, 17, 31, 32, 33, 100, 255, 256, 257, 1000, 2047, 2048, 2049, 5000,
];
/// The rows of each evaluation: one, a count that leaves the last warp of short rows partly empty, and more.
const ROWS: [usize; 3] = [1, 7, 64];
/// A long row, evaluated for fewer rows.
const LONG: usize = 100_000;

/// Four sums combined: `Σ z`, `Σ z²`, `Σ cos(2π z)`, `Σ w_i z` with weights `w` of one per coordinate.
#[derive(Clone, Copy, Debug)]
struct FourSumsTwin;

impl UserTwin for FourSumsTwin {
    fn terms(&self, i: usize, x: &[f32], data: &UserData, t: &mut [f64]) {
        let z = f64::from(x[i]);
        let w = data.f32("w").map_or(0.0, |w| f64::from(w[i]));
        t[0] = z;
        t[1] = z * z;
        t[2] = cos_f64(std::f64::consts::TAU * z);
        t[3] = w * z;
    }

    fn combine(&self, sums: &[f64], dimension: usize, _: &UserData) -> f64 {
        let n = dimension as f64;
        (sums[1] / n - (sums[0] / n) * (sums[0] / n)) + exp_f64(sums[2] / n) + sums[3]
    }
}

const FOUR_SUMS_SOURCE: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    const double w = (double)data.w[i];
    t[0] = z;
    t[1] = z * z;
    t[2] = evo_cos_f64(6.283185307179586 * z);
    t[3] = w * z;
}

__device__ double evo_user_combine(const double* sums, unsigned long long d, const EvoUserData& data)
{
    const double n = (double)d;
    return (sums[1] / n - (sums[0] / n) * (sums[0] / n)) + evo_exp_f64(sums[2] / n) + sums[3];
}
"#;

/// [`FOUR_SUMS_SOURCE`] at `d` with weights `1 + (i mod 7) / 8`.
fn four_sums(d: usize) -> UserProblem<FourSumsTwin> {
    let weights = (0..d).map(|i| 1.0 + (i % 7) as f32 / 8.0).collect();
    let data = UserData::new()
        .with_f32("w", weights, DataLength::Dimension)
        .unwrap();
    UserProblem::new(
        "four-sums",
        Bounds::uniform(d, -4.0, 4.0).unwrap(),
        FOUR_SUMS_SOURCE,
        FourSumsTwin,
    )
    .and_then(|p| p.with_combined_sums(4))
    .and_then(|p| p.with_data(data))
    .unwrap()
}

/// Three sums over a fixed count of data points whatever `D` (`Terms::Count`), combined as their product.
#[derive(Clone, Copy, Debug)]
struct PointsTwin;

impl UserTwin for PointsTwin {
    fn terms(&self, i: usize, x: &[f32], data: &UserData, t: &mut [f64]) {
        let p = data.f64("p").map_or(0.0, |p| p[i]);
        let z = f64::from(x[i % x.len()]);
        t[0] = p * z;
        t[1] = p * p;
        t[2] = (z - p) * (z - p);
    }

    fn combine(&self, sums: &[f64], _: usize, _: &UserData) -> f64 {
        sums[0] * sums[1] + sums[2]
    }
}

const POINTS_SOURCE: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double p = data.p[i];
    const double z = (double)x[i % d];
    t[0] = p * z;
    t[1] = p * p;
    t[2] = (z - p) * (z - p);
}

__device__ double evo_user_combine(const double* sums, unsigned long long d, const EvoUserData& data)
{
    return sums[0] * sums[1] + sums[2];
}
"#;

/// [`POINTS_SOURCE`] at `d` over `points` data points.
fn points(d: usize, points: usize) -> UserProblem<PointsTwin> {
    let p = (0..points)
        .map(|i| ((i * 7919) % 1000) as f64 / 250.0 - 2.0)
        .collect();
    let data = UserData::new().with_f64("p", p, DataLength::Terms).unwrap();
    UserProblem::new(
        "points",
        Bounds::uniform(d, -2.0, 2.0).unwrap(),
        POINTS_SOURCE,
        PointsTwin,
    )
    .and_then(|p| p.with_terms(Terms::Count(points)))
    .and_then(|p| p.with_combined_sums(3))
    .and_then(|p| p.with_data(data))
    .unwrap()
}

/// A deterministic population of `rows` rows in the problem's box.
fn population<P: ContinuousProblem>(problem: &P, rows: usize) -> Vec<f32> {
    let (lower, upper) = (problem.bounds().lower(), problem.bounds().upper());
    let d = problem.dimension();
    (0..rows * d)
        .map(|k| {
            let u = ((k as u64 * 2_654_435_761 + 12_345) % 1_000_003) as f32 / 1_000_003.0;
            lower[k % d] + u * (upper[k % d] - lower[k % d])
        })
        .collect()
}

/// The device fitness of `rows` rows equals the twin's bit for bit, with the evaluator checking its values
/// and with the engine checking them (the same launches, without the read-back).
fn assert_twin_bits<P: DeviceRealProblem>(gpu: &Gpu, problem: &P, rows: usize) {
    let x = population(problem, rows);
    let device_x = gpu.upload(&x).unwrap();
    let settings = EvalSettings {
        profile: Profile::Exact,
        block: 256,
    };
    for engine_checks in [false, true] {
        let mut evaluator = problem.real_evaluator(gpu).unwrap();
        if engine_checks {
            evaluator.engine_checks_fitness();
        }
        let mut fitness = gpu.alloc::<f64>(rows).unwrap();
        evaluator
            .evaluate(&device_x, &mut fitness, settings)
            .unwrap();
        let on_gpu = fitness.to_vec().unwrap();
        for (r, row) in x.chunks_exact(problem.dimension()).enumerate() {
            let cpu = problem.evaluate(row);
            assert_eq!(
                on_gpu[r].to_bits(),
                cpu.to_bits(),
                "{} D = {}, {rows} rows, engine checks {engine_checks}: row {r}: GPU {} CPU {cpu}",
                problem.name(),
                problem.dimension(),
                on_gpu[r]
            );
        }
    }
}

#[test]
fn user_fitness_should_equal_the_twin_at_every_split() {
    let Some(gpu) = gpu_or_skip("user_fitness_should_equal_the_twin_at_every_split") else {
        return;
    };
    for d in DIMENSIONS {
        for rows in ROWS {
            if d >= 2 {
                assert_twin_bits(&gpu, &rosenbrock(d).unwrap(), rows);
            }
            assert_twin_bits(&gpu, &ackley(d).unwrap(), rows);
            assert_twin_bits(&gpu, &four_sums(d), rows);
        }
    }
    for rows in [1, 8] {
        assert_twin_bits(&gpu, &rosenbrock(LONG).unwrap(), rows);
        assert_twin_bits(&gpu, &ackley(LONG).unwrap(), rows);
        assert_twin_bits(&gpu, &four_sums(LONG), rows);
    }
}

#[test]
fn data_point_terms_should_equal_the_twin_whatever_the_dimension() {
    let Some(gpu) = gpu_or_skip("data_point_terms_should_equal_the_twin_whatever_the_dimension")
    else {
        return;
    };
    for (d, count) in [
        (3, 1),
        (3, 5),
        (2, 31),
        (7, 100),
        (3, 1000),
        (5, 3000),
        (3, LONG),
    ] {
        for rows in ROWS {
            assert_twin_bits(&gpu, &points(d, count), rows);
        }
    }
}

#[test]
fn an_evaluation_under_a_checking_engine_should_only_queue_its_launches() {
    let Some(gpu) =
        gpu_or_skip("an_evaluation_under_a_checking_engine_should_only_queue_its_launches")
    else {
        return;
    };
    #[derive(Clone)]
    struct NanTwin;
    impl UserTwin for NanTwin {
        fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
            let z = f64::from(x[i]);
            t[0] = (-1.0 - z * z).sqrt();
        }
    }
    let source = "__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d, const EvoUserData& data, double* t) { const double z = (double)x[i]; t[0] = sqrt(-1.0 - z * z); }";
    let settings = EvalSettings {
        profile: Profile::Exact,
        block: 256,
    };
    // Short rows sharing a warp and long rows of several tiles.
    for d in [5, 5000] {
        let problem = UserProblem::new(
            "nan",
            Bounds::uniform(d, -1.0, 1.0).unwrap(),
            source,
            NanTwin,
        )
        .unwrap();
        let x = gpu.upload(&population(&problem, 4)).unwrap();
        let mut fitness = gpu.alloc::<f64>(4).unwrap();
        let mut evaluator = problem.real_evaluator(&gpu).unwrap();
        match evaluator.evaluate(&x, &mut fitness, settings) {
            Err(Error::NonFiniteFitness {
                individual, value, ..
            }) => assert!(individual == 0 && value.is_nan(), "D = {d}"),
            other => panic!("D = {d}: expected NonFiniteFitness, got {other:?}"),
        }
        // The engine checks: the evaluation reads nothing back, and the values are there for it.
        evaluator.engine_checks_fitness();
        evaluator.evaluate(&x, &mut fitness, settings).unwrap();
        assert!(
            fitness.to_vec().unwrap().iter().all(|f| f.is_nan()),
            "D = {d}"
        );
        // MA-SW-Chains is such an engine, and reports the non-finite initial fitness itself.
        assert!(
            matches!(
                MaCuda::new(MaParams::new(), &problem, 1, &gpu),
                Err(Error::NonFiniteFitness { .. })
            ),
            "D = {d}"
        );
    }
}

#[test]
fn ma_sw_chains_should_match_the_cpu_on_user_problems_of_every_split() {
    let Some(gpu) =
        gpu_or_skip("ma_sw_chains_should_match_the_cpu_on_user_problems_of_every_split")
    else {
        return;
    };
    // Several tiles per row (the finish kernel) for both problems, and rows sharing a warp.
    check_ma(&gpu, UserCase::Rosenbrock, user_real::LARGE_DIMENSION).assert_passed();
    check_ma(&gpu, UserCase::Ackley, user_real::LARGE_DIMENSION).assert_passed();
    let problem = four_sums(5);
    let params = MaParams::new()
        .with_max_evaluations(u64::from(u32::MAX))
        .unwrap();
    let mut cpu = MaCpu::new(params.clone(), &problem, 29, 0).unwrap();
    let mut on_gpu = MaCuda::new(params, &problem, 29, &gpu).unwrap();
    for cycle in 0..50 {
        cpu.step().unwrap();
        on_gpu.step().unwrap();
        let (c, g) = (cpu.snapshot().unwrap(), on_gpu.snapshot().unwrap());
        if let Some(mismatch) = compare_snapshots(&c, &g) {
            panic!("four sums, D = 5, cycle {cycle}: {mismatch:?}");
        }
    }
}

/// A problem whose evaluator records whether the engine said it checks the fitness itself.
struct Recorded<P> {
    problem: P,
    engine_checks: Arc<AtomicBool>,
}

/// The evaluator of [`Recorded`]: the problem's own, and the record.
struct RecordingEvaluator {
    inner: Box<dyn RealEvaluator>,
    engine_checks: Arc<AtomicBool>,
}

impl RealEvaluator for RecordingEvaluator {
    fn dimension(&self) -> usize {
        self.inner.dimension()
    }

    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        self.inner.evaluate(population, fitness, settings)
    }

    fn engine_checks_fitness(&mut self) {
        self.engine_checks.store(true, Ordering::SeqCst);
        self.inner.engine_checks_fitness();
    }
}

impl<P: ContinuousProblem> ContinuousProblem for Recorded<P> {
    fn name(&self) -> &str {
        self.problem.name()
    }

    fn dimension(&self) -> usize {
        self.problem.dimension()
    }

    fn bounds(&self) -> &Bounds {
        self.problem.bounds()
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        self.problem.evaluate(x)
    }
}

impl<P: DeviceRealProblem> DeviceRealProblem for Recorded<P> {
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        Ok(Box::new(RecordingEvaluator {
            inner: self.problem.real_evaluator(gpu)?,
            engine_checks: Arc::clone(&self.engine_checks),
        }))
    }
}

#[test]
fn ma_sw_chains_should_tell_its_evaluator_that_it_checks_the_fitness() {
    let Some(gpu) =
        gpu_or_skip("ma_sw_chains_should_tell_its_evaluator_that_it_checks_the_fitness")
    else {
        return;
    };
    let problem = Recorded {
        problem: ackley(300).unwrap(),
        engine_checks: Arc::new(AtomicBool::new(false)),
    };
    let mut engine = MaCuda::new(MaParams::new(), &problem, 3, &gpu).unwrap();
    engine.step().unwrap();
    assert!(problem.engine_checks.load(Ordering::SeqCst));
}
