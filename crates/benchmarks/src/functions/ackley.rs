//! Ackley.
//!
//! ```text
//! f(z) = −20 exp(−0.2 √(Σ z_i² / n)) − exp(Σ cos(2π z_i) / n) + 20 + e,   minimum 0 at z = 0
//! ```
//!
//! Computed as `(20 − 20 a) + (e − b)` with `a = exp(−0.2 √(s₁/n))`, `b = exp(s₂/n)`, both sums with the
//! canonical tree and `exp`, `cos` from [`evo_core::math`]. This grouping cancels exactly at the optimum
//! (`a = 1`, `b = exp(1) = e` to the last bit), where the official CEC 2010 code's left-to-right order
//! `−20a − b + 20 + e` leaves a rounding error of 4.4e-16. Domains: [−32, 32] (GA paper f8,
//! CEC 2010). Sources: Oiso et al. Table 1; Tang et al. §2. Twins: `evo_ackley_cos_term`,
//! `evo_ackley_combine`.

use super::{E, TWO_PI};
use evo_core::math::{cos_f64, exp_f64};
use evo_core::reduce::pairwise_sum_by;

/// One term of the second sum, `cos(2π z)`.
#[inline]
pub fn ackley_cos_term(z: f64) -> f64 {
    cos_f64(TWO_PI * z)
}

/// Combines the sum of squares `s1` and the sum of cosines `s2` of `n` coordinates.
#[inline]
pub fn ackley_combine(n: usize, s1: f64, s2: f64) -> f64 {
    let count = n as f64;
    let a = exp_f64(-0.2 * (s1 / count).sqrt());
    let b = exp_f64(s2 / count);
    (20.0 - 20.0 * a) + (E - b)
}

/// Ackley of `z(0..n)` (`n ≥ 1`).
pub fn ackley<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let s1 = pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    });
    let s2 = pairwise_sum_by(n, |i| ackley_cos_term(z(i)));
    ackley_combine(n, s1, s2)
}
