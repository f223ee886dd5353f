//! Salomon.
//!
//! ```text
//! f(z) = 1 − cos(2π √g) + 0.1 √g,   g = Σ_{i=0}^{n-1} z_i²,   minimum 0 at z = 0
//! ```
//!
//! Computed as `(1 − cos(2π r)) + 0.1 r` with `r = √g`, `g` by the canonical tree. Domain [−100, 100] (our
//! decision, spec benchmarks.md §(b) decision 3). Source: Lastra et al. §6.3.2. Twin: `evo_salomon_combine`.

use super::TWO_PI;
use evo_core::math::cos_f64;
use evo_core::reduce::pairwise_sum_by;

/// Salomon from the sum of squares `g`.
#[inline]
pub fn salomon_combine(g: f64) -> f64 {
    let r = g.sqrt();
    (1.0 - cos_f64(TWO_PI * r)) + 0.1 * r
}

/// Salomon of `z(0..n)`.
pub fn salomon<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    salomon_combine(pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    }))
}
