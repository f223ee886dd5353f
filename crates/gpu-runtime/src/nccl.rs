//! NCCL collectives over the GPUs of one process, and over processes with one GPU each (cargo feature
//! `nccl`).
//!
//! An [`NcclComm`] is one NCCL communicator per [`Gpu`] of a list, made together (`ncclCommInitAll`): rank
//! `r` is the `r`-th GPU of the list. One host thread drives every rank, so each method is one whole
//! collective: it queues the call of every rank inside one NCCL group, each on its GPU's main stream, and
//! returns without waiting. Work queued later on a GPU's main stream sees the result, as after any other
//! runtime call; [`Gpu::synchronize`] waits for it.
//!
//! | method | moves | per rank |
//! | --- | --- | --- |
//! | [`broadcast`](NcclComm::broadcast) | root's buffer into every rank's buffer | `len` elements |
//! | [`all_gather`](NcclComm::all_gather) | every rank's `c` elements, rank order, into every rank's `W·c` | `W·c` |
//! | [`all_reduce`](NcclComm::all_reduce) | the element-wise sum (max, min, product) into every rank | `len` |
//! | [`scatter`](NcclComm::scatter) | consecutive parts of root's buffer to their ranks (sends and receives) | its part |
//! | [`gather`](NcclComm::gather) | every rank's part into root's buffer, consecutive in rank order | its part |
//!
//! Element types: `f32`, `f64`, `u32` ([`NcclElement`]). Floating-point sums of [`all_reduce`](NcclComm::all_reduce) add the
//! ranks in NCCL's order (ring or tree, chosen by size and topology), not the canonical tree of
//! `evo_core::reduce`: where the bits must not depend on the number of GPUs, gather the partial values and
//! reduce them with the canonical tree, or reduce integers, maxima or minima, which are exact.
//!
//! ```no_run
//! use evo_gpu_runtime::Gpu;
//! use evo_gpu_runtime::nccl::{NcclComm, NcclReduce};
//!
//! let gpus = Gpu::all()?;
//! let comm = NcclComm::from_gpus(&gpus)?;
//! let mut counts = gpus
//!     .iter()
//!     .map(|gpu| gpu.upload(&[1u32, 2, 3]))
//!     .collect::<evo_core::Result<Vec<_>>>()?;
//! comm.all_reduce(&mut counts, NcclReduce::Sum)?;
//! let w = gpus.len() as u32;
//! assert_eq!(counts[0].to_vec()?, vec![w, 2 * w, 3 * w]);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## Over processes
//!
//! [`NcclRankComm`] is one rank of a communicator whose ranks are processes (or threads), one GPU each
//! (`ncclCommInitRank`): one process makes an [`NcclUniqueId`], a transport of the program's carries its
//! [`UNIQUE_ID_BYTES`] bytes to the others (evo-distributed's `mpi` and `nccl` features broadcast it over
//! MPI), and every process joins with its rank, the world size and the id. Its
//! [`broadcast`](NcclRankComm::broadcast), [`all_gather`](NcclRankComm::all_gather) and
//! [`all_reduce`](NcclRankComm::all_reduce) take this rank's buffer alone and mean what the table says.
//!
//! ## Finding the library
//!
//! libnccl is loaded at run time, so the feature builds anywhere. cudarc tries `libnccl.so`,
//! `libnccl.so.12` and a few other names, but not `libnccl.so.2`, the file that the PyPI wheels
//! `nvidia-nccl-cu12`/`-cu13` and PyTorch install in `site-packages/nvidia/nccl/lib`. [`NcclComm::from_gpus`]
//! checks first ([`nccl_present`]): without a library it is [`evo_core::Error::LibraryNotFound`], naming
//! the names tried and, when a `libnccl.so.<n>` lies in a directory of `LD_LIBRARY_PATH`, the link to make:
//!
//! ```text
//! mkdir -p ~/.local/nccl && ln -sf "$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))')/libnccl.so.2" ~/.local/nccl/libnccl.so
//! export LD_LIBRARY_PATH=~/.local/nccl:$LD_LIBRARY_PATH
//! ```
//!
//! ## NVLink multicast
//!
//! The first communicator of the process sets `NCCL_NVLS_ENABLE=0` when the variable is unset ([`NVLS_VARIABLE`]):
//! NVLink multicast can take a shared host's GPUs out of service, and these collectives gain nothing from
//! it. Set the variable before starting the program (which also avoids writing the environment while other
//! threads may read it); `NCCL_NVLS_ENABLE=1` keeps multicast on.

mod collectives;
mod library;
mod process;

use std::ffi::c_int;

use cudarc::nccl::{result, sys};
use evo_core::{Error, Result};

use crate::{DeviceCopy, Gpu};

pub use collectives::NcclReduce;
pub use library::{NVLS_VARIABLE, nccl_present, require_nccl};
pub use process::{NcclRankComm, NcclUniqueId, UNIQUE_ID_BYTES};

use library::{multicast_off_unless_set, nccl_error};

mod private {
    /// Seals [`NcclElement`](super::NcclElement): NCCL has a data type for exactly these.
    pub trait Sealed {
        fn data_type() -> cudarc::nccl::sys::ncclDataType_t;
    }
}

/// An element type NCCL moves and reduces: `f32`, `f64` and `u32`.
pub trait NcclElement: DeviceCopy + private::Sealed {}

impl private::Sealed for f32 {
    fn data_type() -> sys::ncclDataType_t {
        sys::ncclDataType_t::ncclFloat32
    }
}
impl private::Sealed for f64 {
    fn data_type() -> sys::ncclDataType_t {
        sys::ncclDataType_t::ncclFloat64
    }
}
impl private::Sealed for u32 {
    fn data_type() -> sys::ncclDataType_t {
        sys::ncclDataType_t::ncclUint32
    }
}
impl NcclElement for f32 {}
impl NcclElement for f64 {}
impl NcclElement for u32 {}

/// One rank: its communicator handle and its GPU.
struct Rank {
    raw: sys::ncclComm_t,
    gpu: Gpu,
}

/// NCCL communicators over the GPUs of one process, rank `r` on the `r`-th GPU (module docs).
pub struct NcclComm {
    ranks: Vec<Rank>,
}

// SAFETY: an NCCL communicator may be used from any thread, one thread at a time. `NcclComm` is not `Sync`,
// so the handles move between threads but are never used from two at once.
unsafe impl Send for NcclComm {}

impl std::fmt::Debug for NcclComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclComm")
            .field("devices", &self.devices())
            .finish_non_exhaustive()
    }
}

impl NcclComm {
    /// The communicators over `gpus`, rank `r` on `gpus[r]`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty list or a device listed twice (NCCL gives each device one
    /// rank); [`Error::LibraryNotFound`] when libnccl cannot be loaded (module docs);
    /// [`Error::DevicePoisoned`] for a poisoned GPU; [`Error::Driver`] when `ncclCommInitAll` fails.
    pub fn from_gpus(gpus: &[Gpu]) -> Result<Self> {
        let devices: Vec<usize> = gpus.iter().map(Gpu::index).collect();
        if devices.is_empty() {
            return Err(Error::invalid_parameter(
                "NcclComm::from_gpus",
                "GPU list",
                "an empty list",
                "at least one GPU",
            ));
        }
        for (i, device) in devices.iter().enumerate() {
            if devices[..i].contains(device) {
                return Err(Error::invalid_parameter(
                    "NcclComm::from_gpus",
                    "GPU list",
                    format!("{devices:?} (device {device} twice)"),
                    "each device at most once (NCCL gives a device one rank)",
                ));
            }
        }
        for gpu in gpus {
            gpu.usable()?;
        }
        require_nccl(&format!(
            "an NCCL communicator over GPUs {}",
            list(&devices)
        ))?;
        multicast_off_unless_set();
        let ordinals = devices
            .iter()
            .map(|&d| c_int::try_from(d).map_err(|_| too_many("device index", d)))
            .collect::<Result<Vec<c_int>>>()?;
        let count = c_int::try_from(gpus.len()).map_err(|_| too_many("GPU count", gpus.len()))?;
        let mut raw: Vec<sys::ncclComm_t> = vec![std::ptr::null_mut(); gpus.len()];
        // SAFETY: `raw` has one slot per ordinal, and the ordinals are distinct devices the driver opened.
        unsafe { result::comm_init_all(raw.as_mut_ptr(), count, ordinals.as_ptr()) }
            .map_err(|e| nccl_error("ncclCommInitAll", e))?;
        let ranks = raw
            .into_iter()
            .zip(gpus)
            .map(|(raw, gpu)| Rank {
                raw,
                gpu: gpu.clone(),
            })
            .collect();
        Ok(Self { ranks })
    }

    /// `W`, the number of ranks (GPUs).
    pub fn world_size(&self) -> usize {
        self.ranks.len()
    }

    /// The GPU of rank `rank`, if there is such a rank.
    pub fn gpu(&self, rank: usize) -> Option<&Gpu> {
        self.ranks.get(rank).map(|r| &r.gpu)
    }

    /// The rank of the GPU with device index `device`, if it is one of the communicator's.
    pub fn rank_of(&self, device: usize) -> Option<usize> {
        self.ranks.iter().position(|r| r.gpu.index() == device)
    }

    /// The device indices in rank order.
    pub fn devices(&self) -> Vec<usize> {
        self.ranks.iter().map(|r| r.gpu.index()).collect()
    }
}

impl Drop for NcclComm {
    fn drop(&mut self) {
        for rank in &self.ranks {
            // Nothing may be in flight when a communicator goes; a fault surfacing here was reported by the
            // call that queued the work or is reported by the GPU's next call.
            let _ = rank.gpu.synchronize_stream(&rank.gpu.main_stream());
        }
        for rank in &self.ranks {
            // SAFETY: each handle was made by ncclCommInitAll and is released once, here. Abort is local
            // (no rank waits for another, so the one thread that drives every rank cannot hang), and the
            // streams were waited for above, so no operation is cut short.
            let _ = unsafe { result::comm_abort(rank.raw) };
        }
    }
}

/// "0, 1, 3".
fn list(devices: &[usize]) -> String {
    devices
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn too_many(name: &'static str, value: usize) -> Error {
    Error::invalid_parameter("NcclComm::from_gpus", name, value, "at most i32::MAX")
}
