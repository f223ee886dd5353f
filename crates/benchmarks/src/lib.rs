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

//!
//! Continuous problems:
//!
//! | module | problems | source |
//! | --- | --- | --- |
//! | [`ga_functions`] | the GA paper's 8 functions, over `f32` genes or the paper's 16-bit codes | Oiso et al., Table 1, §4.2 |
//! | [`shifted`] | MA-SW-Chains' 6 shifted functions, fBias −330, D up to 10⁸ | Lastra et al., §6.3 |
//! | [`cec2010`] | CEC 2010 LSGO F1–F20 with the official instances | Tang et al. (2009) |
//! | [`de_rastrigin`] | the DE paper's Rastrigin f2 | Krömer et al., §4.2 |
//!
//! Their formulas live in [`functions`] (one file per base function), the fixed-shape product in [`tree`],
//! the sum of squared prefix sums in [`prefix_squares`], and the GPU evaluation in [`cuda`].
//!
//! Discrete and constrained problems:
//!
//! | module | problems | source |
//! | --- | --- | --- |
//! | [`cec2006`] | CEC 2006 g01–g24, objective, constraints, violation (ε = 1e-4) | Liang et al. (2006); esa/pagmo2 |
//! | [`knapsack`] | 0/1 knapsack: the paper's and Pisinger's generators, file loader, index-order and greedy repairs, LP bound, exact optimum | Nowotniak, Kucharski; rnowotniak/qopt |
//! | [`scheduling`] | ETC independent-task scheduling: Braun loader and generator, makespan, flowtime, fitness, Min-Min | Braun et al. (2001); Krömer et al., §4.1 |
//!
//! Instance files are read from the data folder of [`data`] (`$EVO_DATA_DIR` or `../shared/data`); their
//! GPU evaluation is in [`cuda::knapsack`], [`cuda::scheduling`] and [`cuda::cec2006`].

pub mod cec2006;
pub mod cec2010;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod data;
pub mod de_rastrigin;
pub mod functions;
pub mod ga_functions;
pub mod knapsack;
pub mod prefix_squares;
pub mod scheduling;
pub mod shifted;
pub mod tree;

pub use cec2006::Cec2006Problem;
pub use cec2010::Cec2010Problem;
pub use de_rastrigin::DeRastrigin;
pub use ga_functions::{GaBinaryProblem, GaFunction, GaProblem};
pub use knapsack::Knapsack;
pub use scheduling::{EtcInstance, EtcProblem};
pub use shifted::{ShiftedFunction, ShiftedProblem};
