//! g07–g12 (cec2006.md); conventions as in `g01_g06.rs`.

use super::math::{PI, sin};

/// g07: D = 10, 3 linear and 5 nonlinear inequalities.
pub(super) fn g07(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5) = (x[0], x[1], x[2], x[3], x[4]);
    let (x6, x7, x8, x9, x10) = (x[5], x[6], x[7], x[8], x[9]);
    g[0] = -105.0 + 4.0 * x1 + 5.0 * x2 - 3.0 * x7 + 9.0 * x8;
    g[1] = 10.0 * x1 - 8.0 * x2 - 17.0 * x7 + 2.0 * x8;
    g[2] = -8.0 * x1 + 2.0 * x2 + 5.0 * x9 - 2.0 * x10 - 12.0;
    g[3] = 3.0 * (x1 - 2.0) * (x1 - 2.0) + 4.0 * (x2 - 3.0) * (x2 - 3.0) + 2.0 * x3 * x3
        - 7.0 * x4
        - 120.0;
    g[4] = 5.0 * x1 * x1 + 8.0 * x2 + (x3 - 6.0) * (x3 - 6.0) - 2.0 * x4 - 40.0;
    g[5] = x1 * x1 + 2.0 * (x2 - 2.0) * (x2 - 2.0) - 2.0 * x1 * x2 + 14.0 * x5 - 6.0 * x6;
    g[6] =
        0.5 * (x1 - 8.0) * (x1 - 8.0) + 2.0 * (x2 - 4.0) * (x2 - 4.0) + 3.0 * x5 * x5 - x6 - 30.0;
    g[7] = -3.0 * x1 + 6.0 * x2 + 12.0 * (x9 - 8.0) * (x9 - 8.0) - 7.0 * x10;
    x1 * x1 + x2 * x2 + x1 * x2 - 14.0 * x1 - 16.0 * x2
        + (x3 - 10.0) * (x3 - 10.0)
        + 4.0 * (x4 - 5.0) * (x4 - 5.0)
        + (x5 - 3.0) * (x5 - 3.0)
        + 2.0 * (x6 - 1.0) * (x6 - 1.0)
        + 5.0 * x7 * x7
        + 7.0 * (x8 - 11.0) * (x8 - 11.0)
        + 2.0 * (x9 - 10.0) * (x9 - 10.0)
        + (x10 - 7.0) * (x10 - 7.0)
        + 45.0
}

/// g08: D = 2, 2 nonlinear inequalities (max→min).
pub(super) fn g08(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2) = (x[0], x[1]);
    let s1 = sin(2.0 * PI * x1);
    let s2 = sin(2.0 * PI * x2);
    g[0] = x1 * x1 - x2 + 1.0;
    g[1] = 1.0 - x1 + (x2 - 4.0) * (x2 - 4.0);
    -(s1 * s1 * s1) * s2 / (x1 * x1 * x1 * (x1 + x2))
}

/// g09: D = 7, 4 nonlinear inequalities.
pub(super) fn g09(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4, x5, x6, x7) = (x[0], x[1], x[2], x[3], x[4], x[5], x[6]);
    g[0] = -127.0 + 2.0 * x1 * x1 + 3.0 * x2 * x2 * x2 * x2 + x3 + 4.0 * x4 * x4 + 5.0 * x5;
    g[1] = -282.0 + 7.0 * x1 + 3.0 * x2 + 10.0 * x3 * x3 + x4 - x5;
    g[2] = -196.0 + 23.0 * x1 + x2 * x2 + 6.0 * x6 * x6 - 8.0 * x7;
    g[3] = 4.0 * x1 * x1 + x2 * x2 - 3.0 * x1 * x2 + 2.0 * x3 * x3 + 5.0 * x6 - 11.0 * x7;
    (x1 - 10.0) * (x1 - 10.0)
        + 5.0 * (x2 - 12.0) * (x2 - 12.0)
        + x3 * x3 * x3 * x3
        + 3.0 * (x4 - 11.0) * (x4 - 11.0)
        + 10.0 * x5 * x5 * x5 * x5 * x5 * x5
        + 7.0 * x6 * x6
        + x7 * x7 * x7 * x7
        - 4.0 * x6 * x7
        - 10.0 * x6
        - 8.0 * x7
}

/// g10: D = 8, 3 linear and 3 nonlinear inequalities.
pub(super) fn g10(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let (x1, x2, x3, x4) = (x[0], x[1], x[2], x[3]);
    let (x5, x6, x7, x8) = (x[4], x[5], x[6], x[7]);
    g[0] = -1.0 + 0.0025 * (x4 + x6);
    g[1] = -1.0 + 0.0025 * (x5 + x7 - x4);
    g[2] = -1.0 + 0.01 * (x8 - x5);
    g[3] = -x1 * x6 + 833.33252 * x4 + 100.0 * x1 - 83333.333;
    g[4] = -x2 * x7 + 1250.0 * x5 + x2 * x4 - 1250.0 * x4;
    g[5] = -x3 * x8 + 1250000.0 + x3 * x5 - 2500.0 * x5;
    x1 + x2 + x3
}

/// g11: D = 2, 1 nonlinear equality.
pub(super) fn g11(x: &[f64], _g: &mut [f64], h: &mut [f64]) -> f64 {
    h[0] = x[1] - x[0] * x[0];
    x[0] * x[0] + (x[1] - 1.0) * (x[1] - 1.0)
}

/// g12: D = 3, one inequality: the nearest of the 729 balls (max→min).
pub(super) fn g12(x: &[f64], g: &mut [f64], _h: &mut [f64]) -> f64 {
    let mut nearest = f64::INFINITY;
    for p in 1..=9 {
        let a = x[0] - f64::from(p);
        for q in 1..=9 {
            let b = x[1] - f64::from(q);
            for r in 1..=9 {
                let c = x[2] - f64::from(r);
                let d = a * a + b * b + c * c;
                if d < nearest {
                    nearest = d;
                }
            }
        }
    }
    g[0] = nearest - 0.0625;
    let (a, b, c) = (x[0] - 5.0, x[1] - 5.0, x[2] - 5.0);
    -(100.0 - a * a - b * b - c * c) / 100.0
}
