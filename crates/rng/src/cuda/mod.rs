//! The GPU side of evo-rng: typed launch functions of the `rng` kernel module's fill kernels
//! (`kernels/cuda/rng.cu`), the twins of [`crate::fill`], and the XORWOW jump tables on the device.
//!
//! Other crates' kernels do not call these: they include `kernels/common/rng.cuh` and draw in place.

mod launch;

pub use launch::*;
