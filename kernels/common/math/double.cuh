// f64 sin, cos, exp, log and the reduction by pi/2 (Rust: math/double.rs, math/reduce_pio2.rs).
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
#include "common/math/constants.cuh"

namespace evo_math {

// ---- f64 kernels and reduction (Rust: math/double.rs, math/reduce_pio2.rs).

// Rust twin: double::kernel_sin.
__device__ __forceinline__ double kernel_sin_f64(double x, double y)
{
    const double z = x * x;
    const double w = z * z;
    const double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    const double v = z * x;
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

// Rust twin: double::kernel_sin0.
__device__ __forceinline__ double kernel_sin0_f64(double x)
{
    const double z = x * x;
    const double w = z * z;
    const double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
    const double v = z * x;
    return x + v * (S1 + z * r);
}

// Rust twin: double::kernel_cos.
__device__ __forceinline__ double kernel_cos_f64(double x, double y)
{
    const double z = x * x;
    double w = z * z;
    const double r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
    const double hz = 0.5 * z;
    w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (z * r - x * y));
}

// The 32 bits of the little-endian limbs p starting at bit pos <= 288. Rust twin: reduce_pio2::bits_at.
__device__ __forceinline__ unsigned int bits_at(const unsigned int* p, int pos)
{
    const int w = pos >> 5;
    const int s = pos & 31;
    const unsigned long long pair = ((unsigned long long)p[w + 1] << 32) | (unsigned long long)p[w];
    return (unsigned int)(pair >> s);
}

// Rust twin: reduce_pio2::split.
__device__ __forceinline__ void split_f64(double a, double* hi, double* lo)
{
    const double c = SPLITTER * a;
    *hi = c - (c - a);
    *lo = a - *hi;
}

// a * b = *p + *e exactly (Dekker, no fused multiply-add). Rust twin: reduce_pio2::two_prod.
__device__ __forceinline__ void two_prod_f64(double a, double b, double* p, double* e)
{
    *p = a * b;
    double ah, al, bh, bl;
    split_f64(a, &ah, &al);
    split_f64(b, &bh, &bl);
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

// Payne-Hanek reduction of a finite x with |x| >= 2^20. Rare, so kept out of line.
// Rust twin: reduce_pio2::rem_pio2_large.
__device__ __noinline__ RemPio2 rem_pio2_large_f64(double x)
{
    const unsigned long long bits = (unsigned long long)__double_as_longlong(x);
    const int e = (int)((bits >> 52) & 0x7ff) - 1075;
    const unsigned long long m = (bits & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull;
    const unsigned int m0 = (unsigned int)m;
    const unsigned int m1 = (unsigned int)(m >> 32);
    const int k0 = e >= 2 ? (e - 2) >> 5 : 0;
    unsigned int p[11] = {0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u};
#pragma unroll
    for (int j = 0; j < 8; ++j) {
        const unsigned long long w = (unsigned long long)TWO_OVER_PI[k0 + 7 - j];
        const unsigned long long t0 = (unsigned long long)m0 * w + (unsigned long long)p[j];
        p[j] = (unsigned int)t0;
        const unsigned long long t1 = (unsigned long long)m1 * w + (unsigned long long)p[j + 1] + (t0 >> 32);
        p[j + 1] = (unsigned int)t1;
        p[j + 2] = (unsigned int)(t1 >> 32);
    }
    const int units = 32 * k0 + 256 - e;
    int q = (int)(bits_at(p, units) & 3u);
    unsigned long long hi =
        ((unsigned long long)bits_at(p, units - 32) << 32) | (unsigned long long)bits_at(p, units - 64);
    unsigned long long lo =
        ((unsigned long long)bits_at(p, units - 96) << 32) | (unsigned long long)bits_at(p, units - 128);
    const bool negative = (hi >> 63) != 0ull;
    if (negative) {
        q += 1;
        lo = ~lo + 1ull;
        hi = ~hi + (lo == 0ull ? 1ull : 0ull);
    }
    int shift = 0;
    if (hi == 0ull) {
        hi = lo;
        lo = 0ull;
        shift = 64;
    }
    double y0 = 0.0, y1 = 0.0;
    if (hi != 0ull) {
        const int lz = __clzll((long long)hi);
        if (lz > 0) {
            hi = (hi << lz) | (lo >> (64 - lz));
            lo <<= lz;
        }
        shift += lz;
        const double a = (double)(hi >> 11) * pow2(-53 - shift);
        const double b = (double)(((hi & 0x7ffull) << 42) | (lo >> 22)) * pow2(-106 - shift);
        double ph, pl;
        two_prod_f64(a, PIO2_HI, &ph, &pl);
        pl = pl + (a * PIO2_LO + b * PIO2_HI);
        y0 = ph + pl;
        y1 = pl - (y0 - ph);
    }
    if (negative) {
        y0 = -y0;
        y1 = -y1;
    }
    if (x < 0.0) {
        return RemPio2{-q, -y0, -y1};
    }
    return RemPio2{q, y0, y1};
}

// Rust twin: double::rem_pio2.
__device__ __forceinline__ RemPio2 rem_pio2_f64(double x)
{
    const int ix = hi_word(x) & 0x7fffffff;
    if (ix >= 0x413921fb) {
        return rem_pio2_large_f64(x);
    }
    const double fn = rint(x * INVPIO2);
    const int n = (int)fn;
    double r = x - fn * PIO2_1;
    double w = fn * PIO2_1T;
    const int j = ix >> 20;
    double y0 = r - w;
    const int i = j - ((hi_word(y0) >> 20) & 0x7ff);
    if (i > 16) {
        const double t = r;
        w = fn * PIO2_2;
        r = t - w;
        w = fn * PIO2_2T - ((t - r) - w);
        y0 = r - w;
        const int i2 = j - ((hi_word(y0) >> 20) & 0x7ff);
        if (i2 > 49) {
            const double t2 = r;
            w = fn * PIO2_3;
            r = t2 - w;
            w = fn * PIO2_3T - ((t2 - r) - w);
            y0 = r - w;
        }
    }
    const double y1 = (r - y0) - w;
    return RemPio2{n, y0, y1};
}

}  // namespace evo_math

// ---- f64 functions (Rust: math/double.rs).

// Rust twin: evo_core::math::sin_f64.
__device__ inline double evo_sin_f64(double x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's libdevice function (see common/math.cuh).
    return sin(x);
#else
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f64();
    }
    const int ix = hi_word(x) & 0x7fffffff;
    if (ix <= 0x3fe921fb) {
        if (ix < 0x3e500000) {
            return x;
        }
        return kernel_sin0_f64(x);
    }
    if (ix >= 0x7ff00000) {
        return nan_f64();
    }
    const RemPio2 r = rem_pio2_f64(x);
    // The twin's four quadrants as one polynomial (cos in the odd ones) and a sign (the last two): the same
    // values, and a warp whose lanes span the quadrants runs two polynomials instead of four.
    const unsigned int q = (unsigned int)r.n & 3u;
    const double v = (q & 1u) != 0u ? kernel_cos_f64(r.y0, r.y1) : kernel_sin_f64(r.y0, r.y1);
    return q >= 2u ? -v : v;
#endif
}

// Rust twin: evo_core::math::cos_f64.
__device__ inline double evo_cos_f64(double x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's libdevice function (see common/math.cuh).
    return cos(x);
#else
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f64();
    }
    const int ix = hi_word(x) & 0x7fffffff;
    // |x| <= pi/4 is the twin's kernel_cos(x, 0.0): quadrant 0 of the reduced argument (x, 0.0), so that it
    // shares the polynomial below with the reduced arguments instead of running a third copy of it.
    RemPio2 r = {0, x, 0.0};
    if (ix <= 0x3fe921fb) {
        if (ix < 0x3e46a09e) {
            return 1.0;
        }
    } else {
        if (ix >= 0x7ff00000) {
            return nan_f64();
        }
        r = rem_pio2_f64(x);
    }
    // The twin's four quadrants as one polynomial (sin in the odd ones) and a sign (the middle two): the same
    // values, and a warp whose lanes span the quadrants runs two polynomials instead of four.
    const unsigned int q = (unsigned int)r.n & 3u;
    const double v = (q & 1u) != 0u ? kernel_sin_f64(r.y0, r.y1) : kernel_cos_f64(r.y0, r.y1);
    return q == 1u || q == 2u ? -v : v;
#endif
}

// Rust twin: evo_core::math::exp_f64.
__device__ inline double evo_exp_f64(double x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's libdevice function (see common/math.cuh).
    return exp(x);
#else
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f64();
    }
    const int hx = hi_word(x);
    const bool negative = hx < 0;
    const int ahx = hx & 0x7fffffff;
    if (ahx >= 0x40862E42) {
        if (ahx >= 0x7ff00000) {
            return negative ? 0.0 : x;
        }
        if (x > EXP_OVERFLOW) {
            return inf_f64();
        }
        if (x < EXP_UNDERFLOW) {
            return 0.0;
        }
    }
    if (x == 1.0) {
        return EULER_E;
    }
    double hi, lo, r;
    int k;
    if (ahx > 0x3fd62e42) {
        if (ahx < 0x3FF0A2B2) {
            hi = negative ? x + LN2_HI : x - LN2_HI;
            lo = negative ? -LN2_LO : LN2_LO;
            k = negative ? -1 : 1;
        } else {
            k = (int)(INVLN2 * x + (negative ? -0.5 : 0.5));
            const double t = (double)k;
            hi = x - t * LN2_HI;
            lo = t * LN2_LO;
        }
        r = hi - lo;
    } else if (ahx < 0x3e300000) {
        return 1.0 + x;
    } else {
        hi = 0.0;
        lo = 0.0;
        k = 0;
        r = x;
    }
    const double t = r * r;
    const double c = r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    if (k == 0) {
        return 1.0 - ((r * c) / (c - 2.0) - r);
    }
    const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    if (k >= -1021) {
        if (k == 1024) {
            return y * 2.0 * TWO_POW_1023;
        }
        return y * pow2(k);
    }
    return y * pow2(k + 1000) * TWO_POW_M1000;
#endif
}

// Rust twin: evo_core::math::log_f64.
__device__ inline double evo_log_f64(double x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's libdevice function (see common/math.cuh).
    return log(x);
#else
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f64();
    }
    int hx = hi_word(x);
    int k = 0;
    if (hx < 0x00100000) {
        if (((unsigned int)(hx & 0x7fffffff) | lo_word(x)) == 0u) {
            return -inf_f64();
        }
        if (hx < 0) {
            return nan_f64();
        }
        k -= 54;
        x *= TWO_POW_54;
        hx = hi_word(x);
    }
    if (hx >= 0x7ff00000) {
        return x;
    }
    k += (hx >> 20) - 1023;
    hx &= 0x000fffff;
    const int i = (hx + 0x95f64) & 0x100000;
    x = from_words(hx | (i ^ 0x3ff00000), lo_word(x));
    k += i >> 20;
    const double f = x - 1.0;
    if ((0x000fffff & (2 + hx)) < 3) {
        if (f == 0.0) {
            if (k == 0) {
                return 0.0;
            }
            const double dk = (double)k;
            return dk * LN2_HI + dk * LN2_LO;
        }
        const double r = f * f * (0.5 - ONE_THIRD * f);
        if (k == 0) {
            return f - r;
        }
        const double dk = (double)k;
        return dk * LN2_HI - ((r - dk * LN2_LO) - f);
    }
    const double s = f / (2.0 + f);
    const double dk = (double)k;
    const double z = s * s;
    const int i2 = hx - 0x6147a;
    const double w = z * z;
    const int j = 0x6b851 - hx;
    const double t1 = w * (LG2 + w * (LG4 + w * LG6));
    const double t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    const double r = t2 + t1;
    if ((i2 | j) > 0) {
        const double hfsq = 0.5 * f * f;
        if (k == 0) {
            return f - (hfsq - s * (hfsq + r));
        }
        return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
    }
    if (k == 0) {
        return f - s * (f - r);
    }
    return dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
#endif
}
