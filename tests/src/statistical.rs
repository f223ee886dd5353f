//! Statistical equivalence, for results that are not bit-identical by design (the Fast profile, the papers'
//! own generators): the CPU and GPU samples (for example the final best fitness of 30 seeds each) must not be
//! distinguishable by a two-sided Mann–Whitney U test at level `alpha`.
//!
//! U counts, over all pairs (a from the CPU sample, b from the GPU sample), 1 when a > b and 1/2 when a = b.
//! Under the null hypothesis of one common distribution, U is approximately normal with mean n·m/2 and a
//! tie-corrected variance; the p-value is 2·(1 − Φ(|z|)) with a continuity correction of 1/2 (statrs'
//! asymptotic method, the one scipy uses). Samples of at least 20 each keep the approximation accurate to
//! about 0.01 in p.

use evo_core::{Error, Result};
use statrs::stats_tests::Alternative;
use statrs::stats_tests::mannwhitneyu::{MannWhitneyUMethod, mannwhitneyu};

/// The name errors and reports give the test.
const TEST: &str = "Mann-Whitney U (two-sided, normal approximation)";

/// The outcome of a statistical comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct StatisticalComparison {
    /// The test that was applied.
    pub test: &'static str,
    /// The statistic (U of the first sample).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// The level the p-value was compared with.
    pub alpha: f64,
}

impl StatisticalComparison {
    /// Whether the samples are accepted as one distribution (p ≥ alpha).
    pub fn passed(&self) -> bool {
        self.p_value >= self.alpha
    }
}

impl std::fmt::Display for StatisticalComparison {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: U = {}, p = {:.4} (alpha {}): {}",
            self.test,
            self.statistic,
            self.p_value,
            self.alpha,
            if self.passed() {
                "same distribution accepted"
            } else {
                "distributions differ"
            }
        )
    }
}

/// A sample value ordered by `total_cmp`, so that NaN values rank last (they count against equivalence
/// rather than make the test fail to rank) and ties are exact bit-level equality up to `total_cmp`.
#[derive(Debug, Clone, Copy)]
struct Ranked(f64);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.0.total_cmp(&other.0))
    }
}

/// Two-sided Mann–Whitney U test of `cpu` against `gpu` at level `alpha`; the statistic is U of `cpu`.
///
/// # Errors
/// [`Error::InvalidParameter`] when a sample is empty (there is nothing to compare).
pub fn mann_whitney(cpu: &[f64], gpu: &[f64], alpha: f64) -> Result<StatisticalComparison> {
    for (name, sample) in [("cpu sample size", cpu), ("gpu sample size", gpu)] {
        if sample.is_empty() {
            return Err(Error::invalid_parameter(TEST, name, 0, "at least 1 value"));
        }
    }
    let x: Vec<Ranked> = cpu.iter().copied().map(Ranked).collect();
    let y: Vec<Ranked> = gpu.iter().copied().map(Ranked).collect();
    // statrs reports max(U_cpu, U_gpu) for the two-sided test; the one-sided call gives U of `cpu`.
    let test = |alternative| {
        mannwhitneyu(
            &x,
            &y,
            MannWhitneyUMethod::AsymptoticInclContinuityCorrection,
            alternative,
        )
        .map_err(|e| {
            Error::invalid_parameter(
                TEST,
                "samples",
                e,
                "two non-empty samples of comparable values",
            )
        })
    };
    let (statistic, _) = test(Alternative::Greater)?;
    let (_, p_value) = test(Alternative::TwoSided)?;
    Ok(StatisticalComparison {
        test: TEST,
        statistic,
        p_value,
        alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::SplitMix64;

    #[test]
    fn same_distribution_is_accepted_and_a_shift_is_rejected() {
        let mut rng = SplitMix64::new(42);
        let a: Vec<f64> = (0..30).map(|_| rng.next_unit()).collect();
        let b: Vec<f64> = (0..30).map(|_| rng.next_unit()).collect();
        let shifted: Vec<f64> = b.iter().map(|v| v + 0.5).collect();
        assert!(mann_whitney(&a, &b, 0.01).unwrap().passed());
        let rejected = mann_whitney(&a, &shifted, 0.01).unwrap();
        assert!(!rejected.passed(), "{rejected}");
    }

    #[test]
    fn u_statistic_matches_a_hand_count() {
        // Pairs with a > b among a = {1, 2, 5}, b = {3, 4}: only 5 > 3 and 5 > 4, so U = 2.
        let result = mann_whitney(&[1.0, 2.0, 5.0], &[3.0, 4.0], 0.05).unwrap();
        assert_eq!(result.statistic, 2.0);
    }

    #[test]
    fn identical_constant_samples_have_p_one() {
        let result = mann_whitney(&[1.0; 30], &[1.0; 30], 0.05).unwrap();
        assert_eq!(result.p_value, 1.0);
    }

    /// Inputs covering no ties, ties across and within samples, NaN, signed zeros, unequal sizes and a shift,
    /// each with U and the p-value the hand-written test (normal approximation, Numerical Recipes' erfc)
    /// gave before this module used statrs.
    fn recorded() -> Vec<(Vec<f64>, Vec<f64>, f64, f64)> {
        let mut rng = SplitMix64::new(7);
        let mut draw = |n: usize, shift: f64| -> Vec<f64> {
            (0..n).map(|_| rng.next_unit() + shift).collect()
        };
        let a = draw(30, 0.0);
        let b = draw(30, 0.0);
        let c = draw(25, 0.2);
        let rounded: Vec<f64> = a.iter().map(|v| (v * 4.0).round()).collect();
        let rounded_b: Vec<f64> = b.iter().map(|v| (v * 4.0).round()).collect();
        vec![
            (a.clone(), b, 523.0, 0.283_778_065_469_105_8),
            (a, c, 234.0, 0.017_554_490_598_859_83),
            (rounded, rounded_b, 527.5, 0.242_061_620_188_049_22),
            (
                vec![1.0, 2.0, 5.0],
                vec![3.0, 4.0],
                2.0,
                0.772_830_020_974_541_1,
            ),
            (
                vec![1.0, f64::NAN, 0.0, -0.0],
                vec![2.0, 0.0, f64::NAN],
                4.0,
                0.589_154_417_973_924_1,
            ),
            (vec![1.0; 30], vec![1.0; 30], 450.0, 1.0),
            (vec![3.0], vec![1.0, 2.0], 2.0, 0.540_291_329_614_993_6),
        ]
    }

    #[test]
    fn statrs_gives_the_statistics_and_p_values_of_the_hand_written_test() {
        for (cpu, gpu, u, p) in recorded() {
            let result = mann_whitney(&cpu, &gpu, 0.05).unwrap();
            assert_eq!(result.statistic, u, "{cpu:?} {gpu:?}");
            // Numerical Recipes' erfc is good to 1.2e-7 relative; statrs' to machine precision.
            assert!(
                (result.p_value - p).abs() < 1e-6,
                "{result}: recorded p {p}"
            );
        }
    }

    #[test]
    fn an_empty_sample_is_refused_by_name() {
        let e = mann_whitney(&[], &[1.0], 0.05).unwrap_err();
        assert!(e.to_string().contains("cpu sample size"), "{e}");
        let e = mann_whitney(&[1.0], &[], 0.05).unwrap_err();
        assert!(e.to_string().contains("gpu sample size"), "{e}");
    }
}
