//! Page-locked (pinned) host memory: the only host memory the copy engines read and write without the
//! host's help, so that a copy queued on a stream runs while the host works, at the full speed of the bus.
//! A copy from pageable memory (a `Vec`) goes through the driver's own staging buffer, with the calling
//! thread copying every byte a second time.

use std::ptr::NonNull;
use std::sync::Arc;

use cudarc::driver::{CudaContext, result};
use evo_core::{Error, Result};

use crate::Gpu;
use crate::buffer::DeviceCopy;

/// Elements of page-locked host memory (`cuMemHostAlloc`), freed on drop; the owner keeps the length.
///
/// Not write-combined: the host reads what the device copies here, and write-combined memory is uncached
/// for the host's reads.
pub(crate) struct PinnedMemory<T: DeviceCopy> {
    ptr: NonNull<T>,
    context: Arc<CudaContext>,
    /// Cleared by [`PinnedMemory::abandon`]: the memory is then never freed.
    freed_on_drop: bool,
}

// SAFETY: the memory is owned by this value alone (like a `Box<[T]>`), and `T: DeviceCopy` is `Send + Sync`.
unsafe impl<T: DeviceCopy> Send for PinnedMemory<T> {}
// SAFETY: as above; shared access only hands out the pointer, which the owner dereferences.
unsafe impl<T: DeviceCopy> Sync for PinnedMemory<T> {}

impl<T: DeviceCopy> PinnedMemory<T> {
    /// `len` elements (at least one) of page-locked memory on `gpu`'s context, contents unspecified.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 elements or a byte size that does not fit in `usize`; the driver's
    /// refusal ([`Error::Driver`]) when it cannot lock that much memory.
    pub(crate) fn new(gpu: &Gpu, len: usize) -> Result<Self> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .filter(|&bytes| bytes > 0 && bytes <= isize::MAX as usize)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "pinned host memory",
                    "length",
                    format!("{len} elements of {} bytes", size_of::<T>()),
                    format!("at least one element and at most {} bytes", isize::MAX),
                )
            })?;
        gpu.usable()?;
        let context = gpu.inner.context.clone();
        context
            .bind_to_thread()
            .map_err(|e| gpu.driver_failed("cuCtxSetCurrent", e, None))?;
        // SAFETY: the context is current on this thread; flags 0 asks for plain (cached, not write-combined,
        // not mapped) page-locked memory of `bytes > 0` bytes.
        let raw = unsafe { result::malloc_host(bytes, 0) }
            .map_err(|e| gpu.driver_failed(format!("cuMemHostAlloc of {bytes} bytes"), e, None))?;
        let ptr = NonNull::new(raw.cast::<T>()).ok_or_else(|| Error::Driver {
            call: format!("cuMemHostAlloc of {bytes} bytes"),
            message: "the driver returned a null pointer".to_string(),
        })?;
        Ok(Self {
            ptr,
            context,
            freed_on_drop: true,
        })
    }

    /// The first element's address; pages are aligned far beyond `T`'s alignment.
    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Leaves the memory locked and allocated for the rest of the process, for an owner that cannot tell
    /// whether a copy queued on it has finished (its wait failed): freed memory a copy still wrote would be
    /// someone else's. The context is still released on drop, so that `Gpu::reopen` can reset it.
    pub(crate) fn abandon(&mut self) {
        self.freed_on_drop = false;
    }
}

impl<T: DeviceCopy> Drop for PinnedMemory<T> {
    fn drop(&mut self) {
        // The owner waits for every copy that touches this memory before dropping it. A failure to free
        // leaves the pages locked until the process ends; there is no one to report it to.
        if self.freed_on_drop && self.context.bind_to_thread().is_ok() {
            // SAFETY: the pointer came from cuMemHostAlloc on this context and is freed once, here.
            let _ = unsafe { result::free_host(self.ptr.as_ptr().cast()) };
        }
    }
}
