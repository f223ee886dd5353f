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
//! The factor `cos(z_i/√(i+1))` is computed in half turns, as `cos(π z_i c_i)` of the exact product
//! `z_i c_i` ([`griewank_factor_scaled`]), with the scale `c_i = 1/√((i+1)·π²)` ([`griewank_scale`], `π²`
//! rounded to nearest; shared by all the individuals of a batch on the GPU, one per coordinate instead of a
//! division). The rounding of `c_i` moves the argument by about 1.5 ulp of `z_i/√(i+1)` (the former
//! `z_i · (1/√(i+1))` in radians: about 1.5 ulp too): on 7·10⁴ pairs `(z, i)` (below) the factor is within
//! 2.4e-13 of `cos(z_i/√(i+1))` of mpmath, arguments reaching 1200.
//!
//! ```text
//! |z| < 2^20:  t = fma(z, c, 1.5·2^52),  m = t − 1.5·2^52 = rint(z c)   (m's parity: t's low bit)
//!              r = fma(z, c, −m)   (z c − m of the exact product, rounded once; |r| ≤ 1/2)
//!              cos(π z c) = (−1)^m P(r²)
//! otherwise:   griewank_cos(z · c)
//! ```
//!
//! Accuracy against `cos(π z c)` of the exact product (mpmath at 200 bits, 7·10⁴ pairs: 4·10⁴ with `z` the
//! difference of two random `f32` in [−600, 600] or [−480, 480] and `i + 1` uniform in 1..=100 or 1..=10⁷,
//! 10⁴ with `z` a random `f32` in [−2.048, 2.048] and `i + 1 ≤ 10`, 2·10⁴ with `z c` within 1e-12 relative
//! of `k/2`, `|k| ≤ 700`): at most 3.33e-16 absolute (the rounding of `r`, of `r²` and of the Horner steps
//! near `|r| = 1/2`). Cost: 2 fused multiply-adds and 1 addition of reduction, 1 for `r²`, 8 for `P`: 12
//! f64 operations per factor.
//!
//! The cosine is [`griewank_cos`], `cos(π u)` with an *absolute* accuracy bound, which is all `f` needs: an
//! absolute error `e` of one factor moves the product by at most `e` (the other factors are at most 1 in
//! magnitude), and `f` is `(s/4000 − p) + 1`.
//!
//! ```text
//! u' = u  if |u| < 2^20, else fmod(u, 2)                                          (exact)
//! t  = u' + 1.5·2^52,  m = t − 1.5·2^52 = rint(u')          (exact, ties to even; m's parity: t's low bit)
//! r  = u' − m,  |r| ≤ 1/2  (exact),   s = r²
//! cos(π u) = (−1)^m P(s)
//! ```
//!
//! `r` is exact: if `|u'| < 1/2` then `m = 0` and `r = u'`; otherwise `2^−53 ≤ ulp(u') ≤ 2^−32` divides 1,
//! so `u' − m` is a multiple of `ulp(u')` at most `1/2 ≤ 2^52 ulp(u')` in magnitude. Unlike a reduction in
//! radians (`x − nπ` with π in two or three parts), this one rounds nothing: 3 additions, no constant of π.
//!
//! `P(s) = Σ_{k=0}^{8} c_k s^k`, `c_0 = 1` (so the factor is exactly ±1 at integers `u`, and `f(0) = 0`),
//! is the minimax polynomial (Remez exchange, absolute error) of `cos(π√s)` on `0 ≤ s ≤ 1/4`: error 4.2e-18
//! before rounding the coefficients (degree 7, the next lower, would leave 2.1e-15). It runs by Horner's
//! rule with explicit fused multiply-adds, correctly rounded on both sides: one polynomial, no select of
//! coefficients, and the sign is an integer xor. To regenerate the coefficients (mpmath, 60 digits): Remez on
//! the basis `s, s², …, s⁸` over `(0, 1/4]` for `g(s) = cos(π√s) − 1`, 9 alternation points, starting from
//! Chebyshev points, until the levelled error is stable to 1e-6 relative; then round each `c_k` to nearest
//! (the procedure of Rastrigin's `W`). Cost of a factor by `griewank_cos(z · c)`: 1 multiplication, 3
//! additions of reduction, 1 for `r²` and 8 fused multiply-adds, 13 f64 operations (17 with the former
//! reduction in radians by π in three parts and the degree-10 Taylor polynomial); by
//! [`griewank_factor_scaled`], 12.
//!
//! Accuracy against `cos(π u)` of mpmath at 200 bits, on 71 200 arguments: 4·10⁴ Griewank arguments
//! `u = z · c_i` (`z` the difference of two random `f32` in [−600, 600] or [−480, 480], `i + 1` uniform in
//! 1..=100 or 1..=10⁷ with equal probability), 10⁴ with `z` a random `f32` in [−2.048, 2.048] and
//! `i + 1 ≤ 10`, 10⁴ uniform in [−2, 2], and the doubles within 4 ulp or 1e-9 of `±k/2`, `k < 400`: at most
//! 2.63e-16 absolute (the rounding of `r²` and of the Horner steps near `|r| = 1/2` dominates); the tests
//! keep 40 of these values, the worst among them.

use crate::tree::pairwise_product_by;
use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|u|` at and above which `u` is first reduced modulo 2 (exact).
const LARGE: f64 = 1_048_576.0; // 2^20

/// π² rounded to nearest.
const PI_SQUARED: f64 = f64::from_bits(0x4023_bd3c_c9be_45de);

/// `c_0..c_8`: `Σ c_k s^k` is the minimax polynomial of `cos(π√s)` on `0 ≤ s ≤ 1/4` with `c_0 = 1`
/// (absolute error 4.2e-18), rounded to nearest.
const COS: [f64; 9] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xc013_bd3c_c9be_45dc),
    f64::from_bits(0x4010_3c1f_081b_59c8),
    f64::from_bits(0xbff5_5d3c_7e3c_1160),
    f64::from_bits(0x3fce_1f50_681c_aede),
    f64::from_bits(0xbf9a_6d1e_feb4_f786),
    f64::from_bits(0x3f5f_9d25_db6f_d619),
    f64::from_bits(0xbf1b_696d_4090_1395),
    f64::from_bits(0x3ed1_68d5_89d1_6fe0),
];

/// `cos(π u)` within an absolute bound (module docs). Bit-identical to the CUDA twin `evo_griewank_cos`.
#[inline]
pub fn griewank_cos(u: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { griewank_cos_x86_fma(u) };
        }
    }
    griewank_cos_portable(u)
}

/// The same function compiled with the `fma` target feature, so that `mul_add` is one instruction instead
/// of a call to the C library's `fma` (both are correctly rounded: the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn griewank_cos_x86_fma(u: f64) -> f64 {
    griewank_cos_portable(u)
}

#[inline(always)]
fn griewank_cos_portable(u: f64) -> f64 {
    // fmod is exact; |u| >= 2^20 never happens for the Griewank arguments of the benchmark domains.
    let u = if u.abs() < LARGE { u } else { u % 2.0 };
    let t = u + ROUNDER;
    // The low bit of t's significand is the parity of m = rint(u).
    let odd = t.to_bits() & 1;
    let m = t - ROUNDER;
    let r = u - m;
    sign_by_parity(cos_half_turns_poly(r * r), odd)
}

/// `P(s)`, `cos(π r)` for `s = r² ≤ 1/4`, by Horner's rule with explicit fused multiply-adds.
#[inline(always)]
fn cos_half_turns_poly(s: f64) -> f64 {
    let mut p = COS[8];
    for &c in COS[..8].iter().rev() {
        p = p.mul_add(s, c);
    }
    p
}

/// `p` negated when `odd` (0 or 1) is 1, by its sign bit.
#[inline(always)]
fn sign_by_parity(p: f64, odd: u64) -> f64 {
    f64::from_bits(p.to_bits() ^ (odd << 63))
}

/// The scale of coordinate `i` (0-based), `1 / √((i + 1) π²)`: the argument of the factor in half turns,
/// the same for every individual (the GPU computes it once per tile for a group of individuals).
#[inline]
pub fn griewank_scale(i: usize) -> f64 {
    1.0 / ((i + 1) as f64 * PI_SQUARED).sqrt()
}

/// One factor of the product, `cos(z / √(i + 1))` for the 0-based index `i`, computed as
/// [`griewank_factor_scaled`]`(z, griewank_scale(i))`.
#[inline]
pub fn griewank_factor(i: usize, z: f64) -> f64 {
    griewank_factor_scaled(z, griewank_scale(i))
}

/// `cos(π z c)` of the exact product `z c` for `|z| < 2^20` and `|c| ≤ 1` (module docs), else
/// [`griewank_cos`]`(z · c)`. Bit-identical to the CUDA twin `evo_griewank_factor_scaled`.
#[inline]
pub fn griewank_factor_scaled(z: f64, c: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { griewank_factor_scaled_x86_fma(z, c) };
        }
    }
    griewank_factor_scaled_portable(z, c)
}

/// The same function compiled with the `fma` target feature (the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn griewank_factor_scaled_x86_fma(z: f64, c: f64) -> f64 {
    griewank_factor_scaled_portable(z, c)
}

#[inline(always)]
fn griewank_factor_scaled_portable(z: f64, c: f64) -> f64 {
    // Also taken for NaN; never for the Griewank arguments of the benchmark domains.
    if z.is_nan() || z.abs() >= LARGE {
        return griewank_cos_portable(z * c);
    }
    // m = rint(z c) and r = z c − m from the exact product, each rounded once.
    let t = z.mul_add(c, ROUNDER);
    let odd = t.to_bits() & 1;
    let m = t - ROUNDER;
    let r = z.mul_add(c, -m);
    sign_by_parity(cos_half_turns_poly(r * r), odd)
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
    use evo_core::math::{cos_f64, sin_f64};

    /// `(u, hi, lo)` as bits: `hi + lo` is `cos(πu)` to about 1e-32 (mpmath at 200 bits). Griewank arguments
    /// `z · griewank_scale(i)` (`z` the difference of two random `f32` in [−600, 600] or [−480, 480], `i` in
    /// 0..100 or 0..10⁷), random `u` in [−2, 2], doubles next to `k/2` (`k < 400`), 71 200 arguments in all
    /// (module docs): the 28 worst of them (positive `u`; the cosine is even) and 12 others.
    const MPMATH: [(u64, u64, u64); 40] = [
        (
            0xc030_63a8_ad37_427c,
            0x3fd5_d021_1a6d_ec54,
            0xbc7b_9dc2_fdaa_f5bf,
        ),
        (
            0x402f_0576_7274_6842,
            0x3fa1_2887_4b5d_290e,
            0xbc40_436d_6145_27dc,
        ),
        (
            0x4038_7efe_ebfc_c083,
            0x3f89_3cea_6b2e_c328,
            0x3c29_aa26_2b65_d924,
        ),
        (
            0x3fd7_1522_588e_6074,
            0x3fdb_20fc_281a_676b,
            0xbc71_e953_847f_db02,
        ),
        (
            0x4064_ef98_d1d6_3f2c,
            0xbfa4_410e_34ca_dc16,
            0x3c1a_9248_e97e_f866,
        ),
        (
            0x403e_78a6_6c2e_2bea,
            0x3fb7_0f23_5671_ea8e,
            0xbc41_1659_46ab_7243,
        ),
        (
            0xc03e_cec0_f9f9_d86d,
            0xbfea_5500_d89d_3261,
            0xbc8a_ed5e_fd8a_30a8,
        ),
        (
            0x4023_005a_8e8c_8ebf,
            0x3f61_c7e1_1908_b458,
            0x3c04_68a2_3220_9d09,
        ),
        (
            0x4011_fd76_0185_1a7d,
            0x3f7f_e7fb_d2c5_6748,
            0x3bf8_0caa_0607_f66a,
        ),
        (
            0xc03e_4076_4489_79f5,
            0x3fe6_7faf_6b57_1d56,
            0xbc68_cace_5f17_0ac7,
        ),
        (
            0x402e_f697_994b_9927,
            0xbfad_8a03_9c04_46d9,
            0x3c3f_dce3_db83_bafd,
        ),
        (
            0x4003_e39c_3c6c_e0e4,
            0x3fa6_4a48_cca1_305a,
            0x3c48_dbb3_637f_efa1,
        ),
        (
            0x3ff7_ee95_f701_243e,
            0xbf8b_5a74_fedc_c2ef,
            0x3c29_2918_708b_4cc6,
        ),
        (
            0x401e_0acc_af7c_6226,
            0x3fa0_f5f6_9adc_2076,
            0x3c13_fe21_d268_9ec3,
        ),
        (
            0x401a_0110_28ff_f6db,
            0xbf6a_b81e_5f14_7032,
            0x3c06_3d55_7345_f43a,
        ),
        (
            0x4036_7db7_6105_cd3d,
            0x3f9c_b19a_43db_4805,
            0x3c36_f107_8357_3104,
        ),
        (
            0xbf7d_812f_9b01_2a9c,
            0x3fef_fde7_0a54_4ff3,
            0xbc4b_ce20_1b8e_da26,
        ),
        (
            0x400b_fa1e_358c_d794,
            0xbf82_7a84_6685_fe7d,
            0x3c10_cdf6_935d_631c,
        ),
        (
            0x4035_7b8c_8464_b706,
            0xbfab_f405_a2c1_a3d9,
            0x3c4f_32a3_a7e9_af31,
        ),
        (
            0x3fc4_2530_3801_cf7d,
            0x3fec_2ae2_7c40_49a6,
            0xbc78_af30_04c5_0c18,
        ),
        (
            0x3fe0_df0e_e839_6cec,
            0xbfb5_df3a_f748_39a2,
            0x3c54_a9fd_0eb1_791a,
        ),
        (
            0x4036_7d73_ff09_68c1,
            0x3f9f_fffc_acb8_398d,
            0xbc2a_9695_3838_8f74,
        ),
        (
            0x4033_81e1_4026_0972,
            0x3f97_9f09_6796_35de,
            0xbc30_c3ab_c28f_a388,
        ),
        (
            0xbfab_b7dd_37de_eeb0,
            0x3fef_89cd_c9ac_51ab,
            0x3c84_4f38_f1b6_e779,
        ),
        (
            0x403d_7d61_5239_d224,
            0xbfa0_7545_f689_00e5,
            0xbc44_97fe_5c87_83e9,
        ),
        (
            0xbfcd_8f4f_947a_4048,
            0x3fe7_f0f3_feb4_9de1,
            0x3c83_b971_e87e_81d8,
        ),
        (
            0xbfc7_5a10_6f82_74f6,
            0x3fea_e2f0_6b06_3e7a,
            0xbc4f_077a_8d30_bddd,
        ),
        (
            0x3fe0_2321_755d_3ec8,
            0xbf8b_973b_6963_b9eb,
            0x3c15_af40_9300_eace,
        ),
        (
            0x3fd8_fea7_e2e8_76b0,
            0x3fd5_9394_486d_90a9,
            0x3c5a_38fd_6861_cfc9,
        ),
        (
            0x3ff7_a64f_49fe_d068,
            0xbfb1_98c5_266e_5739,
            0x3c5b_eba5_5858_8380,
        ),
        (
            0x3ff8_33c9_c152_69ea,
            0x3fa4_54f0_787f_2e15,
            0xbc38_ffeb_6a95_2a1b,
        ),
        (
            0xbff0_288f_9e9c_2a3c,
            0xbfef_fc09_3e09_7d74,
            0x3c8a_b1f2_fa8e_4fbd,
        ),
        (
            0x403e_7fff_ffff_9af6,
            0x3df3_d6c6_f820_60e9,
            0xba94_9aca_3974_a1bf,
        ),
        (
            0x4056_2000_0001_113e,
            0xbe2a_d353_3fbb_1c9a,
            0x3ab9_fd3f_ae4e_3f47,
        ),
        (
            0xc057_7fff_ffff_ffff,
            0x3ff0_0000_0000_0000,
            0xba53_bd3c_c9be_45de,
        ),
        (
            0x405f_9fff_ffff_1fd5,
            0x3e26_01f4_9ef2_cee9,
            0xbab8_715f_d827_008a,
        ),
        (
            0x4060_7000_0000_628e,
            0x3e23_59e6_1f55_ae29,
            0xbac9_0cb2_2163_fbca,
        ),
        (
            0x4060_cfff_ffff_ec3a,
            0x3dff_0f5e_fa43_c13b,
            0xba7f_d4ac_3d3e_c5f5,
        ),
        (
            0x4060_d000_0000_2c2f,
            0xbe11_59d1_be80_c112,
            0x3aa8_ecd4_2120_8de0,
        ),
        (
            0x4067_efff_ffff_cdcb,
            0xbe13_b75c_7df7_0bb0,
            0xbab3_bc75_e4a2_154a,
        ),
    ];

    /// `(z, i + 1, hi, lo)`: `hi + lo` is `cos(π z c)` of the exact product, `c = griewank_scale(i)`, to about
    /// 1e-32 (mpmath at 200 bits): the 24 worst of 70 000 pairs (module docs) and 8 others.
    const MPMATH_FACTOR: [(u64, usize, u64, u64); 32] = [
        (
            0x407f_2ead_0800_0000,
            29,
            0xbf9f_19e8_8e82_3dcc,
            0x3bf9_efb1_875a_5d8a,
        ),
        (
            0x40b3_4e94_5842_f38e,
            498,
            0x3db7_b6a9_7e0b_6109,
            0xba48_07da_d604_05b2,
        ),
        (
            0x407a_9cf8_0000_0000,
            8275,
            0xbfa0_1a55_cf3b_8d6d,
            0xbbc0_78e8_5fc3_8b45,
        ),
        (
            0x4038_e566_0000_0000,
            28,
            0xbf7e_997a_7e85_3088,
            0xbc1b_4cbf_7a43_8b91,
        ),
        (
            0x40d2_87f9_c79a_3105,
            332,
            0xbdd6_d02a_6a03_29b1,
            0x3a78_a338_bc25_6f1b,
        ),
        (
            0x40c8_0c38_be0c_0040,
            706,
            0xbdfd_e5cf_9bc7_2f4f,
            0x3a59_683e_2961_6f99,
        ),
        (
            0x40d7_0c18_dca8_6f88,
            777,
            0xbddc_f312_8d56_7630,
            0x3a4c_45af_d44e_bd4b,
        ),
        (
            0x40d2_6ee5_6210_ea03,
            516,
            0xbdf4_1a1f_a39a_a17f,
            0x3a86_953c_779c_d53e,
        ),
        (
            0x4066_600d_d000_0000,
            76,
            0xbfbc_c078_95f1_5633,
            0xbc4d_19a0_1f66_0872,
        ),
        (
            0x4078_9424_a800_0000,
            70889,
            0x3fb7_f818_eee9_f826,
            0x3c4d_2ff6_017e_12d4,
        ),
        (
            0x40ba_6e6c_c246_fb1a,
            1049,
            0x3de1_8421_47c0_275e,
            0xba7d_1a8a_9e6f_fd65,
        ),
        (
            0x40dd_a153_c493_564e,
            1990,
            0x3dfc_635f_a79c_4fab,
            0x3a9a_de7b_6117_c7df,
        ),
        (
            0x40be_7bb7_55b4_9706,
            64,
            0x3e09_ab69_d44d_d297,
            0xba91_21ea_939f_c070,
        ),
        (
            0x40ce_4643_eacd_90cd,
            356,
            0x3df0_8d52_a8d6_9780,
            0x3a97_a1c1_3794_2d6f,
        ),
        (
            0x4087_9510_3000_0000,
            39,
            0x3fbc_f42e_6705_a626,
            0xbc59_20be_89b0_3640,
        ),
        (
            0x40c2_b53f_3170_98c8,
            662,
            0xbdf6_0e2f_aac6_b651,
            0xba9d_dca7_6485_b8db,
        ),
        (
            0x407e_0186_3000_0000,
            97,
            0x3faa_6895_08e5_2662,
            0x3c4b_d565_893f_246f,
        ),
        (
            0x40da_fe3b_3652_3f19,
            1945,
            0xbdf1_e519_ab88_5435,
            0xba75_56e8_eb74_7ae1,
        ),
        (
            0x40be_d543_a2c2_ccb7,
            754,
            0x3dc5_d6c5_5dd9_f6ab,
            0xba4f_e36d_819e_9947,
        ),
        (
            0x40db_6b8e_2b38_432e,
            1820,
            0x3e01_a18d_5642_7410,
            0xba8f_7bf9_2842_9d7f,
        ),
        (
            0x40c3_fc1c_9657_049f,
            1861,
            0x3dc5_c405_6788_58fc,
            0x3a68_b23a_a9f9_8902,
        ),
        (
            0x40cc_4b94_01ab_c4af,
            723,
            0x3df2_decb_ad3e_c2ec,
            0xba2d_bb62_f3c5_d59d,
        ),
        (
            0x40a3_8e3b_ee72_c926,
            1254,
            0xbdc0_d59d_7096_a551,
            0x3a37_3b20_39c9_ad9f,
        ),
        (
            0x406c_4297_8000_0000,
            39,
            0x3fb2_d42e_766c_9e41,
            0xbc32_3ec4_7431_7da2,
        ),
        (
            0x40c2_be56_7205_975a,
            87,
            0x3dff_2f34_c74b_2584,
            0x3a9a_a486_74bd_8de5,
        ),
        (
            0x4085_b98b_5000_0000,
            96,
            0xbfd0_e2d5_9709_6c22,
            0xbc69_3d84_f6b7_b653,
        ),
        (
            0x3ff3_eaed_8000_0000,
            8,
            0x3fec_f34c_0280_57a6,
            0x3c8f_0e8f_e253_3e84,
        ),
        (
            0x403f_b8de_3000_0000,
            1245717,
            0x3fef_fcb1_0393_2efe,
            0xbc87_f17c_3cea_9793,
        ),
        (
            0x4061_20fa_f000_0000,
            5541294,
            0x3fef_f21f_c471_f509,
            0xbc81_7ad8_0072_6339,
        ),
        (
            0x4045_1f81_0000_0000,
            9273434,
            0x3fef_ff36_329c_9c47,
            0x3c76_8866_8da9_e13d,
        ),
        (
            0x4083_7e00_5800_0000,
            67,
            0x3fe6_2e0a_2699_24f2,
            0x3c64_cafc_bdcb_93fe,
        ),
        (
            0x40d6_66ce_9861_58d2,
            1761,
            0x3ff0_0000_0000_0000,
            0xbc05_9edd_972b_1929,
        ),
    ];

    #[test]
    fn factors_within_3_4e_16_absolute_of_mpmath() {
        for (z, i, hi, lo) in MPMATH_FACTOR {
            let (z, hi, lo) = (f64::from_bits(z), f64::from_bits(hi), f64::from_bits(lo));
            let f = griewank_factor(i - 1, z);
            assert_eq!(
                f.to_bits(),
                griewank_factor_scaled(z, griewank_scale(i - 1)).to_bits()
            );
            let e = ((f - hi) - lo).abs();
            assert!(e <= 3.4e-16, "z {z} i {i}: {f} vs {hi} + {lo}, error {e:e}");
        }
    }

    #[test]
    fn large_and_special_factors() {
        // |z| >= 2^20 and NaN: griewank_cos of the rounded product.
        let c = griewank_scale(6);
        for z in [1.5e6, -3.0e9, 2.0f64.powi(20)] {
            assert_eq!(
                griewank_factor_scaled(z, c).to_bits(),
                griewank_cos(z * c).to_bits()
            );
        }
        assert!(griewank_factor_scaled(f64::NAN, c).is_nan());
        assert_eq!(griewank_factor_scaled(0.0, c), 1.0);
        // The padding of the GPU tiles: z = 0 with the scale 1.
        assert_eq!(griewank_factor_scaled(0.0, 1.0), 1.0);
        assert_eq!(griewank_factor_scaled(-3.0, 1.0), -1.0);
    }

    /// cos(πu) from πu as a double-double (hi + lo exactly, by fused multiply-adds): cos(hi) − sin(hi)·lo,
    /// within about 1e-16 absolute of the true value.
    fn reference(u: f64) -> f64 {
        let pi = std::f64::consts::PI;
        let pi_lo = f64::from_bits(0x3ca1_a626_3314_5c07); // π − PI
        let hi = pi * u;
        let lo = pi.mul_add(u, -hi) + pi_lo * u;
        cos_f64(hi) - sin_f64(hi) * lo
    }

    #[test]
    fn within_2_7e_16_absolute_of_mpmath() {
        for (u, hi, lo) in MPMATH {
            let (u, hi, lo) = (f64::from_bits(u), f64::from_bits(hi), f64::from_bits(lo));
            let c = griewank_cos(u);
            let e = ((c - hi) - lo).abs();
            assert!(e <= 2.7e-16, "u {u}: {c} vs {hi} + {lo}, error {e:e}");
        }
    }

    #[test]
    fn within_3_5e_16_absolute_of_a_double_double_reference() {
        let mut z = 0.1f64;
        for i in 0..20_000 {
            z = (z * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let u = (z - 0.5) * if i % 2 == 0 { 4.1 } else { 400.0 };
            let (c, r) = (griewank_cos(u), reference(u));
            assert!((c - r).abs() <= 3.5e-16, "u {u}: {c} vs {r}");
        }
    }

    #[test]
    fn factors_follow_the_formula_within_two_ulp_of_the_argument() {
        // cos(z / √(i + 1)) moves by at most |δ| for an error δ of the argument: the scale's and the
        // product's roundings, about 2 ulp of z / √(i + 1) together.
        let mut y = 0.7f64;
        for k in 0..20_000usize {
            y = (y * 3.173_205_080_756_888 + 0.271_828).fract();
            let z = (y - 0.5) * 1200.0;
            let i = if k % 2 == 0 { k % 100 } else { k * 499 };
            let x = z / ((i + 1) as f64).sqrt();
            let e = (griewank_factor(i, z) - cos_f64(x)).abs();
            assert!(e <= 5.0e-16 * x.abs().max(1.0), "i {i} z {z}: error {e:e}");
        }
    }

    #[test]
    fn special_values_symmetry_and_period() {
        assert_eq!(griewank_cos(0.0), 1.0);
        assert_eq!(griewank_cos(-0.0), 1.0);
        assert_eq!(griewank_factor(0, 0.0), 1.0);
        assert_eq!(griewank(3, |_| 0.0), 0.0);
        for k in -9..=9 {
            let k = f64::from(k);
            assert_eq!(griewank_cos(k), if k % 2.0 == 0.0 { 1.0 } else { -1.0 });
        }
        assert_eq!(griewank_cos(1.0e7), 1.0);
        assert_eq!(griewank_cos(1.0e7 + 1.0), -1.0);
        assert!(griewank_cos(f64::NAN).is_nan());
        assert!(griewank_cos(f64::INFINITY).is_nan());
        let mut y = 0.3f64;
        for _ in 0..5000 {
            y = (y * 3.173_205_080_756_888 + 0.271_828).fract();
            // A multiple of 2^-12, so that u + k is exact for every k below.
            let u = ((y - 0.5) * 4096.0).round() / 4096.0;
            let c = griewank_cos(u);
            assert_eq!(griewank_cos(-u).to_bits(), c.to_bits(), "even at {u}");
            for k in [-6.0, 2.0, 1024.0, 2.0f64.powi(21), 2.0f64.powi(40)] {
                assert_eq!(griewank_cos(u + k).to_bits(), c.to_bits(), "u {u} k {k}");
            }
            assert_eq!(
                griewank_cos(u).to_bits(),
                griewank_cos_portable(u).to_bits()
            );
        }
    }
}
