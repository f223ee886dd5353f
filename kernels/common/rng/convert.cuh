// Conversions of random words to numbers (Rust twin: evo_rng::convert; spec rng.md §5). Same operations in
// the same order as the Rust functions of the same names; under the Exact profile (no FMA contraction) both
// give the same bits. Box–Muller uses the portable math, not logf/__sincosf.
#pragma once
#include "common/math.cuh"

#define EVO_TWO_POW_MINUS_32_F32 2.3283064365386963e-10f
#define EVO_TWO_POW_MINUS_33_F32 1.1641532182693481e-10f
#define EVO_TWO_POW_MINUS_53_F64 1.1102230246251565e-16
#define EVO_TWO_POW_MINUS_54_F64 5.5511151231257827e-17
// f32(2^-32) * 6.2831855f, an exact product (cuRAND's CURAND_2POW32_INV_2PI).
#define EVO_ANGLE_STEP_F32 (EVO_TWO_POW_MINUS_32_F32 * 6.2831855f)

// Rust twin: evo_rng::convert::uniform_f32. (0, 1]: f32(w) * 2^-32 + 2^-33.
__device__ __forceinline__ float evo_uniform_f32(unsigned int word)
{
    return __fadd_rn(__fmul_rn(__uint2float_rn(word), EVO_TWO_POW_MINUS_32_F32), EVO_TWO_POW_MINUS_33_F32);
}

// Rust twin: evo_rng::convert::uniform_f64. (0, 1): z = w0 ^ (w1 << 21), z * 2^-53 + 2^-54.
__device__ __forceinline__ double evo_uniform_f64(unsigned int first, unsigned int second)
{
    const unsigned long long z = (unsigned long long)first ^ ((unsigned long long)second << 21);
    return __dadd_rn(__dmul_rn(__ull2double_rn(z), EVO_TWO_POW_MINUS_53_F64), EVO_TWO_POW_MINUS_54_F64);
}

// Rust twin: evo_rng::convert::below. [0, n) by Lemire's multiply-shift without rejection.
__device__ __forceinline__ unsigned int evo_below(unsigned int word, unsigned int n)
{
    return __umulhi(word, n);
}

// Rust twin: evo_rng::convert::skip_taken. `taken` sorted increasingly.
__device__ __forceinline__ unsigned int evo_skip_taken(unsigned int r, const unsigned int* taken, unsigned int count)
{
    for (unsigned int i = 0; i < count; ++i) {
        if (r >= taken[i]) {
            r += 1;
        }
    }
    return r;
}

// Rust twin: evo_rng::convert::box_muller. Returns (r sin phi, r cos phi).
__device__ __forceinline__ float2 evo_box_muller(unsigned int x, unsigned int y)
{
    const float u = evo_uniform_f32(x);
    const float angle = __fadd_rn(__fmul_rn(__uint2float_rn(y), EVO_ANGLE_STEP_F32), EVO_ANGLE_STEP_F32 / 2.0f);
    const float radius = __fsqrt_rn(__fmul_rn(-2.0f, evo_log_f32(u)));
    return make_float2(__fmul_rn(radius, evo_sin_f32(angle)), __fmul_rn(radius, evo_cos_f32(angle)));
}

// Rust twin: evo_rng::convert::bernoulli.
__device__ __forceinline__ bool evo_bernoulli(unsigned int word, float p)
{
    return evo_uniform_f32(word) < p;
}

// Rust twin: evo_rng::convert::uniform_in. a + (b - a) * u, clamped to [a, b].
__device__ __forceinline__ float evo_uniform_in(unsigned int word, float a, float b)
{
    const float x = __fadd_rn(a, __fmul_rn(__fsub_rn(b, a), evo_uniform_f32(word)));
    // Rust's f32::clamp, comparison for comparison (fminf/fmaxf would differ on signed zeros).
    return x < a ? a : (x > b ? b : x);
}
