//! # evo-benchmarks (planned)
//!
//! This crate will hold the optimization *test problems* of the five papers (not performance benchmarks,
//! which live in the `evo-benches` package): the GA paper's eight functions, the MA-SW-Chains paper's shifted
//! functions and CEC 2010, CEC 2006 g01–g24, knapsack and ETC scheduling instances, each with a CPU reference
//! and a GPU evaluation.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-benchmarks: every problem of the five
//! papers".
