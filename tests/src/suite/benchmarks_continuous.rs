//! The continuous test problems of evo-benchmarks: `CudaEvaluator::evaluate` against the problem's CPU
//! `evaluate_batch`, bit for bit under the Exact profile, on random individuals drawn uniformly from the
//! problem's box.
//!
//! Sizes: 64 individuals at D = 13, 1000 and 4099 (CEC 2010: 100, 1000, 4100), which exercise one partial
//! tile, several tiles and partial leaves of the prefix-squares tree; the large cases run 8 individuals at
//! D = 10⁶ (shifted Rastrigin, Griewank, Schwefel 1.2, CEC 2010 F19) and 2 at D = 1 100 000 (Schwefel 1.2:
//! 537 tiles at block 256), plus Griewank with one individual per block: 7 at D = 100 003 and 1 at D = 10⁶.
//! The finish kernels' multi-segment path, which these sizes no longer reach, is checked by
//! `check_finish_block_independence`.

use evo_benchmarks::cec2010::Cec2010Problem;
use evo_benchmarks::cuda::launch::{self, FinishParams};
use evo_benchmarks::cuda::{CudaProblem, UserFunction};
use evo_benchmarks::{
    DeRastrigin, GaBinaryProblem, GaFunction, GaProblem, ShiftedFunction, ShiftedProblem,
};
use evo_core::math::{cos_f64, exp_f64};
use evo_core::{BinaryProblem, Bits, Bounds, ContinuousProblem, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::compare_slices;
use crate::inputs::SplitMix64;
use crate::tolerance::Tolerance;

/// Individuals per small case.
pub const INDIVIDUALS: usize = 64;
/// Dimensions of the GA, DE and shifted cases: 13 and 256 take the one-launch path of rows of at most one block
/// of terms (256 with blocks of 256 only, a full tile), 1000 and 4099 the tiles and finish kernels.
pub const DIMENSIONS: [usize; 4] = [13, 1000, 4099, 256];
/// Dimensions of the CEC 2010 cases (multiples of 100).
pub const CEC_DIMENSIONS: [usize; 4] = [100, 1000, 4100, 200];
/// The CEC 2010 functions (all have a GPU evaluation).
pub const CEC_FUNCTIONS: [u32; 20] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
];

/// One problem of the suite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Case {
    /// A GA paper function.
    Ga(GaFunction),
    /// The DE paper's Rastrigin.
    DeRastrigin,
    /// An MA-SW-Chains shifted function.
    Shifted(ShiftedFunction),
    /// A CEC 2010 function by number.
    Cec(u32),
}

impl Case {
    /// Every case of the suite.
    pub fn all() -> Vec<Case> {
        let mut cases: Vec<Case> = GaFunction::ALL.iter().map(|&f| Case::Ga(f)).collect();
        cases.push(Case::DeRastrigin);
        cases.extend(ShiftedFunction::ALL.iter().map(|&f| Case::Shifted(f)));
        cases.extend(CEC_FUNCTIONS.iter().map(|&f| Case::Cec(f)));
        cases
    }

    /// The dimensions this case runs at (small cases).
    pub fn dimensions(self) -> [usize; 4] {
        match self {
            Case::Cec(_) => CEC_DIMENSIONS,
            _ => DIMENSIONS,
        }
    }

    /// The problem at dimension `d`.
    pub fn build(self, d: usize) -> Result<Box<dyn CudaProblem>> {
        Ok(match self {
            Case::Ga(f) => Box::new(GaProblem::new(f, d)?),
            Case::DeRastrigin => Box::new(DeRastrigin::new(d)?),
            Case::Shifted(f) => Box::new(ShiftedProblem::new(f, d)?),
            Case::Cec(f) => Box::new(Cec2010Problem::new(f, d)?),
        })
    }
}

/// `individuals` random points of the problem's box, row-major, from a seed.
pub fn random_population(problem: &dyn CudaProblem, individuals: usize, seed: u64) -> Vec<f32> {
    let bounds = problem.bounds();
    let d = problem.dimension();
    let mut rng = SplitMix64::new(seed);
    (0..individuals * d)
        .map(|k| {
            let (lo, hi) = (bounds.lower()[k % d], bounds.upper()[k % d]);
            rng.uniform(f64::from(lo), f64::from(hi)) as f32
        })
        .collect()
}

/// The report of one exact comparison: `expected` against `actual` when `result` is `Ok`, its error otherwise;
/// `what` names entry `i` in a mismatch.
fn exact_report(
    check: String,
    kernel: &str,
    result: Result<()>,
    expected: &[f64],
    actual: &[f64],
    what: impl Fn(usize) -> String,
) -> CheckReport {
    match result {
        Ok(()) => {
            let comparison = compare_slices(&check, 0, 1, expected, actual, Tolerance::Exact, what);
            CheckReport::from_comparison(check, kernel, &comparison)
        }
        Err(error) => CheckReport::from_error(check, kernel, &error),
    }
}

/// Compares the GPU evaluation of `individuals` random points with the CPU's, under `profile` and
/// `tolerance`.
pub fn check_problem(
    gpu: &Gpu,
    problem: &dyn CudaProblem,
    individuals: usize,
    profile: Profile,
    tolerance: Tolerance,
    block: u32,
) -> CheckReport {
    let d = problem.dimension();
    let check = format!(
        "{} d={d} x{individuals}, {profile:?}, block {block}",
        problem.name()
    );
    let population = random_population(problem, individuals, d as u64 ^ 0x5eed);
    let mut cpu = vec![0.0f64; individuals];
    problem.evaluate_batch(&population, &mut cpu);
    let mut on_gpu = vec![0.0f64; individuals];
    let result = problem
        .cuda_evaluator(gpu)
        .and_then(|evaluator| evaluator.evaluate_host(&population, &mut on_gpu, profile, block));
    let kernel = "benchmarks_continuous";
    match result {
        Ok(()) => {
            let comparison = compare_slices(&check, 0, 1, &cpu, &on_gpu, tolerance, |i| {
                format!("individual {i} of seed {}", d as u64 ^ 0x5eed)
            });
            CheckReport::from_comparison(check, kernel, &comparison)
        }
        Err(error) => CheckReport::from_error(check, kernel, &error),
    }
}

/// Every small case of `case` at `block`, Exact profile.
pub fn check_case(gpu: &Gpu, case: Case, block: u32) -> Vec<CheckReport> {
    case.dimensions()
        .iter()
        .map(|&d| match case.build(d) {
            Ok(problem) => check_problem(
                gpu,
                problem.as_ref(),
                INDIVIDUALS,
                Profile::Exact,
                Tolerance::Exact,
                block,
            ),
            Err(error) => {
                CheckReport::from_error(format!("{case:?} d={d}"), "benchmarks_continuous", &error)
            }
        })
        .collect()
}

/// The large cases at `block`, Exact profile.
pub fn check_large(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let cases = [
        (Case::Shifted(ShiftedFunction::Rastrigin), 1_000_000, 8),
        (Case::Shifted(ShiftedFunction::Griewank), 1_000_000, 8),
        (Case::Shifted(ShiftedFunction::Schwefel12), 1_000_000, 8),
        (Case::Cec(19), 1_000_000, 8),
        (Case::Shifted(ShiftedFunction::Schwefel12), 1_100_000, 2),
        // One individual per block (launch::block_groups: 49 tiles, 7 rows), Griewank's one-row kernel, with
        // a partial last tile; and one individual at D = 10⁶ (its float4 path).
        (Case::Shifted(ShiftedFunction::Griewank), 100_003, 7),
        (Case::Shifted(ShiftedFunction::Griewank), 1_000_000, 1),
        // cec_groups' values in the finish layout (launch::leaf_slot): 300 groups of 50 (F14) and 300 groups
        // of 50 beside a separable half (F9), one chunk of 256 transposed and 44 in order.
        (Case::Cec(14), 15_000, 3),
        (Case::Cec(9), 30_000, 2),
    ];
    // D = 8196 (a multiple of 4, 4 full tiles of 2048 and a partial one at block 256, 8 full tiles at 128):
    // the tiles kernels' float4 path on every shifted function, the per-term path on the last tile.
    let vector_path = ShiftedFunction::ALL.map(|function| (Case::Shifted(function), 8196, 5));
    cases
        .iter()
        .chain(vector_path.iter())
        .map(|&(case, d, individuals)| match case.build(d) {
            Ok(problem) => check_problem(
                gpu,
                problem.as_ref(),
                individuals,
                Profile::Exact,
                Tolerance::Exact,
                block,
            ),
            Err(error) => {
                CheckReport::from_error(format!("{case:?} d={d}"), "benchmarks_continuous", &error)
            }
        })
        .collect()
}

/// One evaluator per shifted function (Rastrigin, Griewank, Schwefel 1.2 at D = 4099: three tiles per row)
/// evaluating populations of 7, 20, 3 and 20 individuals in turn: nothing an evaluator keeps between calls
/// (its pooled partials, its launch shapes) may leak from one population size into the next.
pub fn check_reused_evaluator(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    const D: usize = 4099;
    let kernel = "benchmarks_continuous";
    let mut reports = Vec::new();
    for function in [
        ShiftedFunction::Rastrigin,
        ShiftedFunction::Griewank,
        ShiftedFunction::Schwefel12,
    ] {
        let evaluator = ShiftedProblem::new(function, D)
            .and_then(|problem| Ok((problem.cuda_evaluator(gpu)?, problem)));
        let (evaluator, problem) = match evaluator {
            Ok(pair) => pair,
            Err(error) => {
                let check = format!("{function:?} d={D} reused evaluator");
                reports.push(CheckReport::from_error(check, kernel, &error));
                continue;
            }
        };
        for (call, individuals) in [7usize, 20, 3, 20].into_iter().enumerate() {
            let check = format!(
                "{} d={D} reused evaluator, call {call} x{individuals}, block {block}",
                problem.name()
            );
            let seed = 0x7e57 + call as u64;
            let population = random_population(&problem, individuals, seed);
            let mut cpu = vec![0.0f64; individuals];
            problem.evaluate_batch(&population, &mut cpu);
            let mut on_gpu = vec![0.0f64; individuals];
            let result = evaluator.evaluate_host(&population, &mut on_gpu, Profile::Exact, block);
            let report = exact_report(check, kernel, result, &cpu, &on_gpu, |i| {
                format!("individual {i} of seed {seed}")
            });
            reports.push(report);
        }
    }
    reports
}

/// Individuals of `check_finish_block_independence`.
const FINISH_ROWS: u64 = 3;

/// The finish kernels' bits do not depend on their block size: `launch::finish` (each of the four
/// combinations) and `launch::finish_prefix` over random tile partials of 3 individuals, at 1024 threads (one
/// segment covers the row) against 32 (2–4 segments combined on the kernel's stack, padded to a power of
/// two); nor those of `finish_prefix` on its summaries per thread (`FinishParams::leaves`, 4 against 8, at
/// both block sizes). The launcher's `finish_block` covers a row in one segment up to 8192 tile pairs (8192
/// summaries), so the evaluations above run the one-segment path, which their CPU comparisons check (with 4
/// summaries per thread: they stay below the 4097 that take 8); this check covers the multi-segment path
/// that longer rows take (CEC 2010 groups at D = 10^6, Schwefel 1.2 beyond 1.68·10^7) and the 8 per thread
/// of Schwefel 1.2 beyond 8.4·10^6.
pub fn check_finish_block_independence(gpu: &Gpu) -> Vec<CheckReport> {
    let kernel = "benchmarks_continuous_finish";
    let mut rng = SplitMix64::new(0xf1_7154);
    let mut reports = Vec::new();
    for (combine, tiles) in [(0u32, 700u64), (1, 1000), (2, 513), (3, 700)] {
        let partials: Vec<f64> = (0..2 * FINISH_ROWS * tiles)
            .map(|k| {
                if k % 2 == 0 {
                    rng.uniform(-1.0e3, 1.0e3) * rng.uniform(0.0, 1.0).powi(3)
                } else if combine == 1 {
                    rng.uniform(0.9, 1.1)
                } else {
                    rng.uniform(-10.0, 10.0)
                }
            })
            .collect();
        let params = FinishParams {
            tiles,
            n: 2048 * tiles,
            bias: -330.0,
            combine,
            add_bias: 1,
            leaves: launch::FINISH_LEAVES,
        };
        let check = format!(
            "finish combine {combine}, {tiles} tiles x{FINISH_ROWS}: block 32 against 1024"
        );
        reports.push(check_finish_blocks(
            gpu,
            check,
            kernel,
            launch::finish,
            &partials,
            (params, params),
        ));
    }
    let tiles = 300u64;
    let nodes: Vec<f64> = (0..4 * FINISH_ROWS * tiles)
        .map(|k| match k % 4 {
            0 => 2048.0,
            1 => rng.uniform(-50.0, 50.0),
            2 => rng.uniform(-1.0e4, 1.0e4),
            _ => rng.uniform(0.0, 1.0e6),
        })
        .collect();
    let params = |leaves: u64| FinishParams {
        tiles,
        n: 0,
        bias: -330.0,
        combine: 0,
        add_bias: 1,
        leaves,
    };
    let kernel = "benchmarks_continuous_finish_prefix";
    for (leaves, block) in [(4u64, 32u32), (8, 1024), (8, 32)] {
        let check = format!(
            "finish_prefix, {tiles} tiles x{FINISH_ROWS}: {leaves} per thread at block {block} against 4 at 1024"
        );
        let run = |params: FinishParams, block: u32| {
            run_finish(gpu, launch::finish_prefix, &nodes, params, block)
        };
        let report = match (run(params(4), 1024), run(params(leaves), block)) {
            (Ok(reference), Ok(other)) => {
                exact_report(check, kernel, Ok(()), &reference, &other, |i| {
                    format!("row {i}")
                })
            }
            (Err(error), _) | (_, Err(error)) => CheckReport::from_error(check, kernel, &error),
        };
        reports.push(report);
    }
    reports
}

/// `launch::finish` reads the layout `launch::leaf_slot` describes: `FINISH_ROWS` rows of 300 random tile sums
/// (one chunk of 256 transposed, 44 in order) placed by `leaf_slot`, summed by the kernel (no combination, no
/// bias) and by the CPU's canonical tree over the leaves in order, bit for bit.
pub fn check_finish_layout(gpu: &Gpu) -> CheckReport {
    let tiles = 300u64;
    let mut rng = SplitMix64::new(0x1eaf_5107);
    let leaves: Vec<f64> = (0..FINISH_ROWS * tiles)
        .map(|_| rng.uniform(-1.0e3, 1.0e3))
        .collect();
    let mut partials = vec![0.0; (2 * FINISH_ROWS * tiles) as usize];
    for r in 0..FINISH_ROWS {
        for i in 0..tiles {
            let slot = r * tiles + launch::leaf_slot(i, tiles);
            partials[2 * slot as usize] = leaves[(r * tiles + i) as usize];
        }
    }
    let expected: Vec<f64> = leaves
        .chunks(tiles as usize)
        .map(evo_core::reduce::pairwise_sum_f64)
        .collect();
    let params = FinishParams {
        tiles,
        n: 0,
        bias: 0.0,
        combine: 0,
        add_bias: 0,
        leaves: launch::FINISH_LEAVES,
    };
    let block = launch::finish_block(tiles, launch::FINISH_LEAVES);
    let check = format!("finish of {tiles} tiles x{FINISH_ROWS} in the leaf_slot layout");
    let kernel = "benchmarks_continuous_finish";
    match run_finish(gpu, launch::finish, &partials, params, block) {
        Ok(actual) => exact_report(check, kernel, Ok(()), &expected, &actual, |i| {
            format!("row {i}")
        }),
        Err(error) => CheckReport::from_error(check, kernel, &error),
    }
}

/// `finish` over `FINISH_ROWS` rows of `partials` with `params` in blocks of `block` threads.
fn run_finish(
    gpu: &Gpu,
    finish: FinishLaunch,
    partials: &[f64],
    params: FinishParams,
    block: u32,
) -> evo_core::Result<Vec<f64>> {
    let device = gpu.upload(partials)?;
    let mut fitness = gpu.alloc::<f64>(FINISH_ROWS as usize)?;
    finish(
        gpu,
        &device,
        &mut fitness,
        params,
        FINISH_ROWS,
        Profile::Exact,
        block,
    )?;
    fitness.to_vec()
}

/// `launch::finish` or `launch::finish_prefix`.
type FinishLaunch = fn(
    &Gpu,
    &DeviceBuffer<f64>,
    &mut DeviceBuffer<f64>,
    FinishParams,
    u64,
    Profile,
    u32,
) -> evo_core::Result<()>;

/// `finish` of `FINISH_ROWS` rows of `partials` with the first params at 1024 threads (one segment) against
/// the second at 32 (several), bit for bit.
fn check_finish_blocks(
    gpu: &Gpu,
    check: String,
    kernel: &str,
    finish: FinishLaunch,
    partials: &[f64],
    (reference, other): (FinishParams, FinishParams),
) -> CheckReport {
    let (reference, other) = match (
        run_finish(gpu, finish, partials, reference, 1024),
        run_finish(gpu, finish, partials, other, 32),
    ) {
        (Ok(reference), Ok(other)) => (reference, other),
        (Err(error), _) | (_, Err(error)) => return CheckReport::from_error(check, kernel, &error),
    };
    exact_report(check, kernel, Ok(()), &reference, &other, |i| {
        format!("row {i}")
    })
}

/// The GA paper's 16-bit encoded problems (`GaBinaryProblem`): decoding and evaluation on the GPU against
/// the CPU's `BinaryProblem::evaluate_batch`, 64 random bit strings at n = 13, 128 and 1000 variables.
pub fn check_binary(gpu: &Gpu, function: GaFunction, block: u32) -> Vec<CheckReport> {
    [13usize, 128, 1000]
        .iter()
        .map(|&n| {
            let check = format!(
                "{} (16-bit codes) n={n} x{INDIVIDUALS}, block {block}",
                function.name()
            );
            let kernel = "benchmarks_continuous_decode16";
            let problem = match GaBinaryProblem::new(function, n) {
                Ok(problem) => problem,
                Err(error) => return CheckReport::from_error(check, kernel, &error),
            };
            let bit_count = problem.bit_count();
            let words = Bits::word_count(bit_count);
            let mut rng = SplitMix64::new(n as u64 ^ 0xb175);
            let bits: Vec<u32> = (0..INDIVIDUALS * words)
                .map(|k| {
                    let word = rng.next_u64() as u32;
                    // Padding bits of the last word stay zero, as in `Bits`.
                    let used = bit_count - (k % words) * 32;
                    if used >= 32 {
                        word
                    } else {
                        word & ((1u32 << used) - 1)
                    }
                })
                .collect();
            let mut cpu = vec![0.0f64; INDIVIDUALS];
            problem.evaluate_batch(&bits, &mut cpu);
            let mut on_gpu = vec![0.0f64; INDIVIDUALS];
            let result = problem.cuda_evaluator(gpu).and_then(|evaluator| {
                evaluator.evaluate_host(&bits, &mut on_gpu, Profile::Exact, block)
            });
            exact_report(check, kernel, result, &cpu, &on_gpu, |i| {
                format!("bit string {i}")
            })
        })
        .collect()
}

/// The bound of the Fast-profile check, in ulps of the CPU's (Exact) fitness. Under `--use_fast_math` NVRTC
/// contracts `a * b + c` into fused multiply-adds in the f64 code too, so the low bits move; the portable math
/// functions keep their own operation sequence apart from that contraction (`--nocapture` prints each case's
/// maximum; `docs/results/verification.md#fast-profile-ulps`). A sum of terms of both signs, such as the GA's
/// Schwefel, loses relative accuracy by cancellation, which is why the bound, 2^20 ulp (about 2e-10 relative),
/// is not set at 2 ulp.
pub const FAST_PROFILE_ULPS: u32 = 1 << 20;

/// Every case at D = 1000 (CEC 2010: 1000), 64 individuals, compiled with the Fast profile, within
/// [`FAST_PROFILE_ULPS`] of the CPU.
pub fn check_fast_profile(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    Case::all()
        .into_iter()
        .map(|case| {
            let d = case.dimensions()[1];
            match case.build(d) {
                Ok(problem) => check_problem(
                    gpu,
                    problem.as_ref(),
                    INDIVIDUALS,
                    Profile::Fast,
                    Tolerance::Ulps(FAST_PROFILE_ULPS),
                    block,
                ),
                Err(error) => CheckReport::from_error(
                    format!("{case:?} d={d}"),
                    "benchmarks_continuous",
                    &error,
                ),
            }
        })
        .collect()
}

/// The CUDA source of the user-function check: portable math, so the Exact profile matches the twin.
pub const USER_TERM: &str = "__device__ double evo_user_term(unsigned long long i, double z)\n{\n    return (double)(i % 5) * (z * z) + evo_exp_f64(-z * z) * evo_cos_f64(z);\n}\n";

/// The Rust twin of [`USER_TERM`].
pub fn user_term(i: usize, z: f64) -> f64 {
    (i % 5) as f64 * (z * z) + exp_f64(-z * z) * cos_f64(z)
}

/// A user-written CUDA term (the contract of `evo_benchmarks::cuda::UserFunction`) against its Rust twin at
/// D = 13, 1000, 4099 and 10⁵.
pub fn check_user_function(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    [13usize, 1000, 4099, 100_000]
        .iter()
        .map(|&d| {
            let problem = Bounds::uniform(d, -3.0, 3.0).and_then(|bounds| {
                UserFunction::new("equivalence-user-term", bounds, USER_TERM, user_term)
            });
            match problem {
                Ok(problem) => check_problem(
                    gpu,
                    &problem,
                    INDIVIDUALS,
                    Profile::Exact,
                    Tolerance::Exact,
                    block,
                ),
                Err(error) => CheckReport::from_error(
                    format!("user term d={d}"),
                    "benchmarks_continuous",
                    &error,
                ),
            }
        })
        .collect()
}

/// Every check at every block size (the large cases at the first block size only, to bound the time).
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &block in &BLOCK_SIZES {
        for case in Case::all() {
            reports.extend(check_case(gpu, case, block));
        }
        reports.extend(check_user_function(gpu, block));
        reports.extend(check_reused_evaluator(gpu, block));
        for function in GaFunction::ALL {
            reports.extend(check_binary(gpu, function, block));
        }
    }
    reports.extend(check_large(gpu, BLOCK_SIZES[0]));
    reports.extend(check_finish_block_independence(gpu));
    reports.extend(check_fast_profile(gpu, BLOCK_SIZES[0]));
    reports
}
