//! The Fast profile's math: under `-DEVO_PROFILE_FAST=1` the `evo_*` functions of `common/math.cuh` are CUDA's
//! intrinsics (f32) and libdevice (f64), so they no longer equal the CPU; this check measures how far they are
//! from `evo_core::math` (at most 0.51 ulp in f32, 0.83 ulp in f64 from the correctly rounded value) and holds
//! them to the error bounds of the CUDA Programming Guide (appendix "Mathematical Functions"), widened by one
//! ulp for our reference's own error:
//!
//! | function | inputs | bound (guide) | bound here |
//! | --- | --- | --- | --- |
//! | `__sinf`, `__cosf` | [−π, π] | absolute 2^-21.41 | absolute 2^-21 |
//! | `__expf` | [−20, 20] | 2 + ⌊1.173·\|x\|⌋ ulp | 3 + ⌊1.173·\|x\|⌋ ulp |
//! | `__logf` | [0.5, 2] | absolute 2^-21.41 | absolute 2^-21.41 + 1 ulp |
//! | `__logf` | (2, 10^6] | 3 ulp | 4 ulp |
//! | `sin`, `cos` (f64) | [−100, 100] | 2 ulp | 3 ulp |
//! | `exp`, `log` (f64) | [−700, 700], (0, 10^300] | 1 ulp | 2 ulp |
//! | `pow` (f64) | x in (0, 100], y in [−4, 4] | 2 ulp | 3 ulp |
//!
//! `__powf` has no stated bound (it is `exp2(y·log2 x)`); it is not checked. The guide's bounds come "from
//! extensive but not exhaustive tests": on an H100 (driver 13.0) `__cosf` reached 3.87e-7 = 2^-21.30 at
//! x = 1.7566837 (cos x ≈ −0.1848), above 2^-21.41, so sine and cosine are held to 2^-21.

use evo_core::math::MathFunction;
use evo_gpu_runtime::{Gpu, Profile, core_kernels};

use super::CheckReport;
use crate::inputs::SplitMix64;
use crate::tolerance::Float;

/// Inputs per checked case.
pub const INPUTS: usize = 1 << 20;

/// 2^-21.41, the guide's absolute bound for `__sinf`, `__cosf` and `__logf` on their reduced ranges.
pub const INTRINSIC_ABSOLUTE: f64 = 3.585_270_3e-7;
/// 2^-21, the bound held for `__sinf` and `__cosf` (measured: 2^-21.30, see the module docs).
pub const SINE_ABSOLUTE: f64 = 4.768_371_6e-7;

/// One case: a function, an input range, and its bound on |gpu − cpu| for input x and reference value r.
struct Case {
    function: MathFunction,
    range: (f64, f64),
    y_range: (f64, f64),
    bound: &'static str,
    within: fn(x: f64, reference: f64, difference: f64, ulps: u64) -> bool,
}

fn ulp_f32(value: f64) -> f64 {
    let v = (value as f32).abs();
    f64::from(f32::from_bits(v.to_bits() + 1) - v)
}

const F32_CASES: [Case; 5] = [
    Case {
        function: MathFunction::Sin,
        range: (-std::f64::consts::PI, std::f64::consts::PI),
        y_range: (0.0, 0.0),
        bound: "abs 2^-21",
        within: |_, _, d, _| d <= SINE_ABSOLUTE,
    },
    Case {
        function: MathFunction::Cos,
        range: (-std::f64::consts::PI, std::f64::consts::PI),
        y_range: (0.0, 0.0),
        bound: "abs 2^-21",
        within: |_, _, d, _| d <= SINE_ABSOLUTE,
    },
    Case {
        function: MathFunction::Exp,
        range: (-20.0, 20.0),
        y_range: (0.0, 0.0),
        bound: "3 + floor(1.173|x|) ulp",
        within: |x, _, _, u| u as f64 <= 3.0 + (1.173 * x.abs()).floor(),
    },
    Case {
        function: MathFunction::Log,
        range: (0.5, 2.0),
        y_range: (0.0, 0.0),
        bound: "abs 2^-21.41 + 1 ulp",
        within: |_, r, d, _| d <= INTRINSIC_ABSOLUTE + ulp_f32(r),
    },
    Case {
        function: MathFunction::Log,
        range: (2.0, 1e6),
        y_range: (0.0, 0.0),
        bound: "4 ulp",
        within: |_, _, _, u| u <= 4,
    },
];

const F64_CASES: [Case; 5] = [
    Case {
        function: MathFunction::Sin,
        range: (-100.0, 100.0),
        y_range: (0.0, 0.0),
        bound: "3 ulp",
        within: |_, _, _, u| u <= 3,
    },
    Case {
        function: MathFunction::Cos,
        range: (-100.0, 100.0),
        y_range: (0.0, 0.0),
        bound: "3 ulp",
        within: |_, _, _, u| u <= 3,
    },
    Case {
        function: MathFunction::Exp,
        range: (-700.0, 700.0),
        y_range: (0.0, 0.0),
        bound: "2 ulp",
        within: |_, _, _, u| u <= 2,
    },
    Case {
        function: MathFunction::Log,
        range: (1e-300, 1e300),
        y_range: (0.0, 0.0),
        bound: "2 ulp",
        within: |_, _, _, u| u <= 2,
    },
    Case {
        function: MathFunction::Pow,
        range: (1e-6, 100.0),
        y_range: (-4.0, 4.0),
        bound: "3 ulp",
        within: |_, _, _, u| u <= 3,
    },
];

/// Uniform inputs over `range` (log-uniform when it spans more than 6 decades of positive numbers).
fn inputs(range: (f64, f64), seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    let (lo, hi) = range;
    let logarithmic = lo > 0.0 && hi / lo > 1e6;
    (0..INPUTS)
        .map(|_| {
            let u = rng.next_unit();
            if logarithmic {
                (lo.ln() + u * (hi.ln() - lo.ln())).exp()
            } else {
                lo + u * (hi - lo)
            }
        })
        .collect()
}

fn report<T: Float + Into<f64>>(
    case: &Case,
    suffix: &str,
    block: u32,
    xs: &[T],
    cpu: &[T],
    gpu: evo_core::Result<Vec<T>>,
) -> CheckReport {
    let check = format!(
        "fast {}_{suffix} on [{:e}, {:e}], block {block}",
        case.function.name(),
        case.range.0,
        case.range.1
    );
    let kernel = format!("math_eval_{suffix} (Fast)");
    let values = match gpu {
        Ok(values) => values,
        Err(error) => return CheckReport::from_error(check, &kernel, &error),
    };
    let mut worst_ulps = 0u64;
    let mut failure = None;
    for (i, (&c, &g)) in cpu.iter().zip(&values).enumerate() {
        let ulps = c.ulps_between(g);
        let (x, r, v) = (xs[i].into(), c.into(), g.into());
        worst_ulps = worst_ulps.max(ulps);
        if failure.is_none() && !(case.within)(x, r, (v - r).abs(), ulps) {
            failure = Some(format!(
                "x = {x:e}: cpu {r:e}, gpu {v:e} ({ulps} ulp) exceeds {}",
                case.bound
            ));
        }
    }
    CheckReport {
        check,
        kernel,
        cases: cpu.len() as u64,
        max_difference: format!("{worst_ulps} ulp (bound {})", case.bound),
        passed: failure.is_none(),
        detail: failure.unwrap_or_default(),
    }
}

/// Every Fast-profile case at `block`.
pub fn check_at(gpu: &Gpu, block: u32) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for (k, case) in F32_CASES.iter().enumerate() {
        let xs: Vec<f32> = inputs(case.range, 1 + k as u64)
            .iter()
            .map(|&x| x as f32)
            .collect();
        let ys = vec![0f32; xs.len()];
        let cpu: Vec<f32> = xs
            .iter()
            .map(|&x| case.function.apply_f32(x, 0.0))
            .collect();
        let gpu_values = (|| -> evo_core::Result<Vec<f32>> {
            let (x, y) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
            let mut out = gpu.alloc::<f32>(xs.len())?;
            core_kernels::math_eval_f32(
                gpu,
                case.function,
                &x,
                &y,
                &mut out,
                Profile::Fast,
                block,
            )?;
            out.to_vec()
        })();
        reports.push(report(case, "f32", block, &xs, &cpu, gpu_values));
    }
    for (k, case) in F64_CASES.iter().enumerate() {
        let xs = inputs(case.range, 100 + k as u64);
        let ys: Vec<f64> = if case.y_range == (0.0, 0.0) {
            vec![0.0; xs.len()]
        } else {
            inputs(case.y_range, 200 + k as u64)
        };
        let cpu: Vec<f64> = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| case.function.apply_f64(x, y))
            .collect();
        let gpu_values = (|| -> evo_core::Result<Vec<f64>> {
            let (x, y) = (gpu.upload(&xs)?, gpu.upload(&ys)?);
            let mut out = gpu.alloc::<f64>(xs.len())?;
            core_kernels::math_eval_f64(
                gpu,
                case.function,
                &x,
                &y,
                &mut out,
                Profile::Fast,
                block,
            )?;
            out.to_vec()
        })();
        reports.push(report(case, "f64", block, &xs, &cpu, gpu_values));
    }
    reports
}

/// Every Fast-profile case at every block size.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    super::BLOCK_SIZES
        .iter()
        .flat_map(|&block| check_at(gpu, block))
        .collect()
}
