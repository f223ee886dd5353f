//! Event timing: the GPU's own clock between two points of a stream.

use cudarc::driver::{CudaEvent, sys};
use evo_core::Result;

use crate::Gpu;
use crate::stream::Stream;

/// Two events around some work on one stream; `elapsed_ms` waits for the second and returns the time between.
pub struct GpuTimer {
    start: CudaEvent,
    stop: CudaEvent,
    /// The device, which [`Gpu::reopen`] counts among the handles to drop.
    gpu: Gpu,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer").finish_non_exhaustive()
    }
}

impl GpuTimer {
    /// Creates the two events on `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        gpu.usable()?;
        let event = || {
            gpu.inner
                .context
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| gpu.driver_failed("cuEventCreate", e, None))
        };
        Ok(Self {
            start: event()?,
            stop: event()?,
            gpu: gpu.clone(),
        })
    }

    /// Records the start on `stream`.
    pub fn start(&self, stream: &Stream) -> Result<()> {
        self.gpu.usable()?;
        self.start.record(&stream.inner).map_err(|e| {
            self.gpu
                .driver_failed("cuEventRecord", e, Some(&stream.inner))
        })
    }

    /// Records the stop on `stream`.
    pub fn stop(&self, stream: &Stream) -> Result<()> {
        self.gpu.usable()?;
        self.stop.record(&stream.inner).map_err(|e| {
            self.gpu
                .driver_failed("cuEventRecord", e, Some(&stream.inner))
        })
    }

    /// Waits for the stop event and returns the milliseconds between start and stop.
    pub fn elapsed_ms(&self) -> Result<f32> {
        self.gpu.usable()?;
        self.stop
            .synchronize()
            .map_err(|e| self.gpu.driver_failed("cuEventSynchronize", e, None))?;
        self.start
            .elapsed_ms(&self.stop)
            .map_err(|e| self.gpu.driver_failed("cuEventElapsedTime", e, None))
    }
}
