// Canonical special values, word access and the constants of every function (Rust: math/mod.rs and the
// constants of double.rs, single.rs, pow.rs, reduce_pio2.rs).
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

}  // namespace evo_math
