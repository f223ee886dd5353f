//! A device buffer's rows through a host function, with the copies overlapped: the way an engine whose
//! population lives on the device has it evaluated by a Rust function.
//!
//! [`HostStaging`] holds page-locked host memory for the rows and their results, allocated once. Each
//! [`HostStaging::run`] queues the rows' copy to the host on the main stream in chunks, an event after each,
//! and lends the caller one [`RowChunk`] per chunk: [`RowChunk::wait`] returns a chunk's rows as soon as its
//! copy has landed, while the later chunks are still on the bus, so the host starts on the first rows after
//! one chunk's copy instead of after the whole buffer's. The results go back in one copy on the main stream
//! (they are a row's worth of bytes per row, a small part of the rows'), which the work queued after it on
//! that stream follows without the host waiting for it.
//!
//! A chunk's rows can be waited for on any thread (rayon's workers, say), each chunk or each piece of one
//! ([`RowChunk::split_rows`]) on its own, in any order; the outputs of different pieces are disjoint.

use std::marker::PhantomData;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

use cudarc::driver::{CudaEvent, CudaStream, DevicePtr, DevicePtrMut, sys};
use evo_core::{Error, Result};

use crate::Gpu;
use crate::buffer::{DeviceBuffer, DeviceCopy};
use crate::pinned::PinnedMemory;

mod landing;

use landing::Landing;

/// The name errors of [`HostStaging::run`] give.
const RUN: &str = "HostStaging::run";

/// Page-locked staging for `rows` rows of `row_len` values `T` on their way to the host and one result `U`
/// per row on its way back (see the module docs).
///
/// ```no_run
/// use evo_gpu_runtime::{Gpu, HostStaging};
/// use std::num::NonZeroUsize;
///
/// # fn main() -> evo_core::Result<()> {
/// let Some(gpu) = Gpu::first_available()? else { return Ok(()) };
/// let rows = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut sums = gpu.alloc_zeroed::<f64>(3)?;
/// let mut staging = HostStaging::<f32, f64>::new(&gpu, 3, 2, NonZeroUsize::MIN.saturating_add(1))?;
/// staging.run(&rows, &mut sums, |chunks| {
///     for chunk in chunks {
///         let (rows, sums) = chunk.wait()?;
///         for (row, sum) in rows.chunks(2).zip(sums) {
///             *sum = row.iter().map(|&v| f64::from(v)).sum();
///         }
///     }
///     Ok(())
/// })?;
/// assert_eq!(sums.to_vec()?, [3.0, 7.0, 11.0]);
/// # Ok(())
/// # }
/// ```
pub struct HostStaging<T: DeviceCopy, U: DeviceCopy> {
    gpu: Gpu,
    rows: usize,
    row_len: usize,
    /// Rows per chunk; the last chunk holds the rest.
    chunk_rows: usize,
    inputs: PinnedMemory<T>,
    outputs: PinnedMemory<U>,
    /// One per chunk, recorded on the main stream after the chunk's copy to the host.
    landed: Vec<CudaEvent>,
    /// One per chunk: whether a thread of this run saw its event complete, so that the chunk's other pieces
    /// skip the driver call, with one thread at a time asking the driver ([`Landing`]).
    seen: Vec<Landing>,
    /// Recorded on the main stream after the results' copy to the device, which reads `outputs`: drop waits
    /// for it before freeing them (a run needs no wait, see [`HostStaging::run`]).
    sent: CudaEvent,
}

impl<T: DeviceCopy, U: DeviceCopy> std::fmt::Debug for HostStaging<T, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostStaging")
            .field("device", &self.gpu.index())
            .field("rows", &self.rows)
            .field("row_len", &self.row_len)
            .field("chunks", &self.landed.len())
            .finish()
    }
}

/// Rows per chunk when `rows` rows are cut into at most `chunks` chunks of equal size (the last one
/// shorter): never 0, and never more chunks than rows.
pub(crate) fn rows_per_chunk(rows: usize, chunks: NonZeroUsize) -> usize {
    rows.div_ceil(chunks.get().min(rows.max(1))).max(1)
}

impl<T: DeviceCopy, U: DeviceCopy> HostStaging<T, U> {
    /// Staging on `gpu` for `rows` rows of `row_len` values, copied to the host in `chunks` chunks of equal
    /// rows (fewer when there are fewer rows; the last chunk holds the rest).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 rows, a row length of 0, or a size whose bytes do not fit in
    /// `usize`; the driver's refusal ([`Error::Driver`]) when it cannot lock that much host memory or create
    /// the events.
    pub fn new(gpu: &Gpu, rows: usize, row_len: usize, chunks: NonZeroUsize) -> Result<Self> {
        let at_least_one = |what: &'static str, value: usize| {
            if value == 0 {
                Err(Error::invalid_parameter(
                    "HostStaging::new",
                    what,
                    value,
                    "at least 1",
                ))
            } else {
                Ok(())
            }
        };
        at_least_one("rows", rows)?;
        at_least_one("row length", row_len)?;
        let values = rows.checked_mul(row_len).ok_or_else(|| {
            Error::invalid_parameter(
                "HostStaging::new",
                "rows × row length",
                format!("{rows} × {row_len}"),
                "a product that fits in usize",
            )
        })?;
        let chunk_rows = rows_per_chunk(rows, chunks);
        let event = || {
            gpu.inner
                .context
                .new_event(None)
                .map_err(|e| gpu.driver_failed("cuEventCreate", e, None))
        };
        let chunk_count = rows.div_ceil(chunk_rows);
        let landed = (0..chunk_count)
            .map(|_| event())
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            inputs: PinnedMemory::new(gpu, values)?,
            outputs: PinnedMemory::new(gpu, rows)?,
            sent: event()?,
            landed,
            seen: (0..chunk_count).map(|_| Landing::default()).collect(),
            chunk_rows,
            rows,
            row_len,
            gpu: gpu.clone(),
        })
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The values per row.
    pub fn row_len(&self) -> usize {
        self.row_len
    }

    /// The number of chunks each run copies to the host.
    pub fn chunks(&self) -> usize {
        self.landed.len()
    }

    /// Copies `input`'s rows to the host chunk by chunk (after the work queued so far on the main stream),
    /// hands `work` the chunks in row order, and once `work` returns `Ok`, queues the copy of the results
    /// into `output` on the main stream (later work on that stream sees them; the host does not wait).
    ///
    /// `work` must [`wait`](RowChunk::wait) for every row, on any threads, and write every result of the
    /// rows it waited for. When `run` returns, every chunk's copy has landed, whatever `work` did.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `input` does not hold `rows × row_len` values or `output` `rows`
    /// values, when either lives on another device, when called while this thread records a graph (the
    /// host's wait cannot be recorded), or when `work` returned `Ok` without waiting for every row (nothing
    /// is copied back then); `work`'s own error (nothing is copied back either); driver errors, and a fault
    /// of the work queued before the copies ([`Error::DevicePoisoned`], [`Error::KernelLaunch`]).
    pub fn run<R>(
        &mut self,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<U>,
        work: impl for<'a> FnOnce(Vec<RowChunk<'a, T, U>>) -> Result<R>,
    ) -> Result<R> {
        self.check_buffer(
            ("input length", "input device"),
            input.len(),
            self.rows * self.row_len,
            input.gpu(),
        )?;
        self.check_buffer(
            ("output length", "output device"),
            output.len(),
            self.rows,
            output.gpu(),
        )?;
        self.gpu.usable()?;
        if self.gpu.records_here() {
            return Err(Error::invalid_parameter(
                RUN,
                "call while recording a graph",
                "a host evaluation inside Gpu::record_graph",
                "a call outside the recording: the host waits for the rows, which a graph cannot hold",
            ));
        }
        let stream = self.gpu.main_stream();
        // The last run's results copy reads `outputs` on this same stream, ahead of this run's copies to the
        // host: a chunk's rows, and with them its outputs, are lent only once its copy has landed, so that
        // copy has finished and the host need not wait for it here (which would hold back this run's copies
        // and the host's start by the copy's round trip).
        for seen in &mut self.seen {
            seen.reset();
        }
        let queued = self.queue_inputs(input, &stream);
        let waited = AtomicUsize::new(0);
        let outcome = queued.and_then(|()| work(self.lend(&stream, &waited)));
        // Whatever `work` did, no copy may still be writing `inputs` when the caller regains it.
        let landed = self.wait_landed(&stream);
        let value = outcome?;
        landed?;
        let waited = waited.into_inner();
        if waited != self.rows {
            return Err(Error::invalid_parameter(
                RUN,
                "rows waited for",
                waited,
                format!(
                    "all {} rows: wait for every chunk (RowChunk::wait) so that every result is written",
                    self.rows
                ),
            ));
        }
        let bytes = self.rows * size_of::<U>();
        let (to, _record) = output.raw_mut().device_ptr_mut(&stream);
        // SAFETY: `outputs` holds `rows` results in page-locked memory that lives until `sent` has been
        // waited for (the next run, or drop); `to` holds at least `rows` elements of `U` of this context.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(to, self.outputs.as_ptr().cast(), bytes, stream.cu_stream())
        }
        .result()
        .map_err(|e| {
            self.gpu
                .driver_failed("cuMemcpyHtoDAsync", e, Some(&stream))
        })?;
        self.sent
            .record(&stream)
            .map_err(|e| self.gpu.driver_failed("cuEventRecord", e, Some(&stream)))?;
        Ok(value)
    }

    /// Checks a buffer handed to `run`: `len` elements where `expected` are needed, on this device (`what`
    /// names its length and its device in errors).
    fn check_buffer(
        &self,
        what: (&'static str, &'static str),
        len: usize,
        expected: usize,
        gpu: &Gpu,
    ) -> Result<()> {
        let (length, device) = what;
        if len != expected {
            return Err(Error::invalid_parameter(
                RUN,
                length,
                len,
                format!(
                    "{expected} ({} rows of {} values staged)",
                    self.rows, self.row_len
                ),
            ));
        }
        if gpu.index() != self.gpu.index() {
            return Err(Error::invalid_parameter(
                RUN,
                device,
                gpu.index(),
                format!("the staging's device {}", self.gpu.index()),
            ));
        }
        Ok(())
    }

    /// The first row and the number of rows of chunk `k`.
    fn chunk(&self, k: usize) -> (usize, usize) {
        let first = k * self.chunk_rows;
        (first, self.chunk_rows.min(self.rows - first))
    }

    /// Queues each chunk's copy to the host on `stream`, each followed by its `landed` event.
    fn queue_inputs(&self, input: &DeviceBuffer<T>, stream: &CudaStream) -> Result<()> {
        let (from, _record) = input.raw().device_ptr(stream);
        for (k, landed) in self.landed.iter().enumerate() {
            let (first, rows) = self.chunk(k);
            let offset = first * self.row_len;
            let bytes = rows * self.row_len * size_of::<T>();
            // SAFETY: chunk `k` lies inside both `inputs` (rows × row_len values) and `input` (the same
            // length, checked by `run`); `inputs` is page-locked and lives until every `landed` event has
            // been waited for (`run` waits before returning, drop waits too).
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    self.inputs.as_ptr().add(offset).cast(),
                    from + (offset * size_of::<T>()) as u64,
                    bytes,
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(|e| self.gpu.driver_failed("cuMemcpyDtoHAsync", e, Some(stream)))?;
            landed
                .record(stream)
                .map_err(|e| self.gpu.driver_failed("cuEventRecord", e, Some(stream)))?;
        }
        Ok(())
    }

    /// The chunks, in row order, lent for one run.
    fn lend<'a>(
        &'a self,
        stream: &'a CudaStream,
        waited: &'a AtomicUsize,
    ) -> Vec<RowChunk<'a, T, U>> {
        (0..self.landed.len())
            .map(|k| {
                let (first, rows) = self.chunk(k);
                RowChunk {
                    first_row: first,
                    rows,
                    row_len: self.row_len,
                    // Chunk `k` lies inside `inputs` and `outputs`, so these stay in bounds.
                    inputs: self.inputs.as_ptr().wrapping_add(first * self.row_len),
                    outputs: self.outputs.as_ptr().wrapping_add(first),
                    landed: &self.landed[k],
                    seen: &self.seen[k],
                    gpu: &self.gpu,
                    stream,
                    waited,
                    _lent: PhantomData,
                }
            })
            .collect()
    }

    /// Waits until every chunk's copy has landed.
    fn wait_landed(&self, stream: &CudaStream) -> Result<()> {
        // Each event not seen complete in this run, not only the last: when queueing stopped at a failed
        // copy, the later events are an earlier run's, and the copies queued before the failure may still
        // be running. The ones a piece saw complete need no second driver call.
        let mut unseen = self
            .landed
            .iter()
            .zip(&self.seen)
            .filter(|(_, seen)| !seen.landed());
        unseen.try_for_each(|(landed, _)| {
            landed.synchronize().map_err(|e| {
                self.gpu
                    .fault_while_synchronizing("cuEventSynchronize", e, Some(stream))
            })
        })
    }
}

impl<T: DeviceCopy, U: DeviceCopy> Drop for HostStaging<T, U> {
    fn drop(&mut self) {
        // No copy may touch the page-locked memory once it is freed; a failed wait (a poisoned device) means
        // the copies will never run, so there is nothing left to wait for.
        for event in self.landed.iter().chain(std::iter::once(&self.sent)) {
            let _ = event.synchronize();
        }
    }
}

/// Consecutive rows of one [`HostStaging::run`], lent until they have landed on the host; see
/// [`RowChunk::wait`].
pub struct RowChunk<'a, T, U> {
    first_row: usize,
    rows: usize,
    row_len: usize,
    /// This piece's first input and first output in the page-locked staging.
    inputs: *const T,
    outputs: *mut U,
    landed: &'a CudaEvent,
    /// Whether a piece of this chunk already saw `landed` complete.
    seen: &'a Landing,
    gpu: &'a Gpu,
    stream: &'a CudaStream,
    /// Rows waited for in this run, over every piece.
    waited: &'a AtomicUsize,
    _lent: PhantomData<(&'a [T], &'a mut [U])>,
}

// SAFETY: a chunk is a shared view of its inputs and the only view of its outputs (pieces are disjoint), as
// `(&[T], &mut [U])` would be, which is `Send` for `T: Sync` and `U: Send`; the event and the device are
// used from any thread by design.
unsafe impl<T: Sync, U: Send> Send for RowChunk<'_, T, U> {}

impl<T, U> std::fmt::Debug for RowChunk<'_, T, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowChunk")
            .field("first_row", &self.first_row)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl<'a, T, U> RowChunk<'a, T, U> {
    /// The index of the chunk's first row in the staged buffer.
    pub fn first_row(&self) -> usize {
        self.first_row
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The chunk cut into pieces of `rows` rows (the last one shorter), in row order: pieces that different
    /// threads can wait for and work on.
    pub fn split_rows(self, rows: NonZeroUsize) -> Vec<Self> {
        let size = rows.get();
        (0..self.rows.div_ceil(size))
            .map(|piece| {
                let skip = piece * size;
                RowChunk {
                    first_row: self.first_row + skip,
                    rows: size.min(self.rows - skip),
                    // The piece lies inside this chunk, so these stay in bounds.
                    inputs: self.inputs.wrapping_add(skip * self.row_len),
                    outputs: self.outputs.wrapping_add(skip),
                    ..self
                }
            })
            .collect()
    }

    /// Waits until the chunk's rows have landed on the host, then lends them (`rows × row_len` values, row
    /// after row) with the chunk's results (`rows` values, one per row, to be written).
    ///
    /// # Errors
    /// A fault of the work queued before the copy ([`Error::DevicePoisoned`], [`Error::KernelLaunch`]) or
    /// the driver's refusal to wait.
    pub fn wait(self) -> Result<(&'a [T], &'a mut [U])> {
        // The thread that saw the event complete saw the copy's bytes, and so does every thread that sees
        // its answer (`Landing` publishes it with Release and reads it with Acquire).
        self.seen.wait(|| {
            self.landed.synchronize().map_err(|e| {
                self.gpu
                    .fault_while_synchronizing("cuEventSynchronize", e, Some(self.stream))
            })
        })?;
        self.waited.fetch_add(self.rows, Ordering::Relaxed);
        // SAFETY: the copy into these inputs has completed (its event was waited for, here or by the thread
        // whose flag this one saw) and no other copy writes them until the run that lent them returns, which
        // outlives 'a; the outputs are this piece's alone (pieces are disjoint) and no copy reads them
        // before the run returns.
        unsafe {
            Ok((
                std::slice::from_raw_parts(self.inputs, self.rows * self.row_len),
                std::slice::from_raw_parts_mut(self.outputs, self.rows),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{HostStaging, RowChunk, rows_per_chunk};
    use std::num::NonZeroUsize;

    fn send_and_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}

    #[test]
    fn staging_moves_between_threads_and_chunks_go_to_other_threads() {
        // Engines holding a staging are moved to worker threads (islands, device pools), and the chunks are
        // waited for on rayon's threads.
        send_and_sync::<HostStaging<f32, f64>>();
        send::<RowChunk<'static, f32, f64>>();
    }

    fn chunks(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn chunks_cover_the_rows_with_at_most_the_chunks_asked_for() {
        for rows in [1usize, 2, 7, 64, 100, 1024, 1025] {
            for asked in [1usize, 2, 3, 8, 64, 2000] {
                let size = rows_per_chunk(rows, chunks(asked));
                let count = rows.div_ceil(size);
                assert!(size >= 1, "{rows} rows, {asked} chunks");
                assert!(
                    count <= asked.min(rows),
                    "{rows} rows, {asked} chunks: {count}"
                );
                // Every chunk but the last is full, and the last is not empty.
                assert!(size * (count - 1) < rows && size * count >= rows);
            }
        }
        assert_eq!(rows_per_chunk(1024, chunks(8)), 128);
        assert_eq!(rows_per_chunk(100, chunks(8)), 13);
        assert_eq!(rows_per_chunk(3, chunks(8)), 1);
    }
}
