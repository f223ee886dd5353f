//! # evo-equivalence
//!
//! The CPU-versus-GPU equivalence suite of evo-gpu (`docs/EQUIVALENCE.md` states the contract):
//!
//! - [`tolerance`]: the named tolerances, `Exact` (same bits, the contract of every Exact-profile kernel)
//!   and `Ulps(n)`; [`statistical`]: the Statistical tolerance (a two-sided Mann–Whitney U test at a named
//!   level) for the Fast profile and the papers' own generators, where bits differ by design.
//! - [`compare`]: element-by-element comparison whose mismatch message names generation, individual, gene,
//!   both values and their bits.
//! - [`gate`]: GPU tests print `SKIPPED (no CUDA device)` without a GPU and fail under `EVO_REQUIRE_GPU=1`.
//! - [`equivalence_test!`]: each check written once, instantiated per engine pair (CPU × CUDA at each block
//!   size).
//! - [`scheduling`]: the ETC instances and the CPU-versus-CUDA lockstep that DE's scheduling tests share.
//! - [`user_bits`]: the user bit-string problems (trap-5, max-cut, a user's own kernel) that the GA's and
//!   QIGA's user-problem tests share.
//! - [`suite`]: the checks as functions, shared by the `#[test]`s of `tests/` and by
//!   `cargo xtask verify-kernels`, which prints them as one table.

pub mod compare;
pub mod gate;
pub mod inputs;
mod macros;
pub mod scheduling;
pub mod statistical;
pub mod suite;
pub mod tolerance;
pub mod user_bits;

pub use evo_gpu_runtime::Gpu;

/// The README's Rust example, compiled and run as a doc test so that it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
