//! The canonical reduction: `evo_core::reduce` against the `reduce_sum_*` kernels, bit for bit, at sizes that
//! exercise one partial block, many blocks, several passes and non-powers of two.

use evo_core::reduce::{pairwise_sum_f32_as_f64, pairwise_sum_f64};
use evo_gpu_runtime::{Gpu, core_kernels};

use super::{BLOCK_SIZES, CheckReport};
use crate::compare::compare_slices;
use crate::inputs::SplitMix64;
use crate::tolerance::Tolerance;

/// Sizes every reduction check runs: empty, tiny, one block, a block and one, many passes, large.
pub const SIZES: [usize; 8] = [0, 1, 255, 512, 513, 100_003, 1 << 20, 10_000_019];

/// Terms with mixed magnitudes and signs, so that any change of summation order shows in the low bits.
pub fn awkward_terms(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| rng.log_uniform(-40.0, 40.0)).collect()
}

/// Compares the f64 sum of `n` terms at `block`.
pub fn check_sum_f64(gpu: &Gpu, n: usize, block: u32) -> CheckReport {
    let terms = awkward_terms(n, n as u64);
    let cpu = pairwise_sum_f64(&terms);
    let check = format!("sum_f64 n={n}, block {block}");
    let on_gpu = gpu
        .upload(&terms)
        .and_then(|buffer| core_kernels::reduce_sum_f64(gpu, &buffer, block));
    report(check, "reduce_sum_f64", cpu, on_gpu)
}

/// Compares the f32-to-f64 sum of `n` terms at `block`.
pub fn check_sum_f32(gpu: &Gpu, n: usize, block: u32) -> CheckReport {
    let terms: Vec<f32> = awkward_terms(n, n as u64 + 1)
        .iter()
        .map(|&t| t as f32)
        .collect();
    let cpu = pairwise_sum_f32_as_f64(&terms);
    let check = format!("sum_f32_to_f64 n={n}, block {block}");
    let on_gpu = gpu
        .upload(&terms)
        .and_then(|buffer| core_kernels::reduce_sum_f32_to_f64(gpu, &buffer, block));
    report(check, "reduce_sum_f32_to_f64", cpu, on_gpu)
}

fn report(check: String, kernel: &str, cpu: f64, gpu: evo_core::Result<f64>) -> CheckReport {
    match gpu {
        Ok(value) => {
            let comparison =
                compare_slices(&check, 0, 1, &[cpu], &[value], Tolerance::Exact, |_| {
                    String::new()
                });
            CheckReport::from_comparison(check, kernel, &comparison)
        }
        Err(error) => CheckReport::from_error(check, kernel, &error),
    }
}

/// Both reductions at every size and block size.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = Vec::new();
    for &n in &SIZES {
        for &block in &BLOCK_SIZES {
            reports.push(check_sum_f64(gpu, n, block));
            reports.push(check_sum_f32(gpu, n, block));
        }
    }
    reports
}
