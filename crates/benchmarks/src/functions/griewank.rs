//! Griewank.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} z_i²/4000 − Π_{i=0}^{n-1} cos(z_i / √(i+1)) + 1,   minimum 0 at z = 0
//! ```
//!
//! Computed as `(s / 4000 − p) + 1` with `s = Σ z_i²` (canonical sum tree) and `p` the pairwise product
//! ([`crate::tree::pairwise_product_by`]). Domains: [−2.048, 2.048] (GA paper f5), [−600, 600]
//! (MA-SW-Chains, our decision). Sources: Oiso et al. Table 1; Lastra et al. §6.3.2. Twins:
//! `evo_griewank_factor`, `evo_griewank_combine`.

use crate::tree::pairwise_product_by;
use evo_core::math::cos_f64;
use evo_core::reduce::pairwise_sum_by;

/// One factor of the product, `cos(z / √(i + 1))` for the 0-based index `i`.
#[inline]
pub fn griewank_factor(i: usize, z: f64) -> f64 {
    cos_f64(z / ((i + 1) as f64).sqrt())
}

/// Combines the sum of squares `s` and the product `p`: `(s / 4000 − p) + 1`.
#[inline]
pub fn griewank_combine(s: f64, p: f64) -> f64 {
    (s / 4000.0 - p) + 1.0
}

/// Griewank of `z(0..n)`.
pub fn griewank<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let s = pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    });
    let p = pairwise_product_by(n, |i| griewank_factor(i, z(i)));
    griewank_combine(s, p)
}
