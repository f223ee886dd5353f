//! # evo-de (planned)
//!
//! This crate will hold the many-threaded differential evolution of Krömer et al. (DE/rand/1/bin, one block
//! per vector), applied to independent-task scheduling on ETC matrices and to Rastrigin, plus jDE.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-de: the DE paper on CPU and GPU".
