//! Schwefel's problem 1.2 (the GA paper's Ridge, f2).
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} (Σ_{j=0}^{i} z_j)²,   minimum 0 at z = 0
//! ```
//!
//! Evaluated as the `C` of the segment summaries of [`crate::prefix_squares`]: leaves of 4 terms, combined by
//! the pairwise tree, `C_L + (A_L (N_R A_L + 2 B_R) + C_R)` for adjacent segments, which sums the squared
//! prefix sums without forming them, in one pass over `z`.
//! Domains: [−100, 100] (GA paper Ridge, MA-SW-Chains, CEC 2010). Sources: Oiso et al. Table 1 (Ridge);
//! Lastra et al. §6.3.2; Tang et al. §2. Twin: `benchmarks_continuous_prefix_squares` and `_finish_prefix`
//! (`kernels/cuda/benchmarks_continuous.cu`).

use crate::prefix_squares::sum_of_squared_prefix_sums;

/// Schwefel 1.2 of `z(0..n)`.
pub fn schwefel_1_2<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    sum_of_squared_prefix_sums(n, z)
}
