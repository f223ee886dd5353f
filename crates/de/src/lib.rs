//! # evo-de
//!
//! Differential evolution after Krömer, Snášel, Platoš, Abraham, *Many-threaded implementation of
//! differential evolution for the CUDA platform* (GECCO'11), with the paper's two problems — independent-task
//! scheduling on ETC matrices and Rastrigin — and, beyond the paper, DE/best/1, DE/current-to-best/1,
//! exponential crossover and jDE self-adaptation. Spec: `shared/spec/de.md`.
//!
//! ## Algorithm 1 (the numbered steps the code refers to)
//!
//! 1. Initialise the population of `M` vectors uniformly in the box (stream `DeInit`).
//! 2. Evaluate every vector.
//! 3. Until the termination holds, for every vector `i` (all from the same parents, generation-synchronous):
//!    1. mutation: `v = x_r1 + F·(x_r2 − x_r3)` with `r1, r2, r3` distinct and `≠ i` ([`Strategy`]);
//!    2. range repair: clamp every coordinate into the box;
//!    3. crossover with `x_i` ([`Crossover`]; binomial by default, forcing coordinate `j_rand`);
//!    4. evaluate the trial; it replaces `x_i` when better ([`Selection`]).
//!
//! ## Parameters
//!
//! See [`DeParams`]: `M = 64`, `F = 0.5`, `CR = 0.9` (the paper gives neither; spec §3), DE/rand/1/bin,
//! strictly-better selection, fixed `F` and `CR` (or [`Adaptation::Jde`]).
//!
//! ## Engines
//!
//! [`DeCpu`] runs on a rayon pool (one thread or all cores) and is the reference. Both engines implement
//! [`evo_core::Engine`], so the [`evo_core::Executor`] runs them to any termination (generations,
//! evaluations, wall time as in the paper's 30 s, target, stagnation) with observers and checkpoints.
//!
//! ## Scheduling
//!
//! The ETC problem, its instances (files or the generator) and Min-Min come from
//! [`evo_benchmarks::scheduling`]; [`min_min_vector`] encodes the Min-Min schedule so that it can seed the
//! initial population ([`DeCpu::with_initial_vectors`]).

pub mod cpu;
pub mod cuda;
pub mod ops;
pub mod params;
pub mod problem;
mod run;
pub mod scheduling;
pub mod snapshot;

pub use cpu::DeCpu;
pub use cuda::DeCuda;
pub use params::{Adaptation, Crossover, DeParams, Selection, Strategy};
pub use problem::{DeviceEvaluation, DeviceProblem, FnProblem, HostEvaluated};
pub use run::run;
pub use scheduling::{encode_schedule, min_min_vector};
pub use snapshot::DeSnapshot;
