//! Portable math: `evo_core::math` against `common/math.cuh` through the `math_eval_*` kernels, bit for bit
//! under the Exact profile, over inputs of every float class (see [`crate::inputs`]).

use evo_core::math::MathFunction;
use evo_gpu_runtime::{Gpu, Profile, core_kernels};
use rayon::prelude::*;

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::{compare_slices, with_bits};
use crate::inputs::{math_inputs_f32, math_inputs_f64};
use crate::tolerance::Tolerance;

/// Inputs per function and precision in the full suite.
pub const INPUTS_PER_FUNCTION: usize = 10_000_000;

/// The seed of the inputs; fixed so that a failure reproduces.
pub const SEED: u64 = 0x0005_eed0_f3a7;

macro_rules! check_precision {
    ($name:ident, $t:ty, $inputs:ident, $apply:ident, $eval:path, $suffix:literal) => {
        /// Compares `function` on the CPU and on the GPU over `count` inputs at each of `blocks`.
        pub fn $name(
            gpu: &Gpu,
            function: MathFunction,
            count: usize,
            blocks: &[u32],
        ) -> Vec<CheckReport> {
            let (xs, ys) = $inputs(function, count, SEED);
            let cpu: Vec<$t> = xs
                .par_iter()
                .zip(&ys)
                .map(|(&x, &y)| function.$apply(x, y))
                .collect();
            let kernel = concat!("math_eval_", $suffix);
            blocks
                .iter()
                .map(|&block| {
                    let check = format!("{}_{}, block {block}", function.name(), $suffix);
                    let gpu_values = (|| -> evo_core::Result<Vec<$t>> {
                        let x = gpu.upload(&xs)?;
                        let y = gpu.upload(&ys)?;
                        let mut out = gpu.alloc::<$t>(xs.len())?;
                        $eval(gpu, function, &x, &y, &mut out, Profile::Exact, block)?;
                        out.to_vec()
                    })();
                    match gpu_values {
                        Ok(values) => {
                            let comparison = compare_slices(
                                &check,
                                0,
                                1,
                                &cpu,
                                &values,
                                Tolerance::Exact,
                                |i| format!("x = {}, y = {}", with_bits(xs[i]), with_bits(ys[i])),
                            );
                            CheckReport::from_comparison(check, kernel, &comparison)
                        }
                        Err(error) => CheckReport::from_error(check, kernel, &error),
                    }
                })
                .collect()
        }
    };
}

check_precision!(
    check_f32,
    f32,
    math_inputs_f32,
    apply_f32,
    core_kernels::math_eval_f32,
    "f32"
);
check_precision!(
    check_f64,
    f64,
    math_inputs_f64,
    apply_f64,
    core_kernels::math_eval_f64,
    "f64"
);

/// Every function in both precisions at both block sizes.
pub fn run_all(gpu: &Gpu, count: usize) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for function in MathFunction::ALL {
        reports.extend(check_f32(gpu, function, count, &BLOCK_SIZES));
        reports.extend(check_f64(gpu, function, count, &BLOCK_SIZES));
    }
    reports
}
