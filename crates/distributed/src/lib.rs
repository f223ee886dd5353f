//! # evo-distributed
//!
//! Runs evo-gpu's engines beyond one device. This version has the **island model**: `K` islands, each an
//! engine of one algorithm (DE, GA or MA-SW-Chains) with its own seed, placed on several CPU thread pools
//! and CUDA devices of one process ([`IslandModel`]), or spread over several processes
//! ([`RankedIslandModel`], over MPI with the `mpi` feature). The islands are logical: the result depends only on the seed, `K`, `m`, `k` and the
//! algorithm's parameters and problem, never on the placement, and it is the same with CPU and CUDA engines
//! (bit for bit under the Exact profile, as the engines themselves are).
//!
//! ## The island model
//!
//! Parameters ([`IslandParams`]): the island count `K ≥ 1`, the migration interval `m ≥ 1` (generations)
//! and the migrant count `k`, `1 ≤ k ≤ M/2` for a population of `M`.
//!
//! 1. Island `i` (`0 ≤ i < K`) is a fresh engine from seed `seed + i` (64-bit wrapping; the project's rule
//!    for the runs of a batch, spec rng.md §6.2, as `evo_rng::Philox::for_batch_run`), with the same
//!    parameters and problem as every other island ([`island_seed`]).
//! 2. A step of the model is a step (a generation) of every island.
//! 3. After generation `g` with `g mod m = 0` (`g = m, 2m, …`), migration along the ring
//!    ([`ring_migration`]). Each island ranks its slots best first by the workspace's total order — fitness
//!    by `total_cmp` with NaN last, ties by the lower slot — so that `s_i[0]` is its best slot and
//!    `s_i[M−1]` its worst. All emigrants are taken first: island `i` sends `e_i[r] = s_i[r]` for
//!    `r = 0 … k−1` (whole individuals: genes, fitness and per-individual adapted parameters). Then island
//!    `j = (i + 1) mod K` puts `e_i[r]` into its slot `s_j[M−1−r]`: the best migrant replaces the worst
//!    individual, the second best the second worst, and so on, ranks taken on `j`'s own fitness before the
//!    migration. With `k ≤ M/2` an island's best is never replaced, so the model's best so far is the best
//!    of the islands' bests. With `K = 1` the island's `k` best replace its own `k` worst.
//! 4. The model's progress: the generation `g`, the sum of the islands' evaluations, and the best fitness
//!    of any island (ties: the lower island); [`best`](evo_core::Engine::best) is that island's best.
//!
//! Migration goes through each island's [`Island`] methods: every island's [`departure`](Island::departure)
//! (its emigrants, and where its arrivals will land), then every island's [`land`](Island::land). Their
//! provided versions read the island's [`snapshot`](evo_core::Engine::snapshot), move the individuals on
//! the host ([`Migrate`]) and [`restore`](evo_core::Engine::restore) it, which every engine supports with
//! one snapshot type shared by its CPU and CUDA engines; their cost is one copy of each population to the
//! host and back every `m` generations. DE islands override them and move only the migrants: the
//! population's fitness and `k` individuals read, `k` slots written (`DeCuda::replace_individuals`: range
//! copies), with the same bits. An algorithm whose snapshot keeps an invariant restores it after its
//! migrants settled ([`Migrate::after_migration`]): a GA island re-sorts its rows best first (fitness,
//! then the slot) and takes row 0 as its best so far when it is strictly better.
//!
//! | algorithm | module | CPU island | CUDA island | migrant |
//! | --- | --- | --- | --- | --- |
//! | DE | [`de`] | `DeCpu` | `DeCuda` | vector, fitness, `F_i`, `CR_i` |
//! | GA | [`ga`] | `GaCpu` | `GaFusedCuda` (the paper's functions) | row of words, fitness |
//! | MA-SW-Chains | [`ma`] | `MaCpu` | `MaCuda` | genes, fitness, non-improved counter, chain |
//!
//! A step of an MA-SW-Chains island is one memetic cycle, so `m` counts cycles; its engines borrow the
//! problem, and so does the model (the lifetime of [`IslandModel`] and [`IslandEngine`]).
//!
//! ## Placement
//!
//! A [`Placement`] lists backends (`cpu:<threads>`, `cuda:<device>`, each device once); island `i` runs on
//! entry `i mod P`. The entries run side by side, one host thread each, and the islands of one entry in
//! turn. Between migrations each island advances with its own `step_many` (a CUDA engine queues the
//! generations with one read-back). Nothing an island computes depends on the others until a migration,
//! and a migration is the same function of the `K` snapshots wherever they came from, so placement cannot
//! change a bit of the result.
//!
//! ## Checkpoints
//!
//! [`IslandModel`] is an [`Engine`](evo_core::Engine) whose snapshot, [`IslandSnapshot`], holds every
//! island's snapshot and the migration counter, so the [`Executor`](evo_core::Executor) checkpoints and
//! resumes it in the project's format ([`evo_core::checkpoint`]). The fingerprint is island 0's (the run's
//! seed, parameters, problem) with `islands`, `migration_interval` and `migrants`; the placement is not in
//! it, so a run may resume on another placement or backend.
//!
//! ## Several processes (ranks)
//!
//! [`RankedIslandModel`] spreads the `K` islands over the `R ≤ K` processes of a [`Ranks`]: rank `r` owns
//! the contiguous block [`island_block`]`(r, R, K)` and runs it on a placement of its own. Island `i` is
//! the same engine from the same seed as above, and a migration takes every island's emigrants with the
//! same code as [`ring_migration`]; the emigrants of each block's last island travel to every rank in one
//! all-gather, and the next block's first island takes them in. So the model over ranks gives
//! [`IslandModel`]'s result bit for bit, on any number of ranks; its snapshot, fingerprint and algorithm
//! name are [`IslandModel`]'s too, so a checkpoint moves between one process and any number of ranks.
//! Its collectives and the executor configuration they need are in its docs.
//!
//! With the cargo feature `mpi`, `mpi::MpiRanks` is the ranks of an MPI communicator (the `mpi` crate,
//! rsmpi), started by `mpiexec`; the crate's README says how to get MPI (the `mpich` wheel from PyPI, or
//! the system's MPI). Every exchange has a deadline: a rank that died or hangs makes the others fail with
//! [`Error::RankFailed`](evo_core::Error::RankFailed) naming it, and the last checkpoint resumes the run,
//! on the same or another number of ranks. The example `mpi_islands` runs DE, GA and MA-SW-Chains islands
//! under `mpiexec` and checks them against this process's [`IslandModel`].
//!
//! Each rank places its own block: a [`RankPlacement`] says how the ranks of one machine (node) share a
//! placement ([`RankShare`]: every rank the whole of it, one GPU per rank from `cuda:d` on, or the listed
//! GPUs divided among them), and [`RankPlacement::for_rank`] gives a rank its [`Placement`] from its
//! [`NodeRank`] (over MPI `mpi::MpiRanks::node_rank`, MPI's shared-memory split; else
//! [`NodeRank::from_env`], MPICH's or Open MPI's variables). More ranks on a machine than GPUs for one GPU
//! each is an [`Error::InvalidParameter`](evo_core::Error::InvalidParameter) on every rank of it. The
//! placement never changes a bit of the result.
//!
//! With the cargo feature `nccl`, `nccl_comm` makes an NCCL communicator over the ranks, one GPU each
//! (`evo_gpu_runtime::nccl::NcclRankComm`): rank 0 makes the NCCL id and the ranks' exchange carries it
//! (over MPI with `mpi::MpiRanks`).
//!
//! ## Example
//!
//! Four DE islands on two CPU pools, checked against the same model on one pool:
//!
//! ```
//! use evo_benchmarks::DeRastrigin;
//! use evo_core::{Executor, Termination};
//! use evo_de::DeParams;
//! use evo_distributed::{IslandParams, de};
//!
//! let problem = DeRastrigin::new(10)?;
//! let params = DeParams::default().with_population(32)?;
//! let islands = IslandParams::default()
//!     .with_islands(4)?
//!     .with_migration_interval(10)?
//!     .with_migrants(2)?;
//! let run = |placement: &str| -> evo_core::Result<_> {
//!     let model = de::islands(&params, &problem, 7, islands, placement.parse()?)?;
//!     Executor::new(model).with_termination(Termination::new().with_max_generations(50))?.run()
//! };
//! let two_pools = run("cpu:1,cpu:1")?;
//! let one_pool = run("cpu:2")?;
//! assert_eq!(two_pools.best, one_pool.best);
//! assert_eq!(two_pools.best_fitness.to_bits(), one_pool.best_fitness.to_bits());
//! assert_eq!(two_pools.evaluations, 4 * 32 * 51);
//! println!("best {} after {} generations", two_pools.best_fitness, two_pools.generations);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! Other engines (or DE with initial vectors, a local search or a compile profile) go through
//! [`IslandModel::new`] with a builder that makes island [`IslandSite::index`]'s engine from
//! [`IslandSite::seed`] on [`IslandSite::backend`].
//!
//! ## The dimension split
//!
//! [`dimension`]: MA-SW-Chains with every individual's variables cut into slices over GPUs
//! ([`dimension::MaDimensionSplit`]), for more variables than one GPU holds; bit for bit the unsplit engines'
//! snapshots under the Exact profile, for any layout of slices.
//!
//! Not in this version: engines that cannot move between threads (`GaCuda`, which keeps a recorded CUDA
//! graph), and NCCL collectives inside the island model (its migrations go over the ranks' exchange; NCCL
//! serves the population split and programs of their own).

pub mod de;
pub mod dimension;
pub mod ga;
mod island;
pub mod ma;
mod migration;
mod model;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(feature = "nccl")]
mod nccl_ranks;
mod parallel;
mod params;
mod placement;
#[cfg(any(feature = "mpi", test))]
mod poll_pause;
mod rank_placement;
mod ranked;
mod ranks;
mod snapshot;
#[cfg(feature = "nccl")]
pub mod split;
mod wire;

pub use island::{Departure, Island, Landing};
pub use migration::{Migrate, ranking, ring_migration};
pub use model::{IslandEngine, IslandModel, IslandSite, island_seed};
#[cfg(feature = "nccl")]
pub use nccl_ranks::nccl_comm;
pub use params::IslandParams;
pub use placement::Placement;
pub use rank_placement::{NodeRank, RankPlacement, RankShare};
pub use ranked::RankedIslandModel;
pub use ranks::{Ranks, island_block};
pub use snapshot::IslandSnapshot;
#[cfg(feature = "nccl")]
pub use split::{SplitEvaluator, SplitProblem};

/// The README's example, run as a doc test so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;
