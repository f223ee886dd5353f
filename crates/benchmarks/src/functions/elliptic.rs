//! The high-conditioned elliptic function of CEC 2010.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} 10^{6 i/(n−1)} z_i²,   minimum 0 at z = 0
//! ```
//!
//! The weight is `pow(10⁶, i/(n−1))` with [`evo_core::math::pow_f64`] (1 when `n = 1`), the weights restart
//! in every group. Domain [−100, 100]. Source: Tang et al. §2. Twin: `evo_elliptic_term`.

use evo_core::math::pow_f64;
use evo_core::reduce::pairwise_sum_by;

/// One term: `pow(10⁶, i / (n − 1)) · (z z)` (weight 1 when `n = 1`).
#[inline]
pub fn elliptic_term(i: usize, n: usize, z: f64) -> f64 {
    let weight = if n > 1 {
        pow_f64(1.0e6, i as f64 / (n - 1) as f64)
    } else {
        1.0
    };
    weight * (z * z)
}

/// The elliptic function of `z(0..n)`, summed with the canonical tree.
pub fn elliptic<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| elliptic_term(i, n, z(i)))
}
