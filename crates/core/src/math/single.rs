// Ported from fdlibm / FreeBSD msun, which carry this notice:
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

//! `sin_f32`, `cos_f32`, `exp_f32`, `log_f32` and `pow_f32`: `f32` in and out, computed in `f64` with short
//! polynomials whose error is far below half an `f32` ulp, then rounded once to `f32`.
//!
//! CUDA twin: the `f32` section of `kernels/common/math.cuh`; every function here names its twin.

use super::double::{INVLN2, INVPIO2, log_f64};
use super::reduce_pio2::rem_pio2_large;
use super::{NAN_F32, pow2};

// sin(x)/x ~ 1 + SF1 x^2 + ... + SF4 x^8 on [-pi/4, pi/4], error < 2^-37.5 (FreeBSD k_sinf.c, Remez).
const SF1: f64 = f64::from_bits(0xBFC5_5555_54CB_AC77); // -0.166666666416265235595
const SF2: f64 = f64::from_bits(0x3F81_1110_896E_FBB2); // 0.0083333293858894631756
const SF3: f64 = f64::from_bits(0xBF2A_00F9_E2CA_E774); // -0.000198393348360966317347
const SF4: f64 = f64::from_bits(0x3EC6_CD87_8C3B_46A7); // 0.0000027183114939898219064

// cos(x) ~ 1 + CF0 x^2 + ... + CF3 x^8 on [-pi/4, pi/4], error < 2^-34.1 (FreeBSD k_cosf.c, Remez).
const CF0: f64 = f64::from_bits(0xBFDF_FFFF_FD0C_5E81); // -0.499999997251031003120
const CF1: f64 = f64::from_bits(0x3FA5_5553_E105_3A42); // 0.0416666233237390631894
const CF2: f64 = f64::from_bits(0xBF56_C087_E80F_1E27); // -0.00138867637746099294692
const CF3: f64 = f64::from_bits(0x3EF9_9342_E0EE_5069); // 0.0000243904487962774090654

// Two-part pi/2 for f32 arguments (FreeBSD e_rem_pio2f.c): PIO2F_1 holds 25 bits, so n * PIO2F_1 is exact
// for |n| < 2^28, and PIO2F_1T = pi/2 - PIO2F_1 to 53 bits.
const PIO2F_1: f64 = f64::from_bits(0x3FF9_21FB_5000_0000); // 1.57079631090164184570e+00
const PIO2F_1T: f64 = f64::from_bits(0x3E51_10B4_611A_6263); // 1.58932547735281966916e-08

// e^r ~ 1 + r + r^2/2! + ... + r^8/8! (Taylor) on |r| <= ln2/2: truncation error < 2^-31.7 relative.
const LN2: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF); // ln 2 rounded to nearest
const INV_FACT2: f64 = 0.5;
const INV_FACT3: f64 = f64::from_bits(0x3FC5_5555_5555_5555); // 1/3!
const INV_FACT4: f64 = f64::from_bits(0x3FA5_5555_5555_5555); // 1/4!
const INV_FACT5: f64 = f64::from_bits(0x3F81_1111_1111_1111); // 1/5!
const INV_FACT6: f64 = f64::from_bits(0x3F56_C16C_16C1_6C17); // 1/6!
const INV_FACT7: f64 = f64::from_bits(0x3F2A_01A0_1A01_A01A); // 1/7!
const INV_FACT8: f64 = f64::from_bits(0x3EFA_01A0_1A01_A01A); // 1/8!

// log(1 + f) = 2 atanh(s) = 2 (s + s^3/3 + ... + s^11/11 + ...), s = f / (2 + f), |s| <= 0.1716: the terms
// left out are below 2^-34 relative.
const INV3: f64 = f64::from_bits(0x3FD5_5555_5555_5555); // 1/3
const INV5: f64 = f64::from_bits(0x3FC9_9999_9999_999A); // 1/5
const INV7: f64 = f64::from_bits(0x3FC2_4924_9249_2492); // 1/7
const INV9: f64 = f64::from_bits(0x3FBC_71C7_1C71_C71C); // 1/9
const INV11: f64 = f64::from_bits(0x3FB7_45D1_745D_1746); // 1/11
const TWO_POW_25_F32: f32 = 33_554_432.0;

/// sin(x) for |x| <= pi/4 (FreeBSD `__kernel_sindf`), rounded to `f32`. CUDA twin: `evo_math::kernel_sin_f32`.
fn kernel_sin(x: f64) -> f32 {
    let z = x * x;
    let w = z * z;
    let r = SF3 + z * SF4;
    let s = z * x;
    ((x + s * (SF1 + z * SF2)) + s * w * r) as f32
}

/// cos(x) for |x| <= pi/4 (FreeBSD `__kernel_cosdf`), rounded to `f32`. CUDA twin: `evo_math::kernel_cos_f32`.
fn kernel_cos(x: f64) -> f32 {
    let z = x * x;
    let w = z * z;
    let r = CF2 + z * CF3;
    (((1.0 + z * CF0) + w * CF1) + (w * z) * r) as f32
}

/// Reduces a finite `f32` with |x| > pi/4 to `n * pi/2 + y`, |y| <= pi/4 (about), in `f64`; only `n & 3`
/// matters. Below 2^28 * pi/2 a two-part Cody-Waite step in `f64` (error below 2^-50 absolute); above,
/// the `f64` Payne-Hanek reduction. CUDA twin: `evo_math::rem_pio2_f32`.
fn rem_pio2(x: f32) -> (i32, f64) {
    let ix = x.to_bits() & 0x7fff_ffff;
    if ix < 0x4dc9_0fdb {
        let xd = f64::from(x);
        // |fn| < 2^28 + 1, so the conversion to i32 is exact on both sides.
        let fn_ = (xd * INVPIO2).round_ties_even();
        let n = fn_ as i32;
        let r = xd - fn_ * PIO2F_1;
        let w = fn_ * PIO2F_1T;
        return (n, r - w);
    }
    let (n, y0, _) = rem_pio2_large(f64::from(x));
    (n, y0)
}

/// Sine of an `f32`, within 0.501 ulp (measured on every input; one rounding of an `f64` value good to
/// about 2^-33).
/// NaN and ±inf give the canonical NaN; sin(-0) = -0. CUDA twin: `evo_sin_f32` in `kernels/common/math.cuh`.
pub fn sin_f32(x: f32) -> f32 {
    if x.is_nan() {
        return NAN_F32;
    }
    let ix = x.to_bits() & 0x7fff_ffff;
    if ix <= 0x3f49_0fda {
        // |x| < 2^-12: sin(x) = x - x^3/6 rounds to x (this also keeps ±0).
        if ix < 0x3980_0000 {
            return x;
        }
        return kernel_sin(f64::from(x));
    }
    if ix >= 0x7f80_0000 {
        return NAN_F32;
    }
    let (n, y) = rem_pio2(x);
    match n & 3 {
        0 => kernel_sin(y),
        1 => kernel_cos(y),
        2 => -kernel_sin(y),
        _ => -kernel_cos(y),
    }
}

/// Cosine of an `f32`, within 0.501 ulp (measured on every input). NaN and ±inf give the canonical NaN.
/// CUDA twin: `evo_cos_f32` in `kernels/common/math.cuh`.
pub fn cos_f32(x: f32) -> f32 {
    if x.is_nan() {
        return NAN_F32;
    }
    let ix = x.to_bits() & 0x7fff_ffff;
    if ix <= 0x3f49_0fda {
        // |x| < 2^-12: cos(x) = 1 - x^2/2 rounds to 1.
        if ix < 0x3980_0000 {
            return 1.0;
        }
        return kernel_cos(f64::from(x));
    }
    if ix >= 0x7f80_0000 {
        return NAN_F32;
    }
    let (n, y) = rem_pio2(x);
    match n & 3 {
        0 => kernel_cos(y),
        1 => -kernel_sin(y),
        2 => -kernel_cos(y),
        _ => kernel_sin(y),
    }
}

/// e^t rounded to `f32`, for any non-NaN `f64` t. t = k ln2 + r with |r| <= ln2/2 (the error of `k * LN2`,
/// below 2^-45, is far below an `f32` ulp), e^r by its Taylor polynomial of degree 8, then one exact
/// scaling by 2^k in `f64` and one rounding to `f32`, which also produces `f32` overflow and subnormals.
/// CUDA twin: `evo_math::exp_core_f32`.
fn exp_core(t: f64) -> f32 {
    // e^89 > f32::MAX and e^-104 < 2^-150, so the clamps only cut off results that round to inf or +0.
    if t > 89.0 {
        return f32::INFINITY;
    }
    if t < -104.0 {
        return 0.0;
    }
    // |k| <= 151, so the conversion to i32 is exact on both sides.
    let k = (t * INVLN2).round_ties_even();
    let r = t - k * LN2;
    // Horner's rule, innermost term first.
    let mut p = INV_FACT7 + r * INV_FACT8;
    p = INV_FACT6 + r * p;
    p = INV_FACT5 + r * p;
    p = INV_FACT4 + r * p;
    p = INV_FACT3 + r * p;
    p = INV_FACT2 + r * p;
    p = 1.0 + r * p;
    p = 1.0 + r * p;
    (p * pow2(k as i32)) as f32
}

/// e^x for an `f32`, within 0.504 ulp (measured on every input), including subnormal results.
/// exp(NaN) is the canonical NaN, exp(+inf) = +inf, exp(-inf) = +0.
/// CUDA twin: `evo_exp_f32` in `kernels/common/math.cuh`.
pub fn exp_f32(x: f32) -> f32 {
    if x.is_nan() {
        return NAN_F32;
    }
    exp_core(f64::from(x))
}

/// Natural logarithm of an `f32`, within 0.501 ulp (measured on every input), subnormal arguments
/// included. log(NaN) and log(x < 0) are the canonical NaN, log(±0) = -inf, log(+inf) = +inf, log(1) = +0.
/// CUDA twin: `evo_log_f32` in `kernels/common/math.cuh`.
pub fn log_f32(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return NAN_F32;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return x;
    }
    // x = 2^k m with sqrt(2)/2 <= m < sqrt(2); subnormals are first scaled by 2^25 exactly.
    let mut ix = x.to_bits();
    let mut k: i32 = 0;
    if ix < 0x0080_0000 {
        ix = (x * TWO_POW_25_F32).to_bits();
        k = -25;
    }
    k += (ix >> 23) as i32 - 127;
    let mantissa = ix & 0x007f_ffff;
    // The carry out of the mantissa is set exactly when 1.mantissa >= sqrt(2) (0x3504f3 = its mantissa).
    let i = (mantissa + (0x0080_0000 - 0x0035_04f3)) & 0x0080_0000;
    let m = f32::from_bits(mantissa | (i ^ 0x3f80_0000));
    k += (i >> 23) as i32;
    let f = f64::from(m) - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let p = z * (INV3 + z * (INV5 + z * (INV7 + z * (INV9 + z * INV11))));
    (f64::from(k) * LN2 + 2.0 * (s + s * p)) as f32
}

/// x^y for `f32`, within 0.503 ulp (measured on samples): the special values of
/// [`pow_f64`](super::pow_f64) (C99 Annex F, same order), then e^(y log|x|) with `log_f64`'s algorithm
/// (error about 2^-53) and the `f64` exponential of `exp_f32`, so y log|x| (at most 104 in magnitude where
/// the result is finite and nonzero) is good to about 2^-45 and the result to one final rounding.
/// y = 2 is `x * x` and y = 0.5 is `sqrt(x)`. CUDA twin: `evo_pow_f32` in `kernels/common/math.cuh`.
pub fn pow_f32(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return NAN_F32;
    }
    let ax = x.abs();
    if y.is_infinite() {
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax > 1.0) == (y > 0.0) {
            f32::INFINITY
        } else {
            0.0
        };
    }
    // y is finite here; every y with |y| >= 2^24 is an even integer, and 0.5 * y is exact for integers.
    let y_is_int = y.floor() == y;
    let y_is_odd = y_is_int && (0.5 * y).floor() != 0.5 * y;
    if x == 0.0 {
        if y < 0.0 {
            return if y_is_odd { 1.0 / x } else { f32::INFINITY };
        }
        return if y_is_odd { x } else { 0.0 };
    }
    if x.is_infinite() {
        if x > 0.0 {
            return if y < 0.0 { 0.0 } else { f32::INFINITY };
        }
        if y < 0.0 {
            return if y_is_odd { -0.0 } else { 0.0 };
        }
        return if y_is_odd {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
    }
    let mut sign: f32 = 1.0;
    if x < 0.0 {
        if !y_is_int {
            return NAN_F32;
        }
        if y_is_odd {
            sign = -1.0;
        }
    }
    if ax == 1.0 {
        return sign;
    }
    if y == 1.0 {
        return x;
    }
    if y == -1.0 {
        return 1.0 / x;
    }
    if y == 2.0 {
        return x * x;
    }
    if y == 0.5 {
        return x.sqrt();
    }
    // ax is finite, positive and not 1, so log_f64 returns a finite nonzero value and t is finite.
    let t = f64::from(y) * log_f64(f64::from(ax));
    sign * exp_core(t)
}
