//! Sharing device memory and stream order with another CUDA library of the same process (PyTorch or CuPy
//! through DLPack): a buffer's device address, the main stream's handle, and a wait of a stream the runtime
//! does not own for the work queued on the main stream.
//!
//! The runtime's context is the device's primary context (`cuDevicePrimaryCtxRetain`), the one the CUDA
//! runtime API and the libraries built on it use, so addresses and streams pass between them unchanged.

use cudarc::driver::{CudaEvent, DevicePtr, result, sys};
use evo_core::Result;

use crate::Gpu;
use crate::buffer::{DeviceBuffer, DeviceCopy};

/// `CU_STREAM_LEGACY`: the legacy default stream's special handle.
pub const LEGACY_DEFAULT_STREAM: u64 = 0x1;
/// `CU_STREAM_PER_THREAD`: the per-thread default stream's special handle.
pub const PER_THREAD_DEFAULT_STREAM: u64 = 0x2;

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// The device address of the first element (a `CUdeviceptr`), valid while the buffer lives.
    ///
    /// Work the runtime queued on the main stream may still be reading or writing the buffer: another
    /// library that uses the address on its own stream must first order that stream after the main stream
    /// ([`Gpu::order_after_main`]).
    pub fn device_address(&self) -> u64 {
        let stream = self.gpu().main_stream();
        // Event tracking is off (`Gpu::open`), so the guard that comes with the address records nothing.
        let (address, _guard) = self.raw().device_ptr(&stream);
        address
    }
}

impl Gpu {
    /// The main stream's handle (`CUstream`) as an integer: the stream the runtime queues buffer copies and
    /// launches on, which the DLPack protocol names by this number.
    pub fn main_stream_handle(&self) -> u64 {
        self.main_stream().cu_stream() as u64
    }

    /// Queues on `foreign` a wait for everything queued so far on the main stream, without blocking the host:
    /// work queued on `foreign` afterwards sees the main stream's results (an event recorded on the main
    /// stream, `cuStreamWaitEvent` on `foreign`).
    ///
    /// # Safety
    /// `foreign` must be a live stream of this device's primary context (created by another library of this
    /// process and kept alive until this call returns), or one of the special handles
    /// [`LEGACY_DEFAULT_STREAM`] and [`PER_THREAD_DEFAULT_STREAM`].
    ///
    /// # Errors
    /// [`evo_core::Error::Driver`] (or [`evo_core::Error::DevicePoisoned`]) when the driver refuses the event
    /// or the wait.
    pub unsafe fn order_after_main(&self, foreign: u64) -> Result<()> {
        self.usable()?;
        let main = self.main_stream();
        let event = main
            .record_event(None)
            .map_err(|e| self.driver_failed("cuEventRecord", e, Some(&main)))?;
        // SAFETY: the caller guarantees `foreign` is a live stream of this context or a special handle; the
        // event belongs to this context and lives until the wait is queued (the driver keeps what the wait
        // needs after the event is destroyed).
        unsafe {
            result::stream::wait_event(
                foreign as sys::CUstream,
                event.cu_event(),
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(|e| self.driver_failed("cuStreamWaitEvent", e, None))
    }
}

/// One event, created once and recorded again for every hand-off, that orders the main stream and a stream
/// of another library after each other: the per-call alternative to [`Gpu::order_after_main`] for a caller
/// that hands work back and forth every generation (a Python fitness function), which would otherwise create
/// and destroy an event each time.
///
/// A wait queued by `cuStreamWaitEvent` keeps the work the event stood for when the wait was queued, so
/// recording the event again afterwards changes no earlier wait; the record and its wait are made under one
/// lock, so two threads never interleave them.
pub struct StreamOrder {
    gpu: Gpu,
    event: std::sync::Mutex<CudaEvent>,
}

impl StreamOrder {
    /// The event of `gpu` (timing disabled, the cheapest kind to record).
    ///
    /// # Errors
    /// [`evo_core::Error::Driver`] (or [`evo_core::Error::DevicePoisoned`]) when the driver refuses the event.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        gpu.usable()?;
        let main = gpu.main_stream();
        let event = main
            .context()
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(|e| gpu.driver_failed("cuEventCreate", e, Some(&main)))?;
        Ok(Self {
            gpu: gpu.clone(),
            event: std::sync::Mutex::new(event),
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// As [`Gpu::order_after_main`]: queues on `foreign` a wait for everything queued so far on the main
    /// stream, without blocking the host.
    ///
    /// # Safety
    /// As [`Gpu::order_after_main`].
    ///
    /// # Errors
    /// As [`Gpu::order_after_main`].
    pub unsafe fn order_after_main(&self, foreign: u64) -> Result<()> {
        let main = self.gpu.main_stream();
        // SAFETY: the caller's guarantee on `foreign`, passed on.
        unsafe { self.hand_off(main.cu_stream(), foreign as sys::CUstream) }
    }

    /// The reverse: queues on the main stream a wait for everything queued so far on `foreign`, so the
    /// engine's next launches see another library's results without a host wait.
    ///
    /// # Safety
    /// As [`Gpu::order_after_main`].
    ///
    /// # Errors
    /// As [`Gpu::order_after_main`].
    pub unsafe fn order_main_after(&self, foreign: u64) -> Result<()> {
        let main = self.gpu.main_stream();
        // SAFETY: the caller's guarantee on `foreign`, passed on.
        unsafe { self.hand_off(foreign as sys::CUstream, main.cu_stream()) }
    }

    /// Records the event on `from` and queues its wait on `to`, under the lock.
    ///
    /// # Safety
    /// Both streams are live streams of this device's primary context or special handles.
    unsafe fn hand_off(&self, from: sys::CUstream, to: sys::CUstream) -> Result<()> {
        self.gpu.usable()?;
        let event = self
            .event
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let main = self.gpu.main_stream();
        // The special handles (the legacy and per-thread default streams) mean the current context's.
        main.context()
            .bind_to_thread()
            .map_err(|e| self.gpu.driver_failed("cuCtxSetCurrent", e, None))?;
        // SAFETY: the event is this context's and alive; `from` is a live stream of it (the caller).
        unsafe { result::event::record(event.cu_event(), from) }
            .map_err(|e| self.gpu.driver_failed("cuEventRecord", e, None))?;
        // SAFETY: as above for `to`; the wait is queued before the lock lets the event be recorded again.
        unsafe {
            result::stream::wait_event(
                to,
                event.cu_event(),
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
        .map_err(|e| self.gpu.driver_failed("cuStreamWaitEvent", e, None))
    }
}
