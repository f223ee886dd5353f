//! Schwefel's problem 1.2 (the GA paper's Ridge, f2).
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} (Σ_{j=0}^{i} z_j)²,   minimum 0 at z = 0
//! ```
//!
//! The prefix sums are the canonical prefix sums of [`crate::tree`] (tiles of 1024 terms, Hillis–Steele inside
//! a tile, carries by the same scan of the tile totals); their squares are summed with the canonical tree.
//! Domains: [−100, 100] (GA paper Ridge, MA-SW-Chains, CEC 2010). Sources: Oiso et al. Table 1 (Ridge);
//! Lastra et al. §6.3.2; Tang et al. §2. Twin: the `scan` passes of `kernels/cuda/benchmarks_continuous.cu`.

use crate::tree::sum_of_squared_prefix_sums;

/// Schwefel 1.2 of `z(0..n)`.
pub fn schwefel_1_2<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    sum_of_squared_prefix_sums(n, z)
}
