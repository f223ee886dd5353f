//! NCCL over processes (features `mpi` and `nccl`), one GPU per process: under `mpiexec -n R` each rank
//! takes its node-local GPU (`RankShare::LocalGpu` from `cuda:0`), joins the communicator of
//! `nccl_comm` (rank 0's NCCL id sent over MPI), and checks what a broadcast from every root, an all-gather
//! and an all-reduce between the processes leave in its own buffer.
//!
//! ```text
//! cargo test -p evo-distributed --features mpi,nccl --test nccl_processes --no-run
//! mpiexec -n 2 target/debug/deps/nccl_processes-<hash>
//! ```
//!
//! Not a libtest harness (MPI is initialized once per process, on the main thread): it prints one line per
//! rank and exits with 1 when a check fails. Without a CUDA device, without a loadable libnccl, or with
//! more ranks on a machine than GPUs it prints SKIPPED and passes, except under `EVO_REQUIRE_GPU=1`, where
//! it fails. Run in one process (plain `cargo test`), it checks a communicator of one rank and says that
//! `mpiexec -n 2` is the test across processes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_core::Backend;
use evo_distributed::mpi::{MpiRanks, initialize};
use evo_distributed::{NodeRank, RankPlacement, RankShare, Ranks, nccl_comm};
use evo_gpu_runtime::nccl::{NcclRankComm, NcclReduce, nccl_present};
use evo_gpu_runtime::{Gpu, device_count};
use std::time::Duration;

/// What this rank's part came to.
enum Outcome {
    Passed(String),
    Skipped(String),
}

fn main() {
    let Some(universe) = initialize() else {
        eprintln!("nccl_processes: MPI was initialized already");
        std::process::exit(2);
    };
    let ranks = match MpiRanks::new(&universe.world(), Duration::from_secs(60)) {
        Ok(ranks) => ranks,
        Err(error) => fail(0, &error.to_string()),
    };
    let rank = ranks.rank();
    let required = std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1");
    match run(&ranks) {
        Ok(Outcome::Passed(line)) => println!("nccl_processes: rank {rank}: {line}"),
        Ok(Outcome::Skipped(why)) if !required => {
            eprintln!("SKIPPED ({why}): nccl_processes, rank {rank}");
        }
        Ok(Outcome::Skipped(why)) => fail(
            rank,
            &format!("{why}, but EVO_REQUIRE_GPU=1 requires the test to run"),
        ),
        Err(error) => fail(rank, &error),
    }
}

/// Ends this rank with a failure, without MPI's finalize (another rank may be gone).
fn fail(rank: usize, error: &str) -> ! {
    eprintln!("nccl_processes: rank {rank}: FAILED: {error}");
    std::process::exit(1);
}

fn run(ranks: &MpiRanks) -> Result<Outcome, String> {
    let node = ranks.node_rank().map_err(|e| e.to_string())?;
    match Gpu::first_available() {
        Ok(Some(_)) => {}
        Ok(None) => return Ok(Outcome::Skipped("no CUDA device".into())),
        Err(error) => {
            return Err(format!(
                "a CUDA device exists but could not be opened: {error}"
            ));
        }
    }
    if !nccl_present() {
        return Ok(Outcome::Skipped(
            "no loadable libnccl.so (see evo-gpu-runtime's README for the link to libnccl.so.2)"
                .into(),
        ));
    }
    let devices = device_count().map_err(|e| e.to_string())?;
    let local = RankPlacement::new(
        "cuda:0".parse().map_err(|e| format!("{e}"))?,
        RankShare::LocalGpu,
    )
    .map_err(|e| e.to_string())?;
    let placement = match local.for_rank(node, devices) {
        Ok(placement) => placement,
        Err(error) => return Ok(Outcome::Skipped(error.to_string())),
    };
    let device = match placement.backends() {
        [Backend::Cuda { device }] => *device,
        other => return Err(format!("a local-gpu placement gave {other:?}, not one GPU")),
    };
    let gpu = Gpu::open(device).map_err(|e| e.to_string())?;
    let comm = nccl_comm(ranks, &gpu).map_err(|e| e.to_string())?;
    check_collectives(&comm, node).map(Outcome::Passed)
}

/// Every collective, checked in this rank's own buffers.
fn check_collectives(comm: &NcclRankComm, node: NodeRank) -> Result<String, String> {
    let (rank, world) = (comm.rank(), comm.world_size());
    let gpu = comm.gpu();
    let e = |error: evo_core::Error| error.to_string();
    let values = |r: usize| -> Vec<u32> { (0..1000).map(|i| 1_000_000 * r as u32 + i).collect() };
    for root in 0..world {
        let mut buffer = gpu.upload(&values(rank)).map_err(e)?;
        comm.broadcast(root, &mut buffer).map_err(e)?;
        if buffer.to_vec().map_err(e)? != values(root) {
            return Err(format!("the broadcast from root {root} left other values"));
        }
    }
    let send: Vec<f64> = (0..7).map(|i| rank as f64 + i as f64 / 8.0).collect();
    let send = gpu.upload(&send).map_err(e)?;
    let mut gathered = gpu.upload(&vec![f64::NAN; 7 * world]).map_err(e)?;
    comm.all_gather(&send, &mut gathered).map_err(e)?;
    let expected: Vec<u64> = (0..world)
        .flat_map(|r| (0..7).map(move |i| (r as f64 + i as f64 / 8.0).to_bits()))
        .collect();
    let got: Vec<u64> = gathered
        .to_vec()
        .map_err(e)?
        .iter()
        .map(|x| x.to_bits())
        .collect();
    if got != expected {
        return Err(format!(
            "the all-gather gave {got:x?}, expected {expected:x?}"
        ));
    }
    let mut sums = gpu.upload(&[1u32, rank as u32]).map_err(e)?;
    comm.all_reduce(&mut sums, NcclReduce::Sum).map_err(e)?;
    let rank_sum = (0..world as u32).sum::<u32>();
    if sums.to_vec().map_err(e)? != [world as u32, rank_sum] {
        return Err("the all-reduce (sum) gave other values".into());
    }
    let mut maxima = gpu
        .upload(&[rank as f64 * 1.5, -(rank as f64)])
        .map_err(e)?;
    comm.all_reduce(&mut maxima, NcclReduce::Max).map_err(e)?;
    if maxima.to_vec().map_err(e)? != [(world - 1) as f64 * 1.5, 0.0] {
        return Err("the all-reduce (max) gave other values".into());
    }
    let scope = match world {
        1 => "one process: run it under `mpiexec -n 2` for the test across processes",
        _ => "across processes",
    };
    Ok(format!(
        "rank {rank} of {world} (node-local rank {} of {}) on GPU {}: broadcast from every root, all-gather, \
         all-reduce (sum, max) ok, {scope}",
        node.local_rank(),
        node.local_size(),
        gpu.index()
    ))
}
