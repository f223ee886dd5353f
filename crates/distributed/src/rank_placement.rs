//! Per-rank placement: [`NodeRank`] (a process's place among the ranks of its machine) and
//! [`RankPlacement`] (how those ranks divide a placement, each placing its islands on its share).

use crate::params::MODEL;
use crate::placement::Placement;
use evo_core::{Backend, Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A process's place among the ranks of its node (the processes on one machine, which share its GPUs): its
/// node-local rank `l` and the node's rank count `L`.
///
/// Over MPI, `mpi::MpiRanks::node_rank` takes it from MPI itself (a shared-memory split of the
/// communicator); [`NodeRank::from_env`] reads the launcher's variables instead, for other transports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeRank {
    local_rank: usize,
    local_size: usize,
}

/// The launchers' variables for the node-local rank and the node's rank count: MPICH's Hydra, then Open
/// MPI.
const LAUNCHER_VARIABLES: [(&str, &str); 2] = [
    ("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
];

impl NodeRank {
    /// Node-local rank `local_rank` of `local_size`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `local_size = 0` or `local_rank ≥ local_size`.
    pub fn new(local_rank: usize, local_size: usize) -> Result<Self> {
        if local_rank >= local_size {
            return Err(Error::invalid_parameter(
                MODEL,
                "node-local rank",
                format!("{local_rank} of {local_size} on the node"),
                "a rank below the node's rank count",
            ));
        }
        Ok(Self {
            local_rank,
            local_size,
        })
    }

    /// The only rank of its node (one process, or one process per machine).
    pub const fn alone() -> Self {
        Self {
            local_rank: 0,
            local_size: 1,
        }
    }

    /// The node-local rank `l`, in `0 .. L`.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// The number of ranks on the node, `L ≥ 1`.
    pub fn local_size(&self) -> usize {
        self.local_size
    }

    /// The node rank the launcher gave this process in its environment: MPICH's Hydra sets
    /// `MPI_LOCALRANKID` and `MPI_LOCALNRANKS`, Open MPI `OMPI_COMM_WORLD_LOCAL_RANK` and
    /// `OMPI_COMM_WORLD_LOCAL_SIZE`; `None` when neither pair is set (no launcher, or another one).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the variable when one of a pair is missing or not a whole
    /// number, and as [`NodeRank::new`].
    pub fn from_env() -> Result<Option<Self>> {
        Self::from_variables(|name| std::env::var(name).ok())
    }

    /// [`NodeRank::from_env`] over any source of variables.
    fn from_variables(get: impl Fn(&str) -> Option<String>) -> Result<Option<Self>> {
        for (rank_name, size_name) in LAUNCHER_VARIABLES {
            let (rank, size) = (get(rank_name), get(size_name));
            if rank.is_none() && size.is_none() {
                continue;
            }
            let number = |name: &str, value: Option<String>| {
                let text = value.unwrap_or_default();
                text.trim().parse::<usize>().map_err(|_| {
                    Error::invalid_parameter(
                        MODEL,
                        "launcher variable",
                        format!("{name}={text:?}"),
                        format!(
                            "a whole number, set together with {}",
                            if name == rank_name {
                                size_name
                            } else {
                                rank_name
                            }
                        ),
                    )
                })
            };
            let rank = number(rank_name, rank)?;
            let size = number(size_name, size)?;
            return Self::new(rank, size).map(Some);
        }
        Ok(None)
    }
}

/// How the ranks of one node divide a [`RankPlacement`]'s placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankShare {
    /// Every rank places its islands on the whole placement: CPU pools, GPUs the ranks share, or `cuda:0`
    /// when the launcher gives each rank its own GPU through `CUDA_VISIBLE_DEVICES`. Written `same`.
    #[default]
    Same,
    /// One GPU per rank, the placement's single `cuda:d` being the first: node-local rank `l` runs its
    /// islands on `cuda:(d + l)`. Written `local-gpu`.
    LocalGpu,
    /// The placement's CUDA devices divided among the node's ranks: of `P` devices, node-local rank `l` of
    /// `L ≤ P` takes the contiguous block `⌊l·P/L⌋ .. ⌊(l+1)·P/L⌋` (one device each when `L = P`).
    /// Written `split`.
    Split,
}

impl fmt::Display for RankShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RankShare::Same => "same",
            RankShare::LocalGpu => "local-gpu",
            RankShare::Split => "split",
        })
    }
}

impl FromStr for RankShare {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        match text.trim() {
            "same" => Ok(RankShare::Same),
            "local-gpu" => Ok(RankShare::LocalGpu),
            "split" => Ok(RankShare::Split),
            other => Err(Error::invalid_parameter(
                MODEL,
                "rank share",
                format!("`{other}`"),
                "`same`, `local-gpu` or `split`",
            )),
        }
    }
}

/// A placement and the way the ranks of a node share it: [`for_rank`](Self::for_rank) gives each rank
/// the [`Placement`] its islands run on (the one it hands to
/// [`RankedIslandModel`](crate::RankedIslandModel)). In one process ([`NodeRank::alone`]) every share
/// gives the placement itself.
///
/// Placement never changes a bit of the result (the islands are logical), so a run may move between
/// shares, placements and rank counts, through its checkpoint too.
///
/// ```
/// use evo_distributed::{NodeRank, RankPlacement, RankShare};
///
/// // Two ranks on a node with two GPUs, one GPU each from cuda:0 on.
/// let local = RankPlacement::new("cuda:0".parse()?, RankShare::LocalGpu)?;
/// let rank1 = local.for_rank(NodeRank::new(1, 2)?, 2)?;
/// assert_eq!(rank1.to_string(), "cuda:1");
/// // Four listed GPUs split between two ranks.
/// let split = RankPlacement::new("cuda:0,cuda:1,cuda:2,cuda:3".parse()?, RankShare::Split)?;
/// assert_eq!(split.for_rank(NodeRank::new(1, 2)?, 4)?.to_string(), "cuda:2,cuda:3");
/// // Three ranks cannot have a GPU each of two.
/// assert!(local.for_rank(NodeRank::new(0, 3)?, 2).is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankPlacement {
    placement: Placement,
    share: RankShare,
}

impl RankPlacement {
    /// `placement` shared by a node's ranks as `share` says.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for [`RankShare::LocalGpu`] with a placement other than one `cuda:d`,
    /// and for [`RankShare::Split`] with a placement that names a CPU pool.
    pub fn new(placement: Placement, share: RankShare) -> Result<Self> {
        let all_cuda = placement
            .backends()
            .iter()
            .all(|backend| matches!(backend, Backend::Cuda { .. }));
        match share {
            RankShare::LocalGpu if placement.len() != 1 || !all_cuda => {
                Err(Error::invalid_parameter(
                    MODEL,
                    "placement of a local-gpu share",
                    format!("`{placement}`"),
                    "one CUDA device `cuda:d`, the first of the node's ranks' GPUs",
                ))
            }
            RankShare::Split if !all_cuda => Err(Error::invalid_parameter(
                MODEL,
                "placement of a split share",
                format!("`{placement}`"),
                "CUDA devices only (`cuda:0,cuda:1`), which the node's ranks divide among themselves",
            )),
            _ => Ok(Self { placement, share }),
        }
    }

    /// Every rank on the whole placement ([`RankShare::Same`]).
    pub fn same(placement: Placement) -> Self {
        Self {
            placement,
            share: RankShare::Same,
        }
    }

    /// The placement the ranks share.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// How the ranks share it.
    pub fn share(&self) -> RankShare {
        self.share
    }

    /// The placement of node-local rank `node` on a node with `devices` CUDA devices. Every rank of a
    /// node checks the whole node's division, so that all of them refuse a division that does not fit,
    /// not only the ranks left without a GPU.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the rank counts and the devices for more ranks on the node than
    /// GPUs in a one-GPU-per-rank share ([`RankShare::LocalGpu`] past the node's last device,
    /// [`RankShare::Split`] with fewer devices listed than ranks), and for a placement that names a CUDA
    /// device the node does not have.
    pub fn for_rank(&self, node: NodeRank, devices: usize) -> Result<Placement> {
        let (l, ranks) = (node.local_rank, node.local_size);
        let placement = match self.share {
            RankShare::Same => self.placement.clone(),
            RankShare::LocalGpu => {
                let first = self.cuda_devices()[0];
                if first + ranks > devices {
                    return Err(Error::invalid_parameter(
                        MODEL,
                        "ranks on this node",
                        format!(
                            "{ranks} ranks with one GPU each from cuda:{first} on a node with {devices} CUDA device(s)"
                        ),
                        format!(
                            "at most {} ranks per node (devices cuda:{first} .. cuda:{}); start fewer ranks per node, or give a placement they share",
                            devices.saturating_sub(first),
                            devices.saturating_sub(1)
                        ),
                    ));
                }
                Placement::new([Backend::Cuda { device: first + l }])?
            }
            RankShare::Split => {
                let listed = self.cuda_devices();
                if ranks > listed.len() {
                    return Err(Error::invalid_parameter(
                        MODEL,
                        "ranks on this node",
                        format!(
                            "{ranks} ranks for the {} GPU(s) listed ({})",
                            listed.len(),
                            self.placement
                        ),
                        "at most one rank per listed GPU (each rank needs a GPU of its own); list more GPUs, start fewer ranks per node, or give a placement the ranks share",
                    ));
                }
                let start = |r: usize| r * listed.len() / ranks;
                Placement::new(
                    listed[start(l)..start(l + 1)]
                        .iter()
                        .map(|&device| Backend::Cuda { device }),
                )?
            }
        };
        let node_placements = match self.share {
            RankShare::Same => vec![placement.clone()],
            _ => vec![self.placement.clone(), placement.clone()],
        };
        for checked in &node_placements {
            if let Some(device) = cuda_of(checked).into_iter().find(|&d| d >= devices) {
                return Err(Error::invalid_parameter(
                    MODEL,
                    "placement",
                    format!("`{checked}` (node-local rank {l} of {ranks}): cuda:{device}"),
                    format!("CUDA devices of this node, 0 .. {devices}"),
                ));
            }
        }
        Ok(placement)
    }

    fn cuda_devices(&self) -> Vec<usize> {
        cuda_of(&self.placement)
    }

    /// [`for_rank`](Self::for_rank) on this machine: the CUDA devices are counted only when the placement
    /// names one (a CPU placement needs no driver).
    ///
    /// # Errors
    /// As [`for_rank`](Self::for_rank), and the runtime's error when the placement names a CUDA device but
    /// no driver or device can be found.
    pub fn for_rank_here(&self, node: NodeRank) -> Result<Placement> {
        let devices = match self.cuda_devices().is_empty() {
            true => 0,
            false => evo_gpu_runtime::device_count()?,
        };
        self.for_rank(node, devices)
    }
}

/// The CUDA devices of a placement, in order.
fn cuda_of(placement: &Placement) -> Vec<usize> {
    placement
        .backends()
        .iter()
        .filter_map(|backend| match backend {
            Backend::Cuda { device } => Some(*device),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::collections::HashMap;

    fn node(l: usize, size: usize) -> NodeRank {
        NodeRank::new(l, size).unwrap()
    }

    fn rank_placement(placement: &str, share: RankShare) -> RankPlacement {
        RankPlacement::new(placement.parse().unwrap(), share).unwrap()
    }

    #[test]
    fn a_cpu_placement_is_placed_here_without_counting_devices() {
        // No driver is asked: this runs on machines without CUDA.
        let cpu = RankPlacement::same("cpu:2".parse().unwrap());
        for l in 0..3 {
            assert_eq!(
                cpu.for_rank_here(node(l, 3)).unwrap(),
                cpu.for_rank(node(l, 3), 0).unwrap()
            );
        }
    }

    fn placements(rule: &RankPlacement, size: usize, devices: usize) -> Vec<String> {
        (0..size)
            .map(|l| rule.for_rank(node(l, size), devices).unwrap().to_string())
            .collect()
    }

    #[test]
    fn node_ranks_come_from_mpich_or_open_mpi_variables() {
        let from = |pairs: &[(&str, &str)]| {
            let map: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            NodeRank::from_variables(|name| map.get(name).cloned())
        };
        assert_eq!(from(&[]).unwrap(), None);
        let mpich = from(&[("MPI_LOCALRANKID", "1"), ("MPI_LOCALNRANKS", "2")]);
        assert_eq!(mpich.unwrap(), Some(node(1, 2)));
        let ompi = from(&[
            ("OMPI_COMM_WORLD_LOCAL_RANK", "2"),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "4"),
        ]);
        assert_eq!(ompi.unwrap(), Some(node(2, 4)));
        let half = from(&[("MPI_LOCALRANKID", "0")]).unwrap_err().to_string();
        assert!(
            half.contains("MPI_LOCALNRANKS=\"\"")
                && half.contains("set together with MPI_LOCALRANKID"),
            "{half}"
        );
        let bad = from(&[("MPI_LOCALRANKID", "x"), ("MPI_LOCALNRANKS", "2")]);
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("MPI_LOCALRANKID=\"x\"")
        );
        let outside = from(&[("MPI_LOCALRANKID", "2"), ("MPI_LOCALNRANKS", "2")]);
        assert!(
            outside
                .unwrap_err()
                .to_string()
                .contains("2 of 2 on the node")
        );
        assert!(NodeRank::new(0, 0).is_err());
    }

    #[test]
    fn each_rank_of_a_node_gets_its_gpus() {
        let local = rank_placement("cuda:0", RankShare::LocalGpu);
        assert_eq!(placements(&local, 2, 2), ["cuda:0", "cuda:1"]);
        let from_one = rank_placement("cuda:1", RankShare::LocalGpu);
        assert_eq!(placements(&from_one, 3, 4), ["cuda:1", "cuda:2", "cuda:3"]);
        let split = rank_placement("cuda:3,cuda:2,cuda:1,cuda:0", RankShare::Split);
        assert_eq!(
            placements(&split, 4, 4),
            ["cuda:3", "cuda:2", "cuda:1", "cuda:0"]
        );
        assert_eq!(placements(&split, 2, 4), ["cuda:3,cuda:2", "cuda:1,cuda:0"]);
        assert_eq!(
            placements(&split, 3, 4),
            ["cuda:3", "cuda:2", "cuda:1,cuda:0"]
        );
        let same = RankPlacement::same("cpu:2,cuda:0".parse().unwrap());
        assert_eq!(placements(&same, 3, 1), ["cpu:2,cuda:0"; 3]);
        let cpu = RankPlacement::same("cpu:1".parse().unwrap());
        assert_eq!(placements(&cpu, 2, 0), ["cpu:1"; 2]);
        // One process gets the placement itself, whatever the share.
        for rule in [&local, &from_one, &split, &same] {
            assert_eq!(
                rule.for_rank(NodeRank::alone(), 4).unwrap(),
                *rule.placement()
            );
        }
    }

    #[test]
    fn more_ranks_than_gpus_with_one_gpu_per_rank_is_refused_on_every_rank() {
        let local = rank_placement("cuda:0", RankShare::LocalGpu);
        for l in 0..3 {
            let error = local.for_rank(node(l, 3), 2).unwrap_err().to_string();
            assert_eq!(
                error,
                "island model: ranks on this node must be at most 2 ranks per node (devices cuda:0 .. \
                 cuda:1); start fewer ranks per node, or give a placement they share, got 3 ranks with \
                 one GPU each from cuda:0 on a node with 2 CUDA device(s)"
            );
        }
        let split = rank_placement("cuda:0,cuda:1", RankShare::Split);
        for l in 0..3 {
            let error = split.for_rank(node(l, 3), 2).unwrap_err().to_string();
            assert!(
                error.contains("got 3 ranks for the 2 GPU(s) listed (cuda:0,cuda:1)"),
                "{error}"
            );
        }
        // A listed device the node lacks is refused by every rank, not only by the one it would go to.
        let wide = rank_placement("cuda:0,cuda:5", RankShare::Split);
        for l in 0..2 {
            let error = wide.for_rank(node(l, 2), 2).unwrap_err().to_string();
            assert!(error.contains("cuda:5"), "{error}");
            assert!(
                error.contains("CUDA devices of this node, 0 .. 2"),
                "{error}"
            );
        }
        let same = RankPlacement::same("cuda:2".parse().unwrap());
        assert!(same.for_rank(node(0, 1), 2).is_err());
    }

    #[test]
    fn shares_need_the_placements_they_divide() {
        let error = RankPlacement::new("cuda:0,cuda:1".parse().unwrap(), RankShare::LocalGpu)
            .unwrap_err()
            .to_string();
        assert!(error.contains("one CUDA device `cuda:d`"), "{error}");
        let error = RankPlacement::new("cpu:2".parse().unwrap(), RankShare::LocalGpu).unwrap_err();
        assert!(error.to_string().contains("local-gpu"), "{error}");
        let error = RankPlacement::new("cuda:0,cpu:1".parse().unwrap(), RankShare::Split)
            .unwrap_err()
            .to_string();
        assert!(error.contains("CUDA devices only"), "{error}");
        for share in [RankShare::Same, RankShare::LocalGpu, RankShare::Split] {
            assert_eq!(share.to_string().parse::<RankShare>().unwrap(), share);
        }
        assert!("node".parse::<RankShare>().is_err());
    }
}
