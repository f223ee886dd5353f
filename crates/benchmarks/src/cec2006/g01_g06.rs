//! g01–g06 (cec2006.md). Each function returns `f(x)` and writes `g_k(x)` to `g`, `h_j(x)` to `h`; every
//! expression is evaluated left to right exactly as written, and the CUDA twin
//! (`kernels/common/problems/cec2006.cuh`) repeats it operation for operation.

use super::math::{cos, fabs, sin, sqrt};

/// g01: D = 13, 9 linear inequalities.
pub(super) fn g01(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let s1 = x[0] + x[1] + x[2] + x[3];
    let s2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3];
    let mut s3 = 0.0;
    for v in &x[4..13] {
        s3 += v;
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
    5.0 * s1 - 5.0 * s2 - s3
}

/// g02: D = 20, 2 nonlinear inequalities (max→min).
pub(super) fn g02(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let mut sum_cos4 = 0.0;
    let mut prod_cos2 = 1.0;
    let mut weighted = 0.0;
    let mut prod = 1.0;
    let mut sum = 0.0;
    for (i, &v) in x.iter().enumerate().take(20) {
        let c = cos(v);
        let c2 = c * c;
        sum_cos4 += c2 * c2;
        prod_cos2 *= c2;
        weighted += (i + 1) as f64 * v * v;
        prod *= v;
        sum += v;
    }
    g[0] = 0.75 - prod;
    g[1] = sum - 150.0;
    -fabs((sum_cos4 - 2.0 * prod_cos2) / sqrt(weighted))
}

/// g03: D = 10, 1 nonlinear equality (max→min).
pub(super) fn g03(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    let mut prod = 1.0;
    let mut squares = 0.0;
    for &v in &x[..10] {
        prod *= v;
        squares += v * v;
    }
    h[0] = squares - 1.0;
    -100000.0 * prod
}

/// g04: D = 5, 6 nonlinear inequalities.
pub(super) fn g04(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5) = (x[0], x[1], x[2], x[3], x[4]);
    let u = 85.334407 + 0.0056858 * x2 * x5 + 0.0006262 * x1 * x4 - 0.0022053 * x3 * x5;
    let v = 80.51249 + 0.0071317 * x2 * x5 + 0.0029955 * x1 * x2 + 0.0021813 * x3 * x3;
    let w = 9.300961 + 0.0047026 * x3 * x5 + 0.0012547 * x1 * x3 + 0.0019085 * x3 * x4;
    g[0] = u - 92.0;
    g[1] = -u;
    g[2] = v - 110.0;
    g[3] = -v + 90.0;
    g[4] = w - 25.0;
    g[5] = -w + 20.0;
    5.3578547 * x3 * x3 + 0.8356891 * x1 * x5 + 37.293239 * x1 - 40792.141
}

/// g05: D = 4, 3 nonlinear equalities, 2 linear inequalities.
pub(super) fn g05(x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4) = (x[0], x[1], x[2], x[3]);
    h[0] = 1000.0 * sin(-x3 - 0.25) + 1000.0 * sin(-x4 - 0.25) + 894.8 - x1;
    h[1] = 1000.0 * sin(x3 - 0.25) + 1000.0 * sin(x3 - x4 - 0.25) + 894.8 - x2;
    h[2] = 1000.0 * sin(x4 - 0.25) + 1000.0 * sin(x4 - x3 - 0.25) + 1294.8;
    g[0] = -x4 + x3 - 0.55;
    g[1] = -x3 + x4 - 0.55;
    3.0 * x1 + 0.000001 * x1 * x1 * x1 + 2.0 * x2 + 0.000002 / 3.0 * x2 * x2 * x2
}

/// g06: D = 2, 2 nonlinear inequalities.
pub(super) fn g06(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let a = x[0] - 10.0;
    let b = x[1] - 20.0;
    let p = x[0] - 5.0;
    let q = x[1] - 5.0;
    let r = x[0] - 6.0;
    g[0] = 100.0 - p * p - q * q;
    g[1] = r * r + q * q - 82.81;
    a * a * a + b * b * b
}
