// f64 pow (Rust: math/pow.rs).
// Part of the portable math, the CUDA twin of `evo_core::math`; the contract and the sources are stated
// in common/math.cuh and crates/core/src/math/mod.rs.
//
// Ported from fdlibm / FreeBSD msun, which carry this notice:
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================
#pragma once
#include "common/math/double.cuh"

// ---- f64 pow (Rust: math/pow.rs).

namespace evo_math {

// Rust twin: pow::pow_core.
__device__ inline double pow_core_f64(double ax, double y)
{
    const int hy = hi_word(y);
    const int iy = hy & 0x7fffffff;
    int ix = hi_word(ax);
    if (iy > 0x41e00000) {
        if (iy > 0x43f00000) {
            if (ix <= 0x3fefffff) {
                return hy < 0 ? inf_f64() : 0.0;
            }
            if (ix >= 0x3ff00000) {
                return hy > 0 ? inf_f64() : 0.0;
            }
        }
        if (ix < 0x3fefffff) {
            return hy < 0 ? inf_f64() : 0.0;
        }
        if (ix > 0x3ff00000) {
            return hy > 0 ? inf_f64() : 0.0;
        }
    }
    int n = 0;
    if (ix < 0x00100000) {
        ax *= TWO_POW_53;
        n -= 53;
        ix = hi_word(ax);
    }
    n += (ix >> 20) - 0x3ff;
    const int j = ix & 0x000fffff;
    ix = j | 0x3ff00000;
    int k;
    if (j <= 0x3988E) {
        k = 0;
    } else if (j < 0xBB67A) {
        k = 1;
    } else {
        k = 0;
        n += 1;
        ix -= 0x00100000;
    }
    ax = from_words(ix, lo_word(ax));
    const double bp = k == 1 ? 1.5 : 1.0;
    const double dp_h = k == 1 ? DP_H1 : 0.0;
    const double dp_l = k == 1 ? DP_L1 : 0.0;
    double u = ax - bp;
    double v = 1.0 / (ax + bp);
    const double ss = u * v;
    const double s_h = clear_lo(ss);
    double t_h = from_words(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18), 0u);
    double t_l = ax - (t_h - bp);
    const double s_l = v * ((u - s_h * t_h) - s_h * t_l);
    double s2 = ss * ss;
    double r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += s_l * (s_h + ss);
    s2 = s_h * s_h;
    t_h = clear_lo(3.0 + s2 + r);
    t_l = r - ((t_h - 3.0) - s2);
    u = s_h * t_h;
    v = s_l * t_h + t_l * ss;
    const double lp_h = clear_lo(u + v);
    const double lp_l = v - (lp_h - u);
    const double z_h = CP_H * lp_h;
    const double z_l = CP_L * lp_h + lp_l * CP + dp_l;
    const double tn = (double)n;
    const double t1 = clear_lo(((z_h + z_l) + dp_h) + tn);
    const double t2 = z_l - (((t1 - tn) - dp_h) - z_h);
    const double y1 = clear_lo(y);
    const double p_l = (y - y1) * t1 + y * t2;
    double p_h = y1 * t1;
    double z = p_l + p_h;
    if (z >= 1024.0) {
        if (z > 1024.0 || p_l + OVT > z - p_h) {
            return inf_f64();
        }
    } else if (z <= -1075.0 && (z < -1075.0 || p_l <= z - p_h)) {
        return 0.0;
    }
    const int jz = hi_word(z);
    const int iz = jz & 0x7fffffff;
    int kz = (iz >> 20) - 0x3ff;
    int nz = 0;
    if (iz > 0x3fe00000) {
        nz = jz + (0x00100000 >> (kz + 1));
        kz = ((nz & 0x7fffffff) >> 20) - 0x3ff;
        const double t = from_words(nz & ~(0x000fffff >> kz), 0u);
        nz = ((nz & 0x000fffff) | 0x00100000) >> (20 - kz);
        if (jz < 0) {
            nz = -nz;
        }
        p_h -= t;
    }
    const double t = clear_lo(p_l + p_h);
    u = t * POW_LN2_H;
    v = (p_l - (t - p_h)) * POW_LN2 + t * POW_LN2_L;
    z = u + v;
    const double w = v - (z - u);
    const double tt = z * z;
    const double tz = z - tt * (P1 + tt * (P2 + tt * (P3 + tt * (P4 + tt * P5))));
    const double rz = (z * tz) / (tz - 2.0) - (w + z * w);
    z = 1.0 - (rz - z);
    const int jr = hi_word(z) + nz * 0x100000;
    if (jr < 0x00100000) {
        return z * pow2(nz + 64) * TWO_POW_M64;
    }
    return from_words(jr, lo_word(z));
}

}  // namespace evo_math

// Rust twin: evo_core::math::pow_f64.
__device__ inline double evo_pow_f64(double x, double y)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's libdevice function (see common/math.cuh).
    return pow(x, y);
#else
    using namespace evo_math;
    if (y == 0.0 || x == 1.0) {
        return 1.0;
    }
    if (isnan(x) || isnan(y)) {
        return nan_f64();
    }
    const double ax = fabs(x);
    if (isinf(y)) {
        if (ax == 1.0) {
            return 1.0;
        }
        return (ax > 1.0) == (y > 0.0) ? inf_f64() : 0.0;
    }
    const bool y_is_int = floor(y) == y;
    const bool y_is_odd = y_is_int && floor(0.5 * y) != 0.5 * y;
    if (x == 0.0) {
        if (y < 0.0) {
            return y_is_odd ? 1.0 / x : inf_f64();
        }
        return y_is_odd ? x : 0.0;
    }
    if (isinf(x)) {
        if (x > 0.0) {
            return y < 0.0 ? 0.0 : inf_f64();
        }
        if (y < 0.0) {
            return y_is_odd ? -0.0 : 0.0;
        }
        return y_is_odd ? -inf_f64() : inf_f64();
    }
    double sign = 1.0;
    if (x < 0.0) {
        if (!y_is_int) {
            return nan_f64();
        }
        if (y_is_odd) {
            sign = -1.0;
        }
    }
    if (ax == 1.0) {
        return sign;
    }
    if (y == 1.0) {
        return x;
    }
    if (y == -1.0) {
        return 1.0 / x;
    }
    if (y == 2.0) {
        return x * x;
    }
    if (y == 0.5) {
        return sqrt(x);
    }
    return sign * pow_core_f64(ax, y);
#endif
}
