//! Griewank.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-1} z_i²/4000 − Π_{i=0}^{n-1} cos(z_i / √(i+1)) + 1,   minimum 0 at z = 0
//! ```
//!
//! Computed as `(s / 4000 − p) + 1` with `s = Σ z_i²` (canonical sum tree) and `p` the pairwise product
//! ([`crate::tree::pairwise_product_by`]). Domains: [−2.048, 2.048] (GA paper f5), [−600, 600]
//! (MA-SW-Chains, our decision). Sources: Oiso et al. Table 1; Lastra et al. §6.3.2. Twins:
//! `evo_griewank_factor`, `evo_griewank_combine`.
//!
//! The argument `z_i/√(i+1)` is computed as `z_i · (1/√(i+1))` (one more rounding, at most half an ulp of
//! the argument; the scale is shared by all the individuals of a batch on the GPU, a multiplication per
//! coordinate instead of a division). The cosine is [`cos_fma`] (a branch-free reduction by π/2 with fused multiply-adds, then degree-8
//! polynomials). Against `cos(x)` computed with mpmath at 200 bits, on 2·10⁵ arguments `z/√i` (`z` the
//! difference of two random `f32` in [−600, 600] and [−480, 480], `i` uniform in 1..=100 or 1..=10⁷ with
//! equal probability): at most 1.76 ulp from the exact value (so at most 2 ulp from the correctly rounded
//! one), 90% correctly rounded; at most 0.95 ulp on the doubles next to `kπ/2`, `k < 700`, where the
//! cosine is close to zero. The former `cos_f64` (fdlibm) is within 1 ulp.

use super::cos_fma::cos_fma;
use crate::tree::pairwise_product_by;
use evo_core::reduce::pairwise_sum_by;

/// The scale of coordinate `i` (0-based), `1 / √(i + 1)`, the same for every individual (the GPU computes it
/// once per tile for a group of individuals).
#[inline]
pub fn griewank_scale(i: usize) -> f64 {
    1.0 / ((i + 1) as f64).sqrt()
}

/// One factor of the product, `cos(z / √(i + 1))` for the 0-based index `i`, computed as
/// `cos(z · griewank_scale(i))`.
#[inline]
pub fn griewank_factor(i: usize, z: f64) -> f64 {
    cos_fma(z * griewank_scale(i))
}

/// Combines the sum of squares `s` and the product `p`: `(s / 4000 − p) + 1`.
#[inline]
pub fn griewank_combine(s: f64, p: f64) -> f64 {
    (s / 4000.0 - p) + 1.0
}

/// Griewank of `z(0..n)`.
pub fn griewank<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let s = pairwise_sum_by(n, |i| {
        let v = z(i);
        v * v
    });
    let p = pairwise_product_by(n, |i| griewank_factor(i, z(i)));
    griewank_combine(s, p)
}
