//! # evo-rng
//!
//! The random number generators of evo-gpu, with CPU and GPU twins that give the same bits.
//!
//! ## Which generator when
//!
//! | generator | use it for | CPU ≡ GPU |
//! | --- | --- | --- |
//! | [`Philox`] (Philox4x32-10, addressed) | every operator of every algorithm: the default | bit for bit, any thread mapping |
//! | [`Xor128`] | the GA paper's mode ("Xorshift", one state per thread) | bit for bit per state; runs statistically |
//! | [`CurandXorwow`] | the DE and MA-SW-Chains papers' mode (cuRAND's default generator) | bit for bit per state; runs statistically |
//! | [`CurandPhilox`] | cuRAND's Philox4_32_10 stream semantics (`curand_init`, `skipahead`) | bit for bit per state |
//!
//! The default generator is counter-based: a draw is a pure function of its address, so a CPU loop and a GPU
//! grid of any shape read identical numbers, and a checkpoint only needs the step counter. The paper
//! generators are sequential, one state per thread, as the papers ran them; [`CurandXorwow`] and
//! [`CurandPhilox`] reproduce cuRAND's `curand_init(seed, subsequence, offset)` exactly, including XORWOW's
//! 2^67-step subsequence jumps (by GF(2) matrix powers, [`gf2`]).
//!
//! ## The addressing scheme
//!
//! ```text
//!            key = (seed low, seed high)
//!   counter = ( lane , individual , step , stream )      word 0 lowest
//!               │        │          │       └─ purpose of the draw (the Stream table)
//!               │        │          └───────── generation or steady-state event counter
//!               │        └──────────────────── individual (or pair, task, run slot)
//!               └───────────────────────────── which block of 4 words of that sequence
//!
//!   sequence (stream, step, individual):  word j = Philox(counter = (j div 4, ...))[j mod 4]
//!   │ w0 w1 w2 w3 │ w4 w5 w6 w7 │ w8 ...        lane 0 │ lane 1 │ lane 2 ...
//! ```
//!
//! Every stream id is listed once, in [`Stream`]. Run `r` of a batch started from seed `s` uses seed `s + r`
//! ([`Philox::for_batch_run`]).
//!
//! ## Conversions ([`convert`], spec rng.md §5)
//!
//! - uniform f32 in (0, 1]: `f32(w)·2^-32 + 2^-33`; uniform f64 in (0, 1) from two words;
//! - integer in `[0, n)`: Lemire's multiply-shift without rejection (relative bias below n/2^32);
//! - normal: Box–Muller in cuRAND's order with the portable math of [`evo_core::math`].
//!
//! CPU fills of every generator and conversion are in [`fill`], their GPU twins in [`cuda`]; the device code
//! that other kernels include is `kernels/common/rng/`.
//!
//! ## Example
//!
//! ```
//! use evo_rng::{Philox, Stream};
//!
//! let rng = Philox::new(42);
//! // The crossover decisions of individual 7 in generation 3: word j decides coordinate j.
//! let decisions = rng.sequence(Stream::DeCross, 3, 7);
//! let crossed: Vec<bool> = (0..10).map(|j| decisions.uniform_f32(j) < 0.9).collect();
//! // The same address always gives the same numbers, in any order.
//! assert_eq!(decisions.uniform_f32(4) < 0.9, crossed[4]);
//!
//! // cuRAND's XORWOW, as the DE paper's kernels seeded it (one subsequence per thread).
//! let mut thread_5 = evo_rng::CurandXorwow::new(1234, 5, 0);
//! let u = thread_5.uniform_f32();
//! assert!(u > 0.0 && u <= 1.0);
//! ```
//!

mod addressed;
pub mod convert;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod curand_philox;
pub mod curand_xorwow;
pub mod fill;
pub mod gf2;
pub mod philox;
mod stream;
pub mod xor128;

pub use addressed::{Philox, Sequence};
pub use curand_philox::CurandPhilox;
pub use curand_xorwow::CurandXorwow;
pub use stream::Stream;
pub use xor128::Xor128;
