//! # evo-qiga (planned)
//!
//! This crate will hold the quantum-inspired genetic algorithm (Han & Kim) with GPU meta-optimization across
//! every visible GPU, and the simple GA baseline the paper compares against.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-qiga: quantum-inspired GA on CPU and GPU".
