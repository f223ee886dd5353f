//! [`PaperFunction`]: one of the paper's eight functions with its 16-bit encoding, as the CUDA engines need it
//! (the function, n and the range, which they decode and evaluate on the device).

use evo_benchmarks::ga_functions::{GaBinaryProblem, GaFunction};
use evo_core::{BinaryProblem, Bits, Result};

/// One of the eight test functions (f1–f8) over `16 n` bits, decoded as spec benchmarks.md §(a) item 4.
/// The CPU evaluation is [`GaBinaryProblem`]'s; the CUDA engines decode on the device and evaluate with
/// evo-benchmarks' GPU evaluator, bit for bit the same (Exact profile).
#[derive(Clone, Debug)]
pub struct PaperFunction {
    function: GaFunction,
    n: usize,
    lo: f64,
    hi: f64,
    inner: GaBinaryProblem,
}

impl PaperFunction {
    /// `function` with `n` variables on the paper's range.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `n` is 0.
    pub fn new(function: GaFunction, n: usize) -> Result<Self> {
        let (lo, hi) = function.paper_range();
        Self::with_range(function, n, lo, hi)
    }

    /// `function` with `n` variables, codes mapped onto `[lo, hi]`.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `n` is 0 or the range is not finite with `lo < hi`.
    pub fn with_range(function: GaFunction, n: usize, lo: f64, hi: f64) -> Result<Self> {
        Ok(Self {
            function,
            n,
            lo,
            hi,
            inner: GaBinaryProblem::with_range(function, n, lo, hi)?,
        })
    }

    /// Which function.
    pub fn function(&self) -> GaFunction {
        self.function
    }

    /// The number of variables n.
    pub fn variables(&self) -> usize {
        self.n
    }

    /// The range `[lo, hi]` of every variable.
    pub fn range(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// The decoded point of a bit string.
    pub fn decode(&self, bits: &Bits) -> Vec<f32> {
        self.inner.decode(bits)
    }
}

impl BinaryProblem for PaperFunction {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn bit_count(&self) -> usize {
        self.inner.bit_count()
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        self.inner.evaluate(bits)
    }

    fn evaluate_batch(&self, population: &[u32], fitness: &mut [f64]) {
        self.inner.evaluate_batch(population, fitness);
    }

    fn optimum(&self) -> Option<f64> {
        self.inner.optimum()
    }
}
