//! # evo-benchmarks
//!
//! The optimization *test problems* of the five papers, each with a CPU reference and a GPU evaluation. (Not
//! performance benchmarks: those live in the `evo-benches` package and `cargo xtask bench`.)
//!
//! Every problem is minimised; the knapsack, a maximisation problem, says so and is negated at the boundary.
//! Genes are `f32`, fitness accumulates in `f64` with the workspace's fixed reduction tree, so the CPU and the
//! GPU (Exact profile) agree bit for bit.
//!
//! The families, one module each; each module's docs give the formula, the domain, the optimum and the source.

pub mod de_rastrigin;
pub mod functions;
pub mod ga_functions;
pub mod shifted;
pub mod tree;

pub use de_rastrigin::DeRastrigin;
pub use ga_functions::{GaBinaryProblem, GaFunction, GaProblem};
pub use shifted::{ShiftedFunction, ShiftedProblem};
pub mod cec2010;
pub use cec2010::Cec2010Problem;
