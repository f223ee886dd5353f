//! [`MpiRanks`]: the island model's ranks over an MPI communicator (cargo feature `mpi`), with a deadline
//! on every exchange so that a rank that died is named instead of waited for.

use crate::params::MODEL;
use crate::rank_placement::NodeRank;
use crate::ranks::Ranks;
use evo_core::{Error, Result};
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use std::time::{Duration, Instant};

use crate::poll_pause::PollPause;

/// MPI's start (`MPI_Init`; the returned universe finalizes MPI when dropped) and its handle, from the
/// `mpi` crate this feature builds on, so that a program needs no dependency of its own on it.
pub use ::mpi::{environment::Universe, initialize};

/// The tag of the model's messages; the communicator is the model's own duplicate, so no other message
/// can carry it.
const TAG: mpi::Tag = 32;

/// The ranks of an MPI communicator, for [`RankedIslandModel`](crate::RankedIslandModel): rank and size
/// are the communicator's, and [`all_gather`](Ranks::all_gather) sends this rank's bytes to every other
/// rank with nonblocking point-to-point messages and polls for theirs until `timeout` has passed since it
/// began.
///
/// The deadline is the watchdog that names a dead rank: MPI's own failure handling ends the job
/// (`MPI_Abort`, or the launcher killing every process) without saying which process was lost, and a
/// blocking receive from a dead process never returns. Choose `timeout` above the longest time one rank
/// can wait for the slowest at an exchange (the imbalance of a migration interval's work, or of a
/// checkpoint write), so that only a lost rank trips it. With MPICH's `mpiexec`, pass
/// `-disable-auto-cleanup` so that the launcher leaves the other ranks running when one dies, and they can
/// report it.
///
/// ```no_run
/// use evo_distributed::mpi::MpiRanks;
/// use std::time::Duration;
///
/// let universe = evo_distributed::mpi::initialize().ok_or("MPI was initialized already")?;
/// let ranks = MpiRanks::new(&universe.world(), Duration::from_secs(30))?;
/// println!("rank {} of {}", evo_distributed::Ranks::rank(&ranks), evo_distributed::Ranks::size(&ranks));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MpiRanks {
    comm: SimpleCommunicator,
    rank: usize,
    size: usize,
    timeout: Duration,
}

impl MpiRanks {
    /// The ranks of a duplicate of `comm` (collective over `comm`), with `timeout` for every exchange.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a zero `timeout`.
    pub fn new(comm: &impl Communicator, timeout: Duration) -> Result<Self> {
        if timeout.is_zero() {
            return Err(Error::invalid_parameter(
                MODEL,
                "rank timeout",
                "0 s",
                "longer than the longest wait of one rank for another at an exchange",
            ));
        }
        let comm = comm.duplicate();
        // MPI ranks and sizes are non-negative `c_int`s, so they fit in usize.
        let rank = comm.rank().unsigned_abs() as usize;
        let size = comm.size().unsigned_abs() as usize;
        Ok(Self {
            comm,
            rank,
            size,
            timeout,
        })
    }

    /// The deadline of every exchange.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// This rank's place among the ranks on its machine (collective, no deadline: call it at the start,
    /// before the ranks can drift apart), from MPI itself: the ranks that share memory with this one
    /// (`MPI_Comm_split_type` with `MPI_COMM_TYPE_SHARED`), in world-rank order. Give it to
    /// [`RankPlacement::for_rank`](crate::RankPlacement::for_rank) for the rank's GPUs.
    ///
    /// # Errors
    /// As [`NodeRank::new`] (an MPI that reports a rank outside its own count).
    pub fn node_rank(&self) -> Result<NodeRank> {
        // The key orders the node's ranks as the world does; world ranks are MPI `c_int`s.
        let node = self.comm.split_shared(self.rank as mpi::Rank);
        NodeRank::new(
            node.rank().unsigned_abs() as usize,
            node.size().unsigned_abs() as usize,
        )
    }

    /// The process of rank `rank` in the communicator.
    fn process(&self, rank: usize) -> mpi::topology::Process<'_> {
        // `rank < size`, and the size is an MPI `c_int`.
        self.comm.process_at_rank(rank as mpi::Rank)
    }
}

impl Ranks for MpiRanks {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_gather(&self, bytes: Vec<u8>, exchange: &str) -> Result<Vec<Vec<u8>>> {
        let deadline = Instant::now() + self.timeout;
        let mut pause = PollPause::default();
        let peers: Vec<usize> = (0..self.size).filter(|&p| p != self.rank).collect();
        // The buffer must outlive every send, which may never complete when a peer died; it is reclaimed
        // below once every send has, and left to MPI on the error path.
        let buffer: *mut [u8] = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: `buffer` comes from `Box::into_raw` just above and is only read (by the sends) until it
        // is turned back into a box below, after every send that reads it has completed.
        let outgoing: &'static [u8] = unsafe { &*buffer };
        let mut sends: Vec<(usize, Request<'static, [u8], StaticScope>)> = peers
            .iter()
            .map(|&p| {
                let request = self
                    .process(p)
                    .immediate_send_with_tag(StaticScope, outgoing, TAG);
                (p, request)
            })
            .collect();
        let mut gathered: Vec<Option<Vec<u8>>> = vec![None; self.size];
        loop {
            for &p in &peers {
                if gathered[p].is_none()
                    && let Some(probed) = self.process(p).immediate_matched_probe_with_tag(TAG)
                {
                    gathered[p] = Some(probed.matched_receive_vec::<u8>().0);
                }
            }
            sends = sends
                .into_iter()
                .filter_map(|(p, request)| request.test().err().map(|request| (p, request)))
                .collect();
            let missing = peers.iter().copied().find(|&p| gathered[p].is_none());
            if missing.is_none() && sends.is_empty() {
                break;
            }
            if Instant::now() >= deadline {
                let rank = missing
                    .or_else(|| sends.iter().map(|(p, _)| *p).min())
                    .unwrap_or(self.rank);
                let what = match missing {
                    Some(_) => "sent nothing",
                    None => "took nothing of this rank's message",
                };
                for (_, request) in sends {
                    // SAFETY: the request is taken apart only to be freed: MPI completes or drops the send
                    // on its own, and the buffer it reads stays allocated (leaked on this error path).
                    let (mut raw, _, _) = unsafe { request.into_raw() };
                    // SAFETY: `raw` is a valid, active request handle that nothing else refers to.
                    unsafe { mpi::ffi::MPI_Request_free(&mut raw) };
                }
                return Err(Error::RankFailed {
                    rank,
                    exchange: exchange.to_string(),
                    reason: format!(
                        "it {what} within {:?}: the process died or hangs; resume the run from its last checkpoint",
                        self.timeout
                    ),
                });
            }
            pause.wait();
        }
        // SAFETY: every send that read `buffer` has completed, so `outgoing` is no longer used and the box
        // from `Box::into_raw` above is whole again.
        let own = unsafe { Box::from_raw(buffer) }.into_vec();
        gathered[self.rank] = Some(own);
        // The loop above ends only once every peer's message arrived, so every entry is filled.
        Ok(gathered.into_iter().flatten().collect())
    }
}
