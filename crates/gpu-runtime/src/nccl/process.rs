//! NCCL over processes: [`NcclUniqueId`], the bytes that name one communicator across processes, and
//! [`NcclRankComm`], this process's one GPU as one rank of it (`ncclCommInitRank`).

use std::ffi::{c_char, c_int};
use std::fmt;

use cudarc::nccl::{result, sys};
use evo_core::{Error, Result};

use super::NcclElement;
use super::collectives::{NcclReduce, pointer, pointer_mut, rank_number, stream_handle};
use super::library::{multicast_off_unless_set, nccl_error, require_nccl};
use crate::{DeviceBuffer, Gpu};

/// The length of an NCCL unique id in bytes (`NCCL_UNIQUE_ID_BYTES`).
pub const UNIQUE_ID_BYTES: usize = 128;

const INIT: &str = "NcclRankComm::from_unique_id";

/// The id of one NCCL communicator across processes (`ncclUniqueId`, [`UNIQUE_ID_BYTES`] opaque bytes):
/// one process makes it ([`NcclUniqueId::new`]), any transport carries its [`bytes`](Self::as_bytes) to
/// the others (evo-distributed broadcasts it over MPI), and every process gives it to
/// [`NcclRankComm::from_unique_id`]. It holds the maker's network address, so it serves one communicator.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NcclUniqueId {
    bytes: [u8; UNIQUE_ID_BYTES],
}

impl NcclUniqueId {
    /// A fresh id (`ncclGetUniqueId`), on the one process that makes it.
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`] when libnccl cannot be loaded (module docs); [`Error::Driver`] when NCCL
    /// cannot make one (no usable network interface, for instance).
    pub fn new() -> Result<Self> {
        require_nccl("an NCCL unique id (NCCL over processes)")?;
        let raw = result::get_uniqueid().map_err(|e| nccl_error("ncclGetUniqueId", e))?;
        Ok(Self {
            // `c_char` is a byte on every target; the cast keeps each byte's bits.
            bytes: raw.internal.map(|byte| byte as u8),
        })
    }

    /// The id as it was sent: exactly [`UNIQUE_ID_BYTES`] bytes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for any other length (bytes that are not an id, or a cut message).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bytes: [u8; UNIQUE_ID_BYTES] = bytes.try_into().map_err(|_| {
            Error::invalid_parameter(
                "NcclUniqueId::from_bytes",
                "id length",
                format!("{} bytes", bytes.len()),
                format!("exactly {UNIQUE_ID_BYTES} bytes, as NcclUniqueId::as_bytes gives them"),
            )
        })?;
        Ok(Self { bytes })
    }

    /// The bytes to send to the other processes.
    pub fn as_bytes(&self) -> &[u8; UNIQUE_ID_BYTES] {
        &self.bytes
    }

    fn raw(&self) -> sys::ncclUniqueId {
        sys::ncclUniqueId {
            internal: self.bytes.map(|byte| byte as c_char),
        }
    }
}

impl fmt::Debug for NcclUniqueId {
    /// The first 8 bytes in hex: enough to tell two ids apart in a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NcclUniqueId(")?;
        for byte in &self.bytes[..8] {
            write!(f, "{byte:02x}")?;
        }
        f.write_str("…)")
    }
}

/// One rank of an NCCL communicator whose ranks are processes, one GPU each: rank
/// [`rank`](Self::rank) of [`world_size`](Self::world_size), on [`gpu`](Self::gpu). Every process of the
/// communicator calls each collective with its own buffer, in the same order; the call is queued on the
/// GPU's main stream and returns without waiting, like [`NcclComm`](super::NcclComm)'s.
///
/// ```no_run
/// use evo_gpu_runtime::Gpu;
/// use evo_gpu_runtime::nccl::{NcclRankComm, NcclUniqueId};
///
/// # fn send_to_every_process(_: &[u8]) -> Vec<u8> { Vec::new() }
/// # let (rank, world_size) = (0, 2);
/// // Rank 0 makes the id; a transport of the program's (MPI in evo-distributed) brings it to the others.
/// let id = match rank {
///     0 => NcclUniqueId::new()?,
///     _ => NcclUniqueId::from_bytes(&send_to_every_process(&[]))?,
/// };
/// let gpu = Gpu::open(rank)?;
/// let comm = NcclRankComm::from_unique_id(&gpu, rank, world_size, &id)?;
/// let mut values = gpu.upload(&[rank as u32; 4])?;
/// comm.broadcast(0, &mut values)?;
/// assert_eq!(values.to_vec()?, vec![0; 4]);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct NcclRankComm {
    raw: sys::ncclComm_t,
    gpu: Gpu,
    rank: usize,
    world_size: usize,
}

// SAFETY: as for `NcclComm`: the handle may be used from any thread, one at a time, and the type is not
// `Sync`.
unsafe impl Send for NcclRankComm {}

impl fmt::Debug for NcclRankComm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NcclRankComm")
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("device", &self.gpu.index())
            .finish_non_exhaustive()
    }
}

impl NcclRankComm {
    /// Joins the communicator named by `id` as rank `rank` of `world_size`, on `gpu`
    /// (`ncclCommInitRank`). Every rank `0 .. world_size` must join with the same id, each from its own
    /// process (or thread) and on its own GPU; the call returns once all of them have joined, so a rank
    /// that never joins keeps the others waiting (exchange the id with a deadline first, as
    /// evo-distributed does, so that a rank lost before this point is named instead).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `world_size = 0` or over `i32::MAX`, or `rank ≥ world_size`;
    /// [`Error::DevicePoisoned`] for a poisoned GPU; [`Error::LibraryNotFound`] when libnccl cannot be
    /// loaded; [`Error::Driver`] when NCCL refuses (two ranks on one GPU, an id of another communicator,
    /// a network that does not connect the processes).
    pub fn from_unique_id(
        gpu: &Gpu,
        rank: usize,
        world_size: usize,
        id: &NcclUniqueId,
    ) -> Result<Self> {
        let count = c_int::try_from(world_size)
            .ok()
            .filter(|&count| count > 0)
            .ok_or_else(|| {
                Error::invalid_parameter(INIT, "world size", world_size, "in 1 ..= i32::MAX")
            })?;
        if rank >= world_size {
            return Err(Error::invalid_parameter(
                INIT,
                "rank",
                rank,
                format!("a rank below the world size {world_size}"),
            ));
        }
        gpu.usable()?;
        require_nccl(&format!(
            "rank {rank} of {world_size} of an NCCL communicator over processes (GPU {})",
            gpu.index()
        ))?;
        multicast_off_unless_set();
        // NCCL takes the rank's device from the thread's current context.
        gpu.inner
            .context
            .bind_to_thread()
            .map_err(|e| gpu.driver_failed("cuCtxSetCurrent", e, None))?;
        let mut raw: sys::ncclComm_t = std::ptr::null_mut();
        // SAFETY: `raw` is one writable handle slot; the id is a valid `ncclUniqueId` by value; the rank and
        // count were checked to be NCCL `int`s with `rank < count`, and the GPU's context is current.
        unsafe { result::comm_init_rank(&mut raw, count, id.raw(), rank_number(rank)?) }
            .map_err(|e| nccl_error("ncclCommInitRank", e))?;
        Ok(Self {
            raw,
            gpu: gpu.clone(),
            rank,
            world_size,
        })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// `W`, the number of ranks (processes).
    pub fn world_size(&self) -> usize {
        self.world_size
    }

    /// This rank's GPU.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Copies rank `root`'s `buffer` into every other rank's (in place; every rank's of the same length).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a root that is not a rank or a buffer on another GPU than the
    /// rank's; NCCL's failures as [`Error::Driver`] (NCCL cannot see another rank's length: unequal lengths
    /// are the caller's contract).
    pub fn broadcast<T: NcclElement>(
        &self,
        root: usize,
        buffer: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        const CALL: &str = "NcclRankComm::broadcast";
        let root = self.check_root(CALL, root)?;
        self.check_buffer(CALL, "buffer", buffer)?;
        let stream = self.gpu.main_stream();
        let data = pointer_mut(buffer, &stream, 0);
        // SAFETY: `data` addresses the buffer's `len` elements of `T` on this rank's GPU (checked above),
        // alive while borrowed; NCCL reads and writes them in place on the GPU's main stream.
        unsafe {
            result::broadcast(
                data,
                data,
                buffer.len(),
                T::data_type(),
                root,
                self.raw,
                stream_handle(&stream),
            )
        }
        .map(drop)
        .map_err(|e| nccl_error("ncclBroadcast", e))
    }

    /// Concatenates every rank's `send` (`c` elements each) in rank order into this rank's `recv` (`W·c`).
    ///
    /// # Errors
    /// As [`NcclRankComm::broadcast`], and for a `recv` whose length is not `W` times `send`'s.
    pub fn all_gather<T: NcclElement>(
        &self,
        send: &DeviceBuffer<T>,
        recv: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        const CALL: &str = "NcclRankComm::all_gather";
        self.check_buffer(CALL, "send", send)?;
        self.check_buffer(CALL, "recv", recv)?;
        let count = send.len();
        if count.checked_mul(self.world_size) != Some(recv.len()) {
            return Err(Error::invalid_parameter(
                CALL,
                "recv length",
                recv.len(),
                format!("W · send length = {} · {count}", self.world_size),
            ));
        }
        let stream = self.gpu.main_stream();
        let source = pointer(send, &stream, 0);
        let target = pointer_mut(recv, &stream, 0);
        // SAFETY: `source` holds `count` and `target` `W·count` elements of `T` on this rank's GPU (checked
        // above), distinct buffers alive while borrowed; queued on the GPU's main stream.
        unsafe {
            result::all_gather(
                source,
                target,
                count,
                T::data_type(),
                self.raw,
                stream_handle(&stream),
            )
        }
        .map(drop)
        .map_err(|e| nccl_error("ncclAllGather", e))
    }

    /// Replaces every rank's `buffer` by the element-wise `op` of all ranks' (in place). Floating-point sums
    /// and products follow NCCL's order of the ranks (module docs).
    ///
    /// # Errors
    /// As [`NcclRankComm::broadcast`].
    pub fn all_reduce<T: NcclElement>(
        &self,
        buffer: &mut DeviceBuffer<T>,
        op: NcclReduce,
    ) -> Result<()> {
        const CALL: &str = "NcclRankComm::all_reduce";
        self.check_buffer(CALL, "buffer", buffer)?;
        let stream = self.gpu.main_stream();
        let data = pointer_mut(buffer, &stream, 0);
        // SAFETY: `data` addresses the buffer's `len` elements of `T` on this rank's GPU (checked above);
        // NCCL reduces in place on the GPU's main stream.
        unsafe {
            result::all_reduce(
                data,
                data,
                buffer.len(),
                T::data_type(),
                op.raw(),
                self.raw,
                stream_handle(&stream),
            )
        }
        .map(drop)
        .map_err(|e| nccl_error("ncclAllReduce", e))
    }

    fn check_root(&self, call: &'static str, root: usize) -> Result<c_int> {
        if root >= self.world_size {
            return Err(Error::invalid_parameter(
                call,
                "root rank",
                root,
                format!("a rank below W = {}", self.world_size),
            ));
        }
        rank_number(root)
    }

    fn check_buffer<T: NcclElement>(
        &self,
        call: &'static str,
        name: &'static str,
        buffer: &DeviceBuffer<T>,
    ) -> Result<()> {
        if buffer.gpu().index() != self.gpu.index() {
            return Err(Error::invalid_parameter(
                call,
                name,
                format!("a buffer on GPU {}", buffer.gpu().index()),
                format!("a buffer on this rank's GPU {}", self.gpu.index()),
            ));
        }
        self.gpu.usable()
    }
}

impl Drop for NcclRankComm {
    fn drop(&mut self) {
        // As `NcclComm`'s drop: nothing in flight, then a local abort, which never waits for another
        // process (one that died would keep a collective destroy waiting forever).
        let _ = self.gpu.synchronize_stream(&self.gpu.main_stream());
        // SAFETY: the handle was made by ncclCommInitRank and is released once, here, after the stream that
        // ran its operations was waited for.
        let _ = unsafe { result::comm_abort(self.raw) };
    }
}
