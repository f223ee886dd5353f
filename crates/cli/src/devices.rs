//! `evo devices`: the CUDA devices this machine has.

use anyhow::Result;
use evo_core::Error;
use evo_gpu_runtime::Gpu;
use std::fmt::Write as _;

/// The text `evo devices` prints: one line per device, or why there is none.
///
/// # Errors
/// A driver failure other than the absence of a GPU.
pub fn render() -> Result<String> {
    let count = match evo_gpu_runtime::device_count() {
        Ok(count) => count,
        Err(Error::NoGpu { reason }) => return Ok(format!("no CUDA device found: {reason}\n")),
        Err(error) => return Err(error.into()),
    };
    if count == 0 {
        return Ok("no CUDA device found: the driver reports 0 devices\n".to_string());
    }
    let mut out = format!("CUDA driver {}\n", evo_gpu_runtime::driver_version()?);
    for index in 0..count {
        let gpu = Gpu::open(index)?;
        let info = gpu.info();
        writeln!(
            out,
            "cuda:{index}  {}  {:.1} GiB  compute capability {}.{} ({})  {} SMs",
            info.name,
            info.total_memory as f64 / f64::from(1u32 << 30),
            info.compute_capability.0,
            info.compute_capability.1,
            info.arch(),
            info.multiprocessors
        )?;
    }
    Ok(out)
}
