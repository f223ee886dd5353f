//! Device buffers and the per-device buffer pool.
//!
//! Allocations are rounded up to a size class and returned to the pool when a [`DeviceBuffer`] drops, so a
//! generation loop that allocates the same sizes every step reaches a steady state with no driver
//! allocation at all. The classes are powers of two up to 1 MiB and then steps of one eighth of the
//! enclosing power of two, which bounds the slack to 12.5 % for large buffers (a 10^8-gene population does
//! not pay for a doubling).
//!
//! The pool gives memory back: idle bytes are capped (a quarter of the device's memory by default,
//! [`Gpu::set_buffer_pool_cap`]), the oldest idle buffers being freed first, [`Gpu::trim_buffer_pool`] frees
//! every idle buffer, and an allocation the driver refuses is retried once after a trim.

use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::CudaSlice;
use evo_core::{Error, Result};

use crate::Gpu;
use crate::driver_error::is_out_of_memory;
use crate::pool::IdleBuffers;

/// Plain data that may be copied to and from the device byte for byte.
///
/// # Safety
/// Implementors must be `Copy` types without padding or pointers for which every bit pattern is a valid
/// value (integers, floats), because device memory reaches them uninitialised or written by kernels.
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

// SAFETY: primitive integers and floats have no padding and accept every bit pattern.
unsafe impl DeviceCopy for u8 {}
// SAFETY: as above.
unsafe impl DeviceCopy for i8 {}
// SAFETY: as above.
unsafe impl DeviceCopy for u16 {}
// SAFETY: as above.
unsafe impl DeviceCopy for i16 {}
// SAFETY: as above.
unsafe impl DeviceCopy for u32 {}
// SAFETY: as above.
unsafe impl DeviceCopy for i32 {}
// SAFETY: as above.
unsafe impl DeviceCopy for u64 {}
// SAFETY: as above.
unsafe impl DeviceCopy for i64 {}
// SAFETY: as above.
unsafe impl DeviceCopy for f32 {}
// SAFETY: as above.
unsafe impl DeviceCopy for f64 {}

/// Smallest size class in bytes; also the alignment every buffer gets from the driver (at least 256).
const MIN_CLASS: usize = 256;
/// Above this size, classes advance in eighths of a power of two instead of doubling.
const FINE_CLASSES_FROM: usize = 1 << 20;

/// The size class of a request of `bytes` bytes; `None` when the class does not fit in `usize`.
///
/// Checked rather than wrapping: in a release build the rounding of a request near `usize::MAX` used to wrap
/// to a class of 0 bytes, and `Gpu::alloc` returned a buffer with no memory behind it.
pub(crate) fn size_class(bytes: usize) -> Option<usize> {
    let bytes = bytes.max(MIN_CLASS);
    if bytes <= FINE_CLASSES_FROM {
        return Some(bytes.next_power_of_two());
    }
    let step = (1usize << (usize::BITS - 1 - bytes.leading_zeros())) / 8;
    bytes.div_ceil(step).checked_mul(step)
}

/// The byte size and size class of `len` elements of `element_bytes` bytes each.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the bytes asked for when the byte size or its size class does not fit
/// in `usize` (no device could hold it).
pub(crate) fn request_size(len: usize, element_bytes: usize) -> Result<(usize, usize)> {
    let too_large = || {
        // Widening to u128 is exact, so the message states the true size asked for.
        let asked = len as u128 * element_bytes as u128;
        Error::invalid_parameter(
            "Gpu::alloc",
            "buffer length",
            format!("{len} elements of {element_bytes} bytes ({asked} bytes)"),
            format!(
                "a length whose byte size, rounded up to its size class, is at most {} bytes",
                usize::MAX
            ),
        )
    };
    let bytes = len.checked_mul(element_bytes).ok_or_else(too_large)?;
    let class = size_class(bytes).ok_or_else(too_large)?;
    Ok((bytes, class))
}

/// Counters of one device's buffer pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BufferPoolStats {
    /// Allocations that went to the driver.
    pub device_allocations: u64,
    /// Requests served from the pool without touching the driver.
    pub reuses: u64,
    /// Bytes held by idle buffers in the pool.
    pub idle_bytes: u64,
    /// The most idle bytes the pool keeps ([`Gpu::set_buffer_pool_cap`]).
    pub idle_cap_bytes: u64,
    /// Buffers given back to the driver by the cap or by trims.
    pub releases: u64,
}

/// The buffer pool of one device.
pub(crate) struct BufferPool {
    device: usize,
    idle: Mutex<IdleBuffers<CudaSlice<u8>>>,
    device_allocations: AtomicU64,
    reuses: AtomicU64,
    releases: AtomicU64,
}

impl BufferPool {
    /// An empty pool of `device` that keeps at most `idle_cap` idle bytes.
    pub(crate) fn new(device: usize, idle_cap: u64) -> Self {
        Self {
            device,
            idle: Mutex::new(IdleBuffers::new(idle_cap)),
            device_allocations: AtomicU64::new(0),
            reuses: AtomicU64::new(0),
            releases: AtomicU64::new(0),
        }
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, IdleBuffers<CudaSlice<u8>>> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn take_idle(&self, class: usize) -> Option<CudaSlice<u8>> {
        self.idle().take(class)
    }

    /// Frees `released` (outside the pool's lock: each drop is a driver call) and counts them.
    fn release(&self, released: Vec<CudaSlice<u8>>) {
        let count = u64::try_from(released.len()).unwrap_or(u64::MAX);
        self.releases.fetch_add(count, Ordering::Relaxed);
        drop(released);
    }

    pub(crate) fn give_back(&self, class: usize, slice: CudaSlice<u8>) {
        let released = self.idle().put(class, slice);
        self.release(released);
    }

    /// Frees every idle buffer; returns the bytes released.
    fn trim(&self) -> u64 {
        let (bytes, released) = {
            let mut idle = self.idle();
            (idle.idle_bytes(), idle.drain())
        };
        self.release(released);
        bytes
    }

    fn set_cap(&self, cap: u64) {
        let released = self.idle().set_cap(cap);
        self.release(released);
    }

    pub(crate) fn stats(&self) -> BufferPoolStats {
        let idle = self.idle();
        BufferPoolStats {
            device_allocations: self.device_allocations.load(Ordering::Relaxed),
            reuses: self.reuses.load(Ordering::Relaxed),
            idle_bytes: idle.idle_bytes(),
            idle_cap_bytes: idle.cap(),
            releases: self.releases.load(Ordering::Relaxed),
        }
    }
}

/// A typed buffer of device memory, from the pool of its device, returned there on drop.
pub struct DeviceBuffer<T: DeviceCopy> {
    raw: Option<CudaSlice<u8>>,
    class: usize,
    len: usize,
    gpu: Gpu,
    _element: PhantomData<T>,
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("device", &self.gpu.index())
            .field("len", &self.len)
            .field("class_bytes", &self.class)
            .finish()
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take()
            && let Some(raw) = crate::graph::keep(self.gpu.index(), self.class, raw)
        {
            self.gpu.inner.buffers.give_back(self.class, raw);
        }
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes of the elements (not of the size class).
    pub fn byte_len(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The device the buffer lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    pub(crate) fn raw(&self) -> &CudaSlice<u8> {
        // The slot is only emptied by `drop`.
        self.raw
            .as_ref()
            .unwrap_or_else(|| unreachable!("a live DeviceBuffer always holds its slice"))
    }

    pub(crate) fn raw_mut(&mut self) -> &mut CudaSlice<u8> {
        self.raw
            .as_mut()
            .unwrap_or_else(|| unreachable!("a live DeviceBuffer always holds its slice"))
    }

    /// Copies `host` into the buffer; `host.len()` must equal `self.len()`.
    pub fn copy_from_host(&mut self, host: &[T]) -> Result<()> {
        if host.len() != self.len {
            return Err(Error::invalid_parameter(
                "DeviceBuffer::copy_from_host",
                "host slice length",
                host.len(),
                format!("equal to the buffer length {}", self.len),
            ));
        }
        self.gpu.usable()?;
        let bytes = as_bytes(host);
        let stream = self.gpu.main_stream().clone();
        let n = bytes.len();
        let gpu = self.gpu.clone();
        let mut view = self.raw_mut().slice_mut(0..n);
        stream
            .memcpy_htod(bytes, &mut view)
            .map_err(|e| gpu.driver_failed("cuMemcpyHtoD", e, Some(&stream)))
    }

    /// Sets every byte to zero (`cuMemsetD8Async` on the main stream; the fastest pure write the device does,
    /// the write-bandwidth ceiling of the benches).
    pub fn fill_zero(&mut self) -> Result<()> {
        self.gpu.usable()?;
        let stream = self.gpu.main_stream().clone();
        let n = self.byte_len();
        let gpu = self.gpu.clone();
        let mut view = self.raw_mut().slice_mut(0..n);
        stream
            .memset_zeros(&mut view)
            .map_err(|e| gpu.driver_failed("cuMemsetD8", e, Some(&stream)))
    }

    /// Copies `source` into the buffer on the device (`cuMemcpyDtoDAsync` on the main stream); the lengths
    /// must be equal.
    pub fn copy_from_device(&mut self, source: &DeviceBuffer<T>) -> Result<()> {
        if source.len != self.len {
            return Err(Error::invalid_parameter(
                "DeviceBuffer::copy_from_device",
                "source length",
                source.len,
                format!("equal to the buffer length {}", self.len),
            ));
        }
        self.gpu.usable()?;
        let stream = self.gpu.main_stream().clone();
        let n = self.byte_len();
        let gpu = self.gpu.clone();
        let from = source.raw().slice(0..n);
        let mut view = self.raw_mut().slice_mut(0..n);
        stream
            .memcpy_dtod(&from, &mut view)
            .map_err(|e| gpu.driver_failed("cuMemcpyDtoD", e, Some(&stream)))
    }

    /// Copies the buffer into `host` and waits for the copy; `host.len()` must equal `self.len()`.
    pub fn copy_to_host(&self, host: &mut [T]) -> Result<()> {
        if host.len() != self.len {
            return Err(Error::invalid_parameter(
                "DeviceBuffer::copy_to_host",
                "host slice length",
                host.len(),
                format!("equal to the buffer length {}", self.len),
            ));
        }
        self.gpu.usable()?;
        let stream = self.gpu.main_stream().clone();
        let n = self.byte_len();
        let bytes = as_bytes_mut(host);
        stream
            .memcpy_dtoh(&self.raw().slice(0..n), bytes)
            .map_err(|e| self.gpu.driver_failed("cuMemcpyDtoH", e, Some(&stream)))?;
        self.gpu.synchronize_stream(&stream)
    }

    /// The buffer's contents as a new vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut host = Vec::with_capacity(self.len);
        // Zero bits are a valid T (DeviceCopy); every element is overwritten by the copy below.
        host.resize(self.len, zeroed::<T>());
        self.copy_to_host(&mut host)?;
        Ok(host)
    }
}

/// An all-zero-bits value of `T`, valid because `T: DeviceCopy` accepts every bit pattern.
fn zeroed<T: DeviceCopy>() -> T {
    // SAFETY: `T: DeviceCopy` promises that every bit pattern, zero included, is a valid `T`.
    unsafe { std::mem::zeroed() }
}

pub(crate) fn as_bytes<T: DeviceCopy>(values: &[T]) -> &[u8] {
    // SAFETY: `T: DeviceCopy` has no padding, so every byte of the slice is initialised; u8 has alignment 1.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

pub(crate) fn as_bytes_mut<T: DeviceCopy>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; and any bytes written are a valid `T` because `T: DeviceCopy`.
    unsafe {
        std::slice::from_raw_parts_mut(
            values.as_mut_ptr().cast::<u8>(),
            std::mem::size_of_val(values),
        )
    }
}

impl Gpu {
    /// A buffer of `len` elements with unspecified contents (a reused buffer keeps its old bytes).
    ///
    /// Served from the pool when an idle buffer of the same size class exists; otherwise allocated. Fails with
    /// [`Error::GpuOutOfMemory`] (bytes asked, bytes free) when the device cannot hold it, after releasing the
    /// pool's idle buffers and trying once more.
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let (bytes, class) = request_size(len, size_of::<T>())?;
        self.usable()?;
        let pool = &self.inner.buffers;
        let raw = match pool.take_idle(class) {
            Some(raw) => {
                pool.reuses.fetch_add(1, Ordering::Relaxed);
                raw
            }
            None => self.allocate_class(class, bytes)?,
        };
        Ok(DeviceBuffer {
            raw: Some(raw),
            class,
            len,
            gpu: self.clone(),
            _element: PhantomData,
        })
    }

    /// A buffer of `len` elements, every byte zero.
    pub fn alloc_zeroed<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let mut buffer = self.alloc::<T>(len)?;
        let stream = self.main_stream().clone();
        let n = buffer.byte_len();
        let mut view = buffer.raw_mut().slice_mut(0..n);
        stream
            .memset_zeros(&mut view)
            .map_err(|e| self.driver_failed("cuMemsetD8", e, Some(&stream)))?;
        Ok(buffer)
    }

    /// A buffer holding a copy of `host`.
    pub fn upload<T: DeviceCopy>(&self, host: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buffer = self.alloc::<T>(host.len())?;
        buffer.copy_from_host(host)?;
        Ok(buffer)
    }

    /// Counters of this device's buffer pool.
    pub fn buffer_pool_stats(&self) -> BufferPoolStats {
        self.inner.buffers.stats()
    }

    /// Gives every idle buffer of the pool back to the driver; returns the bytes released.
    ///
    /// Then waits for the main stream, at which point the driver's stream-ordered allocator returns the
    /// freed memory to the device, where other processes can have it. On a thread that is recording a graph
    /// ([`Gpu::record_graph`]), where waiting is not allowed, the memory returns at the next wait instead.
    ///
    /// # Errors
    /// The errors of [`Gpu::synchronize`]: a fault of earlier work surfaces here.
    pub fn trim_buffer_pool(&self) -> Result<u64> {
        let bytes = self.inner.buffers.trim();
        if !self.records_here() {
            self.synchronize_stream(&self.main_stream())?;
        }
        Ok(bytes)
    }

    /// Sets the most idle bytes the pool keeps (a quarter of the device's memory unless set; see
    /// [`DEFAULT_IDLE_CAP_DIVISOR`](crate::DEFAULT_IDLE_CAP_DIVISOR)), freeing the oldest idle buffers that
    /// no longer fit. A buffer returned while the pool is full pushes the oldest idle ones out; one larger
    /// than the cap is freed at once. 0 turns reuse off; `u64::MAX` keeps everything (until a trim, or an
    /// allocation the driver refuses).
    pub fn set_buffer_pool_cap(&self, bytes: u64) {
        self.inner.buffers.set_cap(bytes);
    }

    fn allocate_class(&self, class: usize, requested: usize) -> Result<CudaSlice<u8>> {
        if self.records_here() {
            return Err(Error::invalid_parameter(
                "Gpu::alloc",
                "allocation while recording a graph",
                format!("{requested} bytes with no idle buffer of that size class in the pool"),
                "buffers the pool already holds: run the work once before recording it (Gpu::record_graph)",
            ));
        }
        let (free, total) = self.memory()?;
        if class as u64 > total {
            return Err(self.out_of_memory(requested, free, total));
        }
        let stream = self.main_stream().clone();
        // SAFETY: the bytes are uninitialised, which `DeviceCopy` element types tolerate; the slice is only
        // reached through `DeviceBuffer`, whose API never reads it as anything but `DeviceCopy` values.
        let first = unsafe { stream.alloc::<u8>(class) };
        let slice = match first {
            Ok(slice) => slice,
            Err(e) if is_out_of_memory(&e) => {
                self.trim_buffer_pool()?;
                // SAFETY: as above.
                match unsafe { stream.alloc::<u8>(class) } {
                    Ok(slice) => slice,
                    Err(e) if is_out_of_memory(&e) => {
                        let (free, total) = self.memory()?;
                        return Err(self.out_of_memory(requested, free, total));
                    }
                    Err(e) => return Err(self.driver_failed("cuMemAlloc", e, Some(&stream))),
                }
            }
            Err(e) => return Err(self.driver_failed("cuMemAlloc", e, Some(&stream))),
        };
        self.inner
            .buffers
            .device_allocations
            .fetch_add(1, Ordering::Relaxed);
        Ok(slice)
    }

    fn out_of_memory(&self, requested: usize, free: u64, total: u64) -> Error {
        Error::GpuOutOfMemory {
            device: self.inner.buffers.device,
            requested: requested as u64,
            free,
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{request_size, size_class};

    fn class(bytes: usize) -> usize {
        size_class(bytes).unwrap()
    }

    #[test]
    fn small_requests_round_to_powers_of_two() {
        assert_eq!(class(0), 256);
        assert_eq!(class(1), 256);
        assert_eq!(class(257), 512);
        assert_eq!(class(1 << 20), 1 << 20);
    }

    #[test]
    fn classes_that_do_not_fit_in_usize_are_refused_not_wrapped() {
        // The rounding of these requests wrapped to a class of 0 bytes in release builds.
        for bytes in [usize::MAX, usize::MAX - 255, (15 << 60) + 1] {
            assert_eq!(size_class(bytes), None, "{bytes}");
        }
        assert_eq!(size_class(15 << 60), Some(15 << 60));
    }

    #[test]
    fn huge_requests_are_typed_errors_naming_the_bytes() {
        let error = request_size(usize::MAX / 3, 4).unwrap_err();
        let text = error.to_string();
        let asked = (usize::MAX / 3) as u128 * 4;
        assert!(text.contains(&asked.to_string()), "{text}");
        assert!(
            matches!(error, evo_core::Error::InvalidParameter { .. }),
            "{error:?}"
        );
        // The byte size fits, but its size class does not.
        assert!(request_size(usize::MAX - 10, 1).is_err());
        assert!(request_size(usize::MAX / 8 * 7, 1).is_ok());
        assert_eq!(request_size(3, 8).unwrap(), (24, 256));
    }

    #[test]
    fn large_requests_waste_at_most_an_eighth() {
        for bytes in [(1 << 20) + 1, 3_000_000, 400_000_000, 40_000_000_000usize] {
            let class = class(bytes);
            assert!(class >= bytes);
            assert!(
                (class - bytes) as f64 <= bytes as f64 / 8.0,
                "{bytes} -> {class}"
            );
        }
    }

    #[test]
    fn classes_are_stable_under_reapplication() {
        for bytes in [100usize, 5000, 3_000_000, 123_456_789] {
            assert_eq!(class(class(bytes)), class(bytes));
        }
    }
}
