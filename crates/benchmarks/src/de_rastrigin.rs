//! The DE paper's Rastrigin function f2 (Krömer, Snášel, Platoš, Abraham, *Many-threaded implementation of
//! differential evolution for the CUDA platform*, §4.2, eq. (6), taken from de Veronese and Krohling,
//! CEC 2010).
//!
//! ```text
//! f2(x) = Σ_{i=1}^{n} [x_i² − 10 cos(2π x_i) + 10],   minimum 0 at x = 0 (unshifted)
//! ```
//!
//! n = 100 (the paper's ref. 5), 128, 256, 512 in the paper. Domain: not given in the paper; our decision is
//! [−5.12, 5.12] (spec benchmarks.md §(g)). The formula is [`crate::functions::rastrigin`].
//!
//! ```
//! use evo_benchmarks::DeRastrigin;
//! use evo_core::ContinuousProblem;
//!
//! let f2 = DeRastrigin::new(128)?;
//! assert_eq!(f2.evaluate(&[0.0; 128]), 0.0);
//! assert_eq!(f2.evaluate(&[1.0; 128]), 128.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

use crate::functions::rastrigin::rastrigin;
use evo_core::{Bounds, ContinuousProblem, Error, Result};

/// The DE paper's unshifted Rastrigin on `[−5.12, 5.12]^n`.
#[derive(Clone, Debug)]
pub struct DeRastrigin {
    bounds: Bounds,
}

/// The decided domain's limit: `x_i ∈ [−5.12, 5.12]`.
pub const DE_RASTRIGIN_LIMIT: f32 = 5.12;

impl DeRastrigin {
    /// `n` variables on the default domain.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `n` is 0.
    pub fn new(n: usize) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid_parameter(
                "DeRastrigin",
                "dimension",
                n,
                "at least 1",
            ));
        }
        Ok(Self {
            bounds: Bounds::uniform(n, -DE_RASTRIGIN_LIMIT, DE_RASTRIGIN_LIMIT)?,
        })
    }

    /// `n` variables on a user-chosen box.
    pub fn with_bounds(bounds: Bounds) -> Self {
        Self { bounds }
    }
}

impl ContinuousProblem for DeRastrigin {
    fn name(&self) -> &str {
        "de-rastrigin"
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        rastrigin(x.len(), |i| f64::from(x[i]))
    }

    fn optimum(&self) -> Option<f64> {
        Some(0.0)
    }
}
