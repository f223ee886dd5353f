//! The collectives of [`NcclComm`]: arguments checked on the host, then every rank's call queued in one NCCL
//! group on its GPU's main stream.

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nccl::{result, sys};
use evo_core::{Error, Result};

use super::library::nccl_error;
use super::{NcclComm, NcclElement};
use crate::DeviceBuffer;

/// The element-wise reduction of [`NcclComm::all_reduce`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcclReduce {
    /// The sum, in NCCL's order of the ranks (exact for `u32`, which wraps).
    Sum,
    /// The product, in NCCL's order of the ranks.
    Product,
    /// The maximum (exact).
    Max,
    /// The minimum (exact).
    Min,
}

impl NcclReduce {
    pub(super) fn raw(self) -> sys::ncclRedOp_t {
        match self {
            NcclReduce::Sum => sys::ncclRedOp_t::ncclSum,
            NcclReduce::Product => sys::ncclRedOp_t::ncclProd,
            NcclReduce::Max => sys::ncclRedOp_t::ncclMax,
            NcclReduce::Min => sys::ncclRedOp_t::ncclMin,
        }
    }
}

impl NcclComm {
    /// Copies rank `root`'s buffer into every other rank's buffer (in place: `buffers[r]` on rank `r`'s GPU,
    /// all of one length). Cost: the `len` elements reach each of the `W − 1` other ranks.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a root that is not a rank, a buffer count other than `W`, a buffer on
    /// another GPU than its rank's, or unequal lengths; NCCL's failures as [`Error::Driver`].
    pub fn broadcast<T: NcclElement>(
        &self,
        root: usize,
        buffers: &mut [DeviceBuffer<T>],
    ) -> Result<()> {
        const CALL: &str = "NcclComm::broadcast";
        let root_rank = self.check_root(CALL, root)?;
        self.check_buffers(CALL, "buffers", buffers)?;
        let len = equal_lengths(CALL, "buffer length", buffers)?;
        let streams = self.streams();
        grouped(|| {
            for (r, buffer) in buffers.iter_mut().enumerate() {
                let data = pointer_mut(buffer, &streams[r], 0);
                // SAFETY: `data` addresses `len` elements of `T` on rank r's GPU (checked above), alive while
                // `buffers` is borrowed; NCCL reads and writes them in place on rank r's main stream.
                unsafe {
                    result::broadcast(
                        data,
                        data,
                        len,
                        T::data_type(),
                        root_rank,
                        self.ranks[r].raw,
                        stream_handle(&streams[r]),
                    )
                }
                .map_err(|e| nccl_error("ncclBroadcast", e))?;
            }
            Ok(())
        })
    }

    /// Concatenates every rank's `send` (`c` elements each) in rank order into every rank's `recv`
    /// (`W·c`). Cost: each rank receives the `(W − 1)·c` elements of the others.
    ///
    /// # Errors
    /// As [`NcclComm::broadcast`], and for a `recv` whose length is not `W` times the `send` length.
    pub fn all_gather<T: NcclElement>(
        &self,
        send: &[DeviceBuffer<T>],
        recv: &mut [DeviceBuffer<T>],
    ) -> Result<()> {
        const CALL: &str = "NcclComm::all_gather";
        self.check_buffers(CALL, "send", send)?;
        self.check_buffers(CALL, "recv", recv)?;
        let count = equal_lengths(CALL, "send length", send)?;
        let gathered = equal_lengths(CALL, "recv length", recv)?;
        if count.checked_mul(self.world_size()) != Some(gathered) {
            return Err(Error::invalid_parameter(
                CALL,
                "recv length",
                gathered,
                format!("W · send length = {} · {count}", self.world_size()),
            ));
        }
        let streams = self.streams();
        grouped(|| {
            for (r, (from, to)) in send.iter().zip(recv.iter_mut()).enumerate() {
                let source = pointer(from, &streams[r], 0);
                let target = pointer_mut(to, &streams[r], 0);
                // SAFETY: `source` holds `count` and `target` `W·count` elements of `T` on rank r's GPU
                // (checked above), distinct buffers alive while borrowed; queued on rank r's main stream.
                unsafe {
                    result::all_gather(
                        source,
                        target,
                        count,
                        T::data_type(),
                        self.ranks[r].raw,
                        stream_handle(&streams[r]),
                    )
                }
                .map_err(|e| nccl_error("ncclAllGather", e))?;
            }
            Ok(())
        })
    }

    /// Replaces every rank's buffer by the element-wise `op` of all ranks' buffers (in place, equal
    /// lengths). Cost: about `2·(W − 1)/W · len` elements in and out of each rank (ring). Floating-point
    /// sums and products follow NCCL's order of the ranks (module docs).
    ///
    /// # Errors
    /// As [`NcclComm::broadcast`].
    pub fn all_reduce<T: NcclElement>(
        &self,
        buffers: &mut [DeviceBuffer<T>],
        op: NcclReduce,
    ) -> Result<()> {
        const CALL: &str = "NcclComm::all_reduce";
        self.check_buffers(CALL, "buffers", buffers)?;
        let len = equal_lengths(CALL, "buffer length", buffers)?;
        let streams = self.streams();
        grouped(|| {
            for (r, buffer) in buffers.iter_mut().enumerate() {
                let data = pointer_mut(buffer, &streams[r], 0);
                // SAFETY: `data` addresses `len` elements of `T` on rank r's GPU (checked above); NCCL reduces
                // in place on rank r's main stream.
                unsafe {
                    result::all_reduce(
                        data,
                        data,
                        len,
                        T::data_type(),
                        op.raw(),
                        self.ranks[r].raw,
                        stream_handle(&streams[r]),
                    )
                }
                .map_err(|e| nccl_error("ncclAllReduce", e))?;
            }
            Ok(())
        })
    }

    /// Sends consecutive parts of `source` (on rank `root`'s GPU) to the ranks: `parts[r]` (on rank `r`'s
    /// GPU) receives the `parts[r].len()` elements that follow those of `parts[..r]`; the lengths add up to
    /// `source.len()`, and a part may be empty. Root's own part is a copy on its GPU. Cost: each rank
    /// receives only its part; root sends `source.len()` minus its own part.
    ///
    /// # Errors
    /// As [`NcclComm::broadcast`], for a `source` on another GPU than root's, and for parts whose lengths
    /// do not add up to `source.len()`.
    pub fn scatter<T: NcclElement>(
        &self,
        root: usize,
        source: &DeviceBuffer<T>,
        parts: &mut [DeviceBuffer<T>],
    ) -> Result<()> {
        const CALL: &str = "NcclComm::scatter";
        let root_rank = self.check_root(CALL, root)?;
        self.check_buffers(CALL, "parts", parts)?;
        self.check_on_root(CALL, "source", root, source)?;
        let offsets = part_offsets(CALL, parts, source.len())?;
        let streams = self.streams();
        let gpu = &self.ranks[root].gpu;
        let own = parts[root].byte_len();
        if own > 0 {
            let from = offsets[root] * size_of::<T>();
            let source_bytes = source.raw().slice(from..from + own);
            let mut target = parts[root].raw_mut().slice_mut(0..own);
            streams[root]
                .memcpy_dtod(&source_bytes, &mut target)
                .map_err(|e| gpu.driver_failed("cuMemcpyDtoD", e, Some(&streams[root])))?;
        }
        grouped(|| {
            for (r, part) in parts.iter_mut().enumerate() {
                let count = part.len();
                if r == root || count == 0 {
                    continue;
                }
                let peer = rank_number(r)?;
                let from = pointer(source, &streams[root], offsets[r]);
                let to = pointer_mut(part, &streams[r], 0);
                // SAFETY: `from` addresses elements offsets[r] .. offsets[r] + count of `source` and `to` the
                // `count` elements of part r (lengths checked above), both alive while borrowed; the send is
                // queued on root's main stream, the receive on rank r's.
                unsafe {
                    result::send(
                        from,
                        count,
                        T::data_type(),
                        peer,
                        self.ranks[root].raw,
                        stream_handle(&streams[root]),
                    )
                    .map_err(|e| nccl_error("ncclSend", e))?;
                    result::recv(
                        to,
                        count,
                        T::data_type(),
                        root_rank,
                        self.ranks[r].raw,
                        stream_handle(&streams[r]),
                    )
                    .map_err(|e| nccl_error("ncclRecv", e))?;
                }
            }
            Ok(())
        })
    }

    /// The inverse of [`NcclComm::scatter`]: `parts[r]` (on rank `r`'s GPU) lands in `target` (on rank
    /// `root`'s GPU) after the elements of `parts[..r]`; the lengths add up to `target.len()`. Cost: each
    /// rank sends only its part.
    ///
    /// # Errors
    /// As [`NcclComm::scatter`].
    pub fn gather<T: NcclElement>(
        &self,
        root: usize,
        parts: &[DeviceBuffer<T>],
        target: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        const CALL: &str = "NcclComm::gather";
        let root_rank = self.check_root(CALL, root)?;
        self.check_buffers(CALL, "parts", parts)?;
        self.check_on_root(CALL, "target", root, target)?;
        let offsets = part_offsets(CALL, parts, target.len())?;
        let streams = self.streams();
        let gpu = &self.ranks[root].gpu;
        let own = parts[root].byte_len();
        if own > 0 {
            let to = offsets[root] * size_of::<T>();
            let part_bytes = parts[root].raw().slice(0..own);
            let mut target_bytes = target.raw_mut().slice_mut(to..to + own);
            streams[root]
                .memcpy_dtod(&part_bytes, &mut target_bytes)
                .map_err(|e| gpu.driver_failed("cuMemcpyDtoD", e, Some(&streams[root])))?;
        }
        grouped(|| {
            for (r, part) in parts.iter().enumerate() {
                let count = part.len();
                if r == root || count == 0 {
                    continue;
                }
                let peer = rank_number(r)?;
                let from = pointer(part, &streams[r], 0);
                let to = pointer_mut(target, &streams[root], offsets[r]);
                // SAFETY: `from` addresses the `count` elements of part r and `to` elements offsets[r] ..
                // offsets[r] + count of `target` (lengths checked above), both alive while borrowed; the send is
                // queued on rank r's main stream, the receive on root's.
                unsafe {
                    result::send(
                        from,
                        count,
                        T::data_type(),
                        root_rank,
                        self.ranks[r].raw,
                        stream_handle(&streams[r]),
                    )
                    .map_err(|e| nccl_error("ncclSend", e))?;
                    result::recv(
                        to,
                        count,
                        T::data_type(),
                        peer,
                        self.ranks[root].raw,
                        stream_handle(&streams[root]),
                    )
                    .map_err(|e| nccl_error("ncclRecv", e))?;
                }
            }
            Ok(())
        })
    }

    /// Each rank's main stream, in rank order.
    fn streams(&self) -> Vec<Arc<CudaStream>> {
        self.ranks.iter().map(|r| r.gpu.main_stream()).collect()
    }

    /// `root` as NCCL's rank number, when it is a rank.
    fn check_root(&self, call: &'static str, root: usize) -> Result<c_int> {
        if root >= self.world_size() {
            return Err(Error::invalid_parameter(
                call,
                "root rank",
                root,
                format!("a rank below W = {}", self.world_size()),
            ));
        }
        rank_number(root)
    }

    /// One buffer per rank, each on its rank's GPU, every GPU usable.
    fn check_buffers<T: NcclElement>(
        &self,
        call: &'static str,
        name: &'static str,
        buffers: &[DeviceBuffer<T>],
    ) -> Result<()> {
        if buffers.len() != self.world_size() {
            return Err(Error::invalid_parameter(
                call,
                name,
                format!("{} buffers", buffers.len()),
                format!("one per rank, W = {}", self.world_size()),
            ));
        }
        for (r, (buffer, rank)) in buffers.iter().zip(&self.ranks).enumerate() {
            if buffer.gpu().index() != rank.gpu.index() {
                return Err(Error::invalid_parameter(
                    call,
                    name,
                    format!("buffer {r} on GPU {}", buffer.gpu().index()),
                    format!(
                        "buffer r on rank r's GPU (rank {r}: GPU {})",
                        rank.gpu.index()
                    ),
                ));
            }
            rank.gpu.usable()?;
        }
        Ok(())
    }

    /// `buffer` lives on rank `root`'s GPU.
    fn check_on_root<T: NcclElement>(
        &self,
        call: &'static str,
        name: &'static str,
        root: usize,
        buffer: &DeviceBuffer<T>,
    ) -> Result<()> {
        let expected = self.ranks[root].gpu.index();
        if buffer.gpu().index() != expected {
            return Err(Error::invalid_parameter(
                call,
                name,
                format!("a buffer on GPU {}", buffer.gpu().index()),
                format!("a buffer on the root's GPU {expected}"),
            ));
        }
        Ok(())
    }
}

/// The common length of `buffers`.
fn equal_lengths<T: NcclElement>(
    call: &'static str,
    name: &'static str,
    buffers: &[DeviceBuffer<T>],
) -> Result<usize> {
    let first = buffers.first().map_or(0, DeviceBuffer::len);
    match buffers.iter().position(|b| b.len() != first) {
        None => Ok(first),
        Some(r) => Err(Error::invalid_parameter(
            call,
            name,
            format!("{} for buffer {r}", buffers[r].len()),
            format!("the same for every rank ({first} for buffer 0)"),
        )),
    }
}

/// The element offset of each part in the whole, whose length the parts' lengths must add up to.
fn part_offsets<T: NcclElement>(
    call: &'static str,
    parts: &[DeviceBuffer<T>],
    whole: usize,
) -> Result<Vec<usize>> {
    let mut offsets = Vec::with_capacity(parts.len());
    let mut next = 0usize;
    for part in parts {
        offsets.push(next);
        next = next.saturating_add(part.len());
    }
    if next != whole {
        return Err(Error::invalid_parameter(
            call,
            "part lengths",
            format!(
                "{:?} (sum {next})",
                parts.iter().map(DeviceBuffer::len).collect::<Vec<_>>()
            ),
            format!("lengths that add up to the whole buffer's {whole}"),
        ));
    }
    Ok(offsets)
}

/// Queues NCCL calls of several ranks as one group, ending the group even when a call failed (so NCCL's
/// group state never outlives the method); the first failure is returned.
fn grouped(calls: impl FnOnce() -> Result<()>) -> Result<()> {
    result::group_start().map_err(|e| nccl_error("ncclGroupStart", e))?;
    let queued = calls();
    let ended = result::group_end()
        .map(|_| ())
        .map_err(|e| nccl_error("ncclGroupEnd", e));
    queued.and(ended)
}

/// A rank index as NCCL's `int`.
pub(super) fn rank_number(rank: usize) -> Result<c_int> {
    c_int::try_from(rank)
        .map_err(|_| Error::invalid_parameter("NcclComm", "rank", rank, "at most i32::MAX"))
}

/// The stream as NCCL's `cudaStream_t` (the same handle as the driver's `CUstream`).
pub(super) fn stream_handle(stream: &CudaStream) -> sys::cudaStream_t {
    stream.cu_stream() as sys::cudaStream_t
}

/// The address of element `offset` of `buffer`.
pub(super) fn pointer<T: NcclElement>(
    buffer: &DeviceBuffer<T>,
    stream: &CudaStream,
    offset: usize,
) -> *const c_void {
    // Event tracking is off (`Gpu::open`), so the guard that comes with the address records nothing.
    let (address, _guard) = buffer.raw().device_ptr(stream);
    (address + (offset * size_of::<T>()) as u64) as *const c_void
}

/// The address of element `offset` of `buffer`, to be written.
pub(super) fn pointer_mut<T: NcclElement>(
    buffer: &mut DeviceBuffer<T>,
    stream: &CudaStream,
    offset: usize,
) -> *mut c_void {
    // As in `pointer`: the guard records nothing.
    let (address, _guard) = buffer.raw_mut().device_ptr_mut(stream);
    (address + (offset * size_of::<T>()) as u64) as *mut c_void
}
