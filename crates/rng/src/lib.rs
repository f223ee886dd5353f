//! # evo-rng (planned)
//!
//! This crate will hold the random number generators every evo-gpu algorithm draws from, identical on the
//! CPU and the GPU:
//!
//! - Philox4x32-10 addressed by `(seed; stream, step, individual, lane)`, so that both backends draw the
//!   same numbers whatever the thread mapping, with uniform `f32`/`f64`, bounded integers and Box–Muller
//!   normals computed with [`evo_core::math`];
//! - the papers' own generators: Marsaglia's xor128, cuRAND-compatible XORWOW and Philox4_32_10 with
//!   `curand_init(seed, subsequence, offset)` semantics.
//!
//! Nothing is implemented yet: the crate exists so that the workspace layout is complete. The work is tracked
//! in the issue "evo-rng: counter-based Philox shared by CPU and GPU".
