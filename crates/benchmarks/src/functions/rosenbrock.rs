//! Rosenbrock.
//!
//! ```text
//! f(z) = Σ_{i=0}^{n-2} [100 (z_i² − z_{i+1})² + (z_i − 1)²],   minimum 0 at z = 1
//! ```
//!
//! The GA paper's form 100(x_{i+1} − x_i²)² + (1 − x_i)² is the same number (squares of negated values are
//! bitwise equal). Domains: [−2.048, 2.048] (GA paper f3, printed with a decimal comma), [−100, 100]
//! (CEC 2010). Sources: Oiso et al. Table 1 (the printed x_i in place of x_{i+1} is a typo, spec §(a)
//! decision 1); Tang et al. §2. Twin: `evo_rosenbrock_term`.

use evo_core::reduce::pairwise_sum_by;

/// One term, `100 t² + d²` with `t = z_i² − z_{i+1}`, `d = z_i − 1`, computed as `((100 t) t) + (d d)`.
#[inline]
pub fn rosenbrock_term(zi: f64, znext: f64) -> f64 {
    let t = zi * zi - znext;
    let d = zi - 1.0;
    100.0 * t * t + d * d
}

/// Rosenbrock of `z(0..n)`: the `n − 1` terms summed with the canonical tree (0 for `n < 2`).
pub fn rosenbrock<Z: Fn(usize) -> f64 + Sync + Send>(n: usize, z: Z) -> f64 {
    let terms = n.saturating_sub(1);
    pairwise_sum_by(terms, |i| rosenbrock_term(z(i), z(i + 1)))
}
