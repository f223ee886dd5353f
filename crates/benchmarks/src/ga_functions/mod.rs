//! The GA paper's eight test functions (Oiso, Matsumura, Yasuda, Ohkura, *Implementing genetic algorithms to
//! CUDA environment using data parallelization*, Table 1 and §4.2), unshifted, n = 32 and n = 128 in the
//! paper (any n ≥ 1 here).
//!
//! | id | [`GaFunction`] | f(x) | range (paper) | optimum |
//! | --- | --- | --- | --- | --- |
//! | f1 | `Hypersphere` | Σ x_i² | [−5.12, 5.12] | 0 at 0 |
//! | f2 | `Ridge` | Σ_i (Σ_{j≤i} x_j)² | [−100, 100] | 0 at 0 |
//! | f3 | `Rosenbrock` | Σ_{i<n} [100(x_{i+1} − x_i²)² + (1 − x_i)²] | [−2.048, 2.048] | 0 at 1 |
//! | f4 | `Step` | Σ ⌊x_i + 0.5⌋² | [−100, 100] | 0 for x_i ∈ [−0.5, 0.5) |
//! | f5 | `Griewank` | Σ x_i²/4000 − Π cos(x_i/√i) + 1 | [−2.048, 2.048] | 0 at 0 |
//! | f6 | `Schwefel` | Σ −x_i sin(√\|x_i\|) | [−512, 512] | −418.982887·n at 420.968746 |
//! | f7 | `Rastrigin` | Σ [x_i² − 10 cos(2πx_i) + 10] | [−5.12, 5.12] | 0 at 0 |
//! | f8 | `Ackley` | −20 exp(−0.2√(Σx_i²/n)) − exp(Σcos(2πx_i)/n) + 20 + e | [−32, 32] | 0 at 0 |
//!
//! The formulas live in [`crate::functions`]; the decisions on the paper's typos and decimal commas are
//! spec benchmarks.md §(a). Two problem types:
//!
//! - [`GaProblem`], a [`ContinuousProblem`](evo_core::ContinuousProblem) over `f32` genes in the range;
//! - [`GaBinaryProblem`], a [`BinaryProblem`](evo_core::BinaryProblem) with the paper's 16-bit encoding
//!   ([`decode`]).
//!
//! ```
//! use evo_benchmarks::ga_functions::{GaBinaryProblem, GaFunction, GaProblem};
//! use evo_core::{BinaryProblem, Bits, ContinuousProblem};
//!
//! let sphere = GaProblem::new(GaFunction::Hypersphere, 32)?;
//! assert_eq!(sphere.evaluate(&[0.0; 32]), 0.0);
//!
//! // 16 bits per variable: all zeros decode to the lower limit −5.12.
//! let binary = GaBinaryProblem::new(GaFunction::Hypersphere, 2)?;
//! let f = binary.evaluate(&Bits::zeros(32));
//! assert!((f - 2.0 * 5.12f64 * 5.12).abs() < 1e-5);
//! # Ok::<(), evo_core::Error>(())
//! ```

mod decode;
mod problem;

pub use decode::{BITS_PER_VARIABLE, decode, decode_variable};
pub use problem::{GaBinaryProblem, GaFunction, GaProblem};

#[cfg(test)]
mod tests;
