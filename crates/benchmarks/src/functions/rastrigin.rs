//! Rastrigin.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} [z_i² − 10 cos(2π z_i) + 10],   minimum 0 at z = 0
//! ```
//!
//! Domains: [−5.12, 5.12] (GA paper f7, DE paper f2, MA-SW-Chains), [−5, 5] (CEC 2010). Sources: Oiso et al.
//! Table 1; Krömer et al. eq. (6); Lastra et al. §6.3.2; Tang et al. §2. The cosine is
//! [`evo_core::math::cos_f64`]. Twin: `evo_rastrigin_term`.

use super::TWO_PI;
use evo_core::math::cos_f64;
use evo_core::reduce::pairwise_sum_by;

/// One term, `(z² − 10 cos(2πz)) + 10`.
#[inline]
pub fn rastrigin_term(z: f64) -> f64 {
    (z * z - 10.0 * cos_f64(TWO_PI * z)) + 10.0
}

/// Rastrigin of `z(0..n)`, summed with the canonical tree.
pub fn rastrigin<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| rastrigin_term(z(i)))
}
