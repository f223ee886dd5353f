//! Rastrigin.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} [z_i² − 10 cos(2π z_i) + 10],   minimum 0 at z = 0
//! ```
//!
//! Domains: [−5.12, 5.12] (GA paper f7, DE paper f2, MA-SW-Chains), [−5, 5] (CEC 2010). Sources: Oiso et al.
//! Table 1; Krömer et al. eq. (6); Lastra et al. §6.3.2; Tang et al. §2. Twin: `evo_rastrigin_term`.
//!
//! The cosine is [`rastrigin_cos`], a select-free cosine with an *absolute* accuracy bound, which is all the
//! term needs: `10 − 10 cos(2πz) + z²` adds `10` and `z²` to `10 cos`, so an absolute error `e` of the cosine
//! is an absolute error `10 e` of the term whatever the size of `cos(2πz)` (near its zeros, where a relative
//! bound would be tighter, the term is about `10 + z²`):
//!
//! ```text
//! z' = z  if |z| < 2^49, else fmod(z, 1)    (exact)
//! n  = (z' + 1.5·2^52) − 1.5·2^52 = rint(z')   a = |z' − n| ≤ 1/2            (exact)
//! far = a > 1/4;   b = far ? 1/2 − a : a    (exact, Sterbenz)   0 ≤ b ≤ 1/4
//! v = 4b (exact);  cos(2πz) = cos(2πa) = ±cos((π/2) v) = ±P_c(v²),   minus when far
//! ```
//!
//! `P_c` is the degree-10 Taylor polynomial of `cos((π/2)v)` in `v²` (coefficients `(−1)^k (π/2)^{2k}/(2k)!`
//! rounded to nearest; truncation below 2e-17 on `|v| ≤ 1`),
//! by Horner's rule with explicit fused multiply-adds (`f64::mul_add` here, `fma` in the CUDA twin), correctly
//! rounded on both sides, so the CPU and the GPU compute the same bits under `--fmad=false`. It folds
//! to the first quarter period and has a single polynomial: 5 operations of reduction and folding, 1 for
//! `v²`, 10 fused multiply-adds and a sign, no select of coefficients.
//!
//! Accuracy, absolute, against `cos(2πz)` of the exact `z` (mpmath at 200 bits, 34 141 arguments: 10⁴ each
//! in [−5.12, 5.12], [−600, 600] and differences of two `f32`, and 4 141 within 5e-8 of a quarter period):
//! at most 2.6e-16, so the term `(z² − 10 cos) + 10` moves by at most 2.6e-15, about
//! one ulp of a term value near 20. The cosine is not exactly 0 at odd quarter periods (1.1e-16
//! there); it is exactly 1 at integers (so the term is `z²`, 0 at `z = 0`) and exactly −1 at half-integers.
//! The tests below keep 41 of the mpmath values (the worst among them) and a double-double reference.

use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|z|` at and above which `z` is first reduced modulo 1 (exact).
const LARGE: f64 = 562_949_953_421_312.0; // 2^49

/// `(−1)^k (π/2)^{2k}/(2k)!`, k = 0..=10, rounded to nearest .
const COS: [f64; 11] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbff3_bd3c_c9be_45de),
    f64::from_bits(0x3fd0_3c1f_081b_5ac4),
    f64::from_bits(0xbf95_5d3c_7e3c_bffa),
    f64::from_bits(0x3f4e_1f50_6891_babb),
    f64::from_bits(0xbefa_6d1f_2a20_4a8c),
    f64::from_bits(0x3e9f_9d38_a376_3cc3),
    f64::from_bits(0xbe3b_6e24_f44b_128f),
    f64::from_bits(0x3dd2_0c62_c2f2_d7f5),
    f64::from_bits(0xbd62_a0c5_91af_8314),
    f64::from_bits(0x3cee_f6e3_08d6_d1c4),
];

/// `cos(2π z)` within 2.6e-16 absolute (module docs). Bit-identical to the CUDA twin `evo_rastrigin_cos`.
#[inline]
pub fn rastrigin_cos(z: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { rastrigin_cos_x86_fma(z) };
        }
    }
    rastrigin_cos_portable(z)
}

/// The same function compiled with the `fma` target feature, so that `mul_add` is one instruction instead
/// of a call to the C library's `fma` (both are correctly rounded: the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn rastrigin_cos_x86_fma(z: f64) -> f64 {
    rastrigin_cos_portable(z)
}

#[inline(always)]
fn rastrigin_cos_portable(z: f64) -> f64 {
    // fmod is exact; |z| >= 2^49 never happens for points of the benchmark domains.
    let z = if z.abs() < LARGE { z } else { z % 1.0 };
    let n = (z + ROUNDER) - ROUNDER;
    let a = (z - n).abs();
    let far = a > 0.25;
    let v = 4.0 * if far { 0.5 - a } else { a };
    let s = v * v;
    let mut p = COS[10];
    for &c in COS[..10].iter().rev() {
        p = p.mul_add(s, c);
    }
    if far { -p } else { p }
}

/// One term, `(z² − 10 cos(2πz)) + 10`, the cosine being [`rastrigin_cos`].
#[inline]
pub fn rastrigin_term(z: f64) -> f64 {
    (z * z - 10.0 * rastrigin_cos(z)) + 10.0
}

/// Rastrigin of `z(0..n)`, summed with the canonical tree.
pub fn rastrigin<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| rastrigin_term(z(i)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::TWO_PI;
    use evo_core::math::{cos_f64, sin_f64};

    /// `(z, hi, lo)` as bits: `hi + lo` is `cos(2πz)` of the exact `z` to about 1e-32 (mpmath at 200 bits).
    /// Random `z` in [−5.12, 5.12], [−600, 600] and differences of two `f32`, points within 5e-8 of a quarter
    /// period, and the worst of 34 141 such arguments (the last row).
    const MPMATH: [(u64, u64, u64); 41] = [
        (
            0xc00e_22d5_2452_85b1,
            0x3fbb_4e2f_2e69_fea1,
            0x3c55_9d20_3086_0b19,
        ),
        (
            0x4011_77c3_1b3b_c069,
            0xbfe5_748b_c493_69c5,
            0x3c84_d4d4_f23b_41db,
        ),
        (
            0x4076_07fe_14c7_60e9,
            0xbfef_fff6_ea4c_dfc2,
            0xbc4c_a9d0_77f1_d89d,
        ),
        (
            0x4078_5f1e_44b9_bf1c,
            0x3fee_19c5_7628_8f67,
            0xbc86_fae4_0388_3950,
        ),
        (
            0xbf9b_ab40_0000_0000,
            0x3fef_8a39_0329_76de,
            0xbc5d_5137_680b_f579,
        ),
        (
            0xc075_e750_ff31_9c2a,
            0xbfee_da95_d9d6_fb48,
            0xbc8b_b5e5_e148_4a05,
        ),
        (
            0x4018_0fe6_b000_0000,
            0x3fef_d909_f7a8_8308,
            0xbc83_37dc_d69d_b496,
        ),
        (
            0x4075_b60c_3c0a_6b17,
            0xbfe7_0c4e_32eb_35f2,
            0xbc5f_c6ef_3161_bdf7,
        ),
        (
            0x407a_43c1_2136_47a6,
            0x3fb8_a69d_84bf_f83e,
            0x3c55_6c58_46dd_5daa,
        ),
        (
            0xc01a_ca08_b000_0000,
            0xbfd4_cea8_5f32_58db,
            0xbc41_493f_8763_b119,
        ),
        (
            0xc011_a705_e000_0000,
            0xbfeb_5923_58f6_b72b,
            0x3c83_a9e7_12e9_305c,
        ),
        (
            0x4008_4d18_b000_0000,
            0x3fef_1be9_7057_2349,
            0x3c80_25ad_9562_2216,
        ),
        (
            0x400d_843a_a000_0000,
            0xbfd7_b8f8_ac4e_8e4e,
            0xbc6f_8fd0_2f96_f2e9,
        ),
        (
            0xc082_8e78_7844_6ea2,
            0x3fd7_1e8b_d674_1de5,
            0xbc7b_4072_6f67_0c5a,
        ),
        (
            0xc013_e42a_20f5_4528,
            0x3fef_88cd_f518_abd2,
            0xbc8c_a95e_2dae_b426,
        ),
        (
            0xc000_d0a5_4600_0000,
            0x3fe9_aa32_93f5_fbab,
            0xbc80_81d8_a728_bab7,
        ),
        (
            0x4012_4517_d408_b952,
            0xbfed_2ac5_bbd9_48e1,
            0xbc4d_8ad6_cc96_758d,
        ),
        (
            0x4061_7018_d28e_acfd,
            0xbfef_fe83_ef7c_40e9,
            0xbc87_38a8_27c0_16bc,
        ),
        (
            0xc071_2b1e_db77_c835,
            0xbfd5_aaa2_a49d_e3d3,
            0x3c75_3b2f_f234_587d,
        ),
        (
            0xc004_02b5_6575_256e,
            0xbfef_ffb7_97d0_c298,
            0x3c65_396b_42d6_149e,
        ),
        (
            0xc012_0000_0157_98ee,
            0xbfef_ffff_ffff_ffb9,
            0x3c6e_34d8_7bac_15a6,
        ),
        (
            0xc00e_0000_04d4_f359,
            0x3e8e_5bfd_5c4e_a166,
            0x3afe_1f45_d320_9a74,
        ),
        (
            0xc00d_ffff_fc82_a595,
            0xbe85_ed1a_8a20_5f44,
            0xbafc_e97d_0890_8ca8,
        ),
        (
            0xc00c_0000_03c2_129b,
            0xbfef_ffff_ffff_ff75,
            0x3c89_0a93_ec8a_cd7c,
        ),
        (
            0xbffc_0000_06b5_fca7,
            0x3e85_1537_1097_e519,
            0xbb24_61fb_717f_f5f3,
        ),
        (
            0xbfef_ffff_ed35_a2fa,
            0x3fef_ffff_ffff_ff26,
            0x3c79_befd_5414_8d86,
        ),
        (
            0xbfef_ffff_e7d7_3f42,
            0x3fef_ffff_ffff_fe98,
            0xbc51_d787_1cb2_5a10,
        ),
        (
            0xbfe7_ffff_f4b9_c830,
            0xbe81_b5a9_2109_3e29,
            0xbb25_4c98_4042_c418,
        ),
        (
            0xbfdf_ffff_e302_4be8,
            0xbfef_ffff_ffff_ff7e,
            0xbc88_cc0d_e442_9416,
        ),
        (
            0xbe64_66ae_23ae_1ed1,
            0x3fef_ffff_ffff_feff,
            0x3c80_e604_03e5_82c3,
        ),
        (
            0x3fe8_0000_0ce2_88ee,
            0x3e84_3d53_93eb_2b83,
            0xbb2d_80f0_9f00_9254,
        ),
        (
            0x3fef_ffff_faa1_9c47,
            0x3fef_ffff_ffff_ffee,
            0x3c7c_3961_a0bf_957a,
        ),
        (
            0x3ff0_0000_0a78_0f41,
            0x3fef_ffff_ffff_fef2,
            0xbc8b_466d_393d_49c7,
        ),
        (
            0x3ff8_0000_04d4_f359,
            0xbfef_ffff_ffff_ffc6,
            0xbc89_3e41_0cca_81b9,
        ),
        (
            0x4000_0000_02af_31dc,
            0x3fef_ffff_ffff_ffb9,
            0xbc6e_34d8_7bac_15a6,
        ),
        (
            0x4009_ffff_faa1_9c47,
            0x3e90_ddc5_a780_c3d7,
            0x3b39_563d_14b7_8adc,
        ),
        (
            0x400a_0000_06b5_fca7,
            0xbe95_1537_1097_e4cf,
            0xbb3e_14c6_ffe8_7969,
        ),
        (
            0x400e_0000_037d_5a6b,
            0x3e85_ed1a_8a20_5f44,
            0x3afc_e97d_0890_8ca8,
        ),
        (
            0x4012_0000_029e_03d0,
            0xbfef_ffff_ffff_fef2,
            0x3c8b_4660_4ed9_32cb,
        ),
        (
            0x4012_ffff_fca5_01ad,
            0xbe95_1537_0d73_a565,
            0x3b10_325b_6600_ef15,
        ),
        (
            0xc005_fe87_049d_8afe,
            0xbf72_8147_6fb4_97fe,
            0xbbd6_7245_9285_40cb,
        ),
    ];

    /// cos(2πz) from 2πz as a double-double (hi + lo exactly, by fused multiply-adds): cos(hi) − sin(hi)·lo,
    /// within about 1e-16 absolute of the true value.
    fn reference(z: f64) -> f64 {
        let two_pi_lo = f64::from_bits(0x3cb1_a626_3314_5c07); // 2π − TWO_PI
        let hi = TWO_PI * z;
        let lo = TWO_PI.mul_add(z, -hi) + two_pi_lo * z;
        cos_f64(hi) - sin_f64(hi) * lo
    }

    #[test]
    fn within_3e_16_absolute_of_mpmath() {
        for (z, hi, lo) in MPMATH {
            let (z, hi, lo) = (f64::from_bits(z), f64::from_bits(hi), f64::from_bits(lo));
            let c = rastrigin_cos(z);
            let e = ((c - hi) - lo).abs();
            assert!(e <= 3.0e-16, "z {z}: {c} vs {hi} + {lo}, error {e:e}");
        }
    }

    #[test]
    fn within_4e_16_absolute_of_a_double_double_reference() {
        let mut z = 0.1f64;
        for i in 0..20_000 {
            z = (z * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let x = (z - 0.5) * if i % 2 == 0 { 10.24 } else { 1200.0 };
            let r = reference(x);
            let c = rastrigin_cos(x);
            assert!((c - r).abs() <= 4.0e-16, "x {x}: {c} vs {r}");
        }
    }

    #[test]
    fn exact_at_integers_and_half_integers_and_periodic() {
        assert_eq!(rastrigin_term(0.0), 0.0);
        assert_eq!(rastrigin_term(-0.0), 0.0);
        for k in -6..=6 {
            let k = f64::from(k);
            assert_eq!(rastrigin_cos(k), 1.0);
            assert_eq!(rastrigin_term(k), k * k);
            assert_eq!(rastrigin_cos(k + 0.5), -1.0);
            assert_eq!(rastrigin_term(k + 0.5), (k + 0.5) * (k + 0.5) + 20.0);
        }
        assert_eq!(rastrigin_cos(1.0e20), 1.0);
        assert!(rastrigin_cos(f64::NAN).is_nan());
        assert!(rastrigin_cos(f64::INFINITY).is_nan());
        let mut y = 0.013_671_875f64;
        for _ in 0..2000 {
            y = (y * 1.618_033_988_749_895 + 0.379).fract();
            // A multiple of 2^-12, so that z + k is exact for every k below.
            let z = ((y - 0.5) * 4096.0).round() / 4096.0;
            let c = rastrigin_cos(z);
            for k in [-7.0, -1.0, 1.0, 3.0, 1024.0, 2.0f64.powi(40)] {
                assert_eq!(rastrigin_cos(z + k).to_bits(), c.to_bits(), "z {z} k {k}");
            }
            assert_eq!(rastrigin_cos(-z).to_bits(), c.to_bits(), "even at {z}");
        }
    }

    #[test]
    fn portable_path_gives_the_same_bits() {
        let mut z = 0.3f64;
        for _ in 0..5000 {
            z = (z * 3.173_205_080_756_888 + 0.271_828).fract();
            let x = (z - 0.5) * 11.0;
            assert_eq!(
                rastrigin_cos(x).to_bits(),
                rastrigin_cos_portable(x).to_bits()
            );
        }
    }
}
