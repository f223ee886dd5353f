// CEC 2006 g01-g24: the CUDA twin of crates/benchmarks/src/cec2006/g*.rs (formulas: shared spec cec2006.md).
//
// Each evo_cec2006_gNN(x, g, h) returns f(x) and writes g_k(x) to g, h_j(x) to h. Every expression is the
// Rust one, operation for operation and left to right, with the portable evo_*_f64 functions of
// common/math.cuh and IEEE sqrt/fabs; under the Exact profile (no contraction) the bits equal the CPU's.
// Keep the two files in step: a change to one formula is a change to both.
#pragma once

#include "common/math.cuh"

#define EVO_CEC2006_MAX_DIMENSION 24
#define EVO_CEC2006_MAX_INEQUALITIES 38
#define EVO_CEC2006_MAX_EQUALITIES 19

// pi = 3.141592653589793, std::f64::consts::PI.
#define EVO_CEC2006_PI 0x1.921fb54442d18p+1

__device__ inline double evo_cec2006_g01(const double* x, double* g, double* h)
{
    const double s1 = x[0] + x[1] + x[2] + x[3];
    const double s2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
    double s3 = 0.0;
    for (int i = 4; i < 13; ++i) {
        s3 += x[i];
    }
    g[0] = 2.0 * x[0] + 2.0 * x[1] + x[9] + x[10] - 10.0;
    g[1] = 2.0 * x[0] + 2.0 * x[2] + x[9] + x[11] - 10.0;
    g[2] = 2.0 * x[1] + 2.0 * x[2] + x[10] + x[11] - 10.0;
    g[3] = -8.0 * x[0] + x[9];
    g[4] = -8.0 * x[1] + x[10];
    g[5] = -8.0 * x[2] + x[11];
    g[6] = -2.0 * x[3] - x[4] + x[9];
    g[7] = -2.0 * x[5] - x[6] + x[10];
    g[8] = -2.0 * x[7] - x[8] + x[11];
    return 5.0 * s1 - 5.0 * s2 - s3;
}

__device__ inline double evo_cec2006_g02(const double* x, double* g, double* h)
{
    double sum_cos4 = 0.0;
    double prod_cos2 = 1.0;
    double weighted = 0.0;
    double prod = 1.0;
    double sum = 0.0;
    for (int i = 0; i < 20; ++i) {
        const double v = x[i];
        const double c = evo_cos_f64(v);
        const double c2 = c * c;
        sum_cos4 += c2 * c2;
        prod_cos2 *= c2;
        weighted += (double)(i + 1) * v * v;
        prod *= v;
        sum += v;
    }
    g[0] = 0.75 - prod;
    g[1] = sum - 150.0;
    return -fabs((sum_cos4 - 2.0 * prod_cos2) / sqrt(weighted));
}

__device__ inline double evo_cec2006_g03(const double* x, double* g, double* h)
{
    double prod = 1.0;
    double squares = 0.0;
    for (int i = 0; i < 10; ++i) {
        prod *= x[i];
        squares += x[i] * x[i];
    }
    h[0] = squares - 1.0;
    return -100000.0 * prod;
}

__device__ inline double evo_cec2006_g04(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    const double u = 85.334407 + 0.0056858 * x2 * x5 + 0.0006262 * x1 * x4 - 0.0022053 * x3 * x5;
    const double v = 80.51249 + 0.0071317 * x2 * x5 + 0.0029955 * x1 * x2 + 0.0021813 * x3 * x3;
    const double w = 9.300961 + 0.0047026 * x3 * x5 + 0.0012547 * x1 * x3 + 0.0019085 * x3 * x4;
    g[0] = u - 92.0;
    g[1] = -u;
    g[2] = v - 110.0;
    g[3] = -v + 90.0;
    g[4] = w - 25.0;
    g[5] = -w + 20.0;
    return 5.3578547 * x3 * x3 + 0.8356891 * x1 * x5 + 37.293239 * x1 - 40792.141;
}

__device__ inline double evo_cec2006_g05(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3];
    h[0] = 1000.0 * evo_sin_f64(-x3 - 0.25) + 1000.0 * evo_sin_f64(-x4 - 0.25) + 894.8 - x1;
    h[1] = 1000.0 * evo_sin_f64(x3 - 0.25) + 1000.0 * evo_sin_f64(x3 - x4 - 0.25) + 894.8 - x2;
    h[2] = 1000.0 * evo_sin_f64(x4 - 0.25) + 1000.0 * evo_sin_f64(x4 - x3 - 0.25) + 1294.8;
    g[0] = -x4 + x3 - 0.55;
    g[1] = -x3 + x4 - 0.55;
    return 3.0 * x1 + 0.000001 * x1 * x1 * x1 + 2.0 * x2 + 0.000002 / 3.0 * x2 * x2 * x2;
}

__device__ inline double evo_cec2006_g06(const double* x, double* g, double* h)
{
    const double a = x[0] - 10.0;
    const double b = x[1] - 20.0;
    const double p = x[0] - 5.0;
    const double q = x[1] - 5.0;
    const double r = x[0] - 6.0;
    g[0] = 100.0 - p * p - q * q;
    g[1] = r * r + q * q - 82.81;
    return a * a * a + b * b * b;
}

__device__ inline double evo_cec2006_g07(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    const double x6 = x[5], x7 = x[6], x8 = x[7], x9 = x[8], x10 = x[9];
    g[0] = -105.0 + 4.0 * x1 + 5.0 * x2 - 3.0 * x7 + 9.0 * x8;
    g[1] = 10.0 * x1 - 8.0 * x2 - 17.0 * x7 + 2.0 * x8;
    g[2] = -8.0 * x1 + 2.0 * x2 + 5.0 * x9 - 2.0 * x10 - 12.0;
    g[3] = 3.0 * (x1 - 2.0) * (x1 - 2.0) + 4.0 * (x2 - 3.0) * (x2 - 3.0) + 2.0 * x3 * x3 - 7.0 * x4 - 120.0;
    g[4] = 5.0 * x1 * x1 + 8.0 * x2 + (x3 - 6.0) * (x3 - 6.0) - 2.0 * x4 - 40.0;
    g[5] = x1 * x1 + 2.0 * (x2 - 2.0) * (x2 - 2.0) - 2.0 * x1 * x2 + 14.0 * x5 - 6.0 * x6;
    g[6] = 0.5 * (x1 - 8.0) * (x1 - 8.0) + 2.0 * (x2 - 4.0) * (x2 - 4.0) + 3.0 * x5 * x5 - x6 - 30.0;
    g[7] = -3.0 * x1 + 6.0 * x2 + 12.0 * (x9 - 8.0) * (x9 - 8.0) - 7.0 * x10;
    return x1 * x1 + x2 * x2 + x1 * x2 - 14.0 * x1 - 16.0 * x2 + (x3 - 10.0) * (x3 - 10.0)
        + 4.0 * (x4 - 5.0) * (x4 - 5.0) + (x5 - 3.0) * (x5 - 3.0) + 2.0 * (x6 - 1.0) * (x6 - 1.0)
        + 5.0 * x7 * x7 + 7.0 * (x8 - 11.0) * (x8 - 11.0) + 2.0 * (x9 - 10.0) * (x9 - 10.0)
        + (x10 - 7.0) * (x10 - 7.0) + 45.0;
}

__device__ inline double evo_cec2006_g08(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1];
    const double s1 = evo_sin_f64(2.0 * EVO_CEC2006_PI * x1);
    const double s2 = evo_sin_f64(2.0 * EVO_CEC2006_PI * x2);
    g[0] = x1 * x1 - x2 + 1.0;
    g[1] = 1.0 - x1 + (x2 - 4.0) * (x2 - 4.0);
    return -(s1 * s1 * s1) * s2 / (x1 * x1 * x1 * (x1 + x2));
}

__device__ inline double evo_cec2006_g09(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4], x6 = x[5], x7 = x[6];
    g[0] = -127.0 + 2.0 * x1 * x1 + 3.0 * x2 * x2 * x2 * x2 + x3 + 4.0 * x4 * x4 + 5.0 * x5;
    g[1] = -282.0 + 7.0 * x1 + 3.0 * x2 + 10.0 * x3 * x3 + x4 - x5;
    g[2] = -196.0 + 23.0 * x1 + x2 * x2 + 6.0 * x6 * x6 - 8.0 * x7;
    g[3] = 4.0 * x1 * x1 + x2 * x2 - 3.0 * x1 * x2 + 2.0 * x3 * x3 + 5.0 * x6 - 11.0 * x7;
    return (x1 - 10.0) * (x1 - 10.0) + 5.0 * (x2 - 12.0) * (x2 - 12.0) + x3 * x3 * x3 * x3
        + 3.0 * (x4 - 11.0) * (x4 - 11.0) + 10.0 * x5 * x5 * x5 * x5 * x5 * x5 + 7.0 * x6 * x6
        + x7 * x7 * x7 * x7 - 4.0 * x6 * x7 - 10.0 * x6 - 8.0 * x7;
}

__device__ inline double evo_cec2006_g10(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3];
    const double x5 = x[4], x6 = x[5], x7 = x[6], x8 = x[7];
    g[0] = -1.0 + 0.0025 * (x4 + x6);
    g[1] = -1.0 + 0.0025 * (x5 + x7 - x4);
    g[2] = -1.0 + 0.01 * (x8 - x5);
    g[3] = -x1 * x6 + 833.33252 * x4 + 100.0 * x1 - 83333.333;
    g[4] = -x2 * x7 + 1250.0 * x5 + x2 * x4 - 1250.0 * x4;
    g[5] = -x3 * x8 + 1250000.0 + x3 * x5 - 2500.0 * x5;
    return x1 + x2 + x3;
}

__device__ inline double evo_cec2006_g11(const double* x, double* g, double* h)
{
    h[0] = x[1] - x[0] * x[0];
    return x[0] * x[0] + (x[1] - 1.0) * (x[1] - 1.0);
}

__device__ inline double evo_cec2006_g12(const double* x, double* g, double* h)
{
    double nearest = __longlong_as_double(0x7ff0000000000000ll);  // +infinity
    for (int p = 1; p <= 9; ++p) {
        const double a = x[0] - (double)p;
        for (int q = 1; q <= 9; ++q) {
            const double b = x[1] - (double)q;
            for (int r = 1; r <= 9; ++r) {
                const double c = x[2] - (double)r;
                const double d = a * a + b * b + c * c;
                if (d < nearest) {
                    nearest = d;
                }
            }
        }
    }
    g[0] = nearest - 0.0625;
    const double a = x[0] - 5.0, b = x[1] - 5.0, c = x[2] - 5.0;
    return -(100.0 - a * a - b * b - c * c) / 100.0;
}

__device__ inline double evo_cec2006_g13(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    h[0] = x1 * x1 + x2 * x2 + x3 * x3 + x4 * x4 + x5 * x5 - 10.0;
    h[1] = x2 * x3 - 5.0 * x4 * x5;
    h[2] = x1 * x1 * x1 + x2 * x2 * x2 + 1.0;
    return evo_exp_f64(x1 * x2 * x3 * x4 * x5);
}

__device__ inline double evo_cec2006_g14(const double* x, double* g, double* h)
{
    const double c[10] = {-6.089, -17.164, -34.054, -5.914, -24.721, -14.986, -24.1, -10.708, -26.662, -22.179};
    double total = 0.0;
    for (int i = 0; i < 10; ++i) {
        total += x[i];
    }
    double f = 0.0;
    for (int i = 0; i < 10; ++i) {
        f += x[i] * (c[i] + evo_log_f64(x[i] / total));
    }
    h[0] = x[0] + 2.0 * x[1] + 2.0 * x[2] + x[5] + x[9] - 2.0;
    h[1] = x[3] + 2.0 * x[4] + x[5] + x[6] - 1.0;
    h[2] = x[2] + x[6] + x[7] + 2.0 * x[8] + x[9] - 1.0;
    return f;
}

__device__ inline double evo_cec2006_g15(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2];
    h[0] = x1 * x1 + x2 * x2 + x3 * x3 - 25.0;
    h[1] = 8.0 * x1 + 14.0 * x2 + 7.0 * x3 - 56.0;
    return 1000.0 - x1 * x1 - 2.0 * x2 * x2 - x3 * x3 - x1 * x2 - x1 * x3;
}

__device__ inline double evo_cec2006_g16(const double* x, double* g, double* h)
{
    const double lower[17] = {213.1, 17.505, 11.275, 214.228, 7.458, 0.961, 1.612, 0.146, 107.99, 922.693,
                              926.832, 18.766, 1072.163, 8961.448, 0.063, 71084.33, 2802713.0};
    const double upper[17] = {405.23, 1053.6667, 35.03, 665.585, 584.463, 265.916, 7.046, 0.222, 273.366,
                              1286.105, 1444.046, 537.141, 3247.039, 26844.086, 0.386, 140000.0, 12146108.0};
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    const double y1 = x2 + x3 + 41.6;
    const double c1 = 0.024 * x4 - 4.62;
    const double y2 = 12.5 / c1 + 12.0;
    const double c2 = 0.0003535 * x1 * x1 + 0.5311 * x1 + 0.08705 * y2 * x1;
    const double c3 = 0.052 * x1 + 78.0 + 0.002377 * y2 * x1;
    const double y3 = c2 / c3;
    const double y4 = 19.0 * y3;
    const double c4 = 0.04782 * (x1 - y3) + 0.1956 * (x1 - y3) * (x1 - y3) / x2 + 0.6376 * y4 + 1.594 * y3;
    const double c5 = 100.0 * x2;
    const double c6 = x1 - y3 - y4;
    const double c7 = 0.950 - c4 / c5;
    const double y5 = c6 * c7;
    const double y6 = x1 - y5 - y4 - y3;
    const double c8 = 0.995 * (y5 + y4);
    const double y7 = c8 / y1;
    const double y8 = c8 / 3798.0;
    const double c9 = y7 - 0.0663 * y7 / y8 - 0.3153;
    const double y9 = 96.82 / c9 + 0.321 * y1;
    const double y10 = 1.29 * y5 + 1.258 * y4 + 2.29 * y3 + 1.71 * y6;
    const double y11 = 1.71 * x1 - 0.452 * y4 + 0.580 * y3;
    const double c10 = 12.3 / 752.3;
    const double c11 = 1.75 * y2 * 0.995 * x1;
    const double c12 = 0.995 * y10 + 1998.0;
    const double y12 = c10 * x1 + c11 / c12;
    const double y13 = c12 - 1.75 * y2;
    const double y14 = 3623.0 + 64.4 * x2 + 58.4 * x3 + 146312.0 / (y9 + x5);
    const double c13 = 0.995 * y10 + 60.8 * x2 + 48.0 * x4 - 0.1121 * y14 - 5095.0;
    const double y15 = y13 / c13;
    const double y16 = 148000.0 - 331000.0 * y15 + 40.0 * y13 - 61.0 * y15 * y13;
    const double c14 = 2324.0 * y10 - 28740000.0 * y2;
    const double y17 = 14130000.0 - 1328.0 * y10 - 531.0 * y11 + c14 / c12;
    const double c15 = y13 / y15 - y13 / 0.52;
    const double c16 = 1.104 - 0.72 * y15;
    const double c17 = y9 + x5;
    g[0] = 0.28 / 0.72 * y5 - y4;
    g[1] = x3 - 1.5 * x2;
    g[2] = 3496.0 * y2 / c12 - 21.0;
    g[3] = 110.6 + y1 - 62212.0 / c17;
    const double y[17] = {y1, y2, y3, y4, y5, y6, y7, y8, y9, y10, y11, y12, y13, y14, y15, y16, y17};
    for (int k = 0; k < 17; ++k) {
        g[4 + 2 * k] = lower[k] - y[k];
        g[5 + 2 * k] = y[k] - upper[k];
    }
    return 0.000117 * y14 + 0.1365 + 0.00002358 * y13 + 0.000001502 * y16 + 0.0321 * y12 + 0.004324 * y5
        + 0.0001 * c15 / c16 + 37.48 * y2 / c12 - 0.0000005843 * y17;
}

__device__ inline double evo_cec2006_g17(const double* x, double* g, double* h)
{
    const double theta = 1.48477, phi = 1.47588, k = 131.078, a = 0.90798;
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4], x6 = x[5];
    const double cos_phi = evo_cos_f64(phi);
    const double sin_phi = evo_sin_f64(phi);
    const double a1 = 300.0 - (x3 * x4 * evo_cos_f64(theta - x6) - a * x3 * x3 * cos_phi) / k;
    const double a2 = -(x3 * x4 * evo_cos_f64(theta + x6) - a * x4 * x4 * cos_phi) / k;
    const double a3 = -(x3 * x4 * evo_sin_f64(theta + x6) - a * x4 * x4 * sin_phi) / k;
    const double a4 = 200.0 - (x3 * x4 * evo_sin_f64(theta - x6) - a * x3 * x3 * sin_phi) / k;
    double r1 = 0.0;
    if (x1 >= 0.0 && x1 < 300.0) {
        r1 = 30.0;
    } else if (x1 >= 300.0 && x1 <= 400.0) {
        r1 = 31.0;
    }
    double r2 = 0.0;
    if (x2 >= 0.0 && x2 < 100.0) {
        r2 = 28.0;
    } else if (x2 >= 100.0 && x2 < 200.0) {
        r2 = 29.0;
    } else if (x2 >= 200.0 && x2 <= 1000.0) {
        r2 = 30.0;
    }
    h[0] = a1 - x1;
    h[1] = a2 - x2;
    h[2] = a3 - x5;
    h[3] = a4;
    return r1 * a1 + r2 * a2;
}

__device__ inline double evo_cec2006_g18(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    const double x6 = x[5], x7 = x[6], x8 = x[7], x9 = x[8];
    g[0] = x3 * x3 + x4 * x4 - 1.0;
    g[1] = x9 * x9 - 1.0;
    g[2] = x5 * x5 + x6 * x6 - 1.0;
    g[3] = x1 * x1 + (x2 - x9) * (x2 - x9) - 1.0;
    g[4] = (x1 - x5) * (x1 - x5) + (x2 - x6) * (x2 - x6) - 1.0;
    g[5] = (x1 - x7) * (x1 - x7) + (x2 - x8) * (x2 - x8) - 1.0;
    g[6] = (x3 - x5) * (x3 - x5) + (x4 - x6) * (x4 - x6) - 1.0;
    g[7] = (x3 - x7) * (x3 - x7) + (x4 - x8) * (x4 - x8) - 1.0;
    g[8] = x7 * x7 + (x8 - x9) * (x8 - x9) - 1.0;
    g[9] = x2 * x3 - x1 * x4;
    g[10] = -x3 * x9;
    g[11] = x5 * x9;
    g[12] = x6 * x7 - x5 * x8;
    return -0.5 * (x1 * x4 - x2 * x3 + x3 * x9 - x5 * x9 + x5 * x8 - x6 * x7);
}

__device__ inline double evo_cec2006_g19(const double* x, double* g, double* h)
{
    const double a[10][5] = {
        {-16.0, 2.0, 0.0, 1.0, 0.0}, {0.0, -2.0, 0.0, 0.4, 2.0},    {-3.5, 0.0, 2.0, 0.0, 0.0},
        {0.0, -2.0, 0.0, -4.0, -1.0}, {0.0, -9.0, -2.0, 1.0, -2.8}, {2.0, 0.0, -4.0, 0.0, 0.0},
        {-1.0, -1.0, -1.0, -1.0, -1.0}, {-1.0, -2.0, -3.0, -2.0, -1.0}, {1.0, 2.0, 3.0, 4.0, 5.0},
        {1.0, 1.0, 1.0, 1.0, 1.0}};
    const double b[10] = {-40.0, -2.0, -0.25, -4.0, -4.0, -1.0, -40.0, -60.0, 5.0, 1.0};
    const double c[5][5] = {{30.0, -20.0, -10.0, 32.0, -10.0},
                            {-20.0, 39.0, -6.0, -31.0, 32.0},
                            {-10.0, -6.0, 10.0, -6.0, -10.0},
                            {32.0, -31.0, -6.0, 39.0, -20.0},
                            {-10.0, 32.0, -10.0, -20.0, 30.0}};
    const double d[5] = {4.0, 8.0, 10.0, 6.0, 2.0};
    const double e[5] = {-15.0, -27.0, -36.0, -18.0, -12.0};
    double quadratic = 0.0;
    double cubic = 0.0;
    for (int j = 0; j < 5; ++j) {
        const double xj = x[10 + j];
        for (int i = 0; i < 5; ++i) {
            quadratic += c[i][j] * x[10 + i] * xj;
        }
        cubic += d[j] * xj * xj * xj;
    }
    double linear = 0.0;
    for (int i = 0; i < 10; ++i) {
        linear += b[i] * x[i];
    }
    for (int j = 0; j < 5; ++j) {
        double cx = 0.0;
        for (int i = 0; i < 5; ++i) {
            cx += c[i][j] * x[10 + i];
        }
        double ax = 0.0;
        for (int i = 0; i < 10; ++i) {
            ax += a[i][j] * x[i];
        }
        const double xj = x[10 + j];
        g[j] = -2.0 * cx - 3.0 * d[j] * xj * xj - e[j] + ax;
    }
    return quadratic + 2.0 * cubic - linear;
}

__device__ inline double evo_cec2006_g20(const double* x, double* g, double* h)
{
    const double a[12] = {0.0693, 0.0577, 0.05, 0.2, 0.26, 0.55, 0.06, 0.1, 0.12, 0.18, 0.1, 0.09};
    const double b[12] = {44.094, 58.12, 58.12, 137.4, 120.9, 170.9, 62.501, 84.94, 133.425, 82.507, 46.07, 60.097};
    const double c[12] = {123.7, 31.7, 45.7, 14.7, 84.7, 27.7, 49.7, 7.1, 2.1, 17.7, 0.85, 0.64};
    const double d[12] = {31.244, 36.12, 34.784, 92.7, 82.7, 91.6, 56.708, 82.7, 80.8, 64.517, 49.4, 49.1};
    const double e[6] = {0.1, 0.3, 0.4, 0.3, 0.6, 0.3};
    double f = 0.0;
    double s1 = 0.0;
    double s2 = 0.0;
    double total = 0.0;
    double by_d = 0.0;
    for (int i = 0; i < 12; ++i) {
        f += a[i] * x[i];
        s1 += x[i] / b[i];
        by_d += x[i] / d[i];
    }
    for (int i = 0; i < 12; ++i) {
        f += a[i] * x[12 + i];
        s2 += x[12 + i] / b[i];
    }
    for (int i = 0; i < 24; ++i) {
        total += x[i];
    }
    for (int i = 0; i < 12; ++i) {
        h[i] = x[12 + i] / (b[i] * s2) - c[i] * x[i] / (40.0 * b[i] * s1);
    }
    h[12] = total - 1.0;
    h[13] = by_d + 0.7302 * 530.0 * (14.7 / 40.0) * s2 - 1.671;
    for (int i = 0; i < 3; ++i) {
        g[i] = (x[i] + x[i + 12]) / (total + e[i]);
    }
    for (int i = 3; i < 6; ++i) {
        g[i] = (x[i + 3] + x[i + 15]) / (total + e[i]);
    }
    return f;
}

__device__ inline double evo_cec2006_g21(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4], x6 = x[5], x7 = x[6];
    g[0] = -x1 + 35.0 * evo_pow_f64(x2, 0.6) + 35.0 * evo_pow_f64(x3, 0.6);
    h[0] = -300.0 * x3 + 7500.0 * x5 - 7500.0 * x6 - 25.0 * x4 * x5 + 25.0 * x4 * x6 + x3 * x4;
    h[1] = 100.0 * x2 + 155.365 * x4 + 2500.0 * x7 - x2 * x4 - 25.0 * x4 * x7 - 15536.5;
    h[2] = -x5 + evo_log_f64(-x4 + 900.0);
    h[3] = -x6 + evo_log_f64(x4 + 300.0);
    h[4] = -x7 + evo_log_f64(-2.0 * x4 + 700.0);
    return x1;
}

__device__ inline double evo_cec2006_g22(const double* x, double* g, double* h)
{
    g[0] = -x[0] + evo_pow_f64(x[1], 0.6) + evo_pow_f64(x[2], 0.6) + evo_pow_f64(x[3], 0.6);
    h[0] = x[4] - 100000.0 * x[7] + 10000000.0;
    h[1] = x[5] + 100000.0 * x[7] - 100000.0 * x[8];
    h[2] = x[6] + 100000.0 * x[8] - 50000000.0;
    h[3] = x[4] + 100000.0 * x[9] - 33000000.0;
    h[4] = x[5] + 100000.0 * x[10] - 44000000.0;
    h[5] = x[6] + 100000.0 * x[11] - 66000000.0;
    h[6] = x[4] - 120.0 * x[1] * x[12];
    h[7] = x[5] - 80.0 * x[2] * x[13];
    h[8] = x[6] - 40.0 * x[3] * x[14];
    h[9] = x[7] - x[10] + x[15];
    h[10] = x[8] - x[11] + x[16];
    h[11] = -x[17] + evo_log_f64(x[9] - 100.0);
    h[12] = -x[18] + evo_log_f64(-x[7] + 300.0);
    h[13] = -x[19] + evo_log_f64(x[15]);
    h[14] = -x[20] + evo_log_f64(-x[8] + 400.0);
    h[15] = -x[21] + evo_log_f64(x[16]);
    h[16] = -x[7] - x[9] + x[12] * x[17] - x[12] * x[18] + 400.0;
    h[17] = x[7] - x[8] - x[10] + x[13] * x[19] - x[13] * x[20] + 400.0;
    h[18] = x[8] - x[11] - 4.60517 * x[14] + x[14] * x[21] + 100.0;
    return x[0];
}

__device__ inline double evo_cec2006_g23(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1], x3 = x[2], x4 = x[3], x5 = x[4];
    const double x6 = x[5], x7 = x[6], x8 = x[7], x9 = x[8];
    h[0] = x1 + x2 - x3 - x4;
    h[1] = 0.03 * x1 + 0.01 * x2 - x9 * (x3 + x4);
    h[2] = x3 + x6 - x5;
    h[3] = x4 + x7 - x8;
    g[0] = x9 * x3 + 0.02 * x6 - 0.025 * x5;
    g[1] = x9 * x4 + 0.02 * x7 - 0.015 * x8;
    return -9.0 * x5 - 15.0 * x8 + 6.0 * x1 + 16.0 * x2 + 10.0 * (x6 + x7);
}

__device__ inline double evo_cec2006_g24(const double* x, double* g, double* h)
{
    const double x1 = x[0], x2 = x[1];
    const double x1_2 = x1 * x1;
    const double x1_3 = x1_2 * x1;
    const double x1_4 = x1_3 * x1;
    g[0] = -2.0 * x1_4 + 8.0 * x1_3 - 8.0 * x1_2 + x2 - 2.0;
    g[1] = -4.0 * x1_4 + 32.0 * x1_3 - 88.0 * x1_2 + 96.0 * x1 + x2 - 36.0;
    return -x1 - x2;
}

// Problem `number` (1..24) at x; any other number returns 0 and writes nothing (the host validates it).
__device__ inline double evo_cec2006_evaluate(unsigned int number, const double* x, double* g, double* h)
{
    switch (number) {
    case 1: return evo_cec2006_g01(x, g, h);
    case 2: return evo_cec2006_g02(x, g, h);
    case 3: return evo_cec2006_g03(x, g, h);
    case 4: return evo_cec2006_g04(x, g, h);
    case 5: return evo_cec2006_g05(x, g, h);
    case 6: return evo_cec2006_g06(x, g, h);
    case 7: return evo_cec2006_g07(x, g, h);
    case 8: return evo_cec2006_g08(x, g, h);
    case 9: return evo_cec2006_g09(x, g, h);
    case 10: return evo_cec2006_g10(x, g, h);
    case 11: return evo_cec2006_g11(x, g, h);
    case 12: return evo_cec2006_g12(x, g, h);
    case 13: return evo_cec2006_g13(x, g, h);
    case 14: return evo_cec2006_g14(x, g, h);
    case 15: return evo_cec2006_g15(x, g, h);
    case 16: return evo_cec2006_g16(x, g, h);
    case 17: return evo_cec2006_g17(x, g, h);
    case 18: return evo_cec2006_g18(x, g, h);
    case 19: return evo_cec2006_g19(x, g, h);
    case 20: return evo_cec2006_g20(x, g, h);
    case 21: return evo_cec2006_g21(x, g, h);
    case 22: return evo_cec2006_g22(x, g, h);
    case 23: return evo_cec2006_g23(x, g, h);
    case 24: return evo_cec2006_g24(x, g, h);
    default: return 0.0;
    }
}

// The workspace's total violation (Rust: evo_core::total_violation): sum_k max(0, g_k) then
// sum_j max(0, |h_j| - eps), left to right, comparisons written so that NaN propagates.
__device__ inline double evo_total_violation(const double* g, unsigned int m, const double* h, unsigned int p,
                                             double eps)
{
    double violation = 0.0;
    for (unsigned int k = 0; k < m; ++k) {
        violation += g[k] <= 0.0 ? 0.0 : g[k];
    }
    for (unsigned int j = 0; j < p; ++j) {
        const double excess = fabs(h[j]) - eps;
        violation += excess <= 0.0 ? 0.0 : excess;
    }
    return violation;
}
