//! # evo-dpga (planned)
//!
//! This crate will hold the dual-population genetic algorithm for constrained problems (main and reserve
//! populations), on the CPU and the GPU, over the CEC 2006 suite.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-dpga: the dual-population GA".
