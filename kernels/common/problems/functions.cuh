// Per-coordinate terms and final combinations of the continuous test functions: the CUDA twins of
// crates/benchmarks/src/functions/*.rs, same operations in the same order (module docs there give the math).
// Transcendental functions come from common/math.cuh, except the cosines of Rastrigin (evo_rastrigin_cos) and
// Griewank (evo_griewank_cos), written with explicit fma like their Rust twins' mul_add; either way the Exact
// profile gives the CPU's bits.
#pragma once

#include "common/math.cuh"

// 2*pi and e as the Rust constants `functions::TWO_PI` (0x401921FB54442D18) and `functions::E`
// (0x4005BF0A8B145769).
#define EVO_TWO_PI 0x1.921fb54442d18p+2
#define EVO_E 0x1.5bf0a8b145769p+1

// Twin: functions::sphere::sphere_term.
__device__ __forceinline__ double evo_sphere_term(double z) { return z * z; }

// cos(2 pi z) for the Rastrigin term, accurate in absolute terms (2.6e-16), with no select of coefficients:
// n = rint(z) from (z + 1.5 2^52) - 1.5 2^52, a = |z - n| <= 1/2, folded to b = (a > 1/4 ? 1/2 - a : a)
// (exact), then the degree-10 Taylor polynomial of cos(pi v / 2) in v^2, v = 4b, by Horner with explicit fma,
// negated when folded. Twin and accuracy: functions::rastrigin::rastrigin_cos.
// (-1)^k (pi/2)^(2k) / (2k)!, k = 0..10, rounded to nearest (Rust: functions::rastrigin's COS). In constant
// memory so that each fma reads its coefficient as a constant-bank operand instead of two register moves.
__constant__ double EVO_RASTRIGIN_COS[11] = {
    1.0,
    -0x1.3bd3cc9be45dep+0,
    0x1.03c1f081b5ac4p-2,
    -0x1.55d3c7e3cbffap-6,
    0x1.e1f506891babbp-11,
    -0x1.a6d1f2a204a8cp-16,
    0x1.f9d38a3763cc3p-22,
    -0x1.b6e24f44b128fp-28,
    0x1.20c62c2f2d7f5p-34,
    -0x1.2a0c591af8314p-41,
    0x1.ef6e308d6d1c4p-49,
};

// evo_rastrigin_cos for |z| < 2^49 (callers that have checked the range of a whole group of arguments at once).
__device__ __forceinline__ double evo_rastrigin_cos_reduced(double z)
{
    const double rounder = 0x1.8p52;
    const double n = __dsub_rn(__dadd_rn(z, rounder), rounder);
    const double a = fabs(z - n);
    const bool far = a > 0.25;
    const double v = 4.0 * (far ? 0.5 - a : a);
    const double s = v * v;
    double p = EVO_RASTRIGIN_COS[10];
#pragma unroll
    for (int k = 9; k >= 0; --k) {
        p = fma(p, s, EVO_RASTRIGIN_COS[k]);
    }
    return far ? -p : p;
}

__device__ __forceinline__ double evo_rastrigin_cos(double z)
{
    if (!(fabs(z) < 0x1p49)) {
        z = fmod(z, 1.0);  // exact; never taken in the benchmark domains
    }
    return evo_rastrigin_cos_reduced(z);
}

// Twin: functions::rastrigin::rastrigin_term.
__device__ __forceinline__ double evo_rastrigin_term(double z)
{
    return (z * z - 10.0 * evo_rastrigin_cos(z)) + 10.0;
}

// evo_rastrigin_term for |z| < 2^49 (the same bits).
__device__ __forceinline__ double evo_rastrigin_term_reduced(double z)
{
    return (z * z - 10.0 * evo_rastrigin_cos_reduced(z)) + 10.0;
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

// Twin: functions::griewank::griewank_scale (0-based index i): 1 / sqrt(i + 1).
__device__ __forceinline__ double evo_griewank_scale(unsigned long long i) { return 1.0 / sqrt((double)(i + 1)); }

// (-1)^k / (2k)!, k = 0..10, rounded to nearest (Rust: functions::griewank's COS), in constant memory like
// EVO_RASTRIGIN_COS.
__constant__ double EVO_GRIEWANK_COS[11] = {
    1.0,
    -0x1.0000000000000p-1,
    0x1.5555555555555p-5,
    -0x1.6c16c16c16c17p-10,
    0x1.a01a01a01a01ap-16,
    -0x1.27e4fb7789f5cp-22,
    0x1.1eed8eff8d898p-29,
    -0x1.93974a8c07c9dp-37,
    0x1.ae7f3e733b81fp-45,
    -0x1.6827863b97d97p-53,
    0x1.e542ba4020225p-62,
};

// cos(x) for the Griewank factor, accurate in absolute terms (2.5e-16), with no select of coefficients:
// n = rint(x / pi) from the low bits of fma(x, 1/pi, 1.5 2^52), r = x - n (Q1 + Q2 + Q3) by three fma (the
// first exact), |r| <= pi/2, then the degree-10 Taylor polynomial of cos r in r^2 by Horner with explicit fma,
// the sign flipped for odd n; |x| >= 2^20 and NaN take evo_cos_f64. Twin and accuracy:
// functions::griewank::griewank_cos.
// evo_griewank_cos for |x| < 2^20 (callers that have checked the range of a whole group of arguments at once).
__device__ __forceinline__ double evo_griewank_cos_reduced(double x)
{
    const double rounder = 0x1.8p52;
    const double t = fma(x, 0x1.45f306dc9c883p-2, rounder);
    const unsigned int half_periods = (unsigned int)__double2loint(t);
    const double n = t - rounder;
    double r = fma(-n, 0x1.921fb54442d18p+1, x);
    r = fma(-n, 0x1.1a62633145c07p-53, r);
    r = fma(-n, -0x1.f1976b7ed8fbcp-109, r);
    const double s = r * r;
    double p = EVO_GRIEWANK_COS[10];
#pragma unroll
    for (int k = 9; k >= 0; --k) {
        p = fma(p, s, EVO_GRIEWANK_COS[k]);
    }
    const unsigned long long negative = (unsigned long long)(half_periods & 1u);
    return __longlong_as_double(__double_as_longlong(p) ^ (long long)(negative << 63));
}

__device__ __forceinline__ double evo_griewank_cos(double x)
{
    if (!(fabs(x) < 0x1p20)) {
        return evo_cos_f64(x);
    }
    return evo_griewank_cos_reduced(x);
}

// Twin: functions::griewank::griewank_factor (0-based index i).
__device__ __forceinline__ double evo_griewank_factor(unsigned long long i, double z)
{
    return evo_griewank_cos(z * evo_griewank_scale(i));
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
