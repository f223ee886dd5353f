//! The CEC 2006 report's violation measures (evaluation rule 3).
//!
//! `G_k = max(0, g_k)`; `H_j = |h_j|` if `|h_j| − ε > 0`, else 0 (ε = 1e-4); mean violation
//! `v̄ = (Σ G_k + Σ H_j)/(m + p)`; `c` = the numbers of constraints whose `G_k` or `H_j` exceeds 1, 0.01 and
//! 0.0001.

use evo_core::problem::DEFAULT_EQUALITY_TOLERANCE;

/// The report's violation summary of one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cec2006Violation {
    /// `v̄`; 0 without constraints.
    pub mean: f64,
    /// Constraints violated by more than 1.
    pub above_1: usize,
    /// Constraints violated by more than 0.01.
    pub above_0_01: usize,
    /// Constraints violated by more than 0.0001.
    pub above_0_0001: usize,
}

impl Cec2006Violation {
    /// The summary of the constraint values `inequality` (`g_k`) and `equality` (`h_j`), summed in that
    /// order.
    pub fn new(inequality: &[f64], equality: &[f64]) -> Self {
        let amounts = inequality
            .iter()
            .map(|&g| if g > 0.0 { g } else { 0.0 })
            .chain(equality.iter().map(|&h| {
                if h.abs() - DEFAULT_EQUALITY_TOLERANCE > 0.0 {
                    h.abs()
                } else {
                    0.0
                }
            }));
        let mut total = 0.0;
        let mut summary = Self {
            mean: 0.0,
            above_1: 0,
            above_0_01: 0,
            above_0_0001: 0,
        };
        for amount in amounts {
            total += amount;
            summary.above_1 += usize::from(amount > 1.0);
            summary.above_0_01 += usize::from(amount > 0.01);
            summary.above_0_0001 += usize::from(amount > 0.0001);
        }
        let count = inequality.len() + equality.len();
        if count > 0 {
            summary.mean = total / count as f64;
        }
        summary
    }

    /// Whether the point is feasible under the report's rule (no `G_k` or `H_j` above 0).
    pub fn is_feasible(&self) -> bool {
        self.mean == 0.0
    }
}
