//! # evo-ga (planned)
//!
//! This crate will hold the binary genetic algorithm of Oiso et al. (gene-level parallelism on the GPU):
//! 16 bits per variable, tournament selection, one-point crossover, bit-flip mutation, a CPU engine and a
//! CUDA engine that produce the same snapshots.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-ga: the GA paper on CPU and GPU".
