//! Sphere (the GA paper's Hypersphere, CEC 2010's Sphere).
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} z_i²,   minimum 0 at z = 0
//! ```
//!
//! Sources: Oiso et al. (GA paper) Table 1, f1 on [−5.12, 5.12]; Tang et al., CEC 2010 LSGO report, §2.
//! Twin: `evo_sphere_term` in `kernels/common/problems/functions.cuh`.

use evo_core::reduce::pairwise_sum_by;

/// One term, `z²`.
#[inline]
pub fn sphere_term(z: f64) -> f64 {
    z * z
}

/// `Σ z_i²` over `z(0..n)`, summed with the canonical tree.
pub fn sphere<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| sphere_term(z(i)))
}
