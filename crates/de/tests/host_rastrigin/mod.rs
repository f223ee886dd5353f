//! Rastrigin in f64 as a user would write it for the host path (`FnProblem`), shared by the tests of the
//! host evaluation.

/// Σ x² + 10 − 10·cos(2πx) over the row, in f64.
pub fn rastrigin(x: &[f32]) -> f64 {
    x.iter()
        .map(|&v| {
            let v = f64::from(v);
            v * v + 10.0 - 10.0 * (2.0 * std::f64::consts::PI * v).cos()
        })
        .sum()
}
