//! Schwefel's sine function (the GA paper's f6).
//!
//! ```text
//! f(x) = Σ_{i=0}^{n-1} −x_i sin(√|x_i|),   minimum −418.982887·n at x_i = 420.968746
//! ```
//!
//! Domain [−512, 512]. Source: Oiso et al. Table 1 (the printed formula lost the bars of |x_i|; spec
//! benchmarks.md §(a) decision 3). The sine is [`evo_core::math::sin_f64`]. Twin: `evo_schwefel_term`.

use evo_core::math::sin_f64;
use evo_core::reduce::pairwise_sum_by;

/// One term, `−x sin(√|x|)`.
#[inline]
pub fn schwefel_term(x: f64) -> f64 {
    -x * sin_f64(x.abs().sqrt())
}

/// Schwefel's sine function of `x(0..n)`, summed with the canonical tree.
pub fn schwefel<X: Fn(usize) -> f64 + Sync + Send>(n: usize, x: X) -> f64 {
    pairwise_sum_by(n, |i| schwefel_term(x(i)))
}

/// The minimum per coordinate, `−418.982887…` at `x = 420.968746`, as the paper states it.
pub const SCHWEFEL_MINIMUM_PER_COORDINATE: f64 = -418.982_887;
