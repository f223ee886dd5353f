//! `cos(x)` with a branch-free reduction by π/2 built on fused multiply-adds, within 2 ulp (relative). It was
//! the Griewank factor's cosine until [`super::griewank::griewank_cos`] (absolute accuracy, no coefficient
//! selects) replaced it there; no function of the crate uses it now.
//!
//! ```text
//! |x| < 2^20:  t = fma(x, 2/π, 1.5·2^52),  n = t − 1.5·2^52          (n = rint(x·2/π) up to one unit)
//!              r = fma(−n, P1, x)  (exact),  r = fma(−n, P2, r),  r = fma(−n, P3, r)
//!              cos x = ±cos r (n even), ±sin r (n odd); minus when (n + 1) & 2 ≠ 0
//!              cos r = P_c(r²),  sin r = r · P_s(r²)
//! otherwise:   evo_core::math::cos_f64(x)
//! ```
//!
//! `P1 + P2 + P3` is π/2 to 160 bits (each part the double nearest to the remainder), `P_c` and `P_s` the
//! Taylor polynomials of degree 8 in `r²` (coefficients `(−1)^k/(2k)!` and `(−1)^k/(2k+1)!`), evaluated by
//! Horner's rule with explicit fused multiply-adds (`f64::mul_add` here, `fma` in the CUDA twin): both are
//! correctly rounded, so the CPU and the GPU compute the same bits under `--fmad=false`. The first reduction
//! step is exact (`x − n·P1` is a multiple of `min(ulp(x), 2^−52)` below 2 in magnitude), the other two
//! round once each, so `r` is within about 1 ulp of `x − nπ/2` relative, also close to the zeros of the
//! cosine; `|r| ≤ π/4 + 2^−30`, where the truncation errors are below 3e-18 relative.
//!
//! Accuracy: at most 1.76 ulp from the exact `cos(x)` on the Griewank arguments (measurement in
//! [`crate::functions::griewank`]).
//!
//! Cost: 5 f64 operations for the reduction, 1 for `r²`, 8 fused multiply-adds and 1 multiplication, no
//! divergence between quadrants, against the reduction and both polynomials of `cos_f64` in a warp whose
//! lanes fall in different quadrants. Twin: `evo_cos_fma` in `kernels/common/problems/functions.cuh`.

use evo_core::math::cos_f64;

/// `1.5 · 2^52`: adding it to `|v| < 2^51` rounds `v` to an integer in the low bits of the sum.
const ROUNDER: f64 = 6_755_399_441_055_744.0;

/// `|x|` at and above which (and for NaN) the portable `cos_f64` is used.
const LARGE: f64 = 1_048_576.0; // 2^20

/// 2/π rounded to nearest.
const TWO_OVER_PI: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
/// π/2 = P1 + P2 + P3 + O(2^−160).
const P1: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
const P2: f64 = f64::from_bits(0x3c91_a626_3314_5c07);
const P3: f64 = f64::from_bits(0xb91f_1976_b7ed_8fbc);

/// `(−1)^k/(2k)!`, k = 0..=8.
const COS: [f64; 9] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbfe0_0000_0000_0000),
    f64::from_bits(0x3fa5_5555_5555_5555),
    f64::from_bits(0xbf56_c16c_16c1_6c17),
    f64::from_bits(0x3efa_01a0_1a01_a01a),
    f64::from_bits(0xbe92_7e4f_b778_9f5c),
    f64::from_bits(0x3e21_eed8_eff8_d898),
    f64::from_bits(0xbda9_3974_a8c0_7c9d),
    f64::from_bits(0x3d2a_e7f3_e733_b81f),
];

/// `(−1)^k/(2k+1)!`, k = 0..=8.
const SIN: [f64; 9] = [
    f64::from_bits(0x3ff0_0000_0000_0000),
    f64::from_bits(0xbfc5_5555_5555_5555),
    f64::from_bits(0x3f81_1111_1111_1111),
    f64::from_bits(0xbf2a_01a0_1a01_a01a),
    f64::from_bits(0x3ec7_1de3_a556_c734),
    f64::from_bits(0xbe5a_e645_67f5_44e4),
    f64::from_bits(0x3de6_1246_13a8_6d09),
    f64::from_bits(0xbd6a_e7f3_e733_b81f),
    f64::from_bits(0x3ce9_52c7_7030_ad4a),
];

/// `cos(x)` (module docs). Bit-identical to the CUDA twin `evo_cos_fma`.
#[inline]
pub fn cos_fma(x: f64) -> f64 {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU supports the FMA instructions (checked just above).
            return unsafe { cos_fma_native(x) };
        }
    }
    cos_fma_portable(x)
}

/// The same function compiled with the `fma` target feature, so that `mul_add` is one instruction instead
/// of a call to the C library's `fma` (both are correctly rounded: the bits do not depend on the path).
///
/// # Safety
/// The CPU must support the FMA instructions.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn cos_fma_native(x: f64) -> f64 {
    cos_fma_portable(x)
}

#[inline(always)]
fn cos_fma_portable(x: f64) -> f64 {
    // Also taken for NaN; never for the Griewank arguments of the benchmark domains.
    if x.is_nan() || x.abs() >= LARGE {
        return cos_f64(x);
    }
    let t = x.mul_add(TWO_OVER_PI, ROUNDER);
    // The low bits of t's significand hold n (two's complement for negative values).
    let quadrant = t.to_bits() as u32;
    let n = t - ROUNDER;
    let mut r = (-n).mul_add(P1, x);
    r = (-n).mul_add(P2, r);
    r = (-n).mul_add(P3, r);
    let s = r * r;
    let odd = quadrant & 1 == 1;
    let k = if odd { &SIN } else { &COS };
    let mut p = k[8];
    for &c in k[..8].iter().rev() {
        p = p.mul_add(s, c);
    }
    let m = if odd { r * p } else { p };
    let negative = (quadrant.wrapping_add(1) >> 1) & 1;
    f64::from_bits(m.to_bits() ^ (u64::from(negative) << 63))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> f64 {
        let scale = f64::from_bits((b.abs().to_bits() & 0x7ff0_0000_0000_0000).max(1 << 52));
        (a - b).abs() / (scale * f64::EPSILON)
    }

    #[test]
    fn special_values() {
        assert_eq!(cos_fma(0.0), 1.0);
        assert_eq!(cos_fma(-0.0), 1.0);
        assert!(cos_fma(f64::NAN).is_nan());
        assert!(cos_fma(f64::INFINITY).is_nan());
        assert_eq!(cos_fma(1.0e7).to_bits(), cos_f64(1.0e7).to_bits());
        // cos(P1) = sin(π/2 − P1) = sin(P2 + P3 + …), correctly rounded P2: the reduction keeps the bits
        // that cancel.
        assert_eq!(cos_fma(P1).to_bits(), P2.to_bits());
        assert_eq!(cos_fma(-P1).to_bits(), P2.to_bits());
        assert_eq!(cos_fma(2.0 * P1).to_bits(), (-1.0f64).to_bits());
    }

    #[test]
    fn within_three_ulps_of_the_portable_cosine() {
        // cos_f64 (fdlibm) is within 1 ulp of the true value, so 3 ulp between the two means at most 2 for
        // this function; the mpmath measurement is in the griewank module docs.
        let mut y = 0.1f64;
        for i in 0..50_000 {
            y = (y * 7.389_056_098_930_65 + 0.577_215_664_901_532_9).fract();
            let z = (y - 0.5) * 2400.0;
            let x = z / ((i % 1000 + 1) as f64).sqrt();
            assert!(
                ulps(cos_fma(x), cos_f64(x)) <= 3.0,
                "x {x}: {} vs {}",
                cos_fma(x),
                cos_f64(x)
            );
        }
    }

    #[test]
    fn portable_path_gives_the_same_bits() {
        let mut y = 0.3f64;
        for _ in 0..5000 {
            y = (y * 3.173_205_080_756_888 + 0.271_828).fract();
            let x = (y - 0.5) * 2000.0;
            assert_eq!(cos_fma(x).to_bits(), cos_fma_portable(x).to_bits());
        }
    }
}
