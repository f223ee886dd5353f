//! Step (the GA paper's f4).
//!
//! ```text
//! f(x) = Σ_{i=0}^{n-1} ⌊x_i + 0.5⌋²,   minimum 0 for every x_i ∈ [−0.5, 0.5)
//! ```
//!
//! Domain [−100, 100]. Source: Oiso et al. Table 1. Twin: `evo_step_term`.

use evo_core::reduce::pairwise_sum_by;

/// One term, `⌊x + 0.5⌋²` (the addition and the floor in `f64`).
#[inline]
pub fn step_term(x: f64) -> f64 {
    let k = (x + 0.5).floor();
    k * k
}

/// Step of `x(0..n)`, summed with the canonical tree.
pub fn step<X: Fn(usize) -> f64 + Sync + Send>(n: usize, x: X) -> f64 {
    pairwise_sum_by(n, |i| step_term(x(i)))
}
