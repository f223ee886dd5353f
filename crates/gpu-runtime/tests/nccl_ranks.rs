//! `NcclRankComm` (feature `nccl`): one rank per GPU, each joined from its own thread with one
//! `NcclUniqueId` (as processes join it, the id carried by bytes), gives the values its collectives
//! promise; ids of the wrong length and ranks outside the world are typed errors. Without a GPU the GPU
//! tests print SKIPPED and pass; with GPUs but no loadable libnccl they print SKIPPED with the library
//! error, except under `EVO_REQUIRE_GPU=1`, where both fail. Across processes (under `mpiexec`) the same
//! calls are checked by evo-distributed's `nccl_processes` test.

#![cfg(feature = "nccl")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{announce, gpu_or_skip, gpu_required};
use evo_core::Error;
use evo_gpu_runtime::Gpu;
use evo_gpu_runtime::nccl::{NcclRankComm, NcclReduce, NcclUniqueId, UNIQUE_ID_BYTES};

#[test]
fn an_id_of_the_wrong_length_is_refused_and_bytes_round_trip() {
    let error = NcclUniqueId::from_bytes(&[7; 12]).unwrap_err();
    assert!(matches!(error, Error::InvalidParameter { .. }), "{error}");
    assert!(error.to_string().contains("exactly 128 bytes"), "{error}");
    let bytes: Vec<u8> = (0..UNIQUE_ID_BYTES).map(|i| i as u8).collect();
    let id = NcclUniqueId::from_bytes(&bytes).unwrap();
    assert_eq!(id.as_bytes().as_slice(), bytes.as_slice());
    assert_eq!(format!("{id:?}"), "NcclUniqueId(0001020304050607…)");
}

/// A fresh id, or `None` (printing why) without GPUs or NCCL.
fn id_or_skip(test: &str) -> Option<NcclUniqueId> {
    gpu_or_skip(test)?;
    match NcclUniqueId::new() {
        Ok(id) => Some(id),
        Err(error @ Error::LibraryNotFound { .. }) if !gpu_required() => {
            announce(&format!("SKIPPED ({error}): {test}"));
            None
        }
        Err(error) => panic!("{test}: {error}"),
    }
}

#[test]
fn a_rank_outside_the_world_is_refused() {
    let test = "a_rank_outside_the_world_is_refused";
    let Some(id) = id_or_skip(test) else {
        return;
    };
    let gpu = Gpu::open(0).unwrap();
    let error = NcclRankComm::from_unique_id(&gpu, 2, 2, &id).unwrap_err();
    assert!(
        error.to_string().contains("a rank below the world size 2"),
        "{error}"
    );
    let error = NcclRankComm::from_unique_id(&gpu, 0, 0, &id).unwrap_err();
    assert!(error.to_string().contains("world size"), "{error}");
}

#[test]
fn ranks_joined_from_threads_broadcast_gather_and_reduce() {
    let test = "ranks_joined_from_threads_broadcast_gather_and_reduce";
    let Some(id) = id_or_skip(test) else {
        return;
    };
    let gpus = Gpu::all().unwrap();
    let world = gpus.len();
    announce(&format!("{test}: {world} rank(s), one thread each"));
    // Each thread receives the id as bytes, as another process would.
    let bytes = *id.as_bytes();
    let results: Vec<(Vec<u32>, Vec<f64>, Vec<u32>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = gpus
            .iter()
            .enumerate()
            .map(|(rank, gpu)| {
                scope.spawn(move || {
                    let id = NcclUniqueId::from_bytes(&bytes).unwrap();
                    let comm = NcclRankComm::from_unique_id(gpu, rank, world, &id).unwrap();
                    assert_eq!((comm.rank(), comm.world_size()), (rank, world));
                    let mut root_values = gpu.upload(&[100 + rank as u32; 5]).unwrap();
                    comm.broadcast(world - 1, &mut root_values).unwrap();
                    let send = gpu.upload(&[rank as f64 + 0.5; 3]).unwrap();
                    let mut gathered = gpu.upload(&vec![f64::NAN; 3 * world]).unwrap();
                    comm.all_gather(&send, &mut gathered).unwrap();
                    let mut sums = gpu.upload(&[1u32, rank as u32]).unwrap();
                    comm.all_reduce(&mut sums, NcclReduce::Sum).unwrap();
                    (
                        root_values.to_vec().unwrap(),
                        gathered.to_vec().unwrap(),
                        sums.to_vec().unwrap(),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let gathered: Vec<f64> = (0..world).flat_map(|r| [r as f64 + 0.5; 3]).collect();
    let rank_sum = (0..world as u32).sum::<u32>();
    for (rank, (broadcast, all_gather, sums)) in results.iter().enumerate() {
        assert_eq!(broadcast, &vec![100 + world as u32 - 1; 5], "rank {rank}");
        assert_eq!(all_gather, &gathered, "rank {rank}");
        assert_eq!(sums, &vec![world as u32, rank_sum], "rank {rank}");
    }
}

#[test]
fn a_buffer_on_another_gpu_is_refused() {
    let test = "a_buffer_on_another_gpu_is_refused";
    let Some(id) = id_or_skip(test) else {
        return;
    };
    let gpus = Gpu::all().unwrap();
    if gpus.len() < 2 {
        announce(&format!("SKIPPED (one GPU; needs two): {test}"));
        return;
    }
    let comm = NcclRankComm::from_unique_id(&gpus[0], 0, 1, &id).unwrap();
    let mut elsewhere = gpus[1].upload(&[1u32; 4]).unwrap();
    let error = comm.broadcast(0, &mut elsewhere).unwrap_err();
    assert!(
        error.to_string().contains("a buffer on this rank's GPU 0"),
        "{error}"
    );
    let error = comm.broadcast(1, &mut elsewhere).unwrap_err();
    assert!(error.to_string().contains("root rank"), "{error}");
}
