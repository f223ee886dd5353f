//! Event timing: the GPU's own clock between two points of a stream.

use cudarc::driver::{CudaEvent, sys};
use evo_core::Result;

use crate::Gpu;
use crate::driver_error::driver;
use crate::stream::Stream;

/// Two events around some work on one stream; `elapsed_ms` waits for the second and returns the time between.
pub struct GpuTimer {
    start: CudaEvent,
    stop: CudaEvent,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer").finish_non_exhaustive()
    }
}

impl GpuTimer {
    /// Creates the two events on `gpu`.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let event = || {
            gpu.inner
                .context
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| driver("cuEventCreate", e))
        };
        Ok(Self {
            start: event()?,
            stop: event()?,
        })
    }

    /// Records the start on `stream`.
    pub fn start(&self, stream: &Stream) -> Result<()> {
        self.start
            .record(&stream.inner)
            .map_err(|e| driver("cuEventRecord", e))
    }

    /// Records the stop on `stream`.
    pub fn stop(&self, stream: &Stream) -> Result<()> {
        self.stop
            .record(&stream.inner)
            .map_err(|e| driver("cuEventRecord", e))
    }

    /// Waits for the stop event and returns the milliseconds between start and stop.
    pub fn elapsed_ms(&self) -> Result<f32> {
        self.stop
            .synchronize()
            .map_err(|e| driver("cuEventSynchronize", e))?;
        self.start
            .elapsed_ms(&self.stop)
            .map_err(|e| driver("cuEventElapsedTime", e))
    }
}
