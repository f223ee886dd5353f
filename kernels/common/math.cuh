// Portable math: the CUDA twin of `evo_core::math` (crates/core/src/math/).
//
// evo_sin_f32, evo_cos_f32, evo_exp_f32, evo_log_f32, evo_pow_f32 and their _f64 versions give the same bits
// as the Rust functions of the same names (without the `evo_` prefix) for every input, NaN, infinities,
// signed zeros and subnormals included, when the module is compiled with the Exact profile
// (--fmad=false --prec-div=true --prec-sqrt=true --ftz=false, no fast math). That holds because both sides
// run the same sequence of IEEE-754 correctly rounded operations (+ - * / sqrt), exact operations (rint,
// floor, comparisons, bit casts, integer arithmetic) and conversions that are exact or correctly rounded
// (int <-> double in range, float <-> double), and because NaN results are always the canonical constants
// below rather than whatever NaN the arithmetic would propagate. The algorithms, their sources and their
// measured accuracy are documented once, in crates/core/src/math/mod.rs; the comments here name the Rust
// twin of each function. Never call sinf, __expf, fma and friends here: they differ from the CPU.
//
// The f64 functions and the f32 kernels are ported from fdlibm / FreeBSD msun, which carry this notice:
// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================
#pragma once

namespace evo_math {

// ---- Canonical special values (Rust: NAN_F32, NAN_F64, f32::INFINITY, f64::INFINITY).

__device__ __forceinline__ float nan_f32() { return __uint_as_float(0x7fc00000u); }
__device__ __forceinline__ double nan_f64() { return __longlong_as_double(0x7ff8000000000000ll); }
__device__ __forceinline__ float inf_f32() { return __uint_as_float(0x7f800000u); }
__device__ __forceinline__ double inf_f64() { return __longlong_as_double(0x7ff0000000000000ll); }

// ---- Word access (Rust: hi_word, lo_word, from_words, clear_lo, pow2 in math/mod.rs).

__device__ __forceinline__ int hi_word(double x) { return __double2hiint(x); }
__device__ __forceinline__ unsigned int lo_word(double x) { return (unsigned int)__double2loint(x); }
__device__ __forceinline__ double from_words(int hi, unsigned int lo) { return __hiloint2double(hi, (int)lo); }
__device__ __forceinline__ double clear_lo(double x) { return __hiloint2double(__double2hiint(x), 0); }
// 2^k for -1022 <= k <= 1023.
__device__ __forceinline__ double pow2(int k)
{
    return __longlong_as_double((long long)((unsigned long long)(k + 1023) << 52));
}

// ---- Constants, bit for bit those of the Rust modules (hexadecimal literals are exact).

// math/double.rs: fdlibm k_sin.c, k_cos.c, e_rem_pio2.c, e_exp.c, e_log.c.
constexpr double S1 = -0x1.5555555555549p-3; // -1.66666666666666324348e-01
constexpr double S2 = 0x1.111111110f8a6p-7; // 8.33333333332248946124e-03
constexpr double S3 = -0x1.a01a019c161d5p-13; // -1.98412698298579493134e-04
constexpr double S4 = 0x1.71de357b1fe7dp-19; // 2.75573137070700676789e-06
constexpr double S5 = -0x1.ae5e68a2b9cebp-26; // -2.50507602534068634195e-08
constexpr double S6 = 0x1.5d93a5acfd57cp-33; // 1.58969099521155010221e-10
constexpr double C1 = 0x1.555555555554cp-5; // 4.16666666666666019037e-02
constexpr double C2 = -0x1.6c16c16c15177p-10; // -1.38888888888741095749e-03
constexpr double C3 = 0x1.a01a019cb1590p-16; // 2.48015872894767294178e-05
constexpr double C4 = -0x1.27e4f809c52adp-22; // -2.75573143513906633035e-07
constexpr double C5 = 0x1.1ee9ebdb4b1c4p-29; // 2.08757232129817482790e-09
constexpr double C6 = -0x1.8fae9be8838d4p-37; // -1.13596475577881948265e-11
constexpr double INVPIO2 = 0x1.45f306dc9c883p-1; // 6.36619772367581382433e-01
constexpr double PIO2_1 = 0x1.921fb54400000p+0; // 1.57079632673412561417e+00
constexpr double PIO2_1T = 0x1.0b4611a626331p-34; // 6.07710050650619224932e-11
constexpr double PIO2_2 = 0x1.0b4611a600000p-34; // 6.07710050630396597660e-11
constexpr double PIO2_2T = 0x1.3198a2e037073p-69; // 2.02226624879595063154e-21
constexpr double PIO2_3 = 0x1.3198a2e000000p-69; // 2.02226624871116645580e-21
constexpr double PIO2_3T = 0x1.b839a252049c1p-104; // 8.47842766036889956997e-32
constexpr double EXP_OVERFLOW = 0x1.62e42fefa39efp+9; // 7.09782712893383973096e+02
constexpr double EXP_UNDERFLOW = -0x1.74910d52d3051p+9; // -7.45133219101941108420e+02
constexpr double LN2_HI = 0x1.62e42fee00000p-1; // 6.93147180369123816490e-01
constexpr double LN2_LO = 0x1.a39ef35793c76p-33; // 1.90821492927058770002e-10
constexpr double INVLN2 = 0x1.71547652b82fep+0; // 1.44269504088896338700e+00
constexpr double P1 = 0x1.555555555553ep-3; // 1.66666666666666019037e-01
constexpr double P2 = -0x1.6c16c16bebd93p-9; // -2.77777777770155933842e-03
constexpr double P3 = 0x1.1566aaf25de2cp-14; // 6.61375632143793436117e-05
constexpr double P4 = -0x1.bbd41c5d26bf1p-20; // -1.65339022054652515390e-06
constexpr double P5 = 0x1.6376972bea4d0p-25; // 4.13813679705723846039e-08
constexpr double EULER_E = 0x1.5bf0a8b145769p+1; // e, correctly rounded
constexpr double TWO_POW_1023 = 0x1.0p+1023;
constexpr double TWO_POW_M1000 = 0x1.0p-1000;
constexpr double TWO_POW_54 = 0x1.0p+54;
constexpr double LG1 = 0x1.5555555555593p-1; // 6.666666666666735130e-01
constexpr double LG2 = 0x1.999999997fa04p-2; // 3.999999999940941908e-01
constexpr double LG3 = 0x1.2492494229359p-2; // 2.857142874366239149e-01
constexpr double LG4 = 0x1.c71c51d8e78afp-3; // 2.222219843214978396e-01
constexpr double LG5 = 0x1.7466496cb03dep-3; // 1.818357216161805012e-01
constexpr double LG6 = 0x1.39a09d078c69fp-3; // 1.531383769920937332e-01
constexpr double LG7 = 0x1.2f112df3e5244p-3; // 1.479819860511658591e-01
constexpr double ONE_THIRD = 0x1.5555555555555p-2; // 1/3 rounded to nearest

// math/pow.rs: fdlibm e_pow.c.
// log2(1.5) = DP_H1 + DP_L1.
constexpr double DP_H1 = 0x1.2b80340000000p-1; // 5.84962487220764160156e-01
constexpr double DP_L1 = 0x1.cfdeb43cfd006p-27; // 1.35003920212974897128e-08
constexpr double TWO_POW_53 = 0x1.0p+53;
constexpr double L1 = 0x1.3333333333303p-1; // 5.99999999999994648725e-01
constexpr double L2 = 0x1.b6db6db6fabffp-2; // 4.28571428578550184252e-01
constexpr double L3 = 0x1.55555518f264dp-2; // 3.33333329818377432918e-01
constexpr double L4 = 0x1.17460a91d4101p-2; // 2.72728123808534006489e-01
constexpr double L5 = 0x1.d864a93c9db65p-3; // 2.30660745775561754067e-01
constexpr double L6 = 0x1.a7e284a454eefp-3; // 2.06975017800338417784e-01
constexpr double POW_LN2 = 0x1.62e42fefa39efp-1; // ln 2, 6.93147180559945286227e-01
constexpr double POW_LN2_H = 0x1.62e4300000000p-1; // 6.93147182464599609375e-01
constexpr double POW_LN2_L = -0x1.05c610ca86c39p-29; // -1.90465429995776804525e-09
// OVT = -(1024 - log2(DBL_MAX + ulp/2)): the overflow margin of p_h + p_l at z = 1024.
constexpr double OVT = 0x1.71547652b82fep-54; // 8.0085662595372944372e-17
constexpr double CP = 0x1.ec709dc3a03fdp-1; // 2 / (3 ln2), 9.61796693925975554329e-01
constexpr double CP_H = 0x1.ec709e0000000p-1; // 9.61796700954437255859e-01
constexpr double CP_L = -0x1.e2fe0145b01f5p-28; // -7.02846165095275826516e-09
constexpr double TWO_POW_M64 = 0x1.0p-64;

// math/reduce_pio2.rs: Payne-Hanek.
constexpr double PIO2_HI = 0x1.921fb54442d18p+0; // 1.5707963267948966
constexpr double PIO2_LO = 0x1.1a62633145c07p-54; // 6.123233995736766e-17
constexpr double SPLITTER = 0x1.0000002000000p+27; // 134217729 = 2^27 + 1

// math/single.rs: FreeBSD k_sinf.c, k_cosf.c, e_rem_pio2f.c; Taylor and atanh series.
constexpr double SF1 = -0x1.5555554cbac77p-3; // -0.166666666416265235595
constexpr double SF2 = 0x1.11110896efbb2p-7; // 0.0083333293858894631756
constexpr double SF3 = -0x1.a00f9e2cae774p-13; // -0.000198393348360966317347
constexpr double SF4 = 0x1.6cd878c3b46a7p-19; // 0.0000027183114939898219064
constexpr double CF0 = -0x1.ffffffd0c5e81p-2; // -0.499999997251031003120
constexpr double CF1 = 0x1.55553e1053a42p-5; // 0.0416666233237390631894
constexpr double CF2 = -0x1.6c087e80f1e27p-10; // -0.00138867637746099294692
constexpr double CF3 = 0x1.99342e0ee5069p-16; // 0.0000243904487962774090654
constexpr double PIO2F_1 = 0x1.921fb50000000p+0; // 1.57079631090164184570e+00
constexpr double PIO2F_1T = 0x1.110b4611a6263p-26; // 1.58932547735281966916e-08
constexpr double LN2 = 0x1.62e42fefa39efp-1; // ln 2 rounded to nearest
constexpr double INV_FACT2 = 0.5;
constexpr double INV_FACT3 = 0x1.5555555555555p-3; // 1/3!
constexpr double INV_FACT4 = 0x1.5555555555555p-5; // 1/4!
constexpr double INV_FACT5 = 0x1.1111111111111p-7; // 1/5!
constexpr double INV_FACT6 = 0x1.6c16c16c16c17p-10; // 1/6!
constexpr double INV_FACT7 = 0x1.a01a01a01a01ap-13; // 1/7!
constexpr double INV_FACT8 = 0x1.a01a01a01a01ap-16; // 1/8!
constexpr double INV3 = 0x1.5555555555555p-2; // 1/3
constexpr double INV5 = 0x1.999999999999ap-3; // 1/5
constexpr double INV7 = 0x1.2492492492492p-3; // 1/7
constexpr double INV9 = 0x1.c71c71c71c71cp-4; // 1/9
constexpr double INV11 = 0x1.745d1745d1746p-4; // 1/11
constexpr float TWO_POW_25_F32 = 33554432.0f;

// The first 1280 bits of 2/pi, most significant first (Rust: reduce_pio2::TWO_OVER_PI).
__device__ const unsigned int TWO_OVER_PI[40] = {
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u,
    0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu, 0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u,
    0xE99C7026u, 0xB45F7E41u, 0x3991D639u, 0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu,
    0xEF2F118Bu, 0x5A0A6D1Fu, 0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu,
    0x3D0739F7u, 0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du,
};

// A reduced argument: x = n * pi/2 + (y0 + y1); only n & 3 is meaningful (Rust: the tuple (n, y0, y1)).
struct RemPio2 {
    int n;
    double y0;
    double y1;
};

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
    switch (r.n & 3) {
    case 0: return kernel_sin_f64(r.y0, r.y1);
    case 1: return kernel_cos_f64(r.y0, r.y1);
    case 2: return -kernel_sin_f64(r.y0, r.y1);
    default: return -kernel_cos_f64(r.y0, r.y1);
    }
}

// Rust twin: evo_core::math::cos_f64.
__device__ inline double evo_cos_f64(double x)
{
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f64();
    }
    const int ix = hi_word(x) & 0x7fffffff;
    if (ix <= 0x3fe921fb) {
        if (ix < 0x3e46a09e) {
            return 1.0;
        }
        return kernel_cos_f64(x, 0.0);
    }
    if (ix >= 0x7ff00000) {
        return nan_f64();
    }
    const RemPio2 r = rem_pio2_f64(x);
    switch (r.n & 3) {
    case 0: return kernel_cos_f64(r.y0, r.y1);
    case 1: return -kernel_sin_f64(r.y0, r.y1);
    case 2: return -kernel_cos_f64(r.y0, r.y1);
    default: return kernel_sin_f64(r.y0, r.y1);
    }
}

// Rust twin: evo_core::math::exp_f64.
__device__ inline double evo_exp_f64(double x)
{
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
}

// Rust twin: evo_core::math::log_f64.
__device__ inline double evo_log_f64(double x)
{
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
}

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
}

// ---- f32 functions (Rust: math/single.rs).

namespace evo_math {

// Rust twin: single::kernel_sin.
__device__ __forceinline__ float kernel_sin_f32(double x)
{
    const double z = x * x;
    const double w = z * z;
    const double r = SF3 + z * SF4;
    const double s = z * x;
    return (float)((x + s * (SF1 + z * SF2)) + s * w * r);
}

// Rust twin: single::kernel_cos.
__device__ __forceinline__ float kernel_cos_f32(double x)
{
    const double z = x * x;
    const double w = z * z;
    const double r = CF2 + z * CF3;
    return (float)(((1.0 + z * CF0) + w * CF1) + (w * z) * r);
}

// Rust twin: single::rem_pio2 (y1 unused).
__device__ __forceinline__ RemPio2 rem_pio2_f32(float x)
{
    const unsigned int ix = __float_as_uint(x) & 0x7fffffffu;
    if (ix < 0x4dc90fdbu) {
        const double xd = (double)x;
        const double fn = rint(xd * INVPIO2);
        const int n = (int)fn;
        const double r = xd - fn * PIO2F_1;
        const double w = fn * PIO2F_1T;
        return RemPio2{n, r - w, 0.0};
    }
    return rem_pio2_large_f64((double)x);
}

// e^t rounded to float, for any non-NaN double t. Rust twin: single::exp_core.
__device__ __forceinline__ float exp_core_f32(double t)
{
    if (t > 89.0) {
        return inf_f32();
    }
    if (t < -104.0) {
        return 0.0f;
    }
    const double k = rint(t * INVLN2);
    const double r = t - k * LN2;
    double p = INV_FACT7 + r * INV_FACT8;
    p = INV_FACT6 + r * p;
    p = INV_FACT5 + r * p;
    p = INV_FACT4 + r * p;
    p = INV_FACT3 + r * p;
    p = INV_FACT2 + r * p;
    p = 1.0 + r * p;
    p = 1.0 + r * p;
    return (float)(p * pow2((int)k));
}

}  // namespace evo_math

// Rust twin: evo_core::math::sin_f32.
__device__ inline float evo_sin_f32(float x)
{
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f32();
    }
    const unsigned int ix = __float_as_uint(x) & 0x7fffffffu;
    if (ix <= 0x3f490fdau) {
        if (ix < 0x39800000u) {
            return x;
        }
        return kernel_sin_f32((double)x);
    }
    if (ix >= 0x7f800000u) {
        return nan_f32();
    }
    const RemPio2 r = rem_pio2_f32(x);
    switch (r.n & 3) {
    case 0: return kernel_sin_f32(r.y0);
    case 1: return kernel_cos_f32(r.y0);
    case 2: return -kernel_sin_f32(r.y0);
    default: return -kernel_cos_f32(r.y0);
    }
}

// Rust twin: evo_core::math::cos_f32.
__device__ inline float evo_cos_f32(float x)
{
    using namespace evo_math;
    if (isnan(x)) {
        return nan_f32();
    }
    const unsigned int ix = __float_as_uint(x) & 0x7fffffffu;
    if (ix <= 0x3f490fdau) {
        if (ix < 0x39800000u) {
            return 1.0f;
        }
        return kernel_cos_f32((double)x);
    }
    if (ix >= 0x7f800000u) {
        return nan_f32();
    }
    const RemPio2 r = rem_pio2_f32(x);
    switch (r.n & 3) {
    case 0: return kernel_cos_f32(r.y0);
    case 1: return -kernel_sin_f32(r.y0);
    case 2: return -kernel_cos_f32(r.y0);
    default: return kernel_sin_f32(r.y0);
    }
}

// Rust twin: evo_core::math::exp_f32.
__device__ inline float evo_exp_f32(float x)
{
    if (isnan(x)) {
        return evo_math::nan_f32();
    }
    return evo_math::exp_core_f32((double)x);
}

// Rust twin: evo_core::math::log_f32.
__device__ inline float evo_log_f32(float x)
{
    using namespace evo_math;
    if (isnan(x) || x < 0.0f) {
        return nan_f32();
    }
    if (x == 0.0f) {
        return -inf_f32();
    }
    if (x == inf_f32()) {
        return x;
    }
    unsigned int ix = __float_as_uint(x);
    int k = 0;
    if (ix < 0x00800000u) {
        ix = __float_as_uint(x * TWO_POW_25_F32);
        k = -25;
    }
    k += (int)(ix >> 23) - 127;
    const unsigned int mantissa = ix & 0x007fffffu;
    const unsigned int i = (mantissa + (0x00800000u - 0x003504f3u)) & 0x00800000u;
    const float m = __uint_as_float(mantissa | (i ^ 0x3f800000u));
    k += (int)(i >> 23);
    const double f = (double)m - 1.0;
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double p = z * (INV3 + z * (INV5 + z * (INV7 + z * (INV9 + z * INV11))));
    return (float)((double)k * LN2 + 2.0 * (s + s * p));
}

// Rust twin: evo_core::math::pow_f32.
__device__ inline float evo_pow_f32(float x, float y)
{
    using namespace evo_math;
    if (y == 0.0f || x == 1.0f) {
        return 1.0f;
    }
    if (isnan(x) || isnan(y)) {
        return nan_f32();
    }
    const float ax = fabsf(x);
    if (isinf(y)) {
        if (ax == 1.0f) {
            return 1.0f;
        }
        return (ax > 1.0f) == (y > 0.0f) ? inf_f32() : 0.0f;
    }
    const bool y_is_int = floorf(y) == y;
    const bool y_is_odd = y_is_int && floorf(0.5f * y) != 0.5f * y;
    if (x == 0.0f) {
        if (y < 0.0f) {
            return y_is_odd ? 1.0f / x : inf_f32();
        }
        return y_is_odd ? x : 0.0f;
    }
    if (isinf(x)) {
        if (x > 0.0f) {
            return y < 0.0f ? 0.0f : inf_f32();
        }
        if (y < 0.0f) {
            return y_is_odd ? -0.0f : 0.0f;
        }
        return y_is_odd ? -inf_f32() : inf_f32();
    }
    float sign = 1.0f;
    if (x < 0.0f) {
        if (!y_is_int) {
            return nan_f32();
        }
        if (y_is_odd) {
            sign = -1.0f;
        }
    }
    if (ax == 1.0f) {
        return sign;
    }
    if (y == 1.0f) {
        return x;
    }
    if (y == -1.0f) {
        return 1.0f / x;
    }
    if (y == 2.0f) {
        return x * x;
    }
    if (y == 0.5f) {
        return sqrtf(x);
    }
    const double t = (double)y * evo_log_f64((double)ax);
    return sign * exp_core_f32(t);
}

// ---- MathFunction (Rust: math/function.rs). Ids: 0 sin, 1 cos, 2 exp, 3 log, 4 pow; any other id gives the
// canonical NaN (the Rust enum cannot hold one).

// Rust twin: evo_core::math::MathFunction::apply_f32.
__device__ inline float evo_math_function_apply_f32(unsigned int function, float x, float y)
{
    switch (function) {
    case 0u: return evo_sin_f32(x);
    case 1u: return evo_cos_f32(x);
    case 2u: return evo_exp_f32(x);
    case 3u: return evo_log_f32(x);
    case 4u: return evo_pow_f32(x, y);
    default: return evo_math::nan_f32();
    }
}

// Rust twin: evo_core::math::MathFunction::apply_f64.
__device__ inline double evo_math_function_apply_f64(unsigned int function, double x, double y)
{
    switch (function) {
    case 0u: return evo_sin_f64(x);
    case 1u: return evo_cos_f64(x);
    case 2u: return evo_exp_f64(x);
    case 3u: return evo_log_f64(x);
    case 4u: return evo_pow_f64(x, y);
    default: return evo_math::nan_f64();
    }
}
