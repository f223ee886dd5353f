//! Sum Squares.
//!
//! ```text
//! f(z) = Σ_{i=1}^{n} i · z_i²   (1-based i),   minimum 0 at z = 0
//! ```
//!
//! Domain [−10, 10] (our decision). Source: Lastra et al. §6.3.2. Twin: `evo_sum_squares_term`.

use evo_core::reduce::pairwise_sum_by;

/// One term for the 0-based index `i`: `(i + 1) · (z z)`.
#[inline]
pub fn sum_squares_term(i: usize, z: f64) -> f64 {
    (i + 1) as f64 * (z * z)
}

/// Sum Squares of `z(0..n)`, summed with the canonical tree.
pub fn sum_squares<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    pairwise_sum_by(n, |i| sum_squares_term(i, z(i)))
}
