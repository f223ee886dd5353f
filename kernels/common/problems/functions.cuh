// Per-coordinate terms and final combinations of the continuous test functions: the CUDA twins of
// crates/benchmarks/src/functions/*.rs, same operations in the same order (module docs there give the math).
// Transcendental functions come from common/math.cuh, so the Exact profile gives the CPU's bits.
#pragma once

#include "common/math.cuh"

// 2*pi and e as the Rust constants `functions::TWO_PI` (0x401921FB54442D18) and `functions::E`
// (0x4005BF0A8B145769).
#define EVO_TWO_PI 0x1.921fb54442d18p+2
#define EVO_E 0x1.5bf0a8b145769p+1

// Twin: functions::sphere::sphere_term.
__device__ __forceinline__ double evo_sphere_term(double z) { return z * z; }

// Twin: functions::rastrigin::rastrigin_term.
__device__ __forceinline__ double evo_rastrigin_term(double z)
{
    return (z * z - 10.0 * evo_cos_f64(EVO_TWO_PI * z)) + 10.0;
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

// Twin: functions::griewank::griewank_factor (0-based index i).
__device__ __forceinline__ double evo_griewank_factor(unsigned long long i, double z)
{
    return evo_cos_f64(z / sqrt((double)(i + 1)));
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
