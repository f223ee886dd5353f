//! The equivalence checks as plain functions, so that `#[test]`s (through [`crate::equivalence_test!`]) and
//! `cargo xtask verify-kernels` (through [`run_all`]) run the same code.

pub mod benchmarks_continuous;
pub mod benchmarks_discrete;
pub mod de;
pub mod dpga;
pub mod fast_math;
pub mod ga;
pub mod ma;
pub mod math;
pub mod qiga;
pub mod reduce;
pub mod rng;
pub mod sort;
pub mod user_real;

use evo_gpu_runtime::Gpu;

use crate::compare::Comparison;

/// The two block sizes every operator-level check runs under: the result must not depend on the launch shape.
pub const BLOCK_SIZES: [u32; 2] = [128, 256];

/// The outcome of one check, one row of `verify-kernels`' table.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The check ("sin_f32, block 128").
    pub check: String,
    /// The kernel entry point it exercises.
    pub kernel: String,
    /// Elements compared.
    pub cases: u64,
    /// Largest difference seen ("0 ulp").
    pub max_difference: String,
    /// Whether every element was within tolerance.
    pub passed: bool,
    /// The first mismatch or error, empty when passed.
    pub detail: String,
}

impl CheckReport {
    pub(crate) fn from_comparison(check: String, kernel: &str, comparison: &Comparison) -> Self {
        Self {
            check,
            kernel: kernel.to_string(),
            cases: comparison.cases,
            max_difference: if comparison.passed() {
                format!("{} ulp", comparison.max_ulps)
            } else {
                format!("{} mismatches", comparison.mismatches)
            },
            passed: comparison.passed(),
            detail: comparison
                .first_mismatch
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
        }
    }

    /// The report of a lockstep run: `Ok(Ok(cases))` when every compared element was identical (0 ulp),
    /// `Ok(Err(comparison))` at the first mismatch, `Err(error)` when a step failed.
    pub(crate) fn from_lockstep(
        check: String,
        kernel: &str,
        outcome: evo_core::Result<std::result::Result<u64, Comparison>>,
    ) -> Self {
        match outcome {
            Ok(Ok(cases)) => Self {
                check,
                kernel: kernel.to_string(),
                cases,
                max_difference: "0 ulp".into(),
                passed: true,
                detail: String::new(),
            },
            Ok(Err(comparison)) => Self::from_comparison(check, kernel, &comparison),
            Err(error) => Self::from_error(check, kernel, &error),
        }
    }

    pub(crate) fn from_error(check: String, kernel: &str, error: &evo_core::Error) -> Self {
        Self {
            check,
            kernel: kernel.to_string(),
            cases: 0,
            max_difference: "-".into(),
            passed: false,
            detail: error.to_string(),
        }
    }

    /// Panics with the detail when the check failed, for use in `#[test]`s.
    pub fn assert_passed(&self) {
        assert!(
            self.passed,
            "{} ({}): {}",
            self.check, self.kernel, self.detail
        );
    }
}

/// Every registered check at every block size, in a fixed order.
pub fn run_all(gpu: &Gpu) -> Vec<CheckReport> {
    let mut reports = math::run_all(gpu, math::INPUTS_PER_FUNCTION);
    reports.extend(fast_math::run_all(gpu));
    reports.extend(reduce::run_all(gpu));
    reports.extend(sort::run_all(gpu));
    reports.extend(rng::run_all(gpu));
    reports.extend(benchmarks_continuous::run_all(gpu));
    reports.extend(benchmarks_discrete::run_all(gpu));
    reports.extend(de::run_all(gpu));
    reports.extend(qiga::run_all(gpu));
    reports.extend(ma::run_all(gpu));
    reports.extend(ga::run_all(gpu));
    reports.extend(dpga::run_all(gpu));
    reports.extend(user_real::run_all(gpu));
    reports
}
