//! # evo-equivalence
//!
//! The CPU-versus-GPU equivalence suite of evo-gpu (`docs/EQUIVALENCE.md` states the contract):
//!
//! - [`tolerance`]: the named tolerances, `Exact` (same bits, the contract of every Exact-profile kernel)
//!   and `Ulps(n)`; statistical equivalence (Fast profile, paper generators) is added with its first user.
//! - [`compare`]: element-by-element comparison whose mismatch message names generation, individual, gene,
//!   both values and their bits.
//! - [`gate`]: GPU tests print `SKIPPED (no CUDA device)` without a GPU and fail under `EVO_REQUIRE_GPU=1`.
//! - [`equivalence_test!`]: each check written once, instantiated per engine pair (CPU × CUDA at each block
//!   size).
//! - [`suite`]: the checks as functions, shared by the `#[test]`s of `tests/` and by
//!   `cargo xtask verify-kernels`, which prints them as one table.

pub mod compare;
pub mod gate;
pub mod inputs;
mod macros;
pub mod suite;
pub mod tolerance;

pub use evo_gpu_runtime::Gpu;
