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
//!              r = fma(−n, Q1, x) (exact),  r = fma(−n, Q2, r),  r = fma(−n, Q3, r)      |r| ≤ π/2 + 2^−30
//!              cos x = (−1)^n P(r²)
//! otherwise:   evo_core::math::cos_f64(x)
//! ```
//!
//! `Q1 + Q2 + Q3` is π to 159 bits (the first step is exact: `x − n·Q1` is a multiple of `min(ulp(x), 2^−51)`
//! below 4 in magnitude), `P` the degree-10 Taylor polynomial of `cos` in `r²` (truncation below 2e-17 on
//! `|r| ≤ π/2`) by Horner's rule with explicit fused multiply-adds, correctly rounded on both sides: one polynomial, no
//! select of coefficients, and the sign is an integer xor. Accuracy against `cos(x)` of mpmath at 200 bits, on 3·10⁴
//! arguments `z · (1/√i)` (`z` the difference of two random `f32` in [−600, 600] or [−480, 480], `i` uniform
//! in 1..=100 or 1..=10⁷ with equal probability) and the 3 495 doubles within 2 ulp of `kπ/2`, `k < 700`: at
//! most 2.5e-16 absolute; the tests keep 37 of these values, the worst among them.

use crate::tree::pairwise_product_by;
use evo_core::math::cos_f64;
use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|x|` at and above which (and for NaN) the portable `cos_f64` is used.
const LARGE: f64 = 1_048_576.0; // 2^20

/// 1/π rounded to nearest.
const ONE_OVER_PI: f64 = f64::from_bits(0x3fd4_5f30_6dc9_c883);
/// π = Q1 + Q2 + Q3 + O(2^−159): the doubles nearest to the successive remainders.
const Q1: f64 = f64::from_bits(0x4009_21fb_5444_2d18);
const Q2: f64 = f64::from_bits(0x3ca1_a626_3314_5c07);
const Q3: f64 = f64::from_bits(0xb92f_1976_b7ed_8fbc);

/// `(−1)^k/(2k)!`, k = 0..=10, rounded to nearest.
const COS: [f64; 11] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbfe0_0000_0000_0000),
    f64::from_bits(0x3fa5_5555_5555_5555),
    f64::from_bits(0xbf56_c16c_16c1_6c17),
    f64::from_bits(0x3efa_01a0_1a01_a01a),
    f64::from_bits(0xbe92_7e4f_b778_9f5c),
    f64::from_bits(0x3e21_eed8_eff8_d898),
    f64::from_bits(0xbda9_3974_a8c0_7c9d),
    f64::from_bits(0x3d2a_e7f3_e733_b81f),
    f64::from_bits(0xbca6_8278_63b9_7d97),
    f64::from_bits(0x3c1e_542b_a402_0225),
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
    r = (-n).mul_add(Q3, r);
    let s = r * r;
    let mut p = COS[10];
    for &c in COS[..10].iter().rev() {
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
    /// 1..=10⁷), doubles next to `kπ/2` (`k < 700`), and the worst of 33 495 such arguments (the last row).
    const MPMATH: [(u64, u64, u64); 37] = [
        (
            0x3fc7_5d3f_2428_681b,
            0x3fef_77e8_1161_8c60,
            0x3c8f_2d9a_78b8_59e1,
        ),
        (
            0xc04a_afc2_24d7_9086,
            0xbfef_fb46_9cdf_c077,
            0x3c84_bb07_2ac2_20cb,
        ),
        (
            0xbff0_31e8_fad3_42ab,
            0x3fe0_f5d5_8f64_8f10,
            0xbc68_9964_a2c7_3967,
        ),
        (
            0x4045_e2ea_213f_2ecd,
            0x3fef_4cd6_027b_c4ac,
            0xbc8a_99ba_9625_590a,
        ),
        (
            0xc07b_94a4_1ec0_a373,
            0x3fba_7fdf_683b_999b,
            0xbc52_490c_70af_cc7e,
        ),
        (
            0xc03b_8d68_e23f_12b5,
            0xbfe8_043c_479b_14e9,
            0xbc89_a293_f4d5_8d2d,
        ),
        (
            0x3fa7_ae7a_a7b0_215e,
            0x3fef_f73d_228b_5251,
            0x3c75_74c3_daf3_db47,
        ),
        (
            0xbf6b_a92c_94f4_ba65,
            0x3fef_fff4_0b83_f150,
            0x3c5b_6f4f_6b69_7ba5,
        ),
        (
            0xbfd4_3647_046e_ec32,
            0x3fee_6adb_bf38_7930,
            0xbc8e_ea1d_6e88_2658,
        ),
        (
            0xbfe8_bfd4_3d27_c951,
            0x3fe6_e59b_1243_27ad,
            0xbc66_cf63_a080_70b7,
        ),
        (
            0x3fbf_57fc_924e_c0ab,
            0x3fef_c2ac_c9d0_a760,
            0xbc64_c830_3a2e_97aa,
        ),
        (
            0x3fc8_90d8_79c9_fcca,
            0x3fef_6997_c4de_443f,
            0x3c81_6b21_c6c3_027a,
        ),
        (
            0x4053_f540_fdb0_6b3a,
            0xbfd1_9884_46a0_0549,
            0x3c71_ab7e_0839_2add,
        ),
        (
            0x4060_c3a4_cc1c_5947,
            0xbfe1_f7af_02de_ab9f,
            0xbc8a_978a_55bf_1e63,
        ),
        (
            0xbf98_d8f8_3218_8479,
            0x3fef_fd96_a154_201d,
            0xbc85_87aa_4906_e524,
        ),
        (
            0xc04c_d6cc_b22e_c266,
            0x3fdb_567b_9efc_483c,
            0xbc74_bcc5_adf0_c583,
        ),
        (
            0xbf9f_e1db_af73_1ef7,
            0x3fef_fc07_9a8c_d475,
            0xbc41_bdf3_c359_806c,
        ),
        (
            0x3fb8_6352_0687_2b71,
            0x3fef_dada_d34e_6d18,
            0x3c8c_94d2_a91b_3aef,
        ),
        (
            0xbfaf_565a_e2d7_6004,
            0x3fef_f0a9_1d52_59e9,
            0xbc75_91e4_2c47_2290,
        ),
        (
            0x4052_a054_88f8_a86c,
            0x3fe4_109d_2ae9_c852,
            0x3c80_06ba_7d27_c5ac,
        ),
        (
            0x3fe2_fd3b_d76e_06b4,
            0x3fea_8779_5c2a_3d7a,
            0xbc89_9ae7_b245_4a00,
        ),
        (
            0xc020_b8f3_5c2b_f0f4,
            0xbfdf_16f1_b9d6_4350,
            0x3c6a_03aa_85af_a05b,
        ),
        (
            0xc016_67d1_558f_8542,
            0x3fe8_d896_d708_864f,
            0x3c7b_5f14_1109_dc5f,
        ),
        (
            0x4040_ac4e_1867_4142,
            0xbfd6_829e_99cf_eab6,
            0x3c7b_afe2_d423_9283,
        ),
        (
            0x4061_1518_d346_56a8,
            0x3d28_0044_8252_0a5d,
            0xb9b5_9b96_29e0_b113,
        ),
        (
            0x4075_1b8a_13c5_41df,
            0xbd18_d28a_14e6_194a,
            0x39ac_8f31_5a3c_9184,
        ),
        (
            0x4071_475c_c9ee_df02,
            0x3ff0_0000_0000_0000,
            0xba6b_798e_577b_66ee,
        ),
        (
            0x4041_475c_c9ee_deff,
            0xbff0_0000_0000_0000,
            0x3a16_d672_de14_32ea,
        ),
        (
            0x4090_b090_e5f5_45f0,
            0x3ff0_0000_0000_0000,
            0xbac1_fcfb_b0f8_781d,
        ),
        (
            0x4089_c558_35e7_e83f,
            0xbd49_b9c8_7527_e7e9,
            0x39e0_d9c6_3c51_841b,
        ),
        (
            0x4090_392f_7c25_021e,
            0xbd60_a36f_faf0_e373,
            0xb9e1_ea65_fb87_5701,
        ),
        (
            0x4075_0268_1870_fdb1,
            0xbff0_0000_0000_0000,
            0x3a6a_c023_5b9b_ace0,
        ),
        (
            0x4090_19c5_01fb_ace5,
            0x3ff0_0000_0000_0000,
            0xbab0_c80d_2882_4454,
        ),
        (
            0x4075_e499_ee67_6349,
            0x3d2b_5022_5cc0_a1eb,
            0x3960_b973_518a_71f0,
        ),
        (
            0x406f_3836_32ac_b004,
            0xbcf3_d8c6_e6e6_94a1,
            0xb976_bcbd_0f0d_c9d3,
        ),
        (
            0x406a_b41b_0988_6fe8,
            0x3ff0_0000_0000_0000,
            0xba59_b805_3980_2645,
        ),
        (
            0x408c_9e31_ae73_a158,
            0xbd42_462c_1fca_6bb2,
            0xb9ed_5168_1515_16d7,
        ),
    ];

    #[test]
    fn within_2_6e_16_absolute_of_mpmath() {
        for (x, hi, lo) in MPMATH {
            let (x, hi, lo) = (f64::from_bits(x), f64::from_bits(hi), f64::from_bits(lo));
            let c = griewank_cos(x);
            let e = ((c - hi) - lo).abs();
            assert!(e <= 2.6e-16, "x {x}: {c} vs {hi} + {lo}, error {e:e}");
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
