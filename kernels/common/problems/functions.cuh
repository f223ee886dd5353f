// Per-coordinate terms and final combinations of the continuous test functions: the CUDA twins of
// crates/benchmarks/src/functions/*.rs, same operations in the same order (module docs there give the math).
// Transcendental functions come from common/math.cuh, except the cosines of Rastrigin (evo_rastrigin_wave,
// 10 - 10 cos(2 pi z)) and Griewank (evo_griewank_cos), written with explicit fma like their Rust twins'
// mul_add; either way the Exact profile gives the CPU's bits.
#pragma once

#include "common/math.cuh"

// 2*pi and e as the Rust constants `functions::TWO_PI` (0x401921FB54442D18) and `functions::E`
// (0x4005BF0A8B145769).
#define EVO_TWO_PI 0x1.921fb54442d18p+2
#define EVO_E 0x1.5bf0a8b145769p+1

// Twin: functions::sphere::sphere_term.
__device__ __forceinline__ double evo_sphere_term(double z) { return z * z; }

// 10 - 10 cos(2 pi z) for the Rastrigin term, accurate in absolute terms (2.9e-15), with no select of
// coefficients: m = rint(2z) from fma(2, z, 1.5 2^52) - 1.5 2^52, r = z - m/2 = fma(m, -0.5, z) (exact,
// |r| <= 1/4), s = r^2, then s W(s) (even m) or 20 - s W(s) (odd m) by one fma, W the degree-7 minimax
// polynomial by Horner with explicit fma; the sign of s and the 20 come from the low bit of the rounded value
// by integer operations. Twin and accuracy: functions::rastrigin::rastrigin_wave.
// w_1..w_8 (Rust: functions::rastrigin's WAVE). In constant memory so that each fma reads its coefficient as
// a constant-bank operand instead of two register moves.
__constant__ double EVO_RASTRIGIN_WAVE[8] = {
    0x1.8ac8bfc2dd754p+7,
    -0x1.44b26ca22303ap+9,
    0x1.ab48b9dcb15b7p+9,
    -0x1.2d3924111ed4bp+9,
    0x1.084335f311ab3p+8,
    -0x1.3c237a925e5d0p+6,
    0x1.121e4485a0c3dp+4,
    -0x1.5c30aec45cbd8p+1,
};

// evo_rastrigin_wave for |z| < 2^49 (callers that have checked the range of a whole group of arguments at
// once).
__device__ __forceinline__ double evo_rastrigin_wave_reduced(double z)
{
    const double rounder = 0x1.8p52;
    const double t = fma(2.0, z, rounder);
    const unsigned int odd = (unsigned int)__double2loint(t) & 1u;
    const double m = t - rounder;
    const double r = fma(m, -0.5, z);
    const double s = r * r;
    double p = EVO_RASTRIGIN_WAVE[7];
#pragma unroll
    for (int k = 6; k >= 0; --k) {
        p = fma(p, s, EVO_RASTRIGIN_WAVE[k]);
    }
    // Even m: s W(s); odd m: 20 - s W(s).
    // Integer operations on the high words: the sign bit of s, and 20.0 = 0x40340000'00000000 or +0.0.
    const unsigned int sign = odd << 31;
    const double signed_s = __hiloint2double((int)((unsigned int)__double2hiint(s) ^ sign), __double2loint(s));
    const double base = __hiloint2double((int)((0u - odd) & 0x40340000u), 0);
    return fma(signed_s, p, base);
}

__device__ __forceinline__ double evo_rastrigin_wave(double z)
{
    if (!(fabs(z) < 0x1p49)) {
        z = fmod(z, 1.0);  // exact; never taken in the benchmark domains
    }
    return evo_rastrigin_wave_reduced(z);
}

// Twin: functions::rastrigin::rastrigin_term, z^2 + (10 - 10 cos(2 pi z)) by one fma.
__device__ __forceinline__ double evo_rastrigin_term(double z) { return fma(z, z, evo_rastrigin_wave(z)); }

// evo_rastrigin_term for |z| < 2^49 (the same bits).
__device__ __forceinline__ double evo_rastrigin_term_reduced(double z)
{
    return fma(z, z, evo_rastrigin_wave_reduced(z));
}

// Twin: functions::step::step_term.
__device__ __forceinline__ double evo_step_term(double x)
{
    const double k = floor(x + 0.5);
    return k * k;
}

// Twin: functions::schwefel::schwefel_term.
__device__ __forceinline__ double evo_schwefel_term(double x) { return -x * evo_sin_f64(sqrt(fabs(x))); }

// Twin: functions::rosenbrock::rosenbrock_term.
__device__ __forceinline__ double evo_rosenbrock_term(double zi, double znext)
{
    const double t = zi * zi - znext;
    const double d = zi - 1.0;
    return 100.0 * t * t + d * d;
}

// Twin: functions::griewank::griewank_scale (0-based index i): 1 / sqrt(K), K = (i + 1) pi^2 rounded, pi^2
// rounded to nearest, the factor's argument in half turns; by fused multiply-adds only (the Rust docs give the
// steps and their accuracy, 0.84 ulp): a seed from the bits of K, then two third-order corrections. i + 1 <
// 2^52 (a row of i + 1 floats in device memory), so that (double)(i + 1) is the exact sum of the integer in
// the low bits of 2^52's significand and -2^52: one addition instead of a 64-bit conversion.
__device__ __forceinline__ double evo_griewank_scale(unsigned long long i)
{
    const unsigned long long k = i + 1;
    const double kd = __hiloint2double(0x43300000 | (int)(k >> 32), (int)(unsigned int)k) - 0x1p52;
    const double big_k = kd * 0x1.3bd3cc9be45dep+3;
    double y = __longlong_as_double(0x5fe6eb50c7b537a9LL - (__double_as_longlong(big_k) >> 1));
#pragma unroll
    for (int step = 0; step < 2; ++step) {
        const double e = fma(-big_k, y * y, 1.0);
        double q = fma(e, 0.3125, 0.375);
        q = fma(e, q, 0.5);
        y = fma(y, e * q, y);
    }
    return y;
}

// c_0..c_8, the minimax polynomial of cos(pi sqrt(s)) on 0 <= s <= 1/4 with c_0 = 1 (Rust:
// functions::griewank's COS), in constant memory like EVO_RASTRIGIN_WAVE.
__constant__ double EVO_GRIEWANK_COS[9] = {
    1.0,
    -0x1.3bd3cc9be45dcp+2,
    0x1.03c1f081b59c8p+2,
    -0x1.55d3c7e3c1160p+0,
    0x1.e1f50681caedep-3,
    -0x1.a6d1efeb4f786p-6,
    0x1.f9d25db6fd619p-10,
    -0x1.b696d40901395p-14,
    0x1.168d589d16fe0p-18,
};

// cos(pi u) for the Griewank factor (u = z * evo_griewank_scale(i)), accurate in absolute terms (2.7e-16), with
// no select of coefficients: m = rint(u) from (u + 1.5 2^52) - 1.5 2^52, r = u - m (exact, |r| <= 1/2), then
// the degree-8 minimax polynomial of cos(pi r) in r^2 by Horner with explicit fma, the sign flipped for odd m
// (the low bit of u + 1.5 2^52); |u| >= 2^20 (and NaN) first reduced modulo 2 (exact). Twin and accuracy:
// functions::griewank::griewank_cos.
// evo_griewank_cos for |u| < 2^20 (callers that have checked the range of a whole group of arguments at once).
__device__ __forceinline__ double evo_griewank_cos_reduced(double u)
{
    const double rounder = 0x1.8p52;
    const double t = u + rounder;
    const unsigned int odd = (unsigned int)__double2loint(t) & 1u;
    const double m = t - rounder;
    const double r = u - m;
    const double s = r * r;
    double p = EVO_GRIEWANK_COS[8];
#pragma unroll
    for (int k = 7; k >= 0; --k) {
        p = fma(p, s, EVO_GRIEWANK_COS[k]);
    }
    const unsigned int sign = odd << 31;
    return __hiloint2double((int)((unsigned int)__double2hiint(p) ^ sign), __double2loint(p));
}

__device__ __forceinline__ double evo_griewank_cos(double u)
{
    if (!(fabs(u) < 0x1p20)) {
        u = fmod(u, 2.0);  // exact; never taken in the benchmark domains
    }
    return evo_griewank_cos_reduced(u);
}

// cos(pi u) for user sources (evo_benchmarks::cuda::UserProblem and UserFunction include this header):
// evo_griewank_cos, within 2.63e-16 absolute, one polynomial whatever the quadrant, with a NaN or infinite u
// giving the canonical NaN (the CPU and the GPU would otherwise return NaNs of different bits). Twin:
// evo_benchmarks::functions::cos_pi.
__device__ __forceinline__ double evo_cos_pi_f64(double u)
{
    if (!(fabs(u) <= 0x1.fffffffffffffp+1023)) {
        return evo_math::nan_f64();
    }
    return evo_griewank_cos(u);
}

// cos(pi z c) of the exact product z c, for |z| < 2^20 and |c| <= 1 (callers that have checked the range
// of a whole group of arguments at once): m = rint(z c) from the low bits of fma(z, c, 1.5 2^52), r = fma(z, c,
// -m), |r| <= 1/2, then the polynomial and the sign of evo_griewank_cos_reduced. Twin:
// functions::griewank::griewank_factor_scaled.
__device__ __forceinline__ double evo_griewank_factor_scaled_reduced(double z, double c)
{
    const double rounder = 0x1.8p52;
    const double t = fma(z, c, rounder);
    const unsigned int odd = (unsigned int)__double2loint(t) & 1u;
    const double m = t - rounder;
    const double r = fma(z, c, -m);
    const double s = r * r;
    double p = EVO_GRIEWANK_COS[8];
#pragma unroll
    for (int k = 7; k >= 0; --k) {
        p = fma(p, s, EVO_GRIEWANK_COS[k]);
    }
    const unsigned int sign = odd << 31;
    return __hiloint2double((int)((unsigned int)__double2hiint(p) ^ sign), __double2loint(p));
}

__device__ __forceinline__ double evo_griewank_factor_scaled(double z, double c)
{
    if (!(fabs(z) < 0x1p20)) {
        return evo_griewank_cos(z * c);  // never taken in the benchmark domains
    }
    return evo_griewank_factor_scaled_reduced(z, c);
}

// Twin: functions::griewank::griewank_factor (0-based index i).
__device__ __forceinline__ double evo_griewank_factor(unsigned long long i, double z)
{
    return evo_griewank_factor_scaled(z, evo_griewank_scale(i));
}

// Twin: functions::griewank::griewank_combine.
__device__ __forceinline__ double evo_griewank_combine(double s, double p) { return (s / 4000.0 - p) + 1.0; }

// Twin: functions::ackley::ackley_cos_term.
__device__ __forceinline__ double evo_ackley_cos_term(double z) { return evo_cos_f64(EVO_TWO_PI * z); }

// Twin: functions::ackley::ackley_combine.
__device__ __forceinline__ double evo_ackley_combine(unsigned long long n, double s1, double s2)
{
    const double count = (double)n;
    const double a = evo_exp_f64(-0.2 * sqrt(s1 / count));
    const double b = evo_exp_f64(s2 / count);
    return (20.0 - 20.0 * a) + (EVO_E - b);
}

// Twin: functions::salomon::salomon_combine.
__device__ __forceinline__ double evo_salomon_combine(double g)
{
    const double r = sqrt(g);
    return (1.0 - evo_cos_f64(EVO_TWO_PI * r)) + 0.1 * r;
}

// Twin: functions::discus::discus_term.
__device__ __forceinline__ double evo_discus_term(unsigned long long i, double z)
{
    const double square = z * z;
    return i == 0 ? 1.0e6 * square : square;
}

// Twin: functions::sum_squares::sum_squares_term.
__device__ __forceinline__ double evo_sum_squares_term(unsigned long long i, double z)
{
    return (double)(i + 1) * (z * z);
}

// Twin: functions::elliptic::elliptic_term.
__device__ __forceinline__ double evo_elliptic_term(unsigned long long i, unsigned long long n, double z)
{
    const double weight = n > 1 ? evo_pow_f64(1.0e6, (double)i / (double)(n - 1)) : 1.0;
    return weight * (z * z);
}
