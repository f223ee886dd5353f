//! Resolving [`Backend::Auto`], which evo-core cannot do without GPU access.

use evo_core::{Backend, Result};

use crate::Gpu;

/// The concrete backend for `backend`: `Auto` becomes `Cuda { device: 0 }` when a driver and a device exist,
/// otherwise `Cpu { threads: 0 }` (all cores); `Cuda { device }` is checked to exist ([`evo_core::Error::NoGpu`]
/// or [`evo_core::Error::NoSuchDevice`] otherwise); `Cpu` is returned as is.
pub fn resolve_backend(backend: Backend) -> Result<Backend> {
    match backend {
        Backend::Auto => Ok(match Gpu::first_available()? {
            Some(gpu) => Backend::Cuda {
                device: gpu.index(),
            },
            None => Backend::Cpu { threads: 0 },
        }),
        Backend::Cuda { device } => Gpu::open(device).map(|_| backend),
        other => Ok(other),
    }
}
