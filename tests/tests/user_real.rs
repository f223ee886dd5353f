//! User real-vector problems on the GPU (issue 29, ARCHITECTURE §5): CUDA source compiled by NVRTC (way 1)
//! and a user's own kernel through the `RealEvaluator` contract (way 2), in DE and MA-SW-Chains. CPU-side
//! checks (NVRTC compiles, bad input) run anywhere; GPU checks skip without a device and fail under
//! `EVO_REQUIRE_GPU=1`.

use evo_benchmarks::cuda::{
    DataLength, DeviceRealProblem, EvalSettings, RealEvaluator, Terms, UserData, UserProblem,
    UserTwin,
};
use evo_core::{Bounds, ContinuousProblem, Engine, Error, Result};
use evo_de::{DeCpu, DeCuda, DeParams, DeviceEvaluated, UserFusion};
use evo_equivalence::equivalence_test;
use evo_equivalence::gate::{gpu_or_skip, nvrtc_or_skip};
use evo_equivalence::suite::user_real::{
    self, LARGE_DIMENSION, TRUE_PARAMETERS, UserCase, ackley, check_de, check_ma, least_squares,
    rastrigin_cos_pi, rosenbrock,
};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};
use evo_ma_sw_chains::MaCuda;

/// Any architecture NVRTC knows compiles the modules; sm_80 is the oldest the project targets.
const ARCH: &str = "sm_80";

#[test]
fn user_sources_should_compile_with_nvrtc() {
    if !nvrtc_or_skip("user_sources_should_compile_with_nvrtc") {
        return;
    }
    for profile in [Profile::Exact, Profile::Fast] {
        rosenbrock(30)
            .and_then(|p| p.check_compiles(profile, ARCH))
            .unwrap();
        ackley(30)
            .and_then(|p| p.check_compiles(profile, ARCH))
            .unwrap();
        least_squares(1000)
            .and_then(|p| p.check_compiles(profile, ARCH))
            .unwrap();
        rastrigin_cos_pi(30)
            .and_then(|p| p.check_compiles(profile, ARCH))
            .unwrap();
    }
}

#[test]
fn a_compile_error_should_carry_the_log_with_the_users_line_number() {
    if !nvrtc_or_skip("a_compile_error_should_carry_the_log_with_the_users_line_number") {
        return;
    }
    let source = "// line 1\n__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d, const EvoUserData& data, double* t) {\n    t[0] = undefined_name;\n}\n";
    let problem = UserProblem::new(
        "broken",
        Bounds::uniform(4, -1.0, 1.0).unwrap(),
        source,
        user_real::RosenbrockTwin,
    )
    .unwrap();
    match problem.check_compiles(Profile::Exact, ARCH) {
        Err(Error::KernelCompile { kernel, log, .. }) => {
            assert_eq!(kernel, "user_broken");
            assert!(log.contains("user_broken.cu(3)"), "{log}");
            assert!(log.contains("undefined_name"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn missing_entry_points_should_be_typed_errors() {
    let bounds = Bounds::uniform(4, -1.0, 1.0).unwrap();
    let no_terms = UserProblem::new(
        "empty",
        bounds.clone(),
        "__device__ double f(double z) { return z; }",
        user_real::RosenbrockTwin,
    );
    assert!(
        matches!(&no_terms, Err(Error::MissingEntryPoint { function, .. }) if function == "evo_user_terms"),
        "{:?}",
        no_terms.err()
    );
    let no_combine = UserProblem::new(
        "no-combine",
        bounds,
        user_real::ROSENBROCK_SOURCE,
        user_real::AckleyTwin,
    )
    .and_then(|p| p.with_combined_sums(2));
    assert!(
        matches!(&no_combine, Err(Error::MissingEntryPoint { function, .. }) if function == "evo_user_combine"),
        "{:?}",
        no_combine.err()
    );
}

#[test]
fn bad_shapes_and_data_should_be_typed_errors() {
    // Rosenbrock needs two coordinates.
    let one = rosenbrock(1);
    assert!(
        matches!(
            &one,
            Err(Error::InvalidParameter {
                name: "dimension",
                ..
            })
        ),
        "{:?}",
        one.err()
    );
    // A data array shorter than the terms.
    let short = UserData::new()
        .with_f64("t", vec![0.0; 10], DataLength::Terms)
        .and_then(|data| {
            UserProblem::new(
                "short",
                Bounds::uniform(3, -1.0, 1.0)?,
                user_real::LEAST_SQUARES_SOURCE,
                user_real::LeastSquaresTwin,
            )?
            .with_terms(Terms::Count(11))?
            .with_data(data)
        });
    match &short {
        Err(Error::InvalidParameter {
            name,
            value,
            allowed,
            ..
        }) => {
            assert_eq!(*name, "data array length");
            assert!(value.contains("10") && value.contains("`t`"), "{value}");
            assert!(allowed.contains("11"), "{allowed}");
        }
        other => panic!("expected InvalidParameter, got {:?}", other.as_ref().err()),
    }
    // A data array of one value per coordinate at another dimension.
    let weights = UserData::new()
        .with_f32("w", vec![1.0; 5], DataLength::Dimension)
        .and_then(|data| rosenbrock(6)?.with_data(data));
    assert!(weights.is_err());
    // Names the generated code cannot take, and too many sums.
    for name in ["t_len", "evo_t", "1t", "a-b", ""] {
        assert!(
            UserData::new()
                .with_f32(name, vec![1.0], DataLength::Any)
                .is_err(),
            "{name}"
        );
    }
    assert!(ackley(3).and_then(|p| p.with_combined_sums(5)).is_err());
}

#[test]
fn the_cos_pi_rastrigin_twin_should_be_within_rounding_of_the_built_in_rastrigin() {
    let problem = rastrigin_cos_pi(100).unwrap();
    for seed in 0..20u32 {
        let x: Vec<f32> = (0..100u32)
            .map(|i| ((i * 37 + seed * 101) % 1024) as f32 / 100.0 - 5.12)
            .collect();
        let built_in =
            evo_benchmarks::functions::rastrigin::rastrigin(x.len(), |i| f64::from(x[i]));
        let user = problem.evaluate(&x);
        // 100 terms, each within a few 1e-15 of the other's (two cosines with absolute bounds).
        assert!(
            (user - built_in).abs() < 1e-12,
            "seed {seed}: {user} vs {built_in}"
        );
    }
}

#[test]
fn the_ackley_twin_should_give_the_built_in_ackleys_bits() {
    let problem = ackley(100).unwrap();
    for seed in 0..20u32 {
        let x: Vec<f32> = (0..100u32)
            .map(|i| ((i * 37 + seed * 101) % 640) as f32 / 10.0 - 32.0)
            .collect();
        let built_in = evo_benchmarks::functions::ackley::ackley(x.len(), |i| f64::from(x[i]));
        assert_eq!(
            problem.evaluate(&x).to_bits(),
            built_in.to_bits(),
            "seed {seed}"
        );
    }
}

equivalence_test!(
    de_user_rosenbrock_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_de(gpu, UserCase::Rosenbrock, user_real::DIMENSION, block).assert_passed();
        if block == 256 {
            check_de(gpu, UserCase::Rosenbrock, LARGE_DIMENSION, block).assert_passed();
        }
    }
);

equivalence_test!(de_user_ackley_should_match_cpu, [64, 256], |gpu, block| {
    check_de(gpu, UserCase::Ackley, user_real::DIMENSION, block).assert_passed();
    if block == 256 {
        check_de(gpu, UserCase::Ackley, LARGE_DIMENSION, block).assert_passed();
    }
});

equivalence_test!(
    de_user_rastrigin_with_cos_pi_should_match_cpu,
    [64, 256],
    |gpu, block| {
        check_de(gpu, UserCase::RastriginCosPi, user_real::DIMENSION, block).assert_passed();
        if block == 256 {
            check_de(gpu, UserCase::RastriginCosPi, LARGE_DIMENSION, block).assert_passed();
        }
    }
);

equivalence_test!(
    ma_user_rastrigin_with_cos_pi_should_match_cpu,
    [256],
    |gpu, _block| {
        check_ma(gpu, UserCase::RastriginCosPi, user_real::DIMENSION).assert_passed();
    }
);

equivalence_test!(
    ma_user_rosenbrock_and_ackley_should_match_cpu,
    [256],
    |gpu, _block| {
        check_ma(gpu, UserCase::Rosenbrock, user_real::DIMENSION).assert_passed();
        check_ma(gpu, UserCase::Ackley, user_real::DIMENSION).assert_passed();
    }
);

/// A deterministic population in the problem's box.
fn population<P: ContinuousProblem>(problem: &P, rows: usize) -> Vec<f32> {
    let (lower, upper) = (problem.bounds().lower(), problem.bounds().upper());
    let d = problem.dimension();
    (0..rows * d)
        .map(|k| {
            let u = ((k as u64 * 2_654_435_761) % 1_000_003) as f32 / 1_000_003.0;
            lower[k % d] + u * (upper[k % d] - lower[k % d])
        })
        .collect()
}

/// The device fitness of `rows` rows equals the CPU's, bit for bit.
fn check_device_fitness<P: DeviceRealProblem>(gpu: &Gpu, problem: &P, rows: usize) {
    let evaluator = problem.real_evaluator(gpu).unwrap();
    let x = population(problem, rows);
    let device_x = gpu.upload(&x).unwrap();
    let mut fitness = gpu.alloc::<f64>(rows).unwrap();
    let settings = EvalSettings {
        profile: Profile::Exact,
        block: 256,
    };
    evaluator
        .evaluate(&device_x, &mut fitness, settings)
        .unwrap();
    let gpu_fitness = fitness.to_vec().unwrap();
    for (r, row) in x.chunks_exact(problem.dimension()).enumerate() {
        let cpu = problem.evaluate(row);
        assert_eq!(
            gpu_fitness[r].to_bits(),
            cpu.to_bits(),
            "{}: row {r}: GPU {} ({:#x}), CPU {cpu} ({:#x})",
            problem.name(),
            gpu_fitness[r],
            gpu_fitness[r].to_bits(),
            cpu.to_bits()
        );
    }
}

#[test]
fn least_squares_over_1e5_points_should_fit_on_the_gpu() {
    let Some(gpu) = gpu_or_skip("least_squares_over_1e5_points_should_fit_on_the_gpu") else {
        return;
    };
    let problem = least_squares(100_000).unwrap();
    check_device_fitness(&gpu, &problem, 64);
    let params = DeParams::default().with_population(64).unwrap();
    let mut engine = DeCuda::new(params, problem.clone(), 7, &gpu).unwrap();
    for _ in 0..400 {
        engine.step().unwrap();
    }
    let (best, fitness) = engine.best().unwrap();
    let at_truth = problem.evaluate(&TRUE_PARAMETERS);
    assert!(
        fitness <= at_truth,
        "best {fitness} above the truth's {at_truth}"
    );
    for (found, truth) in best.iter().zip(TRUE_PARAMETERS) {
        assert!(
            (found - truth).abs() < 0.01,
            "fit {best:?}, truth {TRUE_PARAMETERS:?}"
        );
    }
}

#[test]
fn a_nan_fitness_on_the_device_should_be_a_typed_error() {
    let Some(gpu) = gpu_or_skip("a_nan_fitness_on_the_device_should_be_a_typed_error") else {
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
    let problem = UserProblem::new(
        "nan",
        Bounds::uniform(8, -1.0, 1.0).unwrap(),
        source,
        NanTwin,
    )
    .unwrap();
    let params = DeParams::default().with_population(16).unwrap();
    match DeCuda::new(params, problem.clone(), 1, &gpu) {
        Err(Error::NonFiniteFitness {
            problem,
            individual,
            value,
        }) => {
            assert_eq!((problem.as_str(), individual), ("nan", 0));
            assert!(value.is_nan());
        }
        Err(other) => panic!("expected NonFiniteFitness, got {other}"),
        Ok(_) => panic!("expected NonFiniteFitness, got an engine"),
    }
    let ma = MaCuda::new(evo_ma_sw_chains::MaParams::new(), &problem, 1, &gpu);
    assert!(
        matches!(ma, Err(Error::NonFiniteFitness { .. })),
        "{:?}",
        ma.err()
    );
}

/// Way 2: a user's own kernel, one thread per row summing `x_i²` in order.
const SQUARES_KERNEL: &str = r#"
struct SquaresParams {
    unsigned long long rows;
    unsigned long long d;
};

extern "C" __global__ void my_sum_of_squares(const float* x, double* fitness, SquaresParams p)
{
    const unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= p.rows) {
        return;
    }
    double sum = 0.0;
    for (unsigned long long i = 0; i < p.d; ++i) {
        const double z = (double)x[r * p.d + i];
        sum = sum + z * z;
    }
    fitness[r] = sum;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct SquaresParams {
    rows: u64,
    d: u64,
}
// SAFETY: repr(C), two integers, the layout of the kernel's `SquaresParams` struct (its last argument, by value).
unsafe impl KernelParams for SquaresParams {}

#[derive(Clone)]
struct SumOfSquares {
    bounds: Bounds,
}

struct SquaresEvaluator {
    kernel: Kernel,
    d: usize,
}

impl RealEvaluator for SquaresEvaluator {
    fn dimension(&self) -> usize {
        self.d
    }

    fn evaluate(
        &self,
        x: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        _: EvalSettings,
    ) -> Result<()> {
        let rows = fitness.len();
        assert_eq!(x.len(), rows * self.d);
        let params = SquaresParams {
            rows: rows as u64,
            d: self.d as u64,
        };
        let grid = (rows as u32).div_ceil(64);
        // SAFETY: thread r < rows reads x[r·d .. (r+1)·d] (x holds rows·d values, asserted) and writes
        // fitness[r]; the arguments follow the kernel's list.
        unsafe {
            self.kernel
                .launch()
                .input(x)
                .output(fitness)
                .params(&params)
                .run(LaunchConfig::linear(grid, 64, 0))
        }
    }
}

impl ContinuousProblem for SumOfSquares {
    fn name(&self) -> &str {
        "sum-of-squares"
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        x.iter()
            .fold(0.0, |sum, &v| sum + f64::from(v) * f64::from(v))
    }
}

impl DeviceRealProblem for SumOfSquares {
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        let kernel = gpu.user_kernel(
            "my_sum_of_squares",
            SQUARES_KERNEL,
            "my_sum_of_squares",
            Profile::Exact,
        )?;
        Ok(Box::new(SquaresEvaluator {
            kernel,
            d: self.dimension(),
        }))
    }
}

#[test]
fn a_users_own_kernel_should_evaluate_the_population_in_de_and_ma() {
    let Some(gpu) = gpu_or_skip("a_users_own_kernel_should_evaluate_the_population_in_de_and_ma")
    else {
        return;
    };
    let problem = SumOfSquares {
        bounds: Bounds::uniform(20, -5.0, 5.0).unwrap(),
    };
    check_device_fitness(&gpu, &problem, 100);
    let wrapped = DeviceEvaluated(problem.clone());
    let params = DeParams::default().with_population(32).unwrap();
    let mut cpu = DeCpu::new(params.clone(), wrapped.clone(), 3, 0).unwrap();
    let mut on_gpu = DeCuda::new(params, wrapped, 3, &gpu).unwrap();
    for generation in 0..50 {
        cpu.step().unwrap();
        on_gpu.step().unwrap();
        let (c, g) = (cpu.snapshot().unwrap(), on_gpu.snapshot().unwrap());
        if let Some(mismatch) = evo_equivalence::suite::de::compare_snapshots("way 2", &c, &g) {
            panic!("generation {generation}: {mismatch:?}");
        }
    }
    let params = evo_ma_sw_chains::MaParams::new()
        .with_max_evaluations(5_000)
        .unwrap();
    let report =
        evo_ma_sw_chains::run(params, &problem, 3, evo_core::Backend::Cuda { device: 0 }).unwrap();
    assert!(report.best_fitness < problem.evaluate(&[5.0; 20]));
}

/// DE's fused generation of a user problem (`evo_de::UserFusion`): CPU and CUDA snapshots after every
/// generation up to `generations`, `step_many` giving the same end as the steps, and the fused path taken.
fn de_fused_lockstep<T: UserTwin + Clone>(
    gpu: &Gpu,
    problem: UserProblem<T>,
    block: u32,
    generations: u64,
) {
    let what = format!(
        "{} at D = {}, block {block}",
        problem.name(),
        problem.dimension()
    );
    let params = DeParams::default()
        .with_population(64)
        .and_then(|p| p.with_block_size(block))
        .unwrap();
    let mut cpu = DeCpu::new(params.clone(), problem.clone(), user_real::SEED, 0).unwrap();
    let mut on_gpu = DeCuda::new(params.clone(), problem.clone(), user_real::SEED, gpu).unwrap();
    assert!(
        on_gpu.is_fused(),
        "{what}: the fused generation was not taken"
    );
    for generation in 0..=generations {
        if generation > 0 {
            cpu.step().unwrap();
            on_gpu.step().unwrap();
        }
        let (c, g) = (cpu.snapshot().unwrap(), on_gpu.snapshot().unwrap());
        if let Some(mismatch) = evo_equivalence::suite::de::compare_snapshots(&what, &c, &g) {
            panic!("{what}, generation {generation}: {mismatch:?}");
        }
    }
    let mut batched = DeCuda::new(params, problem, user_real::SEED, gpu).unwrap();
    batched.step_many(generations).unwrap();
    let (c, g) = (cpu.snapshot().unwrap(), batched.snapshot().unwrap());
    if let Some(mismatch) = evo_equivalence::suite::de::compare_snapshots(&what, &c, &g) {
        panic!("{what}, step_many({generations}): {mismatch:?}");
    }
}

#[test]
fn de_user_modules_should_hold_only_the_fused_generation() {
    if !nvrtc_or_skip("de_user_modules_should_hold_only_the_fused_generation") {
        return;
    }
    let fusions = [
        rosenbrock(30).map(|p| UserFusion::of(&p)),
        ackley(30).map(|p| UserFusion::of(&p)),
        least_squares(1000).map(|p| UserFusion::of(&p)),
    ];
    for fusion in fusions {
        let fusion = fusion.unwrap();
        assert_eq!(fusion.module, format!("de_user_{}", fusion.problem));
        for profile in [Profile::Exact, Profile::Fast] {
            let ptx =
                evo_gpu_runtime::compile_to_ptx(&fusion.module, &fusion.source, profile, ARCH)
                    .unwrap();
            let entries: Vec<&str> = ptx
                .lines()
                .filter_map(|line| line.split(".entry ").nth(1))
                .map(|rest| rest.trim_end_matches(|c: char| c == '(' || c.is_whitespace()))
                .collect();
            assert_eq!(entries, ["de_generation_user_f32"], "{}", fusion.module);
        }
    }
}

#[test]
fn a_compile_error_in_a_de_module_should_carry_the_users_line_number() {
    if !nvrtc_or_skip("a_compile_error_in_a_de_module_should_carry_the_users_line_number") {
        return;
    }
    let source = "// line 1\n__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d, const EvoUserData& data, double* t) {\n    t[0] = undefined_name;\n}\n";
    let problem = UserProblem::new(
        "broken",
        Bounds::uniform(4, -1.0, 1.0).unwrap(),
        source,
        user_real::RosenbrockTwin,
    )
    .unwrap();
    let fusion = UserFusion::of(&problem);
    match evo_gpu_runtime::compile_to_ptx(&fusion.module, &fusion.source, Profile::Exact, ARCH) {
        Err(Error::KernelCompile { kernel, log, .. }) => {
            assert_eq!(kernel, "de_user_broken");
            assert!(log.contains("user_broken.cu(3)"), "{log}");
        }
        other => panic!("expected KernelCompile, got {other:?}"),
    }
}

#[test]
fn de_user_rosenbrock_and_ackley_should_run_fused_and_match_cpu() {
    let Some(gpu) = gpu_or_skip("de_user_rosenbrock_and_ackley_should_run_fused_and_match_cpu")
    else {
        return;
    };
    let generations = user_real::GENERATIONS;
    for block in [64, 256] {
        de_fused_lockstep(
            &gpu,
            rosenbrock(user_real::DIMENSION).unwrap(),
            block,
            generations,
        );
        de_fused_lockstep(
            &gpu,
            ackley(user_real::DIMENSION).unwrap(),
            block,
            generations,
        );
    }
    // Rows of several tiles.
    de_fused_lockstep(&gpu, rosenbrock(LARGE_DIMENSION).unwrap(), 128, generations);
    de_fused_lockstep(&gpu, ackley(LARGE_DIMENSION).unwrap(), 256, generations);
    // A trial longer than evo_de's SHARED_TRIAL_MAX: the terms read it from global memory.
    de_fused_lockstep(&gpu, rosenbrock(10_000).unwrap(), 256, 20);
}

#[test]
fn de_user_data_problem_should_run_fused_and_match_cpu() {
    let Some(gpu) = gpu_or_skip("de_user_data_problem_should_run_fused_and_match_cpu") else {
        return;
    };
    // Terms::Count with two data arrays, 5 tiles of 8 × 256 terms per row.
    de_fused_lockstep(&gpu, least_squares(10_000).unwrap(), 256, 50);
}

#[test]
fn a_non_finite_trial_on_the_fused_path_should_be_a_typed_error() {
    let Some(gpu) = gpu_or_skip("a_non_finite_trial_on_the_fused_path_should_be_a_typed_error")
    else {
        return;
    };
    // NaN exactly at the lower bound, where the repair puts every mutant below the box: the initial
    // population (uniform in [-1, 1)) is finite, the first generations' trials are not.
    #[derive(Clone)]
    struct AtBoundTwin;
    impl UserTwin for AtBoundTwin {
        fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
            let z = f64::from(x[i]);
            t[0] = if z == -1.0 { f64::NAN } else { z * z };
        }
    }
    let source = "__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d, const EvoUserData& data, double* t) { const double z = (double)x[i]; t[0] = z == -1.0 ? nan(\"\") : z * z; }";
    let problem = UserProblem::new(
        "nan-at-bound",
        Bounds::uniform(8, -1.0, 1.0).unwrap(),
        source,
        AtBoundTwin,
    )
    .unwrap();
    let params = DeParams::default().with_population(16).unwrap();
    let mut engine = DeCuda::new(params, problem, 1, &gpu).unwrap();
    assert!(engine.is_fused());
    let reported = (0..50).find_map(|_| engine.step().err());
    match reported {
        Some(Error::NonFiniteFitness {
            problem,
            individual,
            value,
        }) => {
            assert_eq!(problem, "nan-at-bound");
            assert!(individual < 16 && value.is_nan(), "{individual}: {value}");
        }
        other => panic!("expected NonFiniteFitness, got {other:?}"),
    }
    // The engine stays usable after the report.
    assert!(engine.snapshot().is_ok());
}
