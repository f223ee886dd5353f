//! Batches of range copies through page-locked staging: [`RangeReads`] reads element ranges of any number of
//! device buffers, of any element types, into host slices with one wait; [`RangeWrites`] writes host slices
//! into ranges and returns without waiting. The way to move a few scattered rows and values (an island's
//! migrants) without a copy from pageable memory, which the driver stages itself (the calling thread copying
//! every byte) and which, with a wait after each read, serialised the copies of the threads of one process
//! (docs/results/distributed.md).
//!
//! Both queue their copies on the device's main stream, after the work queued there, and stage through
//! page-locked blocks that the device keeps between batches (allocated on first use, grown when a batch
//! needs more, never per call; [`Gpu::range_staging_stats`]). Ranges of one buffer that lie close together
//! travel in one copy. A range outside its buffer is refused when it is added, before anything is copied.

mod plan;
mod staging;

use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut, sys};
use evo_core::{Error, Result};

use crate::Gpu;
use crate::buffer::{DeviceBuffer, DeviceCopy, as_bytes, as_bytes_mut};
use plan::{Plan, READ_GAP_BYTES, Span, byte_range, read_plan, write_plan};
use staging::Block;

pub(crate) use staging::RangeStaging;
pub use staging::RangeStagingStats;

/// The names errors of the batches give.
const READ: &str = "RangeReads::read";
const WRITE: &str = "RangeWrites::write";

/// A batch of reads of element ranges of device buffers into host slices: queued on the device's main
/// stream after the work queued there, and waited for once ([`RangeReads::run`]). Buffers of every element
/// type mix in one batch; a buffer may be read at several ranges, overlapping or not, and its ranges that
/// lie close together travel in one copy. The copies go through page-locked staging that the device keeps
/// between batches ([`Gpu::range_staging_stats`]), never through pageable memory.
///
/// ```no_run
/// use evo_gpu_runtime::{Gpu, RangeReads, RangeWrites};
///
/// # fn main() -> evo_core::Result<()> {
/// let Some(gpu) = Gpu::first_available()? else { return Ok(()) };
/// let mut rows = gpu.upload(&[0.0f32; 12])?;
/// let mut fitness = gpu.upload(&[9.0f64, 8.0, 7.0])?;
/// let mut writes = RangeWrites::new(&gpu);
/// writes.write(&mut rows, [(4, &[1.0f32, 2.0, 3.0, 4.0][..])])?;
/// writes.write(&mut fitness, [(1, &[0.5f64][..])])?;
/// writes.run()?;
///
/// let (mut row, mut value) = ([0.0f32; 4], [0.0f64]);
/// let mut reads = RangeReads::new(&gpu);
/// reads.read(&rows, 4, &mut row)?;
/// reads.read(&fitness, 1, &mut value)?;
/// reads.run()?;
/// assert_eq!((row, value), ([1.0, 2.0, 3.0, 4.0], [0.5]));
/// # Ok(())
/// # }
/// ```
pub struct RangeReads<'a> {
    gpu: Gpu,
    stream: Arc<CudaStream>,
    spans: Vec<Span>,
    hosts: Vec<&'a mut [u8]>,
}

impl std::fmt::Debug for RangeReads<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeReads")
            .field("device", &self.gpu.index())
            .field("ranges", &self.spans.len())
            .finish()
    }
}

/// A batch of writes of host slices into element ranges of device buffers: staged in page-locked memory
/// that the device keeps between batches and queued on its main stream after the work queued there, without
/// a wait ([`RangeWrites::run`]; the work queued later sees the writes). Buffers of every element type mix
/// in one batch; each buffer is added once, with all its ranges ([`RangeWrites::write`]), so that the batch
/// holds the only borrow of it until it runs. See [`RangeReads`] for an example.
pub struct RangeWrites<'a> {
    gpu: Gpu,
    stream: Arc<CudaStream>,
    spans: Vec<Span>,
    hosts: Vec<&'a [u8]>,
}

impl std::fmt::Debug for RangeWrites<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeWrites")
            .field("device", &self.gpu.index())
            .field("ranges", &self.spans.len())
            .finish()
    }
}

/// Checks that `buffer` lives on `gpu` (the same open device, not one reopened since).
fn check_device<T: DeviceCopy>(
    call: &'static str,
    gpu: &Gpu,
    buffer: &DeviceBuffer<T>,
) -> Result<()> {
    if Arc::ptr_eq(&gpu.inner, &buffer.gpu().inner) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            call,
            "buffer's device",
            buffer.gpu().index(),
            format!("the batch's device {}", gpu.index()),
        ))
    }
}

/// Refuses a batch run on a thread that records a graph on `gpu`: the batch's copies and host work cannot be
/// recorded.
fn check_not_recording(call: &'static str, gpu: &Gpu) -> Result<()> {
    if gpu.records_here() {
        return Err(Error::invalid_parameter(
            call,
            "call while recording a graph",
            "a batch of range copies inside Gpu::record_graph",
            "a call outside the recording: the batch's staging is host work, which a graph cannot hold",
        ));
    }
    Ok(())
}

impl<'a> RangeReads<'a> {
    /// An empty batch on `gpu`.
    pub fn new(gpu: &Gpu) -> Self {
        Self {
            gpu: gpu.clone(),
            stream: gpu.inner.streams.main().clone(),
            spans: Vec::new(),
            hosts: Vec::new(),
        }
    }

    /// Adds the read of elements `offset .. offset + host.len()` of `buffer` into `host` (written by
    /// [`run`](RangeReads::run)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the range does not lie within the buffer or the buffer lives on
    /// another device; the read is not added then.
    pub fn read<T: DeviceCopy>(
        &mut self,
        buffer: &'a DeviceBuffer<T>,
        offset: usize,
        host: &'a mut [T],
    ) -> Result<()> {
        check_device(READ, &self.gpu, buffer)?;
        let bytes = byte_range(READ, offset, host.len(), buffer.len(), size_of::<T>())?;
        let (address, _record) = buffer.raw().device_ptr(&self.stream);
        self.spans.push(Span {
            buffer: address,
            start: bytes.start,
            len: bytes.len(),
        });
        self.hosts.push(as_bytes_mut(host));
        Ok(())
    }

    /// The number of ranges added.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no range was added.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Queues every read on the main stream (after the work queued there), waits once for them, and fills
    /// the host slices. A batch with nothing to copy returns at once.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a thread recording a graph on the device; a fault of the work queued
    /// before the copies ([`Error::DevicePoisoned`], [`Error::KernelLaunch`]); the driver's errors. The
    /// host slices are not written then.
    pub fn run(self) -> Result<()> {
        let plan = read_plan(&self.spans, READ_GAP_BYTES);
        if plan.staging_len == 0 {
            return Ok(());
        }
        let gpu = &self.gpu;
        gpu.usable()?;
        check_not_recording("RangeReads::run", gpu)?;
        let staging = &gpu.inner.range_staging;
        let block = staging.check_out(gpu, plan.staging_len)?;
        let landed = queue(gpu, &self.stream, &plan, &block, Direction::ToHost).and_then(|()| {
            block.done().synchronize().map_err(|e| {
                gpu.fault_while_synchronizing("cuEventSynchronize", e, Some(&self.stream))
            })
        });
        if let Err(error) = landed {
            block.abandon();
            return Err(error);
        }
        for ((host, span), &at) in self
            .hosts
            .into_iter()
            .zip(&self.spans)
            .zip(&plan.placements)
        {
            if span.len > 0 {
                // SAFETY: the range `at .. at + span.len` lies within the plan's staging bytes, which the
                // block holds (checked out for at least that many) and which the copies, now finished (the
                // event after them was waited for), wrote every one of; the block is this batch's alone
                // until it is checked in below.
                let staged =
                    unsafe { std::slice::from_raw_parts(block.as_ptr().add(at), span.len) };
                host.copy_from_slice(staged);
            }
        }
        staging.check_in(block, true);
        Ok(())
    }
}

impl<'a> RangeWrites<'a> {
    /// An empty batch on `gpu`.
    pub fn new(gpu: &Gpu) -> Self {
        Self {
            gpu: gpu.clone(),
            stream: gpu.inner.streams.main().clone(),
            spans: Vec::new(),
            hosts: Vec::new(),
        }
    }

    /// Adds the writes of `buffer`: each `(offset, host)` of `ranges` writes `host` into elements
    /// `offset .. offset + host.len()`. Ranges are written in the order added, so of two writes to one
    /// element the later one stays.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a range does not lie within the buffer or the buffer lives on
    /// another device; none of the buffer's ranges is added then.
    pub fn write<T: DeviceCopy>(
        &mut self,
        buffer: &'a mut DeviceBuffer<T>,
        ranges: impl IntoIterator<Item = (usize, &'a [T])>,
    ) -> Result<()> {
        check_device(WRITE, &self.gpu, buffer)?;
        let len = buffer.len();
        let (address, _record) = buffer.raw_mut().device_ptr_mut(&self.stream);
        let mut spans = Vec::new();
        let mut hosts = Vec::new();
        for (offset, host) in ranges {
            let bytes = byte_range(WRITE, offset, host.len(), len, size_of::<T>())?;
            spans.push(Span {
                buffer: address,
                start: bytes.start,
                len: bytes.len(),
            });
            hosts.push(as_bytes(host));
        }
        self.spans.append(&mut spans);
        self.hosts.append(&mut hosts);
        Ok(())
    }

    /// The number of ranges added.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether no range was added.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Copies the host slices into page-locked staging and queues every write on the main stream (after the
    /// work queued there; later work sees them), without waiting for them: the staging stays the batch's
    /// until they have run. A batch with nothing to copy returns at once.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a thread recording a graph on the device; a fault of earlier work seen
    /// while taking a staging block; the driver's errors (some writes may have been queued then).
    pub fn run(self) -> Result<()> {
        let plan = write_plan(&self.spans);
        if plan.staging_len == 0 {
            return Ok(());
        }
        let gpu = &self.gpu;
        gpu.usable()?;
        check_not_recording("RangeWrites::run", gpu)?;
        let staging = &gpu.inner.range_staging;
        let block = staging.check_out(gpu, plan.staging_len)?;
        for (host, &at) in self.hosts.iter().zip(&plan.placements) {
            // SAFETY: `at .. at + host.len()` lies within the plan's staging bytes, which the block holds;
            // the block is free (no copy reads or writes it: checked out free) and this batch's alone, and
            // `host` is a separate allocation of the caller's.
            unsafe {
                std::ptr::copy_nonoverlapping(host.as_ptr(), block.as_ptr().add(at), host.len())
            };
        }
        if let Err(error) = queue(gpu, &self.stream, &plan, &block, Direction::ToDevice) {
            block.abandon();
            return Err(error);
        }
        staging.check_in(block, false);
        Ok(())
    }
}

/// Which way a batch copies.
#[derive(Clone, Copy)]
enum Direction {
    ToHost,
    ToDevice,
}

/// Queues `plan`'s copies between the device and `block` on `stream`, then records the block's event.
///
/// Every device range of the plan lies within a buffer borrowed by the batch for as long as it lives, and
/// every staging range within the block (checked out for the plan's staging bytes).
fn queue(
    gpu: &Gpu,
    stream: &CudaStream,
    plan: &Plan,
    block: &Block,
    direction: Direction,
) -> Result<()> {
    gpu.inner
        .context
        .bind_to_thread()
        .map_err(|e| gpu.driver_failed("cuCtxSetCurrent", e, None))?;
    for copy in &plan.copies {
        // SAFETY: the staging range lies within the block (see above), whose page-locked memory lives until
        // the event recorded below has completed (the block is not reused, grown or freed before: check-out
        // asks the event, drop waits for it, a failed batch abandons it); the device range lies within a
        // buffer of this context that the batch borrows, and the stream is that context's.
        let queued = unsafe {
            let staged = block.as_ptr().add(copy.staging);
            match direction {
                Direction::ToHost => sys::cuMemcpyDtoHAsync_v2(
                    staged.cast(),
                    copy.device_address(),
                    copy.len,
                    stream.cu_stream(),
                ),
                Direction::ToDevice => sys::cuMemcpyHtoDAsync_v2(
                    copy.device_address(),
                    staged.cast_const().cast(),
                    copy.len,
                    stream.cu_stream(),
                ),
            }
        };
        let call = match direction {
            Direction::ToHost => "cuMemcpyDtoHAsync",
            Direction::ToDevice => "cuMemcpyHtoDAsync",
        };
        queued
            .result()
            .map_err(|e| gpu.driver_failed(call, e, Some(stream)))?;
    }
    block
        .done()
        .record(stream)
        .map_err(|e| gpu.driver_failed("cuEventRecord", e, Some(stream)))
}

impl Gpu {
    /// Counters of this device's range staging ([`RangeReads`], [`RangeWrites`]).
    pub fn range_staging_stats(&self) -> RangeStagingStats {
        self.inner.range_staging.stats()
    }
}
