// Ported from fdlibm / FreeBSD msun, which carry this notice:
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

//! `pow_f64`: the special values of C99 Annex F, then fdlibm's `e_pow.c` for the finite, positive case.
//!
//! CUDA twin: `evo_pow_f64` and `evo_math::pow_core_f64` in `kernels/common/math.cuh`.

use super::double::{P1, P2, P3, P4, P5};
use super::{NAN_F64, clear_lo, from_words, hi_word, lo_word, pow2};

// log2(x) = n + log2(bp) + (2 / (3 ln2)) (3 s + s^3 + s^3 R(s^2)), s = (x - bp) / (x + bp), bp in {1, 1.5};
// L1..L6 are fdlibm's Remez coefficients of R. `_H` constants carry few bits so products with them are exact.
// log2(1.5) = DP_H1 + DP_L1.
const DP_H1: f64 = f64::from_bits(0x3FE2_B803_4000_0000); // 5.84962487220764160156e-01
const DP_L1: f64 = f64::from_bits(0x3E4C_FDEB_43CF_D006); // 1.35003920212974897128e-08
const TWO_POW_53: f64 = f64::from_bits(0x4340_0000_0000_0000);
const L1: f64 = f64::from_bits(0x3FE3_3333_3333_3303); // 5.99999999999994648725e-01
const L2: f64 = f64::from_bits(0x3FDB_6DB6_DB6F_ABFF); // 4.28571428578550184252e-01
const L3: f64 = f64::from_bits(0x3FD5_5555_518F_264D); // 3.33333329818377432918e-01
const L4: f64 = f64::from_bits(0x3FD1_7460_A91D_4101); // 2.72728123808534006489e-01
const L5: f64 = f64::from_bits(0x3FCD_864A_93C9_DB65); // 2.30660745775561754067e-01
const L6: f64 = f64::from_bits(0x3FCA_7E28_4A45_4EEF); // 2.06975017800338417784e-01
const POW_LN2: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF); // ln 2, 6.93147180559945286227e-01
const POW_LN2_H: f64 = f64::from_bits(0x3FE6_2E43_0000_0000); // 6.93147182464599609375e-01
const POW_LN2_L: f64 = f64::from_bits(0xBE20_5C61_0CA8_6C39); // -1.90465429995776804525e-09
// OVT = -(1024 - log2(DBL_MAX + ulp/2)): the overflow margin of p_h + p_l at z = 1024.
const OVT: f64 = f64::from_bits(0x3C97_1547_652B_82FE); // 8.0085662595372944372e-17
const CP: f64 = f64::from_bits(0x3FEE_C709_DC3A_03FD); // 2 / (3 ln2), 9.61796693925975554329e-01
const CP_H: f64 = f64::from_bits(0x3FEE_C709_E000_0000); // 9.61796700954437255859e-01
const CP_L: f64 = f64::from_bits(0xBE3E_2FE0_145B_01F5); // -7.02846165095275826516e-09
const TWO_POW_M64: f64 = f64::from_bits(0x3BF0_0000_0000_0000);

/// x^y for an `f64`, within one ulp of the correctly rounded result ("nearly rounded": fdlibm computes
/// log2(x) to about 2^-80 in two pieces and y * log2(x) in simulated extra precision). Integer powers of
/// integers that are representable are exact; y = 2 is `x * x` and y = 0.5 is `sqrt(x)` (x > 0).
///
/// Special values follow C99 Annex F, checked in this order: pow(x, ±0) = 1 for any x (NaN too);
/// pow(1, y) = 1 for any y (NaN too); any other NaN gives the canonical NaN; pow(-1, ±inf) = 1;
/// pow(x, +inf) is +inf for |x| > 1 and +0 for |x| < 1 (reversed for -inf); pow(±0, y) is ±inf for an odd
/// integer y < 0, +inf for other y < 0, ±0 for an odd integer y > 0 and +0 otherwise; pow(-inf, y) is
/// pow(-0, -y); pow(+inf, y) is +inf for y > 0 and +0 for y < 0; a finite x < 0 with a non-integer y gives
/// the canonical NaN, and with an integer y it gives ±pow(-x, y), negative for odd y.
/// CUDA twin: `evo_pow_f64` in `kernels/common/math.cuh`.
pub fn pow_f64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return NAN_F64;
    }
    let ax = x.abs();
    if y.is_infinite() {
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax > 1.0) == (y > 0.0) {
            f64::INFINITY
        } else {
            0.0
        };
    }
    // y is finite here; every y with |y| >= 2^53 is an even integer, and 0.5 * y is exact for integers.
    let y_is_int = y.floor() == y;
    let y_is_odd = y_is_int && (0.5 * y).floor() != 0.5 * y;
    if x == 0.0 {
        if y < 0.0 {
            return if y_is_odd { 1.0 / x } else { f64::INFINITY };
        }
        return if y_is_odd { x } else { 0.0 };
    }
    if x.is_infinite() {
        if x > 0.0 {
            return if y < 0.0 { 0.0 } else { f64::INFINITY };
        }
        if y < 0.0 {
            return if y_is_odd { -0.0 } else { 0.0 };
        }
        return if y_is_odd {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let mut sign = 1.0;
    if x < 0.0 {
        if !y_is_int {
            return NAN_F64;
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
    sign * pow_core(ax, y)
}

/// |x|^y for a finite ax > 0, ax != 1, and a finite y != 0 (fdlibm `e_pow.c` from "|y| is huge" on, less
/// its series for ax near 1).
/// The result is positive: +inf on overflow, +0 on underflow. CUDA twin: `evo_math::pow_core_f64`.
fn pow_core(ax: f64, y: f64) -> f64 {
    let hy = hi_word(y);
    let iy = hy & 0x7fff_ffff;
    let mut ix = hi_word(ax);
    if iy > 0x41e0_0000 {
        // |y| > 2^31: the result overflows or underflows unless ax is within 2^-20 of 1.
        if iy > 0x43f0_0000 {
            if ix <= 0x3fef_ffff {
                return if hy < 0 { f64::INFINITY } else { 0.0 };
            }
            if ix >= 0x3ff0_0000 {
                return if hy > 0 { f64::INFINITY } else { 0.0 };
            }
        }
        if ix < 0x3fef_ffff {
            return if hy < 0 { f64::INFINITY } else { 0.0 };
        }
        if ix > 0x3ff0_0000 {
            return if hy > 0 { f64::INFINITY } else { 0.0 };
        }
        // Within 2^-20 of 1 the general computation below still gives log2(ax) to about 2^-64 relative,
        // enough for |y log2(ax)| <= 1075. (fdlibm's short series for this case rounds ivln2_h * (ax - 1),
        // which costs up to 2^10 ulps, so it is not used.)
    }
    // Step 1: log2(ax) = t1 + t2, where t1 has its low 32 bits zero; ax = 2^n (ax / 2^n).
    let mut ax = ax;
    let mut n: i32 = 0;
    if ix < 0x0010_0000 {
        // Subnormal ax: scale into the normal range exactly.
        ax *= TWO_POW_53;
        n -= 53;
        ix = hi_word(ax);
    }
    n += (ix >> 20) - 0x3ff;
    let j = ix & 0x000f_ffff;
    // Choose bp = 1 for ax < sqrt(3/2), bp = 1.5 for ax < sqrt(3), else halve ax.
    ix = j | 0x3ff0_0000;
    let k: i32;
    if j <= 0x3988E {
        k = 0;
    } else if j < 0xBB67A {
        k = 1;
    } else {
        k = 0;
        n += 1;
        ix -= 0x0010_0000;
    }
    ax = from_words(ix, lo_word(ax));
    let bp = if k == 1 { 1.5 } else { 1.0 };
    let dp_h = if k == 1 { DP_H1 } else { 0.0 };
    let dp_l = if k == 1 { DP_L1 } else { 0.0 };
    // ss = s_h + s_l = (ax - bp) / (ax + bp), with t_h = ax + bp rounded to its high word.
    let u = ax - bp;
    let v = 1.0 / (ax + bp);
    let ss = u * v;
    let s_h = clear_lo(ss);
    let t_h = from_words(((ix >> 1) | 0x2000_0000) + 0x0008_0000 + (k << 18), 0);
    let t_l = ax - (t_h - bp);
    let s_l = v * ((u - s_h * t_h) - s_h * t_l);
    // log(ax) in pieces: 3 + s^2 + r, then (2 / (3 ln2)) * ss * (3 + s^2 + r).
    let mut s2 = ss * ss;
    let mut r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += s_l * (s_h + ss);
    s2 = s_h * s_h;
    let t_h = clear_lo(3.0 + s2 + r);
    let t_l = r - ((t_h - 3.0) - s2);
    let u = s_h * t_h;
    let v = s_l * t_h + t_l * ss;
    let p_h = clear_lo(u + v);
    let p_l = v - (p_h - u);
    let z_h = CP_H * p_h;
    let z_l = CP_L * p_h + p_l * CP + dp_l;
    let t = f64::from(n);
    let t1 = clear_lo(((z_h + z_l) + dp_h) + t);
    let t2 = z_l - (((t1 - t) - dp_h) - z_h);
    // Step 2: y * log2(ax) = p_h + p_l with y split into y1 (32 high bits) and y - y1.
    let y1 = clear_lo(y);
    let p_l = (y - y1) * t1 + y * t2;
    let mut p_h = y1 * t1;
    let z = p_l + p_h;
    if z >= 1024.0 {
        if z > 1024.0 || p_l + OVT > z - p_h {
            return f64::INFINITY;
        }
    } else if z <= -1075.0 && (z < -1075.0 || p_l <= z - p_h) {
        return 0.0;
    }
    // Step 3: z = n + f with |f| <= 1/2 (n rounded from the high word), then 2^f = e^(f ln2).
    let j = hi_word(z);
    let i = j & 0x7fff_ffff;
    let mut k = (i >> 20) - 0x3ff;
    let mut n: i32 = 0;
    if i > 0x3fe0_0000 {
        // |z| > 1/2, so 0 <= k + 1 <= 11 and every shift below is in range.
        n = j + (0x0010_0000 >> (k + 1));
        k = ((n & 0x7fff_ffff) >> 20) - 0x3ff;
        let t = from_words(n & !(0x000f_ffff >> k), 0);
        n = ((n & 0x000f_ffff) | 0x0010_0000) >> (20 - k);
        if j < 0 {
            n = -n;
        }
        p_h -= t;
    }
    let t = clear_lo(p_l + p_h);
    let u = t * POW_LN2_H;
    let v = (p_l - (t - p_h)) * POW_LN2 + t * POW_LN2_L;
    let z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    let r = (z * t1) / (t1 - 2.0) - (w + z * w);
    let z = 1.0 - (r - z);
    // Step 4: scale by 2^n, in the exponent field when the result is normal, else with one rounding.
    let j = hi_word(z) + n * 0x10_0000;
    if j < 0x0010_0000 {
        return z * pow2(n + 64) * TWO_POW_M64;
    }
    from_words(j, lo_word(z))
}
