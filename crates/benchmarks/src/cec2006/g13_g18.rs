//! g13–g18 (cec2006.md); conventions as in `g01_g06.rs`.

use super::math::{cos, exp, log, sin};

/// g13: D = 5, 3 nonlinear equalities.
pub(super) fn g13(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5) = (x[0], x[1], x[2], x[3], x[4]);
    h[0] = x1 * x1 + x2 * x2 + x3 * x3 + x4 * x4 + x5 * x5 - 10.0;
    h[1] = x2 * x3 - 5.0 * x4 * x5;
    h[2] = x1 * x1 * x1 + x2 * x2 * x2 + 1.0;
    exp(x1 * x2 * x3 * x4 * x5)
}

/// The constants `c_i` of g14.
const G14_C: [f64; 10] = [
    -6.089, -17.164, -34.054, -5.914, -24.721, -14.986, -24.1, -10.708, -26.662, -22.179,
];

/// g14: D = 10, 3 linear equalities.
pub(super) fn g14(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for &v in &x[..10] {
        total += v;
    }
    let mut f = 0.0;
    for i in 0..10 {
        f += x[i] * (G14_C[i] + log(x[i] / total));
    }
    h[0] = x[0] + 2.0 * x[1] + 2.0 * x[2] + x[5] + x[9] - 2.0;
    h[1] = x[3] + 2.0 * x[4] + x[5] + x[6] - 1.0;
    h[2] = x[2] + x[6] + x[7] + 2.0 * x[8] + x[9] - 1.0;
    f
}

/// g15: D = 3, 1 linear and 1 nonlinear equality.
pub(super) fn g15(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    let (x1, x2, x3) = (x[0], x[1], x[2]);
    h[0] = x1 * x1 + x2 * x2 + x3 * x3 - 25.0;
    h[1] = 8.0 * x1 + 14.0 * x2 + 7.0 * x3 - 56.0;
    1000.0 - x1 * x1 - 2.0 * x2 * x2 - x3 * x3 - x1 * x2 - x1 * x3
}

/// The bounds `L_k`, `U_k` of g16's intermediate quantities `y_1..y_17`.
const G16_LOWER: [f64; 17] = [
    213.1, 17.505, 11.275, 214.228, 7.458, 0.961, 1.612, 0.146, 107.99, 922.693, 926.832, 18.766,
    1072.163, 8961.448, 0.063, 71084.33, 2802713.0,
];
const G16_UPPER: [f64; 17] = [
    405.23, 1053.6667, 35.03, 665.585, 584.463, 265.916, 7.046, 0.222, 273.366, 1286.105, 1444.046,
    537.141, 3247.039, 26844.086, 0.386, 140000.0, 12146108.0,
];

/// g16: D = 5, 4 linear and 34 nonlinear inequalities (max→min).
pub(super) fn g16(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5) = (x[0], x[1], x[2], x[3], x[4]);
    let y1 = x2 + x3 + 41.6;
    let c1 = 0.024 * x4 - 4.62;
    let y2 = 12.5 / c1 + 12.0;
    let c2 = 0.0003535 * x1 * x1 + 0.5311 * x1 + 0.08705 * y2 * x1;
    let c3 = 0.052 * x1 + 78.0 + 0.002377 * y2 * x1;
    let y3 = c2 / c3;
    let y4 = 19.0 * y3;
    let c4 = 0.04782 * (x1 - y3) + 0.1956 * (x1 - y3) * (x1 - y3) / x2 + 0.6376 * y4 + 1.594 * y3;
    let c5 = 100.0 * x2;
    let c6 = x1 - y3 - y4;
    let c7 = 0.950 - c4 / c5;
    let y5 = c6 * c7;
    let y6 = x1 - y5 - y4 - y3;
    let c8 = 0.995 * (y5 + y4);
    let y7 = c8 / y1;
    let y8 = c8 / 3798.0;
    let c9 = y7 - 0.0663 * y7 / y8 - 0.3153;
    let y9 = 96.82 / c9 + 0.321 * y1;
    let y10 = 1.29 * y5 + 1.258 * y4 + 2.29 * y3 + 1.71 * y6;
    let y11 = 1.71 * x1 - 0.452 * y4 + 0.580 * y3;
    let c10 = 12.3 / 752.3;
    let c11 = 1.75 * y2 * 0.995 * x1;
    let c12 = 0.995 * y10 + 1998.0;
    let y12 = c10 * x1 + c11 / c12;
    let y13 = c12 - 1.75 * y2;
    let y14 = 3623.0 + 64.4 * x2 + 58.4 * x3 + 146312.0 / (y9 + x5);
    let c13 = 0.995 * y10 + 60.8 * x2 + 48.0 * x4 - 0.1121 * y14 - 5095.0;
    let y15 = y13 / c13;
    let y16 = 148000.0 - 331000.0 * y15 + 40.0 * y13 - 61.0 * y15 * y13;
    let c14 = 2324.0 * y10 - 28740000.0 * y2;
    let y17 = 14130000.0 - 1328.0 * y10 - 531.0 * y11 + c14 / c12;
    let c15 = y13 / y15 - y13 / 0.52;
    let c16 = 1.104 - 0.72 * y15;
    let c17 = y9 + x5;
    g[0] = 0.28 / 0.72 * y5 - y4;
    g[1] = x3 - 1.5 * x2;
    g[2] = 3496.0 * y2 / c12 - 21.0;
    g[3] = 110.6 + y1 - 62212.0 / c17;
    let y = [
        y1, y2, y3, y4, y5, y6, y7, y8, y9, y10, y11, y12, y13, y14, y15, y16, y17,
    ];
    for k in 0..17 {
        g[4 + 2 * k] = G16_LOWER[k] - y[k];
        g[5 + 2 * k] = y[k] - G16_UPPER[k];
    }
    0.000117 * y14
        + 0.1365
        + 0.00002358 * y13
        + 0.000001502 * y16
        + 0.0321 * y12
        + 0.004324 * y5
        + 0.0001 * c15 / c16
        + 37.48 * y2 / c12
        - 0.0000005843 * y17
}

/// g17: D = 6, 4 nonlinear equalities; the A-form of the organisers' code (cec2006.md).
pub(super) fn g17(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    const THETA: f64 = 1.48477;
    const PHI: f64 = 1.47588;
    const K: f64 = 131.078;
    const A: f64 = 0.90798;
    let (x1, x2, x3, x4, x5, x6) = (x[0], x[1], x[2], x[3], x[4], x[5]);
    let cos_phi = cos(PHI);
    let sin_phi = sin(PHI);
    let a1 = 300.0 - (x3 * x4 * cos(THETA - x6) - A * x3 * x3 * cos_phi) / K;
    let a2 = -(x3 * x4 * cos(THETA + x6) - A * x4 * x4 * cos_phi) / K;
    let a3 = -(x3 * x4 * sin(THETA + x6) - A * x4 * x4 * sin_phi) / K;
    let a4 = 200.0 - (x3 * x4 * sin(THETA - x6) - A * x3 * x3 * sin_phi) / K;
    let r1 = if (0.0..300.0).contains(&x1) {
        30.0
    } else if (300.0..=400.0).contains(&x1) {
        31.0
    } else {
        0.0
    };
    let r2 = if (0.0..100.0).contains(&x2) {
        28.0
    } else if (100.0..200.0).contains(&x2) {
        29.0
    } else if (200.0..=1000.0).contains(&x2) {
        30.0
    } else {
        0.0
    };
    h[0] = a1 - x1;
    h[1] = a2 - x2;
    h[2] = a3 - x5;
    h[3] = a4;
    r1 * a1 + r2 * a2
}

/// g18: D = 9, 13 nonlinear inequalities (max→min).
pub(super) fn g18(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5) = (x[0], x[1], x[2], x[3], x[4]);
    let (x6, x7, x8, x9) = (x[5], x[6], x[7], x[8]);
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
    -0.5 * (x1 * x4 - x2 * x3 + x3 * x9 - x5 * x9 + x5 * x8 - x6 * x7)
}
