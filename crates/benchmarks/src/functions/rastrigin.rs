//! Rastrigin.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} [z_i² − 10 cos(2π z_i) + 10],   minimum 0 at z = 0
//! ```
//!
//! Domains: [−5.12, 5.12] (GA paper f7, DE paper f2, MA-SW-Chains), [−5, 5] (CEC 2010). Sources: Oiso et al.
//! Table 1; Krömer et al. eq. (6); Lastra et al. §6.3.2; Tang et al. §2. The cosine is
//! [`cos_two_pi`], reduced exactly in `z` (within 2 ulp of the correctly rounded `cos(2πz)`, its module
//! docs). Twin: `evo_rastrigin_term`.

use super::cos_two_pi::cos_two_pi;
use evo_core::reduce::pairwise_sum_by;

/// One term, `(z² − 10 cos(2πz)) + 10`.
#[inline]
pub fn rastrigin_term(z: f64) -> f64 {
    (z * z - 10.0 * cos_two_pi(z)) + 10.0
}

/// Rastrigin of `z(0..n)`, summed with the canonical tree.
pub fn rastrigin<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| rastrigin_term(z(i)))
}
