// Ported from fdlibm / FreeBSD msun, which carry this notice:
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

//! `sin_f64`, `cos_f64`, `exp_f64` and `log_f64`: fdlibm's algorithms, written so that every operation is
//! an IEEE-754 correctly rounded `+ - * /`, an exact bit manipulation or an exact conversion.
//!
//! CUDA twin: the `f64` section of `kernels/common/math.cuh`; every function here names its twin, and the
//! twins read alike line by line. The constants are given by their bit patterns (Rust `from_bits`, CUDA
//! hexadecimal floating literals of the same value) so that no decimal parsing can differ.

use super::reduce_pio2::rem_pio2_large;
use super::{NAN_F64, from_words, hi_word, lo_word, pow2};

// Kernel sin on [-pi/4, pi/4]: |sin(x)/x - (1 + S1 x^2 + ... + S6 x^12)| <= 2^-58 (fdlibm k_sin.c, Remez).
const S1: f64 = f64::from_bits(0xBFC5_5555_5555_5549); // -1.66666666666666324348e-01
const S2: f64 = f64::from_bits(0x3F81_1111_1110_F8A6); // 8.33333333332248946124e-03
const S3: f64 = f64::from_bits(0xBF2A_01A0_19C1_61D5); // -1.98412698298579493134e-04
const S4: f64 = f64::from_bits(0x3EC7_1DE3_57B1_FE7D); // 2.75573137070700676789e-06
const S5: f64 = f64::from_bits(0xBE5A_E5E6_8A2B_9CEB); // -2.50507602534068634195e-08
const S6: f64 = f64::from_bits(0x3DE5_D93A_5ACF_D57C); // 1.58969099521155010221e-10

// Kernel cos on [-pi/4, pi/4]: |cos(x) - (1 - x^2/2 + C1 x^4 + ... + C6 x^14)| <= 2^-58 (fdlibm k_cos.c).
const C1: f64 = f64::from_bits(0x3FA5_5555_5555_554C); // 4.16666666666666019037e-02
const C2: f64 = f64::from_bits(0xBF56_C16C_16C1_5177); // -1.38888888888741095749e-03
const C3: f64 = f64::from_bits(0x3EFA_01A0_19CB_1590); // 2.48015872894767294178e-05
const C4: f64 = f64::from_bits(0xBE92_7E4F_809C_52AD); // -2.75573143513906633035e-07
const C5: f64 = f64::from_bits(0x3E21_EE9E_BDB4_B1C4); // 2.08757232129817482790e-09
const C6: f64 = f64::from_bits(0xBDA8_FAE9_BE88_38D4); // -1.13596475577881948265e-11

// Cody-Waite reduction by pi/2 (fdlibm e_rem_pio2.c): PIO2_1, PIO2_2 and PIO2_3 hold 33 bits each, so
// n * PIO2_k is exact for |n| < 2^20; PIO2_kT is the rest of pi/2 after k parts.
pub(super) const INVPIO2: f64 = f64::from_bits(0x3FE4_5F30_6DC9_C883); // 6.36619772367581382433e-01
const PIO2_1: f64 = f64::from_bits(0x3FF9_21FB_5440_0000); // 1.57079632673412561417e+00
const PIO2_1T: f64 = f64::from_bits(0x3DD0_B461_1A62_6331); // 6.07710050650619224932e-11
const PIO2_2: f64 = f64::from_bits(0x3DD0_B461_1A60_0000); // 6.07710050630396597660e-11
const PIO2_2T: f64 = f64::from_bits(0x3BA3_198A_2E03_7073); // 2.02226624879595063154e-21
const PIO2_3: f64 = f64::from_bits(0x3BA3_198A_2E00_0000); // 2.02226624871116645580e-21
const PIO2_3T: f64 = f64::from_bits(0x397B_839A_2520_49C1); // 8.47842766036889956997e-32

// exp (fdlibm e_exp.c): ln 2 = LN2_HI + LN2_LO with k * LN2_HI exact for |k| < 2^11, and the Remez
// coefficients of R(z) ~ 2 + P1 z + ... + P5 z^5, z = r^2, error <= 2^-59.
const EXP_OVERFLOW: f64 = f64::from_bits(0x4086_2E42_FEFA_39EF); // 7.09782712893383973096e+02
const EXP_UNDERFLOW: f64 = f64::from_bits(0xC087_4910_D52D_3051); // -7.45133219101941108420e+02
pub(super) const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000); // 6.93147180369123816490e-01
pub(super) const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76); // 1.90821492927058770002e-10
pub(super) const INVLN2: f64 = f64::from_bits(0x3FF7_1547_652B_82FE); // 1.44269504088896338700e+00
pub(super) const P1: f64 = f64::from_bits(0x3FC5_5555_5555_553E); // 1.66666666666666019037e-01
pub(super) const P2: f64 = f64::from_bits(0xBF66_C16C_16BE_BD93); // -2.77777777770155933842e-03
pub(super) const P3: f64 = f64::from_bits(0x3F11_566A_AF25_DE2C); // 6.61375632143793436117e-05
pub(super) const P4: f64 = f64::from_bits(0xBEBB_BD41_C5D2_6BF1); // -1.65339022054652515390e-06
pub(super) const P5: f64 = f64::from_bits(0x3E66_3769_72BE_A4D0); // 4.13813679705723846039e-08
const EULER_E: f64 = f64::from_bits(0x4005_BF0A_8B14_5769); // e, correctly rounded
const TWO_POW_1023: f64 = f64::from_bits(0x7FE0_0000_0000_0000);
const TWO_POW_M1000: f64 = f64::from_bits(0x0170_0000_0000_0000);

// log (fdlibm e_log.c): Remez coefficients of R(s) ~ LG1 s^2 + ... + LG7 s^14, error <= 2^-58.45.
const TWO_POW_54: f64 = f64::from_bits(0x4350_0000_0000_0000);
const LG1: f64 = f64::from_bits(0x3FE5_5555_5555_5593); // 6.666666666666735130e-01
const LG2: f64 = f64::from_bits(0x3FD9_9999_9997_FA04); // 3.999999999940941908e-01
const LG3: f64 = f64::from_bits(0x3FD2_4924_9422_9359); // 2.857142874366239149e-01
const LG4: f64 = f64::from_bits(0x3FCC_71C5_1D8E_78AF); // 2.222219843214978396e-01
const LG5: f64 = f64::from_bits(0x3FC7_4664_96CB_03DE); // 1.818357216161805012e-01
const LG6: f64 = f64::from_bits(0x3FC3_9A09_D078_C69F); // 1.531383769920937332e-01
const LG7: f64 = f64::from_bits(0x3FC2_F112_DF3E_5244); // 1.479819860511658591e-01
const ONE_THIRD: f64 = f64::from_bits(0x3FD5_5555_5555_5555); // 1/3 rounded to nearest

/// sin(x + y) for |x + y| <= pi/4, where y is the tail of a reduced argument (fdlibm `__kernel_sin`
/// with `iy = 1`). CUDA twin: `evo_math::kernel_sin_f64`.
pub(super) fn kernel_sin(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    let v = z * x;
    x - ((z * (0.5 * y - v * r) - y) - v * S1)
}

/// sin(x) for |x| <= pi/4 without a tail (fdlibm `__kernel_sin` with `iy = 0`).
/// CUDA twin: `evo_math::kernel_sin0_f64`.
fn kernel_sin0(x: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    let v = z * x;
    x + v * (S1 + z * r)
}

/// cos(x + y) for |x + y| <= pi/4 (fdlibm `__kernel_cos`). `w + tmp` equals `1 - x*x/2` exactly, which keeps
/// the error below one ulp. CUDA twin: `evo_math::kernel_cos_f64`.
pub(super) fn kernel_cos(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    w + (((1.0 - w) - hz) + (z * r - x * y))
}

/// Reduces a finite x with |x| > pi/4 to `n * pi/2 + (y0 + y1)`, |y0 + y1| <= pi/4, returning `(n, y0, y1)`;
/// only `n & 3` matters to the callers. Below 2^20 * pi/2 this is fdlibm's three-step Cody-Waite reduction
/// (a further step runs only when the previous one cancelled more than 16, then 49, bits), good to 151 bits
/// of pi/2 and therefore exact enough for the closest doubles to multiples of pi/2; above, the Payne-Hanek
/// reduction of [`rem_pio2_large`]. CUDA twin: `evo_math::rem_pio2_f64`.
pub(super) fn rem_pio2(x: f64) -> (i32, f64, f64) {
    let ix = hi_word(x) & 0x7fff_ffff;
    if ix >= 0x4139_21fb {
        return rem_pio2_large(x);
    }
    // |fn| <= 2^20 + 1, so the conversion to i32 is exact on both sides.
    let fn_ = (x * INVPIO2).round_ties_even();
    let n = fn_ as i32;
    let mut r = x - fn_ * PIO2_1;
    let mut w = fn_ * PIO2_1T;
    let j = ix >> 20;
    let mut y0 = r - w;
    let i = j - ((hi_word(y0) >> 20) & 0x7ff);
    if i > 16 {
        // The first step cancelled more than 16 bits: subtract the next 33 bits of pi/2 exactly.
        let t = r;
        w = fn_ * PIO2_2;
        r = t - w;
        w = fn_ * PIO2_2T - ((t - r) - w);
        y0 = r - w;
        let i = j - ((hi_word(y0) >> 20) & 0x7ff);
        if i > 49 {
            let t = r;
            w = fn_ * PIO2_3;
            r = t - w;
            w = fn_ * PIO2_3T - ((t - r) - w);
            y0 = r - w;
        }
    }
    let y1 = (r - y0) - w;
    (n, y0, y1)
}

/// Sine of an `f64` (fdlibm `s_sin.c`), within one ulp. NaN and ±inf give the canonical NaN; sin(-0) = -0.
/// CUDA twin: `evo_sin_f64` in `kernels/common/math.cuh`.
pub fn sin_f64(x: f64) -> f64 {
    if x.is_nan() {
        return NAN_F64;
    }
    let ix = hi_word(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        // |x| < 2^-26: sin(x) = x - x^3/6 rounds to x (this also keeps ±0).
        if ix < 0x3e50_0000 {
            return x;
        }
        return kernel_sin0(x);
    }
    if ix >= 0x7ff0_0000 {
        return NAN_F64;
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => kernel_sin(y0, y1),
        1 => kernel_cos(y0, y1),
        2 => -kernel_sin(y0, y1),
        _ => -kernel_cos(y0, y1),
    }
}

/// Cosine of an `f64` (fdlibm `s_cos.c`), within one ulp. NaN and ±inf give the canonical NaN.
/// CUDA twin: `evo_cos_f64` in `kernels/common/math.cuh`.
pub fn cos_f64(x: f64) -> f64 {
    if x.is_nan() {
        return NAN_F64;
    }
    let ix = hi_word(x) & 0x7fff_ffff;
    if ix <= 0x3fe9_21fb {
        // |x| < 2^-27 * sqrt(2): cos(x) = 1 - x^2/2 rounds to 1.
        if ix < 0x3e46_a09e {
            return 1.0;
        }
        return kernel_cos(x, 0.0);
    }
    if ix >= 0x7ff0_0000 {
        return NAN_F64;
    }
    let (n, y0, y1) = rem_pio2(x);
    match n & 3 {
        0 => kernel_cos(y0, y1),
        1 => -kernel_sin(y0, y1),
        2 => -kernel_cos(y0, y1),
        _ => kernel_sin(y0, y1),
    }
}

/// e^x for an `f64` (fdlibm `e_exp.c`), within one ulp, including results that underflow to subnormals.
/// exp(NaN) is the canonical NaN, exp(+inf) = +inf, exp(-inf) = +0; x > 709.78... overflows to +inf and
/// x < -745.13... underflows to +0. CUDA twin: `evo_exp_f64` in `kernels/common/math.cuh`.
pub fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return NAN_F64;
    }
    let hx = hi_word(x);
    let negative = hx < 0;
    let ahx = hx & 0x7fff_ffff;
    if ahx >= 0x4086_2E42 {
        if ahx >= 0x7ff0_0000 {
            return if negative { 0.0 } else { x };
        }
        if x > EXP_OVERFLOW {
            return f64::INFINITY;
        }
        if x < EXP_UNDERFLOW {
            return 0.0;
        }
    }
    // fdlibm returns the correctly rounded e for x = 1, where its general path is 1 ulp high.
    if x == 1.0 {
        return EULER_E;
    }
    // Step 1: x = k ln2 + r with |r| <= ln2/2, r = hi - lo carried in two parts.
    let (hi, lo, k, r);
    if ahx > 0x3fd6_2e42 {
        if ahx < 0x3FF0_A2B2 {
            hi = if negative { x + LN2_HI } else { x - LN2_HI };
            lo = if negative { -LN2_LO } else { LN2_LO };
            k = if negative { -1 } else { 1 };
        } else {
            // |x| <= 745.2, so the truncation toward zero is in range on both sides.
            k = (INVLN2 * x + if negative { -0.5 } else { 0.5 }) as i32;
            let t = f64::from(k);
            hi = x - t * LN2_HI;
            lo = t * LN2_LO;
        }
        r = hi - lo;
    } else if ahx < 0x3e30_0000 {
        // |x| < 2^-28: e^x = 1 + x correctly rounded.
        return 1.0 + x;
    } else {
        (hi, lo, k, r) = (0.0, 0.0, 0, x);
    }
    // Step 2: exp(r) = 1 + r + r c / (2 - c), c = r - z (P1 + ... + P5 z^4), z = r^2.
    let t = r * r;
    let c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if k == 0 {
        return 1.0 - ((r * c) / (c - 2.0) - r);
    }
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    // Step 3: scale by 2^k in at most two exact steps and one final rounding (subnormal results).
    if k >= -1021 {
        if k == 1024 {
            return y * 2.0 * TWO_POW_1023;
        }
        return y * pow2(k);
    }
    y * pow2(k + 1000) * TWO_POW_M1000
}

/// Natural logarithm of an `f64` (fdlibm `e_log.c`), within one ulp, subnormal arguments included.
/// log(NaN) and log(x < 0) are the canonical NaN, log(±0) = -inf, log(+inf) = +inf, log(1) = +0.
/// CUDA twin: `evo_log_f64` in `kernels/common/math.cuh`.
pub fn log_f64(x: f64) -> f64 {
    if x.is_nan() {
        return NAN_F64;
    }
    let mut x = x;
    let mut hx = hi_word(x);
    let mut k: i32 = 0;
    if hx < 0x0010_0000 {
        if ((hx & 0x7fff_ffff) as u32 | lo_word(x)) == 0 {
            return f64::NEG_INFINITY;
        }
        if hx < 0 {
            return NAN_F64;
        }
        // Subnormal: scale into the normal range exactly.
        k -= 54;
        x *= TWO_POW_54;
        hx = hi_word(x);
    }
    if hx >= 0x7ff0_0000 {
        return x;
    }
    // Step 1: x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2).
    k += (hx >> 20) - 1023;
    hx &= 0x000f_ffff;
    let i = (hx + 0x95f64) & 0x10_0000;
    x = from_words(hx | (i ^ 0x3ff0_0000), lo_word(x));
    k += i >> 20;
    let f = x - 1.0;
    if (0x000f_ffff & (2 + hx)) < 3 {
        // |f| < 2^-20: log(1 + f) = f - f^2/2 + f^3/3 is enough.
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            let dk = f64::from(k);
            return dk * LN2_HI + dk * LN2_LO;
        }
        let r = f * f * (0.5 - ONE_THIRD * f);
        if k == 0 {
            return f - r;
        }
        let dk = f64::from(k);
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    // Step 2: s = f / (2 + f), log(1 + f) = 2s + s R(s^2), evaluated in two halves for parallelism.
    let s = f / (2.0 + f);
    let dk = f64::from(k);
    let z = s * s;
    let i = hx - 0x6147a;
    let w = z * z;
    let j = 0x6b851 - hx;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    // Step 3: log(x) = k ln2 + log(1 + f), with f - f^2/2 kept exact where f is large.
    if (i | j) > 0 {
        let hfsq = 0.5 * f * f;
        if k == 0 {
            return f - (hfsq - s * (hfsq + r));
        }
        return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
    }
    if k == 0 {
        return f - s * (f - r);
    }
    dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f)
}
