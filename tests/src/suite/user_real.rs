//! User problems written as CUDA source (evo-benchmarks' `UserProblem`, ARCHITECTURE §5 way 1) with Rust
//! twins written with `evo_core::math`: Rosenbrock (terms that read a neighbour), Ackley (two sums combined),
//! Rastrigin with the fast `evo_cos_pi_f64` (twin `evo_benchmarks::functions::cos_pi`) and a least-squares
//! fit to a data set (data arrays); CPU and CUDA snapshots of DE and MA-SW-Chains on the first three, and the
//! fit on the GPU. Separable user terms (evo-benchmarks' `UserFunction`, which DE fuses on the built-in
//! Rastrigin's path): Rastrigin with `evo_cos_pi_f64` and a weighted quartic, CPU and CUDA snapshots of DE.

use evo_benchmarks::cuda::{DataLength, Terms, UserData, UserFunction, UserProblem, UserTwin};
use evo_benchmarks::functions::cos_pi;
use evo_core::math::{cos_f64, exp_f64};
use evo_core::{Bounds, Engine, Result};
use evo_de::{DeCpu, DeCuda, DeParams, DeSnapshot, DeviceProblem};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{MaCpu, MaCuda, MaParams};

use super::CheckReport;
use crate::compare::Comparison;

/// The seed of every run.
pub const SEED: u64 = 29;
/// DE generations and MA-SW-Chains cycles compared.
pub const GENERATIONS: u64 = 200;

/// Rosenbrock's twin: term `i` of `D − 1`, `100 (x_{i+1} − x_i²)² + (1 − x_i)²`.
#[derive(Clone, Copy, Debug)]
pub struct RosenbrockTwin;

impl UserTwin for RosenbrockTwin {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let a = f64::from(x[i]);
        let b = f64::from(x[i + 1]);
        let r = b - a * a;
        t[0] = 100.0 * (r * r) + (1.0 - a) * (1.0 - a);
    }
}

/// Rosenbrock's CUDA source, the twin's operations in the same order.
pub const ROSENBROCK_SOURCE: &str = r#"// Rosenbrock: term i reads x_i and x_{i+1}.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double a = (double)x[i];
    const double b = (double)x[i + 1];
    const double r = b - a * a;
    t[0] = 100.0 * (r * r) + (1.0 - a) * (1.0 - a);
}
"#;

/// Rosenbrock on `[-5, 10]^d`.
///
/// # Errors
/// As `UserProblem::new` (d < 2 leaves no terms).
pub fn rosenbrock(d: usize) -> Result<UserProblem<RosenbrockTwin>> {
    UserProblem::new(
        "rosenbrock",
        Bounds::uniform(d, -5.0, 10.0)?,
        ROSENBROCK_SOURCE,
        RosenbrockTwin,
    )?
    .with_terms(Terms::DimensionMinus(1))
}

/// 2π as an `f64` (the CUDA source spells the same number).
const TWO_PI: f64 = 2.0 * std::f64::consts::PI;

/// Ackley's twin: the sums of `x_i²` and of `cos(2π x_i)`, combined as
/// `20 − 20 exp(−0.2 √(s₁/D)) + e − exp(s₂/D)`.
#[derive(Clone, Copy, Debug)]
pub struct AckleyTwin;

impl UserTwin for AckleyTwin {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let z = f64::from(x[i]);
        t[0] = z * z;
        t[1] = cos_f64(TWO_PI * z);
    }

    fn combine(&self, sums: &[f64], dimension: usize, _: &UserData) -> f64 {
        let n = dimension as f64;
        let a = exp_f64(-0.2 * (sums[0] / n).sqrt());
        let b = exp_f64(sums[1] / n);
        (20.0 - 20.0 * a) + (std::f64::consts::E - b)
    }
}

/// Ackley's CUDA source.
pub const ACKLEY_SOURCE: &str = r#"// Ackley: two sums, combined at the end.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    t[0] = z * z;
    t[1] = evo_cos_f64(6.283185307179586 * z);
}

__device__ double evo_user_combine(const double* sums, unsigned long long d, const EvoUserData& data)
{
    const double n = (double)d;
    const double a = evo_exp_f64(-0.2 * sqrt(sums[0] / n));
    const double b = evo_exp_f64(sums[1] / n);
    return (20.0 - 20.0 * a) + (2.718281828459045 - b);
}
"#;

/// Ackley on `[-32, 32]^d`.
///
/// # Errors
/// As `UserProblem::new`.
pub fn ackley(d: usize) -> Result<UserProblem<AckleyTwin>> {
    UserProblem::new(
        "ackley",
        Bounds::uniform(d, -32.0, 32.0)?,
        ACKLEY_SOURCE,
        AckleyTwin,
    )?
    .with_combined_sums(2)
}

/// Rastrigin's twin with [`cos_pi`]: `z² + (10 − 10 cos(π·2z))`.
#[derive(Clone, Copy, Debug)]
pub struct RastriginCosPiTwin;

impl UserTwin for RastriginCosPiTwin {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let z = f64::from(x[i]);
        t[0] = z * z + (10.0 - 10.0 * cos_pi(2.0 * z));
    }
}

/// Rastrigin's CUDA source with `evo_cos_pi_f64`, the twin's operations in the same order.
pub const RASTRIGIN_COS_PI_SOURCE: &str = r#"// Rastrigin: one term per coordinate, cos(2 pi z) as cos(pi u) of u = 2z.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    t[0] = z * z + (10.0 - 10.0 * evo_cos_pi_f64(2.0 * z));
}
"#;

/// Rastrigin with `evo_cos_pi_f64` on `[-5.12, 5.12]^d`.
///
/// # Errors
/// As `UserProblem::new`.
pub fn rastrigin_cos_pi(d: usize) -> Result<UserProblem<RastriginCosPiTwin>> {
    UserProblem::new(
        "rastrigin_cos_pi",
        Bounds::uniform(d, -5.12, 5.12)?,
        RASTRIGIN_COS_PI_SOURCE,
        RastriginCosPiTwin,
    )
}

/// The least-squares twin: point `i` of the data set `(t_i, y_i)`, residual
/// `a exp(−b t_i) + c − y_i` of the model with parameters `x = (a, b, c)`, squared.
#[derive(Clone, Copy, Debug)]
pub struct LeastSquaresTwin;

/// Residual of point `i` (shared by the twin and the data generator's check).
fn residual(x: &[f32], t: f64, y: f64) -> f64 {
    let (a, b, c) = (f64::from(x[0]), f64::from(x[1]), f64::from(x[2]));
    a * exp_f64(-b * t) + c - y
}

impl UserTwin for LeastSquaresTwin {
    fn terms(&self, i: usize, x: &[f32], data: &UserData, t: &mut [f64]) {
        let ts = data.f64("t").unwrap_or(&[]);
        let ys = data.f64("y").unwrap_or(&[]);
        let r = residual(x, ts[i], ys[i]);
        t[0] = r * r;
    }
}

/// The least-squares CUDA source.
pub const LEAST_SQUARES_SOURCE: &str = r#"// Least squares: term i is the squared residual of data point i.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double a = (double)x[0];
    const double b = (double)x[1];
    const double c = (double)x[2];
    const double r = a * evo_exp_f64(-b * data.t[i]) + c - data.y[i];
    t[0] = r * r;
}
"#;

/// The model's true parameters.
pub const TRUE_PARAMETERS: [f32; 3] = [2.0, 0.5, 1.0];

/// A fit of `a exp(−b t) + c` to `points` points on `t ∈ [0, 10)`, generated from [`TRUE_PARAMETERS`] with
/// a small deterministic perturbation, over `[-5, 5]^3`.
///
/// # Errors
/// As `UserProblem::new` and `UserProblem::with_data`.
pub fn least_squares(points: usize) -> Result<UserProblem<LeastSquaresTwin>> {
    let t: Vec<f64> = (0..points)
        .map(|i| 10.0 * i as f64 / points as f64)
        .collect();
    let y: Vec<f64> = t
        .iter()
        .enumerate()
        .map(|(i, &ti)| {
            let perturbation = 0.01 * (((i * 7919) % 1000) as f64 / 500.0 - 1.0);
            residual(&TRUE_PARAMETERS, ti, 0.0) + perturbation
        })
        .collect();
    let data = UserData::new()
        .with_f64("t", t, DataLength::Terms)?
        .with_f64("y", y, DataLength::Terms)?;
    UserProblem::new(
        "least-squares",
        Bounds::uniform(3, -5.0, 5.0)?,
        LEAST_SQUARES_SOURCE,
        LeastSquaresTwin,
    )?
    .with_terms(Terms::Count(points))?
    .with_data(data)
}

fn de_params(block: u32) -> Result<DeParams> {
    DeParams::default()
        .with_population(64)?
        .with_block_size(block)
}

/// DE on `problem`: CPU and CUDA snapshots after every generation up to [`GENERATIONS`], the CUDA engine on
/// its one-launch generation (an error otherwise: every user problem here is one that DE fuses).
fn de_lockstep<P: DeviceProblem + Clone>(
    gpu: &Gpu,
    problem: P,
    block: u32,
) -> Result<std::result::Result<u64, Comparison>> {
    de_lockstep_for(gpu, problem, block, GENERATIONS)
}

/// [`de_lockstep`] for `generations` generations.
fn de_lockstep_for<P: DeviceProblem + Clone>(
    gpu: &Gpu,
    problem: P,
    block: u32,
    generations: u64,
) -> Result<std::result::Result<u64, Comparison>> {
    let mut cpu = DeCpu::new(de_params(block)?, problem.clone(), SEED, 0)?;
    let mut on_gpu = DeCuda::new(de_params(block)?, problem, SEED, gpu)?;
    if !on_gpu.is_fused() {
        return Err(evo_core::Error::invalid_parameter(
            "DE",
            "generation",
            "four launches",
            "the one-launch generation (DeCuda::is_fused) for a user's CUDA source",
        ));
    }
    let mut cases = 0;
    for generation in 0..=generations {
        if generation > 0 {
            cpu.step()?;
            on_gpu.step()?;
        }
        let (c, g): (DeSnapshot, DeSnapshot) = (cpu.snapshot()?, on_gpu.snapshot()?);
        if let Some(mismatch) = super::de::compare_snapshots("user problem", &c, &g) {
            return Ok(Err(mismatch));
        }
        cases += (c.population.len() + c.fitness.len()) as u64;
    }
    Ok(Ok(cases))
}

/// MA-SW-Chains on `problem`: CPU and CUDA snapshots after every cycle up to [`GENERATIONS`] cycles.
fn ma_lockstep<T: UserTwin>(
    gpu: &Gpu,
    problem: &UserProblem<T>,
) -> Result<std::result::Result<u64, Comparison>> {
    // The largest budget the engine accepts (32-bit RNG counters), so the budget never ends the lockstep.
    let params = MaParams::new().with_max_evaluations(u64::from(u32::MAX))?;
    let mut cpu = MaCpu::new(params.clone(), problem, SEED, 0)?;
    let mut on_gpu = MaCuda::new(params, problem, SEED, gpu)?;
    let mut cases = 0u64;
    for cycle in 0..=GENERATIONS {
        if cycle > 0 {
            cpu.step()?;
            on_gpu.step()?;
        }
        let (c, g) = (cpu.snapshot()?, on_gpu.snapshot()?);
        if let Some(mismatch) = super::ma::compare_snapshots(&c, &g) {
            return Ok(Err(mismatch));
        }
        cases += (c.population.len() + c.fitness.len()) as u64;
    }
    Ok(Ok(cases))
}

/// A separable term's Rust twin, `cpu_term(i, z)`.
pub type TermTwin = fn(usize, f64) -> f64;

/// Rastrigin's term with [`cos_pi`]: `z² + (10 − 10 cos(π·2z))`.
pub fn rastrigin_term_twin(_: usize, z: f64) -> f64 {
    z * z + (10.0 - 10.0 * cos_pi(2.0 * z))
}

/// [`rastrigin_term_twin`] as a user's separable CUDA term, the same operations in the same order.
pub const RASTRIGIN_TERM_SOURCE: &str = r#"// Rastrigin's term, cos(2 pi z) as cos(pi u) of u = 2z.
__device__ double evo_user_term(unsigned long long i, double z)
{
    return z * z + (10.0 - 10.0 * evo_cos_pi_f64(2.0 * z));
}
"#;

/// The weighted quartic's term: `(i mod 7 + 1)·((z − 0.25)²)²`, a weight that depends on the coordinate.
pub fn quartic_term_twin(i: usize, z: f64) -> f64 {
    let w = z - 0.25;
    ((i % 7) as f64 + 1.0) * ((w * w) * (w * w))
}

/// [`quartic_term_twin`] as a user's separable CUDA term.
pub const QUARTIC_TERM_SOURCE: &str = r#"// A weighted quartic: the weight cycles over the coordinates.
__device__ double evo_user_term(unsigned long long i, double z)
{
    const double w = z - 0.25;
    return ((double)(i % 7ull) + 1.0) * ((w * w) * (w * w));
}
"#;

/// Rastrigin as a separable user term with `evo_cos_pi_f64` on `[-5.12, 5.12]^d`.
///
/// # Errors
/// As `UserFunction::new`.
pub fn rastrigin_term(d: usize) -> Result<UserFunction<TermTwin>> {
    UserFunction::new(
        "rastrigin_term",
        Bounds::uniform(d, -5.12, 5.12)?,
        RASTRIGIN_TERM_SOURCE,
        rastrigin_term_twin as TermTwin,
    )
}

/// The weighted quartic as a separable user term on `[-2, 2]^d`.
///
/// # Errors
/// As `UserFunction::new`.
pub fn quartic_term(d: usize) -> Result<UserFunction<TermTwin>> {
    UserFunction::new(
        "weighted_quartic",
        Bounds::uniform(d, -2.0, 2.0)?,
        QUARTIC_TERM_SOURCE,
        quartic_term_twin as TermTwin,
    )
}

/// Which separable user term a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermCase {
    /// [`rastrigin_term`].
    RastriginCosPi,
    /// [`quartic_term`].
    WeightedQuartic,
}

/// DE on the separable term `case` at `d`, block `block`, fused on the built-in Rastrigin's path: identical
/// snapshots for [`GENERATIONS`] generations.
pub fn check_de_term(gpu: &Gpu, case: TermCase, d: usize, block: u32) -> CheckReport {
    check_de_term_for(gpu, case, d, block, GENERATIONS)
}

/// [`check_de_term`] for `generations` generations (fewer for vectors long enough to be split over several
/// blocks, [`SPLIT_DIMENSION`], whose CPU steps are slow).
pub fn check_de_term_for(
    gpu: &Gpu,
    case: TermCase,
    d: usize,
    block: u32,
    generations: u64,
) -> CheckReport {
    let check =
        format!("DE, user term {case:?}, D = {d}, block {block}, {generations} generations");
    let problem = match case {
        TermCase::RastriginCosPi => rastrigin_term(d),
        TermCase::WeightedQuartic => quartic_term(d),
    };
    let outcome = problem.and_then(|p| de_lockstep_for(gpu, p, block, generations));
    CheckReport::from_lockstep(check, "de_generation_f32 (user term module)", outcome)
}

/// A dimension from which the fused generation splits each of the 64 vectors over several blocks
/// (evo-de's `CHUNKED_FROM`), so that the chunks' sums are combined by the tree as well.
pub const SPLIT_DIMENSION: usize = 1 << 16;
/// Generations compared at [`SPLIT_DIMENSION`].
pub const SPLIT_GENERATIONS: u64 = 10;

/// Which user problem a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserCase {
    /// [`rosenbrock`] at D = 30.
    Rosenbrock,
    /// [`ackley`] at D = 30.
    Ackley,
    /// [`rastrigin_cos_pi`] at D = 30.
    RastriginCosPi,
}

/// The dimension of the equivalence runs: rows of one tile.
pub const DIMENSION: usize = 30;
/// A dimension of several tiles per row, so that the finish kernel runs too.
pub const LARGE_DIMENSION: usize = 3000;

/// DE on `case` at `d`, block `block`: identical snapshots for [`GENERATIONS`] generations.
pub fn check_de(gpu: &Gpu, case: UserCase, d: usize, block: u32) -> CheckReport {
    let check = format!("DE, user {case:?}, D = {d}, block {block}, {GENERATIONS} generations");
    let outcome = match case {
        UserCase::Rosenbrock => rosenbrock(d).and_then(|p| de_lockstep(gpu, p, block)),
        UserCase::Ackley => ackley(d).and_then(|p| de_lockstep(gpu, p, block)),
        UserCase::RastriginCosPi => rastrigin_cos_pi(d).and_then(|p| de_lockstep(gpu, p, block)),
    };
    CheckReport::from_lockstep(check, "evo_user_real_*", outcome)
}

/// MA-SW-Chains on `case` at `d`: identical snapshots for [`GENERATIONS`] cycles.
pub fn check_ma(gpu: &Gpu, case: UserCase, d: usize) -> CheckReport {
    let check = format!("MA-SW-Chains, user {case:?}, D = {d}, {GENERATIONS} cycles");
    let outcome = match case {
        UserCase::Rosenbrock => rosenbrock(d).and_then(|p| ma_lockstep(gpu, &p)),
        UserCase::Ackley => ackley(d).and_then(|p| ma_lockstep(gpu, &p)),
        UserCase::RastriginCosPi => rastrigin_cos_pi(d).and_then(|p| ma_lockstep(gpu, &p)),
    };
    CheckReport::from_lockstep(check, "evo_user_real_*", outcome)
}

/// Every check of this module.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for case in [
        UserCase::Rosenbrock,
        UserCase::Ackley,
        UserCase::RastriginCosPi,
    ] {
        for block in [64, 256] {
            reports.push(check_de(gpu, case, DIMENSION, block));
        }
        reports.push(check_de(gpu, case, LARGE_DIMENSION, 128));
        reports.push(check_ma(gpu, case, DIMENSION));
    }
    for case in [TermCase::RastriginCosPi, TermCase::WeightedQuartic] {
        for block in [64, 256] {
            reports.push(check_de_term(gpu, case, DIMENSION, block));
        }
        reports.push(check_de_term(gpu, case, LARGE_DIMENSION, 128));
    }
    reports.push(check_de_term_for(
        gpu,
        TermCase::RastriginCosPi,
        SPLIT_DIMENSION,
        256,
        SPLIT_GENERATIONS,
    ));
    reports
}
