//! Discus.
//!
//! ```text
//! f(z) = 10⁶ z_0² + Σ_{i=1}^{n-1} z_i²,   minimum 0 at z = 0
//! ```
//!
//! The standard Discus (Lastra et al. §6.3.2.5; §6.3.1.4 prints an `i·z_i²` variant that the paper's own
//! Table 10 contradicts, spec benchmarks.md §(b) decision 1). Domain [−100, 100] (our decision).
//! Twin: `evo_discus_term`.

use evo_core::reduce::pairwise_sum_by;

/// One term: `10⁶ (z z)` for `i = 0`, `z z` otherwise.
#[inline]
pub fn discus_term(i: usize, z: f64) -> f64 {
    let square = z * z;
    if i == 0 { 1.0e6 * square } else { square }
}

/// Discus of `z(0..n)`, summed with the canonical tree.
pub fn discus<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| discus_term(i, z(i)))
}
