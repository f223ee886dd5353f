//! [`nccl_comm`]: an NCCL communicator over the ranks of a run, one GPU per rank, its unique id made by
//! rank 0 and carried to the others by the ranks' own transport (MPI with the `mpi` feature).

use crate::ranks::Ranks;
use crate::wire::{Exchange, Stage, gather};
use evo_core::{Error, Result};
use evo_gpu_runtime::Gpu;
use evo_gpu_runtime::nccl::{NcclRankComm, NcclUniqueId};

/// The NCCL communicator over `ranks`, this rank on `gpu` (collective): rank 0 makes the
/// [`NcclUniqueId`], one exchange of `ranks` brings its bytes to every rank (for `mpi::MpiRanks`, MPI
/// messages with the ranks' deadline, so a rank that died before it is named), and every rank joins as its
/// own rank of `R` ([`NcclRankComm::from_unique_id`], which returns once every rank has joined).
///
/// Each rank of a node needs a GPU of its own (NCCL refuses two ranks on one device):
/// [`RankPlacement::for_rank`](crate::RankPlacement::for_rank) with
/// [`RankShare::LocalGpu`](crate::RankShare::LocalGpu) gives node-local rank `l` device `l`.
///
/// ```no_run
/// # #[cfg(feature = "mpi")] {
/// use evo_distributed::mpi::MpiRanks;
/// use evo_distributed::{Ranks, nccl_comm};
/// use evo_gpu_runtime::Gpu;
/// use std::time::Duration;
///
/// let universe = evo_distributed::mpi::initialize().ok_or("MPI was initialized already")?;
/// let ranks = MpiRanks::new(&universe.world(), Duration::from_secs(30))?;
/// let gpu = Gpu::open(ranks.node_rank()?.local_rank())?;
/// let comm = nccl_comm(&ranks, &gpu)?;
/// let mut values = gpu.upload(&[ranks.rank() as u32; 8])?;
/// comm.broadcast(0, &mut values)?;
/// assert_eq!(values.to_vec()?, vec![0; 8]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`Error::RankFailed`] naming rank 0 when it could not make the id (no libnccl, for instance: its
/// error is in the reason), or a rank that did not answer within the transport's deadline; on rank 0 its
/// own error; [`NcclRankComm::from_unique_id`]'s errors.
pub fn nccl_comm<R: Ranks + ?Sized>(ranks: &R, gpu: &Gpu) -> Result<NcclRankComm> {
    let stage = Stage::new(Exchange::NcclId, 0);
    let local = match ranks.rank() {
        0 => NcclUniqueId::new().map(|id| Some(id.as_bytes().to_vec())),
        _ => Ok(None),
    };
    let sent: Vec<Option<Vec<u8>>> = gather(ranks, stage, local)?;
    let bytes = sent
        .into_iter()
        .next()
        .flatten()
        .ok_or_else(|| Error::RankFailed {
            rank: 0,
            exchange: stage.to_string(),
            reason: "it sent no NCCL id".into(),
        })?;
    let id = NcclUniqueId::from_bytes(&bytes).map_err(|error| Error::RankFailed {
        rank: 0,
        exchange: stage.to_string(),
        reason: format!("its NCCL id is not one: {error}"),
    })?;
    NcclRankComm::from_unique_id(gpu, ranks.rank(), ranks.size(), &id)
}
