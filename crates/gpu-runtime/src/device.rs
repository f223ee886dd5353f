//! Device discovery and the per-device handle [`Gpu`]: one context per device, shared by every `Gpu` clone.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaStream, DriverError, sys};
use evo_core::{Error, Result};

use crate::buffer::BufferPool;
use crate::driver_error::{describe, driver};
use crate::fault::Faults;
use crate::modules::ModuleCache;
use crate::range_batch::RangeStaging;
use crate::stream::StreamPool;

/// What a device is, read once when it is opened.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// The device index (CUDA ordinal).
    pub index: usize,
    /// The marketing name ("NVIDIA H100 80GB HBM3").
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// Total device memory in bytes.
    pub total_memory: u64,
    /// The driver's CUDA version ("13.0").
    pub driver_version: String,
}

impl DeviceInfo {
    /// The NVRTC architecture of this device (`sm_90`).
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

/// Whether the CUDA driver library can be loaded on this machine.
///
/// cudarc loads `libcuda` lazily and panics if it is absent, so every entry point of this crate asks here
/// first and turns absence into a value.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the library's candidate names and closes them again.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// The number of CUDA devices, or [`Error::NoGpu`] with the reason when the driver is absent or fails.
pub fn device_count() -> Result<usize> {
    if !driver_present() {
        return Err(Error::NoGpu {
            reason: "the CUDA driver library (libcuda) was not found".into(),
        });
    }
    cudarc::driver::result::init().map_err(|e| Error::NoGpu {
        reason: format!(
            "the CUDA driver failed to initialise: {}",
            crate::driver_error::describe(&e)
        ),
    })?;
    let count = CudaContext::device_count().map_err(|e| driver("cuDeviceGetCount", e))?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The driver's CUDA version as "major.minor".
pub fn driver_version() -> Result<String> {
    if !driver_present() {
        return Err(Error::NoGpu {
            reason: "the CUDA driver library (libcuda) was not found".into(),
        });
    }
    let mut version = 0i32;
    // SAFETY: `version` is a valid out-pointer for the duration of the call.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(|e| driver("cuDriverGetVersion", e))?;
    Ok(format!("{}.{}", version / 1000, (version % 1000) / 10))
}

/// A handle to one CUDA device: its context, stream pool, buffer pool and module cache.
///
/// Cloning is cheap and every clone shares the same context and pools: [`Gpu::open`] returns the same
/// device state for the same index for the whole process.
#[derive(Clone)]
pub struct Gpu {
    pub(crate) inner: Arc<GpuInner>,
}

pub(crate) struct GpuInner {
    pub(crate) info: DeviceInfo,
    pub(crate) context: Arc<CudaContext>,
    pub(crate) streams: StreamPool,
    pub(crate) buffers: BufferPool,
    pub(crate) modules: ModuleCache,
    /// The last kernel of each stream, named in faults that surface later, and the poisoned state.
    pub(crate) faults: Faults,
    /// The page-locked blocks of range batches (`RangeReads`, `RangeWrites`), kept between batches.
    pub(crate) range_staging: RangeStaging,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

/// Drops every part of the last handle `gpu` of device `index`, releasing its context.
fn release(index: usize, gpu: Gpu) -> Result<()> {
    let inner = Arc::try_unwrap(gpu.inner).map_err(|_| stale_slot(index, 0))?;
    let GpuInner {
        context,
        streams,
        buffers,
        modules,
        range_staging,
        ..
    } = inner;
    // Everything that refers to the old context goes first; their frees fail on a dead context, which
    // cudarc records in the context and the reset makes moot.
    drop(range_staging);
    drop(buffers);
    drop(modules);
    drop(streams);
    let context = Arc::try_unwrap(context).map_err(|context| Error::Driver {
        call: format!("Gpu::reopen({index})"),
        message: format!(
            "{} references to the old context remain outside the runtime's handles",
            Arc::strong_count(&context) - 1
        ),
    })?;
    // Dropping the last reference releases the primary context (cuDevicePrimaryCtxRelease).
    drop(context);
    Ok(())
}

/// The error for a slot that changed under the lock, which the lock rules out.
fn stale_slot(index: usize, count: usize) -> Error {
    Error::Driver {
        call: format!("Gpu::reopen({index})"),
        message: format!(
            "the device's state changed while it was being reopened ({count} devices)"
        ),
    }
}

/// Resets the primary context of device `index`, so that the next retain creates a fresh one even when a
/// library outside the runtime holds a reference of its own to the poisoned context.
fn reset_primary_context(index: usize) -> Result<()> {
    let ordinal = i32::try_from(index).map_err(|_| {
        Error::invalid_parameter("Gpu::reopen", "device index", index, "at most i32::MAX")
    })?;
    let device =
        cudarc::driver::result::device::get(ordinal).map_err(|e| driver("cuDeviceGet", e))?;
    // SAFETY: `device` comes from cuDeviceGet; the runtime holds no handle of the old context any more (the
    // caller dropped every one), so nothing of this process uses what the reset destroys.
    unsafe { sys::cuDevicePrimaryCtxReset_v2(device) }
        .result()
        .map_err(|e| driver(format!("cuDevicePrimaryCtxReset on device {index}"), e))
}

/// A stream's handle as the key of the per-stream records.
pub(crate) fn stream_id(stream: &CudaStream) -> usize {
    stream.cu_stream() as usize
}

/// One device's place in the process.
enum Slot {
    /// Not opened yet.
    Closed,
    /// Opened: every [`Gpu::open`] returns a clone.
    Open(Gpu),
    /// Poisoned, and the driver refused a new context: unusable for the rest of the process.
    Lost {
        kernel: String,
        fault: String,
        reason: String,
    },
}

/// [`Error::DeviceLost`] for device `device`.
fn lost(device: usize, kernel: &str, fault: &str, reason: &str) -> Error {
    Error::DeviceLost {
        device,
        kernel: kernel.to_string(),
        fault: fault.to_string(),
        reason: reason.to_string(),
    }
}

/// Opened devices, one slot per index, so that each device gets exactly one context per process.
fn opened() -> &'static Mutex<Vec<Slot>> {
    static OPENED: OnceLock<Mutex<Vec<Slot>>> = OnceLock::new();
    OPENED.get_or_init(|| Mutex::new(Vec::new()))
}

/// The slots, with one per device of `count`.
fn slots(count: usize) -> std::sync::MutexGuard<'static, Vec<Slot>> {
    let mut slots = opened()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if slots.len() < count {
        slots.resize_with(count, || Slot::Closed);
    }
    slots
}

impl Gpu {
    /// The first device, `Ok(None)` when this machine has no driver or no device.
    ///
    /// Errors only when a driver and a device exist but the device cannot be opened.
    pub fn first_available() -> Result<Option<Gpu>> {
        match device_count() {
            Ok(0) | Err(Error::NoGpu { .. }) => Ok(None),
            Ok(_) => Gpu::open(0).map(Some),
            Err(other) => Err(other),
        }
    }

    /// Every device of this machine, in index order (empty when there is none).
    pub fn all() -> Result<Vec<Gpu>> {
        match device_count() {
            Err(Error::NoGpu { .. }) => Ok(Vec::new()),
            Err(other) => Err(other),
            Ok(count) => (0..count).map(Gpu::open).collect(),
        }
    }

    /// Opens device `index`; [`Error::NoSuchDevice`] when it does not exist, [`Error::NoGpu`] without a driver,
    /// [`Error::DeviceLost`] when a sticky fault made it unusable for the rest of the process
    /// ([`Gpu::reopen`]).
    pub fn open(index: usize) -> Result<Gpu> {
        let count = device_count()?;
        if index >= count {
            return Err(Error::NoSuchDevice {
                index,
                count,
                valid: if count == 0 {
                    "none".to_string()
                } else {
                    format!("0..={}", count - 1)
                },
            });
        }
        let mut slots = slots(count);
        match &slots[index] {
            Slot::Open(gpu) => return Ok(gpu.clone()),
            Slot::Lost {
                kernel,
                fault,
                reason,
            } => return Err(lost(index, kernel, fault, reason)),
            Slot::Closed => {}
        }
        let gpu = Gpu::create(index)?;
        slots[index] = Slot::Open(gpu.clone());
        Ok(gpu)
    }

    /// Device `index` with a fresh context, after a sticky fault poisoned it ([`Error::DevicePoisoned`]);
    /// the same as [`Gpu::open`] for a device that is not poisoned.
    ///
    /// A sticky fault destroys the context with everything in it: buffers, modules, streams. To recover,
    /// drop every handle of the device (each `Gpu` clone, [`DeviceBuffer`](crate::DeviceBuffer),
    /// [`Kernel`](crate::Kernel), [`Graph`](crate::Graph), [`Stream`](crate::Stream),
    /// [`GpuTimer`](crate::GpuTimer), [`CurandGenerator`](crate::CurandGenerator) and
    /// [`DevicePool`](crate::DevicePool) holding it), then call `Gpu::reopen(index)`: the runtime releases
    /// the old context, resets the device's primary context (`cuDevicePrimaryCtxReset`) and opens it
    /// afresh. Modules are loaded again on first use (from the on-disk caches). Data on the device is lost:
    /// resume from the host or a checkpoint.
    ///
    /// NVIDIA documents that after a sticky fault the process must be restarted, and drivers may hold to it:
    /// the driver then refuses every new context on the device, answering even a fresh `cuCtxCreate` with
    /// the sticky error (docs/results/reliability.md#faults-on-the-gpu). The device is then lost for the rest of
    /// the process: this call and every later [`Gpu::open`] of it return [`Error::DeviceLost`], and the work
    /// must run again in a new process (a supervisor that restarts the worker, resuming from a checkpoint).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] while handles of the poisoned device are alive (the count is given; no
    /// state is changed, drop them and call again); [`Error::DeviceLost`] when the driver refuses a new
    /// context; the errors of [`Gpu::open`].
    pub fn reopen(index: usize) -> Result<Gpu> {
        let count = device_count()?;
        let mut slots = slots(count);
        match slots.get(index) {
            Some(Slot::Open(gpu)) if gpu.is_poisoned() => {
                // The slot holds one reference; every other one is a handle the caller still has.
                let handles = Arc::strong_count(&gpu.inner) - 1;
                if handles > 0 {
                    return Err(Error::invalid_parameter(
                        "Gpu::reopen",
                        "live handles of the poisoned device",
                        format!(
                            "{handles} (Gpu clones, buffers, kernels, graphs, streams, timers, generators or pools of device {index})"
                        ),
                        "none: drop every handle of the device, then reopen it",
                    ));
                }
            }
            Some(Slot::Lost { .. }) => {}
            _ => {
                drop(slots);
                return Gpu::open(index);
            }
        }
        let (kernel, fault, released) = match std::mem::replace(&mut slots[index], Slot::Closed) {
            Slot::Open(gpu) => {
                let (kernel, fault) = gpu.inner.faults.poison_parts().unwrap_or_default();
                (kernel, fault, release(index, gpu))
            }
            Slot::Lost { kernel, fault, .. } => (kernel, fault, Ok(())),
            Slot::Closed => return Err(stale_slot(index, count)),
        };
        let fresh = released
            .and_then(|()| reset_primary_context(index))
            .and_then(|()| Gpu::create(index));
        match fresh {
            Ok(gpu) => {
                slots[index] = Slot::Open(gpu.clone());
                tracing::info!(device = index, "reopened after a sticky fault");
                Ok(gpu)
            }
            Err(error) => {
                let reason = error.to_string();
                let error = lost(index, &kernel, &fault, &reason);
                slots[index] = Slot::Lost {
                    kernel,
                    fault,
                    reason,
                };
                Err(error)
            }
        }
    }

    fn create(index: usize) -> Result<Gpu> {
        let context = CudaContext::new(index)
            .map_err(|e| driver(format!("create a context on device {index}"), e))?;
        // Architecture Invariant: the runtime orders all work on the main stream, so cudarc's per-buffer
        // event tracking (a cuStreamWaitEvent and a cuEventRecord for every buffer of every launch, switched
        // on as soon as a context has a second stream) buys nothing and costs every launch
        // (`docs/results/foundation.md#untracked-streams`). Work queued on a side stream is ordered by its
        // caller (`Gpu::side_stream`).
        // SAFETY: called before any buffer of this context exists, so every slice is created untracked;
        // no work of the runtime's own crosses streams (see the invariant above).
        unsafe { context.disable_event_tracking() };
        let attribute = |a: sys::CUdevice_attribute, what: &str| -> Result<u32> {
            let value = context
                .attribute(a)
                .map_err(|e| driver(format!("read {what} of device {index}"), e))?;
            Ok(u32::try_from(value).unwrap_or(0))
        };
        let info = DeviceInfo {
            index,
            name: context.name().map_err(|e| driver("cuDeviceGetName", e))?,
            compute_capability: (
                attribute(
                    sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                    "compute capability",
                )?,
                attribute(
                    sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                    "compute capability",
                )?,
            ),
            multiprocessors: attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                "multiprocessor count",
            )?,
            total_memory: context
                .total_mem()
                .map_err(|e| driver("cuDeviceTotalMem", e))? as u64,
            driver_version: driver_version()?,
        };
        let streams = StreamPool::new(&context)?;
        let buffers = BufferPool::new(
            index,
            info.total_memory / crate::pool::DEFAULT_IDLE_CAP_DIVISOR,
        );
        Ok(Gpu {
            inner: Arc::new(GpuInner {
                info,
                context,
                streams,
                buffers,
                modules: ModuleCache::default(),
                faults: Faults::new(index),
                range_staging: RangeStaging::default(),
            }),
        })
    }

    /// What this device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The device index.
    pub fn index(&self) -> usize {
        self.inner.info.index
    }

    /// The most shared memory one block may use once its kernel opts in
    /// ([`Kernel::allow_dynamic_shared_bytes`](crate::Kernel::allow_dynamic_shared_bytes)), in bytes (227 KiB on
    /// an H100).
    ///
    /// # Errors
    /// [`Error::Driver`] when the driver cannot be queried.
    pub fn max_shared_bytes_per_block(&self) -> Result<u32> {
        self.usable()?;
        let value = self
            .inner
            .context
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(|e| driver("read the opt-in shared memory per block", e))?;
        Ok(u32::try_from(value).unwrap_or(0))
    }

    /// Free and total device memory in bytes, as the driver reports them now.
    pub fn memory(&self) -> Result<(u64, u64)> {
        self.usable()?;
        let (free, total) = self
            .inner
            .context
            .mem_get_info()
            .map_err(|e| self.driver_failed("cuMemGetInfo", e, None))?;
        Ok((free as u64, total as u64))
    }

    /// Whether a sticky fault (an illegal address in a kernel, ...) has poisoned this device: every call on it
    /// then fails with [`Error::DevicePoisoned`] until [`Gpu::reopen`].
    pub fn is_poisoned(&self) -> bool {
        self.inner.faults.is_poisoned()
    }

    /// `Ok` while the device is usable; [`Error::DevicePoisoned`] once a sticky fault was seen.
    pub(crate) fn usable(&self) -> Result<()> {
        self.inner.faults.check()
    }

    /// A failed driver `call` (on `stream`, when it was queued on one) as an error: [`Error::DevicePoisoned`]
    /// for a sticky fault, which poisons the device, [`Error::Driver`] otherwise.
    pub(crate) fn driver_failed(
        &self,
        call: impl Into<String>,
        error: DriverError,
        stream: Option<&CudaStream>,
    ) -> Error {
        let call = call.into();
        match self
            .inner
            .faults
            .sticky(&call, error.0, || describe(&error), stream.map(stream_id))
        {
            Some(poisoned) => poisoned,
            None => driver(call, error),
        }
    }

    /// Records that `kernel` was queued on `stream`, for the errors of faults that surface later.
    pub(crate) fn launched(&self, stream: &CudaStream, kernel: &Arc<str>) {
        self.inner.faults.launched(stream_id(stream), kernel);
    }

    /// Waits for all work queued on this device's streams (the main stream and the side streams); an
    /// asynchronous kernel fault is reported with the name of the last kernel launched.
    ///
    /// The streams are waited for one by one rather than the whole context, so that a graph another thread is
    /// recording (`Gpu::record_graph`, whose capture stream runs nothing) does not make this wait fail: the
    /// driver refuses a context-wide wait while any stream of it is capturing. On the recording thread itself
    /// the wait is the context's, which fails, as waiting inside a recording must.
    pub fn synchronize(&self) -> Result<()> {
        self.usable()?;
        if self.records_here() {
            return self
                .inner
                .context
                .synchronize()
                .map_err(|e| self.fault_while_synchronizing("cuCtxSynchronize", e, None));
        }
        for stream in self.inner.streams.all() {
            self.synchronize_stream(stream)?;
        }
        Ok(())
    }

    /// Waits for the work queued on `stream` (a copy to the host and what precedes it); errors as
    /// [`Gpu::synchronize`].
    pub(crate) fn synchronize_stream(&self, stream: &CudaStream) -> Result<()> {
        self.usable()?;
        stream
            .synchronize()
            .map_err(|e| self.fault_while_synchronizing("cuStreamSynchronize", e, Some(stream)))
    }

    /// A failed wait as an error naming the last kernel launched (an asynchronous fault surfaces at the next
    /// wait): [`Error::DevicePoisoned`] for a sticky fault, [`Error::KernelLaunch`] otherwise.
    pub(crate) fn fault_while_synchronizing(
        &self,
        call: &str,
        e: DriverError,
        stream: Option<&CudaStream>,
    ) -> Error {
        let stream = stream.map(stream_id);
        if let Some(poisoned) = self.inner.faults.sticky(call, e.0, || describe(&e), stream) {
            return poisoned;
        }
        Error::KernelLaunch {
            kernel: self.inner.faults.last_kernel(stream).to_string(),
            message: format!("failed while synchronizing: {}", describe(&e)),
        }
    }

    /// The main stream, on which buffer copies and launches are queued unless a pooled stream is named; on a
    /// thread that is recording a graph on this device, the recording's capture stream (`Gpu::record_graph`).
    pub(crate) fn main_stream(&self) -> Arc<CudaStream> {
        match crate::graph::capture_stream(self.index()) {
            Some(capture) => capture,
            None => self.inner.streams.main().clone(),
        }
    }
}
