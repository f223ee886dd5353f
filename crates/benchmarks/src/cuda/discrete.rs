//! Launch-shape checks shared by the typed launchers of `kernels/cuda/benchmarks_discrete.cu`
//! ([`super::knapsack`], [`super::scheduling`], [`super::cec2006`]).

use evo_core::Result;
use evo_gpu_runtime::{Gpu, LaunchSite};
use evo_kernels::EntryPoint;

/// The module's name in errors.
pub(crate) const MODULE: &str = "benchmarks_discrete";

/// `block` must be a power of two in 32..=1024.
pub(crate) fn check_block(block: u32) -> Result<()> {
    evo_gpu_runtime::check_block_size(MODULE, block)
}

/// The launch of `entry`, its errors from this module.
pub(crate) fn site(entry: EntryPoint) -> LaunchSite {
    LaunchSite::new(MODULE, entry)
}

/// Blocks of a grid-stride launch over `items` work items of `per_block` each: at most 32 per
/// multiprocessor (the kernels loop over the rest).
pub(crate) fn grid(gpu: &Gpu, items: u32, per_block: u32) -> u32 {
    items
        .div_ceil(per_block)
        .clamp(1, gpu.info().multiprocessors.max(1) * 32)
}
