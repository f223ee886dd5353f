//! Launch-shape checks shared by the typed launchers of `kernels/cuda/benchmarks_discrete.cu`
//! ([`super::knapsack`], [`super::scheduling`], [`super::cec2006`]).

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, DeviceCopy, Gpu};

/// The module's name in errors.
pub(crate) const MODULE: &str = "benchmarks_discrete";

/// `block` must be a power of two in 32..=1024.
pub(crate) fn check_block(block: u32) -> Result<()> {
    evo_gpu_runtime::check_block_size(MODULE, block)
}

/// The row count as the kernels' `u32`.
pub(crate) fn rows_u32(rows: usize) -> Result<u32> {
    u32::try_from(rows).map_err(|_| {
        Error::invalid_parameter(MODULE, "individuals per launch", rows, "at most 2^32 - 1")
    })
}

/// `buffer` holds exactly `needed` elements.
pub(crate) fn check_exact<T: DeviceCopy>(
    what: &'static str,
    buffer: &DeviceBuffer<T>,
    needed: usize,
) -> Result<()> {
    if buffer.len() == needed {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            MODULE,
            what,
            buffer.len(),
            format!("exactly {needed} elements"),
        ))
    }
}

/// Blocks of a grid-stride launch over `items` work items of `per_block` each: at most 32 per
/// multiprocessor (the kernels loop over the rest).
pub(crate) fn grid(gpu: &Gpu, items: u32, per_block: u32) -> u32 {
    items
        .div_ceil(per_block)
        .clamp(1, gpu.info().multiprocessors.max(1) * 32)
}
