//! # evo-ma-sw-chains (planned)
//!
//! This crate will hold MA-SW-Chains, the memetic algorithm with Solis–Wets local-search chains, on the CPU
//! and the GPU, from 10^3 to 10^8 variables.
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-ma-sw-chains: MA-SW-Chains on CPU and GPU".
