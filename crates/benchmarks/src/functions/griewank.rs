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
//! `z_i c_i` ([`griewank_factor_scaled`]), with the scale `c_i ≈ 1/√K`, `K = (i+1)·π²` rounded to nearest
//! (`π²` rounded to nearest; [`griewank_scale`]: shared by all the individuals of a batch on the GPU, one per
//! coordinate). `c_i` is a reciprocal square root by fused multiply-adds only, no square root and no
//! division (about half the f64 operations of `1/√K` with both correctly rounded, which the GPU pays per
//! coordinate when it evaluates one individual):
//!
//! ```text
//! y₀ = bits⁻¹(0x5fe6eb50c7b537a9 − bits(K)/2)            (integer arithmetic; |y₀√K − 1| < 3.5 %)
//! twice:  e = fma(−K, y·y, 1)                              (e = 1 − K y²)
//!         y = fma(y, e · fma(e, fma(e, 5/16, 3/8), 1/2), y)   (y (1 − e)^(−1/2) to third order in e)
//! ```
//!
//! The first step leaves a relative error below 7e-6, the second below 1e-20 before rounding: on 10⁵ values
//! of `i + 1` (1..=20 000, 6·10⁴ random up to 10⁸, 2·10⁴ random up to 2⁴⁰, the powers of two and their
//! predecessors up to 2⁵¹) `c_i` is within 0.84 ulp of `1/√K` (mpmath; the former `1/√K` with a rounded
//! square root and a rounded division: 1.45 ulp). The argument `z_i c_i` is then within about 1.3 ulp of
//! `z_i/√(i+1)`: on the 65 145 pairs `(z, i)` below the factor is within 1.9e-13 of `cos(z_i/√(i+1))` of mpmath,
//! arguments reaching 1200.
//!
//! ```text
//! |z| < 2^20:  t = fma(z, c, 1.5·2^52),  m = t − 1.5·2^52 = rint(z c)   (m's parity: t's low bit)
//!              r = fma(z, c, −m)   (z c − m of the exact product, rounded once; |r| ≤ 1/2)
//!              cos(π z c) = (−1)^m P(r²)
//! otherwise:   griewank_cos(z · c)
//! ```
//!
//! Accuracy against `cos(π z c)` of the exact product, `c = griewank_scale(i)` (mpmath at 200 bits, 65 145
//! pairs: 4·10⁴ with `z` the difference of two random `f32` in [−600, 600] or [−480, 480] and `i + 1` uniform
//! in 1..=100 or 1..=10⁷, 10⁴ with `z` a random `f32` in [−2.048, 2.048] and `i + 1 ≤ 10`, 15 145 with `z c`
//! within 1e-12 relative of `k/2`, `|k| ≤ 700`, `|z| < 2^20`, of 2·10⁴ drawn): at most 3.17e-16 absolute (the rounding of `r`, of `r²` and of the Horner steps
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

use crate::tree::{EIGHT, pairwise_product_by_eights};
use evo_core::reduce::pairwise_sum_by;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|u|` at and above which `u` is first reduced modulo 2 (exact).
const LARGE: f64 = 1_048_576.0; // 2^20

/// π² rounded to nearest.
const PI_SQUARED: f64 = f64::from_bits(0x4023_bd3c_c9be_45de);

/// The bits whose difference with half the bits of `K > 0` approximate `1/√K` within 3.5 % (the reciprocal
/// square root's classic seed constant for doubles).
const RSQRT_SEED: u64 = 0x5fe6_eb50_c7b5_37a9;

/// `1/2, 3/8, 5/16`: `(1 − e)^(−1/2) = 1 + e/2 + 3e²/8 + 5e³/16 + O(e⁴)`.
const RSQRT_C1: f64 = 0.5;
const RSQRT_C2: f64 = 0.375;
const RSQRT_C3: f64 = 0.3125;

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

with_fma! {
    /// `cos(π u)` within an absolute bound (module docs). Bit-identical to the CUDA twin `evo_griewank_cos`.
    pub fn griewank_cos(u: f64) -> f64 => griewank_cos_portable;
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

with_fma! {
    /// The scale of coordinate `i` (0-based), `1 / √K` with `K = (i + 1) π²` rounded (module docs): the argument
    /// of the factor in half turns, the same for every individual (the GPU computes it once per tile for a group
    /// of individuals). Within 0.85 ulp of `1/√K`. Bit-identical to the CUDA twin `evo_griewank_scale` for
    /// `i + 1 < 2^52`.
    pub fn griewank_scale(i: usize) -> f64 => griewank_scale_portable;
}

#[inline(always)]
fn griewank_scale_portable(i: usize) -> f64 {
    let k = (i as u64 + 1) as f64;
    let big_k = k * PI_SQUARED;
    let mut y = f64::from_bits(RSQRT_SEED - (big_k.to_bits() >> 1));
    for _ in 0..2 {
        let e = (-big_k).mul_add(y * y, 1.0);
        let q = e.mul_add(e.mul_add(RSQRT_C3, RSQRT_C2), RSQRT_C1);
        y = y.mul_add(e * q, y);
    }
    y
}

with_fma! {
    /// One factor of the product, `cos(z / √(i + 1))` for the 0-based index `i`, computed as
    /// [`griewank_factor_scaled`]`(z, griewank_scale(i))`.
    pub fn griewank_factor(i: usize, z: f64) -> f64 => griewank_factor_portable;
}

with_fma! {
    /// `cos(π z c)` of the exact product `z c` for `|z| < 2^20` and `|c| ≤ 1` (module docs), else
    /// [`griewank_cos`]`(z · c)`. Bit-identical to the CUDA twin `evo_griewank_factor_scaled`.
    pub fn griewank_factor_scaled(z: f64, c: f64) -> f64 => griewank_factor_scaled_portable;
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

/// Griewank of `z(0..n)`. The factors are computed eight at a time ([`griewank_factors`]): the same bits as
/// [`griewank_factor`] one by one, with the scale's and the cosine's dependent chains of eight coordinates
/// in one function body. `cargo xtask bench --suite eval --backend cpu`, shifted Griewank at D = 10^6, one
/// thread of this project's 2-core x86-64 machine, ms per individual: 9.2 with the former scale (square root
/// and division) and one call per factor, 11.7 with the scale by fused multiply-adds and one call per
/// factor, 6.4–6.6 eight at a time.
pub fn griewank<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let s = pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    });
    let p = pairwise_product_by_eights(n, |first, count, out| {
        let mut zs = [0.0f64; EIGHT];
        for (j, v) in zs.iter_mut().enumerate().take(count) {
            *v = z(first + j);
        }
        griewank_factors(first, count, &zs, out);
    });
    griewank_combine(s, p)
}

with_fma! {
    /// `out[j] = griewank_factor(first + j, z[j])` for `j < count` (at most 8), the others left as they are.
    pub fn griewank_factors(
        first: usize,
        count: usize,
        z: &[f64; EIGHT],
        out: &mut [f64; EIGHT],
    ) => griewank_factors_portable;
}

#[inline(always)]
fn griewank_factor_portable(i: usize, z: f64) -> f64 {
    griewank_factor_scaled_portable(z, griewank_scale_portable(i))
}

#[inline(always)]
fn griewank_factors_portable(first: usize, count: usize, z: &[f64; EIGHT], out: &mut [f64; EIGHT]) {
    if count >= EIGHT {
        // A loop of constant length, so that the eight chains are unrolled and interleaved; the runtime bound
        // below for every block was much slower (docs/results/eval.md#cpu-griewank-unrolled).
        for j in 0..EIGHT {
            out[j] = griewank_factor_portable(first + j, z[j]);
        }
    } else {
        for j in 0..count {
            out[j] = griewank_factor_portable(first + j, z[j]);
        }
    }
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
    /// 1e-32 (mpmath at 200 bits): the 24 worst of the 65 145 pairs of the module docs and 8 others.
    const MPMATH_FACTOR: [(u64, usize, u64, u64); 32] = [
        (
            0xc124_20a9_f462_49ec,
            7152280,
            0xbdf0_2601_9317_7713,
            0x3a9e_04b7_fa64_c6b0,
        ),
        (
            0xc034_b5ec_0000_0000,
            20,
            0xbfb4_cd87_268e_405f,
            0xbc4c_e120_59eb_5135,
        ),
        (
            0xc07d_25f9_7000_0000,
            81,
            0x3f91_6b79_040f_4c31,
            0xbc3a_a680_6b9a_4d16,
        ),
        (
            0xc119_1657_82c4_a75f,
            295949,
            0xbe05_9bd8_cebb_7429,
            0xba85_110c_bd28_6b7e,
        ),
        (
            0xc0b1_b479_bf28_ab76,
            44,
            0x3df2_9206_9dd7_9e09,
            0xba81_4da7_2c27_d75d,
        ),
        (
            0xc079_d43f_3400_0000,
            95,
            0xbf87_44fc_4d3f_5fa3,
            0xbc1a_af16_2fa9_3fdb,
        ),
        (
            0x4124_335f_f7e6_9098,
            1745062,
            0xbdf8_0cab_9e84_c195,
            0xba7a_6fb5_b297_9a07,
        ),
        (
            0xc0bc_df56_87c9_8e99,
            74,
            0xbe0a_9c84_4fa2_056e,
            0xbaab_d876_c1f4_7664,
        ),
        (
            0x412a_406c_1493_8ee4,
            7886859,
            0xbdd9_166a_7f60_7406,
            0xba44_8f72_a538_f1a5,
        ),
        (
            0xc096_adbc_ef16_2f9d,
            22,
            0x3dee_bd8d_40ec_4481,
            0xba8d_8e7d_f108_4a73,
        ),
        (
            0x4128_9f37_e56a_45b4,
            8420897,
            0xbdf2_eefa_a1aa_8ad1,
            0x3a8b_b4c5_87f4_542d,
        ),
        (
            0xc0a2_e582_907f_70d4,
            28,
            0xbdd4_1f26_868d_d260,
            0x3a7e_d90a_c210_9580,
        ),
        (
            0xc0b7_c2b1_2e78_741d,
            52,
            0x3e01_d3a5_5160_7789,
            0x3a62_7bf6_382b_b4d6,
        ),
        (
            0xc122_381c_142f_8e2f,
            2088364,
            0x3dd5_37b2_8b5a_0338,
            0xba77_0fe9_edfa_6eaa,
        ),
        (
            0xc09a_00e8_d880_5b9e,
            82,
            0xbde6_43a3_470d_f104,
            0xba71_6078_d083_880e,
        ),
        (
            0x412e_2780_1049_12ed,
            6382045,
            0x3dd2_98b2_8e3f_492b,
            0xba7a_ad13_2a4a_f950,
        ),
        (
            0xc0a3_d6f0_e8b0_4bfc,
            45,
            0xbdf8_35cc_a463_9d2e,
            0x3a87_3b36_3f65_b54c,
        ),
        (
            0xc096_16dd_e50f_dfc8,
            16,
            0x3de7_b3e7_49f2_a437,
            0x3a75_47af_cd13_6681,
        ),
        (
            0x40ab_2533_f483_8de7,
            16,
            0x3e04_cd3f_52b2_f4d5,
            0xbaa7_4d2a_4216_6393,
        ),
        (
            0xc0fe_d143_9f3b_71b3,
            8858204,
            0xbdbd_598a_63b0_cbec,
            0x3a52_dcc6_d35e_a5fa,
        ),
        (
            0x407c_c334_f95a_a4d7,
            33,
            0xbdd3_2ca2_9b3d_0667,
            0xba75_15b5_e356_eafc,
        ),
        (
            0x40fe_3398_5ac0_e90b,
            8507675,
            0xbd99_ace9_d303_9dcc,
            0x3a39_e0a4_4f6c_bb03,
        ),
        (
            0xc0b4_3d19_f3af_e73e,
            43,
            0x3dd3_43ca_9fa8_5d7b,
            0x3a7c_77ec_587a_cf97,
        ),
        (
            0xc0bc_a48d_2bf5_d47a,
            65,
            0x3dd5_6aee_a11d_bbb8,
            0xba7b_b600_1d94_1f1d,
        ),
        (
            0xc067_2bbe_9800_0000,
            40,
            0xbfe0_57e2_a03c_222c,
            0xbc77_9f14_b2af_d22e,
        ),
        (
            0xc073_7015_e800_0000,
            6874045,
            0x3fef_c66e_d5b2_f7f7,
            0xbc8e_3191_b3d1_c1c4,
        ),
        (
            0xc083_d0d4_2800_0000,
            26,
            0x3fd0_c3b0_70ba_06ad,
            0xbc69_320d_14d0_1c99,
        ),
        (
            0x407b_86a3_5000_0000,
            37,
            0xbfef_a77e_d2f9_145b,
            0xbc88_981b_0c2c_97f5,
        ),
        (
            0x4032_5665_8000_0000,
            56,
            0xbfe8_a815_4a13_55aa,
            0x3c5e_5be2_d722_d2ae,
        ),
        (
            0xc061_19ee_e400_0000,
            4540650,
            0x3fef_ef1f_21cd_99d1,
            0x3c71_6a32_1a1c_ccda,
        ),
        (
            0x40a1_5365_1276_751c,
            91,
            0x3ff0_0000_0000_0000,
            0xbbc4_77cd_15e8_0abb,
        ),
        (
            0xc06c_a3a7_c400_0000,
            20,
            0x3fe2_31d0_73e7_6fdb,
            0x3c4b_ee67_d274_e993,
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

    /// `(i, bits of griewank_scale(i))`, from an independent evaluation of the documented steps (Python, its
    /// fused multiply-adds exact in rationals): pins the order of the operations shared with the CUDA twin.
    const SCALE_BITS: [(usize, u64); 7] = [
        (0, 0x3fd4_5f30_6dc9_c883),
        (1, 0x3fcc_cf64_29be_6621),
        (2, 0x3fc7_85fb_53dc_dc1a),
        (13_165, 0x3f66_b9b9_5560_1595),
        (9_999_999, 0x3f1a_6312_8f67_cf2a),
        (1_099_511_627_775, 0x3e94_5f30_6dc9_c883),
        (2_251_799_813_685_246, 0x3e3c_cf64_29be_6623),
    ];

    #[test]
    fn scales_follow_the_documented_steps() {
        for (i, bits) in SCALE_BITS {
            assert_eq!(griewank_scale(i).to_bits(), bits, "i {i}");
        }
        // i = 0: 1/π rounded to nearest.
        assert_eq!(griewank_scale(0), std::f64::consts::FRAC_1_PI);
    }

    /// `|y √K − 1|` in ulps of `y`, from the residual `K y² − 1 = 2δ + δ²` (`y = (1 + δ)/√K`) computed with
    /// error-free products: `y² = p + p'`, `K p = r + r'`, `r − 1` exact (Sterbenz).
    fn scale_error_ulps(i: usize) -> f64 {
        let y = griewank_scale(i);
        let big_k = (i + 1) as f64 * PI_SQUARED;
        let p = y * y;
        let p_low = y.mul_add(y, -p);
        let r = big_k * p;
        let r_low = big_k.mul_add(p, -r);
        let residual = (r - 1.0) + (r_low + big_k * p_low);
        let delta = residual / 2.0;
        let ulp = f64::from_bits(y.to_bits() + 1) - y;
        (delta * y / ulp).abs()
    }

    #[test]
    fn scales_within_0_85_ulp_of_the_reciprocal_square_root() {
        let mut worst = 0.0f64;
        let mut next = 0x9e37_79b9_7f4a_7c15u64;
        let large = (0..20_000).map(|_| {
            next = next.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (next >> 24) as usize // up to 2^40
        });
        for i in (0..50_000)
            .chain(large)
            .chain((1..52).map(|j| (1usize << j) - 1))
        {
            let e = scale_error_ulps(i);
            assert!(e <= 0.85, "i {i}: {e} ulp");
            worst = worst.max(e);
        }
        // The bound is not loose: some scale is off by more than half an ulp (not correctly rounded).
        assert!(worst > 0.5, "worst {worst}");
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
