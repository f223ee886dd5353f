//! `cos(2π z)` reduced exactly in `z` instead of in `2πz`, within 2 ulp (relative) of the correctly rounded
//! value. It was the Rastrigin term's cosine until [`super::rastrigin::rastrigin_cos`] (absolute accuracy,
//! no coefficient selects) replaced it there; no function of the crate uses it now.
//!
//! ```text
//! z' = z                    if |z| < 2^49, else fmod(z, 1)   (exact)
//! t  = fma(4, z', 1.5·2^52)  n = t − 1.5·2^52 = rint(4z')     (exact, ties to even)
//! w  = fma(4, z', −n)        |w| ≤ 1/2, exact;  2πz' = (π/2)(n + w)
//! cos(2πz) = ±cos((π/2)w)   for even n,   ±sin((π/2)w) for odd n;   minus when (n + 1) & 2 ≠ 0
//! cos((π/2)w) = P_c(w²),     sin((π/2)w) = w · P_s(w²)
//! ```
//!
//! `P_c` and `P_s` are the Taylor polynomials of degree 8 in `s = w²` (coefficients
//! `(−1)^k (π/2)^{2k}/(2k)!` and `(−1)^k (π/2)^{2k+1}/(2k+1)!`, rounded to nearest), evaluated by Horner's
//! rule with explicit fused multiply-adds (`f64::mul_add` here, `fma` in the CUDA twin): both are correctly
//! rounded, so the CPU and the GPU compute the same bits under `--fmad=false`. On `|(π/2)w| ≤ π/4` the
//! truncation error is below 2e-18 (cos) and 1e-19 (sin) relative.
//!
//! Accuracy against `cos(2πz)` of the exact `z` (mpmath at 200 bits, 3·10⁵ random arguments with `|z| ≤ 10`
//! and 3·10⁵ with `|z| ≤ 10⁶`, a third of each the difference of two `f32`): at most 1.56 ulp from the exact
//! value (so at most 2 ulp from the correctly rounded one), 81–84% correctly rounded. The former
//! `cos_f64(TWO_PI * z)` rounds `2πz` first, an absolute error up to `ulp(2πz)/2`: on the same kind of
//! arguments its median error was 6 ulp and its largest 2.2·10⁴ ulp at `|z| ≤ 10` (median 6·10⁵ ulp at
//! `|z| ≤ 10⁶`).
//!
//! Cost: 3 f64 operations for the reduction, 1 for `w²`, 8 fused multiply-adds and 1 multiplication: 13
//! f64 instructions, no branch (the large-`|z|` path is never taken inside the benchmark domains), against
//! about 40 for `cos_f64` of the product with its reduction by π/2. Twin: `evo_cos_two_pi` in
//! `kernels/common/problems/functions.cuh`.

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
pub(super) const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|z|` at and above which `z` is first reduced modulo 1 (then `|4z| < 2^51`).
pub(super) const LARGE: f64 = 562_949_953_421_312.0; // 2^49

/// `(−1)^k (π/2)^{2k}/(2k)!`, k = 0..=8.
const COS: [f64; 9] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbff3_bd3c_c9be_45de),
    f64::from_bits(0x3fd0_3c1f_081b_5ac4),
    f64::from_bits(0xbf95_5d3c_7e3c_bffa),
    f64::from_bits(0x3f4e_1f50_6891_babb),
    f64::from_bits(0xbefa_6d1f_2a20_4a8c),
    f64::from_bits(0x3e9f_9d38_a376_3cc3),
    f64::from_bits(0xbe3b_6e24_f44b_128f),
    f64::from_bits(0x3dd2_0c62_c2f2_d7f5),
];

/// `(−1)^k (π/2)^{2k+1}/(2k+1)!`, k = 0..=8.
const SIN: [f64; 9] = [
    f64::from_bits(0x3ff9_21fb_5444_2d18),
    f64::from_bits(0xbfe4_abbc_e625_be53),
    f64::from_bits(0x3fb4_66bc_6775_aae2),
    f64::from_bits(0xbf73_2d2c_ce62_bd86),
    f64::from_bits(0x3f25_0783_487e_e782),
    f64::from_bits(0xbece_3074_fde8_871f),
    f64::from_bits(0x3e6e_8f43_4d01_8d63),
    f64::from_bits(0xbe06_fadb_9f15_5744),
    f64::from_bits(0x3d9a_aec3_2af9_3359),
];

/// `cos(2π z)` (module docs). Bit-identical to the CUDA twin `evo_cos_two_pi`.
#[inline]
pub fn cos_two_pi(z: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { cos_two_pi_fma(z) };
        }
    }
    cos_two_pi_portable(z)
}

/// The same function compiled with the `fma` target feature, so that `mul_add` is one instruction instead
/// of a call to the C library's `fma` (both are correctly rounded: the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn cos_two_pi_fma(z: f64) -> f64 {
    cos_two_pi_portable(z)
}

#[inline(always)]
fn cos_two_pi_portable(z: f64) -> f64 {
    // fmod is exact; |z| >= 2^49 never happens for points of the benchmark domains.
    let z = if z.abs() < LARGE { z } else { z % 1.0 };
    let t = 4.0f64.mul_add(z, ROUNDER);
    // The low bits of t's significand hold rint(4z) (two's complement for negative values).
    let quadrant = t.to_bits() as u32;
    let n = t - ROUNDER;
    let w = 4.0f64.mul_add(z, -n);
    let s = w * w;
    let odd = quadrant & 1 == 1;
    let k = if odd { &SIN } else { &COS };
    let mut p = k[8];
    for &c in k[..8].iter().rev() {
        p = p.mul_add(s, c);
    }
    let m = if odd { w * p } else { p };
    let negative = (quadrant.wrapping_add(1) >> 1) & 1;
    f64::from_bits(m.to_bits() ^ (u64::from(negative) << 63))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::TWO_PI;
    use evo_core::math::{cos_f64, sin_f64};

    /// cos(2πz) from 2πz as a double-double (hi + lo exactly, by fused multiply-adds): cos(hi) − sin(hi)·lo,
    /// within about 1 ulp of the true value.
    fn reference(z: f64) -> f64 {
        let two_pi_lo = f64::from_bits(0x3cb1_a626_3314_5c07); // 2π − TWO_PI
        let hi = TWO_PI * z;
        let lo = TWO_PI.mul_add(z, -hi) + two_pi_lo * z;
        cos_f64(hi) - sin_f64(hi) * lo
    }

    fn ulps(a: f64, b: f64) -> f64 {
        let scale = f64::from_bits((b.abs().to_bits() & 0x7ff0_0000_0000_0000).max(1 << 52));
        (a - b).abs() / (scale * f64::EPSILON)
    }

    #[test]
    fn exact_values_at_quarter_periods() {
        assert_eq!(cos_two_pi(0.0), 1.0);
        assert_eq!(cos_two_pi(-0.0), 1.0);
        assert_eq!(cos_two_pi(0.5), -1.0);
        assert_eq!(cos_two_pi(-0.5), -1.0);
        assert_eq!(cos_two_pi(1.0), 1.0);
        assert_eq!(cos_two_pi(0.25), 0.0);
        assert_eq!(cos_two_pi(0.75), 0.0);
        assert_eq!(cos_two_pi(-5.0), 1.0);
        assert_eq!(cos_two_pi(1.0e20), 1.0);
        assert!(cos_two_pi(f64::NAN).is_nan());
        assert!(cos_two_pi(f64::INFINITY).is_nan());
    }

    #[test]
    fn periodic_to_the_last_bit() {
        let mut y = 0.013_671_875f64;
        for _ in 0..2000 {
            y = (y * 1.618_033_988_749_895 + 0.379).fract();
            // A multiple of 2^-12, so that z + k is exact for every k below.
            let z = ((y - 0.5) * 4096.0).round() / 4096.0;
            let c = cos_two_pi(z);
            for k in [-7.0, -1.0, 1.0, 3.0, 1024.0, 2.0f64.powi(40)] {
                assert_eq!(cos_two_pi(z + k).to_bits(), c.to_bits(), "z {z} k {k}");
            }
            // Even up to the sign of the zeros at odd quarter periods.
            assert_eq!(cos_two_pi(-z), c, "even at {z}");
        }
    }

    #[test]
    fn within_two_ulps_of_a_double_double_reference() {
        let mut z = 0.1f64;
        for i in 0..20_000 {
            z = (z * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let x = (z - 0.5) * if i % 2 == 0 { 10.24 } else { 1200.0 };
            let r = reference(x);
            assert!(
                ulps(cos_two_pi(x), r) <= 2.0,
                "x {x}: {} vs {r}",
                cos_two_pi(x)
            );
        }
    }

    #[test]
    fn portable_path_gives_the_same_bits() {
        let mut z = 0.3f64;
        for _ in 0..5000 {
            z = (z * 3.173_205_080_756_888 + 0.271_828).fract();
            let x = (z - 0.5) * 11.0;
            assert_eq!(cos_two_pi(x).to_bits(), cos_two_pi_portable(x).to_bits());
        }
    }
}
