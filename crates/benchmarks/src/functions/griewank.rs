//! Griewank.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} z_i²/4000 − Π_{i=0}^{n-1} cos(z_i / √(i+1)) + 1,   minimum 0 at z = 0
//! ```
//!
//! Computed as `(s / 4000 − p) + 1` with `s = Σ z_i²` (canonical sum tree) and `p` the pairwise product
//! ([`crate::tree::pairwise_product_by`]). Domains: [−2.048, 2.048] (GA paper f5), [−600, 600]
//! (MA-SW-Chains, our decision). Sources: Oiso et al. Table 1; Lastra et al. §6.3.2. Twins:
//! `evo_griewank_factor`, `evo_griewank_combine`.
//!
//! The argument `z_i/√(i+1)` is computed as `z_i · (1/√(i+1))` (one more rounding, at most half an ulp of
//! the argument; the scale is shared by all the individuals of a batch on the GPU, a multiplication per
//! coordinate instead of a division).
//!
//! The cosine is [`griewank_cos`], with an *absolute* accuracy bound, which is all `f` needs: an absolute
//! error `e` of one factor moves the product by at most `e` (the other factors are at most 1 in magnitude),
//! and `f` is `(s/4000 − p) + 1`.
//!
//! ```text
//! |x| < 2^20:  t = fma(x, 1/π, 1.5·2^52),  n = t − 1.5·2^52   (n = rint(x/π) up to one unit, from t's low bits)
//!              r = fma(−n, Q1, x) (exact),  r = fma(−n, Q2, r)                    |r| ≤ π/2 + 2^−30
//!              cos x = (−1)^n P(r²)
//! otherwise:   evo_core::math::cos_f64(x)
//! ```
//!
//! `Q1` is π rounded to nearest and `Q2` the remainder `π − Q1` rounded to nearest: `|π − Q1 − Q2| < 3.0e-33`,
//! so with `|n| ≤ 2^20/π + 1 < 3.4·10⁵` the reduction loses less than 1.1e-27 to the missing third part, far
//! below the rounding of `r` (half an ulp of `r`, up to 1.1e-16). `n` is off `rint(x/π)` only when `x/π`
//! lies within `2^20 · 2^−55` of a half-integer (the rounding of 1/π), hence `|r| ≤ π/2 + 1e-10`. The first
//! step is exact: for `n ≠ 0`, `|x| ≥ 1` and `x − n·Q1` is a multiple of `2^−52` (`ulp(Q1) = 2^−51`,
//! `ulp(x) ≥ 2^−52`) below 2 in magnitude.
//!
//! `P(s) = Σ_{k=0}^{8} c_k s^k`, `c_0 = 1` (so `cos 0` is exactly 1 and `f(0) = 0`), is the minimax
//! polynomial (Remez exchange, absolute error) of `cos √s` on `0 ≤ s ≤ (π/2 + 2^−30)²`: error 4.2e-18 before
//! rounding the coefficients (degree 7, the next lower, would leave 2.1e-15). It runs by Horner's rule with
//! explicit fused multiply-adds, correctly rounded on both sides: one polynomial, no select of coefficients,
//! and the sign is an integer xor. To regenerate the coefficients (mpmath, 60 digits): Remez on the basis
//! `s, s², …, s⁸` over `(0, (π/2 + 2^−30)²]` for `g(s) = cos √s − 1`, 9 alternation points, starting from
//! Chebyshev points, until the levelled error is stable to 1e-6 relative; then round each `c_k` to nearest
//! (the procedure of Rastrigin's `W`).
//! Cost: 1 multiplication for the argument, 4 f64 operations of reduction (`t`, `n`, two fma), 1 for `r²`
//! and 8 fused multiply-adds: 14 (17 with the third reduction step and the degree-10 Taylor polynomial).
//!
//! Accuracy against `cos(x)` of mpmath at 200 bits, on 78 200 arguments: 4·10⁴ Griewank arguments
//! `z · (1/√i)` (`z` the difference of two random `f32` in [−600, 600] or [−480, 480], `i` uniform in
//! 1..=100 or 1..=10⁷ with equal probability), 2·10⁴ uniform in [−4.1, 4.1], and the doubles within 3 ulp
//! or 1e-9 relative of `±kπ/2`, `k < 700`: at most 2.75e-16 absolute (the rounding of `r` and of `r²` near
//! `|r| = π/2` dominates); the tests keep 40 of these values, the worst among them.

use crate::tree::pairwise_product_by;
use evo_core::math::cos_f64;
use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|x|` at and above which (and for NaN) the portable `cos_f64` is used.
const LARGE: f64 = 1_048_576.0; // 2^20

/// 1/π rounded to nearest.
const ONE_OVER_PI: f64 = f64::from_bits(0x3fd4_5f30_6dc9_c883);
/// π = Q1 + Q2 + 3.0e-33: π rounded to nearest, then the remainder rounded to nearest (module docs).
const Q1: f64 = f64::from_bits(0x4009_21fb_5444_2d18);
const Q2: f64 = f64::from_bits(0x3ca1_a626_3314_5c07);

/// `c_0..c_8`: `Σ c_k s^k` is the minimax polynomial of `cos √s` on `0 ≤ s ≤ (π/2 + 2^−30)²` with `c_0 = 1`
/// (absolute error 4.2e-18), rounded to nearest.
const COS: [f64; 9] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbfdf_ffff_ffff_fffd),
    f64::from_bits(0x3fa5_5555_5555_540a),
    f64::from_bits(0xbf56_c16c_16c0_b21d),
    f64::from_bits(0x3efa_01a0_199c_928f),
    f64::from_bits(0xbe92_7e4f_9915_fd07),
    f64::from_bits(0x3e21_eece_48a3_9a58),
    f64::from_bits(0xbda9_351e_1331_9d6e),
    f64::from_bits(0x3d29_f422_5683_e670),
];

/// `cos(x)` within an absolute bound (module docs). Bit-identical to the CUDA twin `evo_griewank_cos`.
#[inline]
pub fn griewank_cos(x: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { griewank_cos_x86_fma(x) };
        }
    }
    griewank_cos_portable(x)
}

/// The same function compiled with the `fma` target feature, so that `mul_add` is one instruction instead
/// of a call to the C library's `fma` (both are correctly rounded: the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn griewank_cos_x86_fma(x: f64) -> f64 {
    griewank_cos_portable(x)
}

#[inline(always)]
fn griewank_cos_portable(x: f64) -> f64 {
    // Also taken for NaN; never for the Griewank arguments of the benchmark domains.
    if x.is_nan() || x.abs() >= LARGE {
        return cos_f64(x);
    }
    let t = x.mul_add(ONE_OVER_PI, ROUNDER);
    // The low bits of t's significand hold n = rint(x/π) (two's complement for negative values).
    let half_periods = t.to_bits() as u32;
    let n = t - ROUNDER;
    let mut r = (-n).mul_add(Q1, x);
    r = (-n).mul_add(Q2, r);
    let s = r * r;
    let mut p = COS[8];
    for &c in COS[..8].iter().rev() {
        p = p.mul_add(s, c);
    }
    f64::from_bits(p.to_bits() ^ (u64::from(half_periods & 1) << 63))
}

/// The scale of coordinate `i` (0-based), `1 / √(i + 1)`, the same for every individual (the GPU computes it
/// once per tile for a group of individuals).
#[inline]
pub fn griewank_scale(i: usize) -> f64 {
    1.0 / ((i + 1) as f64).sqrt()
}

/// One factor of the product, `cos(z / √(i + 1))` for the 0-based index `i`, computed as
/// `cos(z · griewank_scale(i))`.
#[inline]
pub fn griewank_factor(i: usize, z: f64) -> f64 {
    griewank_cos(z * griewank_scale(i))
}

/// Combines the sum of squares `s` and the product `p`: `(s / 4000 − p) + 1`.
#[inline]
pub fn griewank_combine(s: f64, p: f64) -> f64 {
    (s / 4000.0 - p) + 1.0
}

/// Griewank of `z(0..n)`.
pub fn griewank<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let s = pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    });
    let p = pairwise_product_by(n, |i| griewank_factor(i, z(i)));
    griewank_combine(s, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(x, hi, lo)` as bits: `hi + lo` is `cos(x)` to about 1e-32 (mpmath at 200 bits). Griewank arguments
    /// `z · (1/√i)` (`z` the difference of two random `f32` in [−600, 600] or [−480, 480], `i` in 1..=100 or
    /// 1..=10⁷), random `x` in [−4.1, 4.1], doubles next to `kπ/2` (`k < 700`), 78 200 arguments in all
    /// (module docs): the 28 worst of them (positive `x`; the cosine is even) and 12 others.
    const MPMATH: [(u64, u64, u64); 40] = [
        (
            0xc049_be86_8c42_c279,
            0x3fd5_d021_1a6d_ec69,
            0xbc67_0fcb_7e2c_e072,
        ),
        (
            0xbfd2_a2b6_b278_2673,
            0x3fee_a729_4715_db83,
            0xbc6c_c516_c709_285f,
        ),
        (
            0xc085_32ae_8d3d_4495,
            0x3fef_03ca_a17c_4a43,
            0xbc61_4350_c345_6793,
        ),
        (
            0x4050_1c2c_d1ea_ecbc,
            0xbfa3_3d56_8c15_d8fb,
            0x3c44_9578_3380_c500,
        ),
        (
            0x403c_a841_9a26_7b2a,
            0xbfed_aeb9_731f_3b2c,
            0xbc88_f27a_29b6_78b1,
        ),
        (
            0x4042_740d_b7d2_0b21,
            0x3fe6_77aa_86c3_e95e,
            0xbc85_18f2_e835_3695,
        ),
        (
            0x4056_61ff_82ce_0da4,
            0x3f71_150c_6bda_2976,
            0xbc17_a3b8_5d9d_61fe,
        ),
        (
            0x3ff9_8060_8919_3dd8,
            0xbf97_98c4_500a_8a3c,
            0xbc14_51c9_0e99_2f5c,
        ),
        (
            0x403c_f8db_a7d5_01f2,
            0xbfe8_855a_14e7_6ec5,
            0xbc71_d237_9e0b_d1fb,
        ),
        (
            0x403a_b1d7_ed55_b33b,
            0x3f82_18d2_2697_2f28,
            0x3bb1_75e2_8839_6504,
        ),
        (
            0x4017_4776_8990_2595,
            0x3fec_a010_945a_660c,
            0x3c75_2962_1cae_3b23,
        ),
        (
            0x3ff9_3a3e_5b2f_40ec,
            0xbf78_42fd_9ed9_c167,
            0x3c01_26de_c045_60a5,
        ),
        (
            0x3ffa_e4b5_25f9_6a5c,
            0xbfbc_1d11_812c_ddc4,
            0xbc4d_499e_ed8e_fa24,
        ),
        (
            0x3ffa_c6de_b0d2_11b4,
            0xbfba_425d_929c_1f66,
            0xbc30_0a63_88fd_7956,
        ),
        (
            0x3ffa_d994_f8a1_a2fc,
            0xbfbb_6c1b_8ed2_812b,
            0xbc5b_be24_db2c_9dd8,
        ),
        (
            0x3ff9_464e_a149_5eac,
            0xbf82_2996_e83a_a544,
            0x3c00_7bc3_aa64_443a,
        ),
        (
            0x3fe7_160d_6b1e_2338,
            0x3fe8_06ff_48f9_60b7,
            0x3c77_32d1_a3db_78ba,
        ),
        (
            0x3ff9_adec_c244_82bc,
            0xbfa1_7d4e_ba66_7f7b,
            0x3c05_7df4_735c_9795,
        ),
        (
            0xc00c_ede9_2338_70f6,
            0xbfec_76ad_c583_9dc1,
            0xbc8c_2539_f279_9400,
        ),
        (
            0x3ff9_d22e_320d_a114,
            0xbfa6_049e_97f2_996f,
            0x3c40_3f11_3917_966e,
        ),
        (
            0x3fd4_117e_2176_90e0,
            0x3fee_708d_1cf9_e071,
            0x3c51_d59e_42c0_df8a,
        ),
        (
            0x4072_c05a_83de_dda2,
            0xbd48_e55e_d003_8615,
            0xb9d2_1cc0_06b8_4485,
        ),
        (
            0xc073_7048_6356_6b8b,
            0xbfef_ffff_ffff_ff93,
            0xbc87_be3c_74e5_fb1a,
        ),
        (
            0x4076_ada9_c8fb_fecb,
            0xbe6b_0bcb_cf67_63be,
            0x3b0f_571c_1c46_8767,
        ),
        (
            0x4079_08d9_58ef_e8ec,
            0x3d2a_35bf_f98f_5c2b,
            0xb9cb_40b4_57da_0749,
        ),
        (
            0x407a_cd3d_04dc_b41a,
            0xbd48_e5ba_2870_e93c,
            0x39ea_aeae_c338_e988,
        ),
        (
            0x407e_23c0_660d_c211,
            0xbd48_e547_f9e8_2d4c,
            0x39ee_025c_4afe_9acb,
        ),
        (
            0x407e_8848_532d_8451,
            0xbe88_a73b_bee1_b0a9,
            0xbb06_3f59_d480_443b,
        ),
        (
            0x4083_e161_4e27_eda9,
            0x3d55_9ebd_a6ec_f359,
            0x39fb_8732_dca1_c376,
        ),
        (
            0x4084_c393_241e_5340,
            0xbd48_e531_23cc_d482,
            0x39c4_4c62_6565_5f61,
        ),
        (
            0x4086_0a4c_e734_93a7,
            0x3e98_9af2_64f4_6864,
            0x3b3a_af22_cb12_e376,
        ),
        (
            0x4087_e7d2_8ea6_d8e5,
            0x3d2a_3676_aa6a_2277,
            0x39cd_452e_1afb_e1f0,
        ),
        (
            0x4088_ca04_649d_3e7c,
            0xbd48_e5e7_d4a7_9acf,
            0x39d9_1a6c_4d06_deda,
        ),
        (
            0x4089_ac36_3a93_a413,
            0x3d55_9f18_ff5a_5680,
            0xb9e0_6bb7_d3e6_9267,
        ),
        (
            0x4089_ac36_3ad2_7b3f,
            0x3e9f_6b97_59f1_8eb3,
            0xbb3e_172f_c706_d06f,
        ),
        (
            0x408c_9e31_ae73_a158,
            0xbd42_462c_1fca_6bb2,
            0xb9ed_5168_1515_16d7,
        ),
        (
            0x408e_7bb7_5614_d484,
            0xbea8_08f4_8397_f869,
            0x3b4e_79d5_1415_c193,
        ),
        (
            0x408f_44c7_3056_d218,
            0x3d55_9ea6_d0d1_9a90,
            0xb9e7_1312_e371_f2bf,
        ),
        (
            0x4090_2c9e_7e62_35d3,
            0xbe98_aa32_5f6e_b3b9,
            0xbb28_1c30_3780_6f86,
        ),
        (
            0x4090_392f_7c3d_9c87,
            0xbe98_9a6b_146d_fec3,
            0x3af6_2a87_1d99_c1cd,
        ),
    ];

    #[test]
    fn within_2_8e_16_absolute_of_mpmath() {
        for (x, hi, lo) in MPMATH {
            let (x, hi, lo) = (f64::from_bits(x), f64::from_bits(hi), f64::from_bits(lo));
            let c = griewank_cos(x);
            let e = ((c - hi) - lo).abs();
            assert!(e <= 2.8e-16, "x {x}: {c} vs {hi} + {lo}, error {e:e}");
        }
    }

    #[test]
    fn within_3_5e_16_absolute_of_the_portable_cosine() {
        let mut z = 0.1f64;
        for i in 0..20_000 {
            z = (z * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let x = (z - 0.5) * if i % 2 == 0 { 4.1 } else { 1200.0 };
            let (c, r) = (griewank_cos(x), cos_f64(x));
            assert!((c - r).abs() <= 3.5e-16, "x {x}: {c} vs {r}");
        }
    }

    #[test]
    fn special_values_and_symmetry() {
        assert_eq!(griewank_cos(0.0), 1.0);
        assert_eq!(griewank_cos(-0.0), 1.0);
        assert_eq!(griewank_cos(1.0e7).to_bits(), cos_f64(1.0e7).to_bits());
        assert!(griewank_cos(f64::NAN).is_nan());
        assert!(griewank_cos(f64::INFINITY).is_nan());
        assert_eq!(griewank_factor(0, 0.0), 1.0);
        assert_eq!(griewank(3, |_| 0.0), 0.0);
        let mut y = 0.3f64;
        for _ in 0..5000 {
            y = (y * 3.173_205_080_756_888 + 0.271_828).fract();
            let x = (y - 0.5) * 1100.0;
            assert_eq!(
                griewank_cos(-x).to_bits(),
                griewank_cos(x).to_bits(),
                "even at {x}"
            );
            assert_eq!(
                griewank_cos(x).to_bits(),
                griewank_cos_portable(x).to_bits()
            );
        }
    }
}
