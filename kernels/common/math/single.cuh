// f32 sin, cos, exp, log, pow, computed in f64 and rounded once (Rust: math/single.rs).
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
#include "common/math/pow.cuh"

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
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's intrinsic (see common/math.cuh).
    return __sinf(x);
#else
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
#endif
}

// Rust twin: evo_core::math::cos_f32.
__device__ inline float evo_cos_f32(float x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's intrinsic (see common/math.cuh).
    return __cosf(x);
#else
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
#endif
}

// Rust twin: evo_core::math::exp_f32.
__device__ inline float evo_exp_f32(float x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's intrinsic (see common/math.cuh).
    return __expf(x);
#else
    if (isnan(x)) {
        return evo_math::nan_f32();
    }
    return evo_math::exp_core_f32((double)x);
#endif
}

// Rust twin: evo_core::math::log_f32.
__device__ inline float evo_log_f32(float x)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's intrinsic (see common/math.cuh).
    return __logf(x);
#else
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
#endif
}

// Rust twin: evo_core::math::pow_f32.
__device__ inline float evo_pow_f32(float x, float y)
{
#if defined(EVO_PROFILE_FAST)
    // Fast profile: CUDA's intrinsic (see common/math.cuh).
    return __powf(x, y);
#else
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
#endif
}
