//! Statistical sanity of the default Philox stream (spec rng.md §6): mean, variance, a chi-square test over
//! 1000 bins and the lag-1 serial correlation of uniform f32 draws, and the first two moments of the normals.
//!
//! Thresholds: each statistic must lie within 5 standard deviations of its expectation (two-sided
//! p ≈ 5.7e-7 for a normal statistic), and the chi-square statistic (999 degrees of freedom, mean 999, sd
//! √1998 ≈ 44.7) within [753, 1245] (the same 5.5σ band, p < 1e-6 in each tail by the Wilson–Hilferty
//! approximation). The draws are a fixed function of the seeds below, so the test cannot flake; a failure
//! means the stream or a conversion changed.

use evo_rng::{Philox, Stream};
use statrs::statistics::Statistics;

const DRAWS: u32 = 1 << 20;

fn uniforms(seed: u64, stream: Stream, step: u32, individual: u32) -> Vec<f64> {
    let sequence = Philox::new(seed).sequence(stream, step, individual);
    (0..DRAWS)
        .map(|j| f64::from(sequence.uniform_f32(j)))
        .collect()
}

/// The addresses tested: a plain seed, a high seed, and neighbouring steps and individuals of one stream.
const ADDRESSES: [(u64, Stream, u32, u32); 4] = [
    (0, Stream::Fill, 0, 0),
    (0xffff_ffff_0000_0001, Stream::DeCross, 7, 3),
    (42, Stream::GaMutation, 1, 0),
    (42, Stream::GaMutation, 1, 1),
];

#[test]
fn uniform_mean_and_variance_are_those_of_u01() {
    let n = f64::from(DRAWS);
    for (seed, stream, step, individual) in ADDRESSES {
        let u = uniforms(seed, stream, step, individual);
        let (m, variance) = (u.iter().mean(), u.iter().variance());
        // sd of the mean: √(1/12 / n); sd of the sample variance: √((1/80 − 1/144) / n).
        let mean_sd = (1.0 / 12.0 / n).sqrt();
        let variance_sd = ((1.0 / 80.0 - 1.0 / 144.0) / n).sqrt();
        assert!((m - 0.5).abs() < 5.0 * mean_sd, "{stream:?}: mean {m}");
        assert!(
            (variance - 1.0 / 12.0).abs() < 5.0 * variance_sd,
            "{stream:?}: variance {variance}"
        );
    }
}

#[test]
fn uniform_chi_square_over_1000_bins_is_plausible() {
    for (seed, stream, step, individual) in ADDRESSES {
        let mut bins = [0u32; 1000];
        for x in uniforms(seed, stream, step, individual) {
            // u is in (0, 1]; bin ⌈1000·u⌉ − 1 puts each (k/1000, (k+1)/1000] in bin k.
            let bin = ((x * 1000.0).ceil() as usize).clamp(1, 1000) - 1;
            bins[bin] += 1;
        }
        let expected = f64::from(DRAWS) / 1000.0;
        let chi2: f64 = bins
            .iter()
            .map(|&o| (f64::from(o) - expected).powi(2) / expected)
            .sum();
        assert!(
            (753.0..=1245.0).contains(&chi2),
            "{stream:?}: chi-square {chi2}"
        );
    }
}

#[test]
fn uniform_lag_one_correlation_is_near_zero() {
    for (seed, stream, step, individual) in ADDRESSES {
        let u = uniforms(seed, stream, step, individual);
        let m = u.iter().mean();
        let num: f64 = u.windows(2).map(|w| (w[0] - m) * (w[1] - m)).sum();
        let den: f64 = u.iter().map(|x| (x - m) * (x - m)).sum();
        let r = num / den;
        // sd of the lag-1 autocorrelation of independent draws: 1/√n.
        assert!(
            r.abs() < 5.0 / f64::from(DRAWS).sqrt(),
            "{stream:?}: lag-1 correlation {r}"
        );
    }
}

#[test]
fn normals_have_mean_zero_and_variance_one() {
    let n = f64::from(DRAWS);
    let sequence = Philox::new(9).sequence(Stream::MaSwNoise, 0, 0);
    let z: Vec<f64> = (0..DRAWS / 4)
        .flat_map(|lane| sequence.normals4(lane))
        .map(f64::from)
        .collect();
    let (m, variance) = (z.iter().mean(), z.iter().variance());
    // sd of the mean 1/√n; sd of the sample variance √(2/n).
    assert!(m.abs() < 5.0 / n.sqrt(), "mean {m}");
    assert!(
        (variance - 1.0).abs() < 5.0 * (2.0 / n).sqrt(),
        "variance {variance}"
    );
}
