//! Rastrigin.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} [z_i² − 10 cos(2π z_i) + 10],   minimum 0 at z = 0
//! ```
//!
//! Domains: [−5.12, 5.12] (GA paper f7, DE paper f2, MA-SW-Chains), [−5, 5] (CEC 2010). Sources: Oiso et al.
//! Table 1; Krömer et al. eq. (6); Lastra et al. §6.3.2; Tang et al. §2. Twin: `evo_rastrigin_term`
//! (`kernels/common/problems/functions.cuh`).
//!
//! The term is `fma(z, z, w)` with `w = 10 − 10 cos(2πz)` from [`rastrigin_wave`], select-free, with an
//! *absolute* accuracy bound, which is all the term needs (an absolute error `e` of `w` is an absolute error
//! `e` of the term, about `e/10` on the scale of the cosine):
//!
//! ```text
//! z' = z  if |z| < 2^49, else fmod(z, 1)                                       (exact)
//! t  = fma(2, z', 1.5·2^52),  m = t − 1.5·2^52 = rint(2z')    (exact, ties to even; m's parity: t's low bit)
//! r  = fma(m, −1/2, z') = z' − m/2,   |r| ≤ 1/4,   s = r²                       (r exact)
//! cos(2πz) = (−1)^m cos(2πr):   w = s·W(s) (m even),   w = 20 − s·W(s) (m odd),   one fma(±s, W(s), 0 or 20)
//! term = fma(z, z, w)
//! ```
//!
//! `r` is exact: `2z'` is exact and below 2^50, so `t` (in [2^52, 2^53), ulp 1) holds `rint(2z')` and `m` is
//! exact; if `|z'| < 1/4` then `m = 0` and `r = z'`; otherwise `ulp(z') ≤ 2^−4` divides `1/2`, so `z' − m/2`
//! is a multiple of `ulp(z')` below `1/4 < 2^53 ulp(z')` in magnitude, representable, and the fma rounds
//! nothing. The sign of `s` and the `20` (`0x4034000000000000`, else `+0`) are integer operations on the bits
//! (the low bit of `t`), no select of values.
//!
//! `s·W(s) = Σ_{k=1}^{8} w_k s^k` is the minimax polynomial (Remez exchange, absolute error, no constant term)
//! of `10 − 10 cos(2π√s)` on `0 ≤ s ≤ 1/16`: error 4.2e-17 before rounding the coefficients (degree 7, the
//! next lower, would leave 2.1e-14). `W` runs by Horner's rule with explicit fused multiply-adds
//! (`f64::mul_add` here, `fma` in the CUDA twin), correctly rounded on both sides, so the CPU and the GPU
//! compute the same bits under `--fmad=false`. To regenerate the coefficients (mpmath, 60 digits): Remez on
//! the basis `s, s², …, s⁸` over `(0, 1/16]` for `g(s) = 10 − 10 cos(2π√s)`, 9 alternation points,
//! starting from Chebyshev points, until the levelled error is stable to 1e-6 relative; then round each
//! `w_k` to nearest. Cost: 4 f64 operations of reduction (`t`, `m`, `r`, `s`), 7 fused multiply-adds for
//! `W`, 1 for `w` and 1 for the term: 13, against 21 and 2 selects for the former cosine (folded to a
//! quarter period, degree-10 Taylor polynomial) and `(z² − 10 cos) + 10`.
//!
//! Accuracy, absolute, against `10 − 10 cos(2πz)` of the exact `z` (mpmath at 200 bits, 84 896 arguments:
//! 2·10⁴ each uniform in [−5.12, 5.12] and [−600, 600] and differences of two `f32` in [−5.12, 5.12],
//! 10⁴ differences of two `f32` in [−100, 100], and 14 896 within 5e-8 or 8 ulp of the 196 quarter
//! periods in [−23.75, 25]): at most 2.82e-15 (2.8e-16 on the scale of the cosine; the former cosine, as
//! `10 − 10 cos`, was 3.6e-15 off on the same arguments). The term `fma(z, z, w)` is within 4.2e-16 of the
//! exact `z² + 10 − 10 cos(2πz)` *relative* to it on the same arguments (at most about 2 ulp), also near
//! `z = 0`, where `(z² − 10 cos) + 10` lost everything to cancellation. `w` is exactly 0 at integers (so the
//! term is `z²`, 0 at `z = 0`) and exactly 20 at half-integers, periodic with period 1 and even, bit for bit.
//! The tests below keep 40 of the mpmath values (the worst among them) and a double-double reference.

use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|z|` at and above which `z` is first reduced modulo 1 (exact).
const LARGE: f64 = 562_949_953_421_312.0; // 2^49

/// The bits of `20.0`, all in the high word.
const TWENTY: u64 = 0x4034_0000_0000_0000;

/// `w_1..w_8`: `s·W(s) = Σ w_k s^k` is the minimax polynomial of `10 − 10 cos(2π√s)` on `0 ≤ s ≤ 1/16`
/// without a constant term (absolute error 4.2e-17), rounded to nearest; `W` is evaluated from `w_8` down.
const WAVE: [f64; 8] = [
    f64::from_bits(0x4068_ac8b_fc2d_d754),
    f64::from_bits(0xc084_4b26_ca22_303a),
    f64::from_bits(0x408a_b48b_9dcb_15b7),
    f64::from_bits(0xc082_d392_4111_ed4b),
    f64::from_bits(0x4070_8433_5f31_1ab3),
    f64::from_bits(0xc053_c237_a925_e5d0),
    f64::from_bits(0x4031_21e4_485a_0c3d),
    f64::from_bits(0xc005_c30a_ec45_cbd8),
];

with_fma! {
    /// `10 − 10 cos(2π z)` within an absolute bound (module docs). Bit-identical to the CUDA twin
    /// `evo_rastrigin_wave`.
    pub fn rastrigin_wave(z: f64) -> f64 => rastrigin_wave_portable;
}

#[inline(always)]
fn rastrigin_wave_portable(z: f64) -> f64 {
    // fmod is exact; |z| >= 2^49 never happens for points of the benchmark domains.
    let z = if z.abs() < LARGE { z } else { z % 1.0 };
    let t = 2.0f64.mul_add(z, ROUNDER);
    // The low bit of t's significand is the parity of m = rint(2z).
    let odd = t.to_bits() & 1;
    let m = t - ROUNDER;
    let r = m.mul_add(-0.5, z);
    let s = r * r;
    let mut p = WAVE[7];
    for &w in WAVE[..7].iter().rev() {
        p = p.mul_add(s, w);
    }
    // Even m: s·W(s); odd m: 20 − s·W(s).
    let signed_s = f64::from_bits(s.to_bits() ^ (odd << 63));
    let base = f64::from_bits(odd.wrapping_neg() & TWENTY);
    signed_s.mul_add(p, base)
}

/// One term, `z² + (10 − 10 cos(2πz))` as `fma(z, z, rastrigin_wave(z))`.
#[inline]
pub fn rastrigin_term(z: f64) -> f64 {
    z.mul_add(z, rastrigin_wave(z))
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

    /// `(z, hi, lo)` as bits: `hi + lo` is `10 − 10 cos(2πz)` of the exact `z` to about 1e-31 (mpmath at 200
    /// bits). Random `z` in [−5.12, 5.12] and [−600, 600], differences of two random `f32`, points within
    /// 5e-8 or 8 ulp of a quarter period (module docs: 84 896 arguments); the 28 worst of them and 12 others.
    const MPMATH: [(u64, u64, u64); 40] = [
        (
            0x4005_b081_b810_93a2,
            0x4028_d456_0a7e_0787,
            0x3cc4_1b86_5cc9_5cd4,
        ),
        (
            0x3ff4_5ebc_983a_1e24,
            0x4026_e571_ae16_11a1,
            0x3ccb_d734_1159_cec3,
        ),
        (
            0xbfe8_0222_f81f_d628,
            0x4023_f79c_0ecb_abcb,
            0x3ccb_c3e8_5fef_7bb1,
        ),
        (
            0x4006_5f2a_f466_e894,
            0x401c_7c83_6cf3_fda6,
            0xbca3_4d8a_006c_2c0c,
        ),
        (
            0xbfe8_214e_53dc_9668,
            0x4023_7d38_d4d4_e334,
            0xbcce_b7fd_4e4a_650d,
        ),
        (
            0x4011_e2bc_edbb_13f9,
            0x4033_d6d8_9bf1_a88a,
            0x3cd3_67d6_6343_1ad5,
        ),
        (
            0x4012_fe3d_17e8_f319,
            0x4024_3755_5f77_1ea9,
            0xbccf_1156_d181_a7cf,
        ),
        (
            0xc072_0603_5610_0f22,
            0x4031_1b6e_fbfd_7be1,
            0xbcc9_42c4_bb86_7652,
        ),
        (
            0xc07d_c435_f978_9a6b,
            0x4025_a76e_37ac_bdb5,
            0x3ccc_44e2_d054_8ceb,
        ),
        (
            0xc045_20fb_4ef8_9af0,
            0x4024_f6a0_44e7_ffab,
            0xbcce_5757_4802_df82,
        ),
        (
            0xc082_b294_f5dd_ad89,
            0x402c_d343_4dcd_ea28,
            0x3cc7_6166_56fa_a310,
        ),
        (
            0xc07b_c48f_383c_62db,
            0x4028_5bd1_59b4_86a9,
            0x3cca_f83a_3c86_5de3,
        ),
        (
            0x407f_43d3_0b01_c194,
            0x4022_9f30_3616_aa02,
            0xbccf_5d3d_eab5_6d2e,
        ),
        (
            0x4078_4cc5_58b4_2912,
            0x401c_1338_2c7a_3dc7,
            0x3cab_6b78_1d6c_3369,
        ),
        (
            0xc012_2054_c000_0000,
            0x4033_cdca_66c5_aef0,
            0x3cd4_1671_a0be_06e6,
        ),
        (
            0x401d_d4b0_7000_0000,
            0x4033_a621_d1dd_82d3,
            0x3ccd_ca8e_9907_32c8,
        ),
        (
            0x3fe1_fc26_8000_0000,
            0x4033_4003_8d51_188e,
            0xbcce_c248_b8d3_a57e,
        ),
        (
            0xc052_5de5_4000_0000,
            0x4033_c98e_0ca7_f221,
            0xbcd0_3809_5065_6175,
        ),
        (
            0xc035_8000_0000_0002,
            0x4034_0000_0000_0000,
            0xba88_ac8b_fc2d_d756,
        ),
        (
            0xc034_4000_0012_1639,
            0x4024_0000_08e0_daf0,
            0x3ccc_be7d_6133_76d0,
        ),
        (
            0xc033_bfff_ffd4_e5a4,
            0x4024_0000_1528_7a7e,
            0x3ccd_69f9_3614_c938,
        ),
        (
            0xc031_bfff_ff3c_cd42,
            0x4024_0000_5fd1_54a9,
            0x3cce_a6e6_7cac_5364,
        ),
        (
            0xc02d_8000_0075_0905,
            0x4023_ffff_e346_759f,
            0x3cce_1b3a_1628_192e,
        ),
        (
            0xc026_8000_0053_26a4,
            0x4024_0000_1468_8713,
            0x3ccf_8332_e3b1_f881,
        ),
        (
            0xc022_8000_0134_3a5b,
            0x4024_0000_4ba6_8889,
            0xbccf_5744_4ffd_5e79,
        ),
        (
            0xc017_0000_0057_10f0,
            0x4023_ffff_f550_bc60,
            0x3ccf_bb71_41d8_2414,
        ),
        (
            0xc011_0000_02ad_c03f,
            0x4024_0000_5427_8077,
            0x3ccb_05bc_97bc_b5c4,
        ),
        (
            0xc009_ffff_fa80_7682,
            0x4023_ffff_a9a2_7593,
            0xbcce_73b5_19cb_9ad7,
        ),
        (
            0xc001_ffff_fcc9_5654,
            0x4023_ffff_cd85_a4ad,
            0xbccc_dff3_6718_c9b7,
        ),
        (
            0xc002_0000_027e_f020,
            0x4024_0000_2734_6a19,
            0x3ccb_0ceb_0d0a_fdac,
        ),
        (
            0xbfe8_0000_0242_884e,
            0x4023_ffff_f720_1bc1,
            0x3cca_b346_fb3f_2c4d,
        ),
        (
            0x3fff_ffff_f7fd_5ec0,
            0x3d48_bcc7_9893_320d,
            0xb9cb_3a23_91fc_2999,
        ),
        (
            0x4005_ffff_fb0d_d746,
            0x4024_0000_4db0_c7cb,
            0x3ccb_54d2_908f_bb21,
        ),
        (
            0x4009_ffff_fe2c_f0bc,
            0x4023_ffff_e357_71c9,
            0xbcca_ea97_2dc6_00a0,
        ),
        (
            0x4016_ffff_ff12_4423,
            0x4024_0000_1d2c_a0fe,
            0x3cca_e304_ef65_3543,
        ),
        (
            0x4021_8000_002b_1849,
            0x4023_ffff_f56c_4514,
            0x3cce_fce0_e82f_29aa,
        ),
        (
            0x402a_8000_0030_8c0a,
            0x4024_0000_0bea_4cb9,
            0x3ccb_ad64_bf0f_99ae,
        ),
        (
            0x4031_c000_0079_9bfe,
            0x4023_ffff_c44e_1e7b,
            0x3cca_7cd5_e1cd_3e1b,
        ),
        (
            0x4035_c000_0066_cc17,
            0x4023_ffff_cd8a_1e9e,
            0x3cce_21f8_37df_6747,
        ),
        (
            0x4038_3fff_ffb9_c8e3,
            0x4023_ffff_dd88_7ca6,
            0xbccc_0563_4be8_7850,
        ),
    ];

    /// cos(2πz) from 2πz as a double-double (hi + lo exactly, by fused multiply-adds): cos(hi) − sin(hi)·lo,
    /// within about 1e-16 absolute of the true value.
    fn reference_cos(z: f64) -> f64 {
        let two_pi_lo = f64::from_bits(0x3cb1_a626_3314_5c07); // 2π − TWO_PI
        let hi = TWO_PI * z;
        let lo = TWO_PI.mul_add(z, -hi) + two_pi_lo * z;
        cos_f64(hi) - sin_f64(hi) * lo
    }

    #[test]
    fn within_2_9e_15_absolute_of_mpmath() {
        for (z, hi, lo) in MPMATH {
            let (z, hi, lo) = (f64::from_bits(z), f64::from_bits(hi), f64::from_bits(lo));
            let w = rastrigin_wave(z);
            let e = ((w - hi) - lo).abs();
            assert!(e <= 2.9e-15, "z {z}: {w} vs {hi} + {lo}, error {e:e}");
        }
    }

    #[test]
    fn within_4e_15_absolute_of_a_double_double_reference() {
        let mut z = 0.1f64;
        for i in 0..20_000 {
            z = (z * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let x = (z - 0.5) * if i % 2 == 0 { 10.24 } else { 1200.0 };
            let w = rastrigin_wave(x);
            // w − (10 − 10 c) with one rounding (w − 10 is exact for w ≥ 5).
            let e = 10.0f64.mul_add(reference_cos(x), w - 10.0).abs();
            assert!(
                e <= 4.0e-15,
                "x {x}: {w} vs 10 − 10 {}, {e:e}",
                reference_cos(x)
            );
        }
    }

    #[test]
    fn the_term_is_within_an_ulp_of_mpmath() {
        for (z, hi, lo) in MPMATH {
            let (z, hi, lo) = (f64::from_bits(z), f64::from_bits(hi), f64::from_bits(lo));
            // z² = zz + zz_lo exactly; the term's error relative to z² + hi + lo.
            let (t, zz) = (rastrigin_term(z), z * z);
            let zz_lo = z.mul_add(z, -zz);
            let e = ((((t - zz) - hi) - zz_lo) - lo).abs();
            assert!(e <= 4.2e-16 * (zz + hi), "z {z}: term {t}, error {e:e}");
        }
    }

    #[test]
    fn exact_at_integers_and_half_integers_and_periodic() {
        assert_eq!(rastrigin_term(0.0).to_bits(), 0);
        assert_eq!(rastrigin_term(-0.0).to_bits(), 0);
        assert_eq!(rastrigin(4, |_| 0.0), 0.0);
        for k in -6..=6 {
            let k = f64::from(k);
            assert_eq!(rastrigin_wave(k), 0.0);
            assert_eq!(rastrigin_term(k), k * k);
            assert_eq!(rastrigin_wave(k + 0.5), 20.0);
            assert_eq!(rastrigin_term(k + 0.5), (k + 0.5) * (k + 0.5) + 20.0);
        }
        assert_eq!(rastrigin_wave(1.0e20), 0.0);
        assert_eq!(rastrigin_wave(2.0f64.powi(49) + 0.5), 20.0);
        assert!(rastrigin_wave(f64::NAN).is_nan());
        assert!(rastrigin_wave(f64::INFINITY).is_nan());
        assert!(rastrigin_term(f64::INFINITY).is_nan());
        let mut y = 0.013_671_875f64;
        for _ in 0..2000 {
            y = (y * 1.618_033_988_749_895 + 0.379).fract();
            // A multiple of 2^-12, so that z + k is exact for every k below.
            let z = ((y - 0.5) * 4096.0).round() / 4096.0;
            let w = rastrigin_wave(z);
            for k in [-7.0, -1.0, 1.0, 3.0, 1024.0, 2.0f64.powi(40)] {
                assert_eq!(rastrigin_wave(z + k).to_bits(), w.to_bits(), "z {z} k {k}");
            }
            assert_eq!(rastrigin_wave(-z).to_bits(), w.to_bits(), "even at {z}");
        }
    }

    #[test]
    fn small_terms_keep_their_relative_accuracy() {
        // Near 0 the term is (1 + 20π²) z² (1 + O(z²)): no cancellation, unlike (z² − 10 cos) + 10.
        let k = 1.0 + 20.0 * std::f64::consts::PI * std::f64::consts::PI;
        for z in [1.0e-150, -3.0e-150, 1.0e-20, 2.5e-9, -1.0e-9] {
            let t = rastrigin_term(z);
            assert!(
                ((t - k * z * z) / (k * z * z)).abs() < 1.0e-15,
                "z {z}: {t}"
            );
        }
    }

    #[test]
    fn portable_path_gives_the_same_bits() {
        let mut z = 0.3f64;
        for _ in 0..5000 {
            z = (z * 3.173_205_080_756_888 + 0.271_828).fract();
            let x = (z - 0.5) * 11.0;
            assert_eq!(
                rastrigin_wave(x).to_bits(),
                rastrigin_wave_portable(x).to_bits()
            );
        }
    }
}
