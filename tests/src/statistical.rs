//! Statistical equivalence, for results that are not bit-identical by design (the Fast profile, the papers'
//! own generators): the CPU and GPU samples (for example the final best fitness of 30 seeds each) must not be
//! distinguishable by a two-sided Mann–Whitney U test at level `alpha`.
//!
//! U counts, over all pairs (a from the CPU sample, b from the GPU sample), 1 when a > b and 1/2 when a = b.
//! Under the null hypothesis of one common distribution, U is approximately normal with mean n·m/2 and
//! variance n·m/12 · ((N + 1) − Σ(t³ − t)/(N(N − 1))) over tie groups of size t, N = n + m (Mann & Whitney
//! 1947; tie correction as in Hollander & Wolfe, *Nonparametric Statistical Methods*, §4.1). The p-value is
//! 2·(1 − Φ(|z|)) with a continuity correction of 1/2. Samples of at least 20 each keep the approximation
//! accurate to about 0.01 in p.

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

/// Two-sided Mann–Whitney U test of `cpu` against `gpu` at level `alpha`. NaN values are ordered last by
/// `total_cmp` so that they count against equivalence rather than vanish.
pub fn mann_whitney(cpu: &[f64], gpu: &[f64], alpha: f64) -> StatisticalComparison {
    let (n, m) = (cpu.len() as f64, gpu.len() as f64);
    let mut pooled: Vec<(f64, bool)> = cpu
        .iter()
        .map(|&v| (v, true))
        .chain(gpu.iter().map(|&v| (v, false)))
        .collect();
    pooled.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Mid-ranks: a tie group occupying ranks r+1..=r+t gets rank r + (t + 1)/2 for each member.
    let mut rank_sum_cpu = 0.0;
    let mut tie_term = 0.0;
    let mut start = 0;
    while start < pooled.len() {
        let mut end = start + 1;
        while end < pooled.len() && pooled[end].0.total_cmp(&pooled[start].0).is_eq() {
            end += 1;
        }
        let t = (end - start) as f64;
        let mid_rank = start as f64 + (t + 1.0) / 2.0;
        rank_sum_cpu += mid_rank
            * pooled[start..end]
                .iter()
                .filter(|(_, is_cpu)| *is_cpu)
                .count() as f64;
        tie_term += t * t * t - t;
        start = end;
    }
    let u = rank_sum_cpu - n * (n + 1.0) / 2.0;
    let total = n + m;
    let mean = n * m / 2.0;
    let variance = if total > 1.0 {
        n * m / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)))
    } else {
        0.0
    };
    let p_value = if variance <= 0.0 {
        1.0
    } else {
        let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
        (2.0 * (1.0 - standard_normal_cdf(z))).min(1.0)
    };
    StatisticalComparison {
        test: "Mann-Whitney U (two-sided, normal approximation)",
        statistic: u,
        p_value,
        alpha,
    }
}

/// Φ(z) through the complementary error function, erfc by the Chebyshev fit of Numerical Recipes (3rd ed.,
/// §6.2.2, relative error below 1.2e-7 everywhere), more than enough for a p-value.
fn standard_normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let value = t * poly.exp();
    if x >= 0.0 { value } else { 2.0 - value }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::SplitMix64;

    #[test]
    fn normal_cdf_matches_tabulated_values() {
        // Abramowitz & Stegun, table 26.1.
        for (z, phi) in [
            (0.0, 0.5),
            (1.0, 0.841_344_75),
            (1.96, 0.975_002_1),
            (-2.5, 0.006_209_67),
        ] {
            assert!((standard_normal_cdf(z) - phi).abs() < 1e-6, "Phi({z})");
        }
    }

    #[test]
    fn same_distribution_is_accepted_and_a_shift_is_rejected() {
        let mut rng = SplitMix64::new(42);
        let a: Vec<f64> = (0..30).map(|_| rng.next_unit()).collect();
        let b: Vec<f64> = (0..30).map(|_| rng.next_unit()).collect();
        let shifted: Vec<f64> = b.iter().map(|v| v + 0.5).collect();
        assert!(mann_whitney(&a, &b, 0.01).passed());
        let rejected = mann_whitney(&a, &shifted, 0.01);
        assert!(!rejected.passed(), "{rejected}");
    }

    #[test]
    fn u_statistic_matches_a_hand_count() {
        // Pairs with a > b among a = {1, 2, 5}, b = {3, 4}: only 5 > 3 and 5 > 4, so U = 2.
        let result = mann_whitney(&[1.0, 2.0, 5.0], &[3.0, 4.0], 0.05);
        assert_eq!(result.statistic, 2.0);
    }

    #[test]
    fn identical_constant_samples_have_p_one() {
        let result = mann_whitney(&[1.0; 30], &[1.0; 30], 0.05);
        assert_eq!(result.p_value, 1.0);
    }
}
