//! `NcclComm` over every GPU of the machine (feature `nccl`): each collective gives the values it promises,
//! for every root, and bad arguments are typed errors before NCCL is called. Without a GPU a test prints
//! SKIPPED and passes; with GPUs but no loadable libnccl it prints SKIPPED with the library error, except
//! under `EVO_REQUIRE_GPU=1`, where both fail.

#![cfg(feature = "nccl")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{announce, gpu_or_skip, gpu_required};
use evo_core::Error;
use evo_gpu_runtime::nccl::{NcclComm, NcclReduce};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

/// The communicator over every GPU, or `None` (printing why) without GPUs or NCCL.
fn comm_or_skip(test: &str) -> Option<(Vec<Gpu>, NcclComm)> {
    // The crate's gate decides the no-device cases; then every device takes part.
    gpu_or_skip(test)?;
    let gpus = Gpu::all().unwrap();
    match NcclComm::from_gpus(&gpus) {
        Ok(comm) => {
            announce(&format!(
                "{test}: {} GPU(s) {:?}",
                gpus.len(),
                comm.devices()
            ));
            Some((gpus, comm))
        }
        Err(error @ Error::LibraryNotFound { .. }) if !gpu_required() => {
            announce(&format!("SKIPPED ({error}): {test}"));
            None
        }
        Err(error) => panic!("{test}: {error}"),
    }
}

fn upload_each<T: evo_gpu_runtime::DeviceCopy>(
    gpus: &[Gpu],
    values: impl Fn(usize) -> Vec<T>,
) -> Vec<DeviceBuffer<T>> {
    gpus.iter()
        .enumerate()
        .map(|(r, gpu)| gpu.upload(&values(r)).unwrap())
        .collect()
}

#[test]
fn an_empty_gpu_list_is_refused_without_a_device_or_the_library() {
    let error = NcclComm::from_gpus(&[]).unwrap_err();
    assert!(matches!(error, Error::InvalidParameter { .. }), "{error}");
}

#[test]
fn a_gpu_listed_twice_is_refused() {
    let test = "a_gpu_listed_twice_is_refused";
    let Some((gpus, _comm)) = comm_or_skip(test) else {
        return;
    };
    let error = NcclComm::from_gpus(&[gpus[0].clone(), gpus[0].clone()]).unwrap_err();
    assert!(error.to_string().contains("twice"), "{error}");
}

#[test]
fn broadcast_should_give_every_rank_the_roots_values() {
    let test = "broadcast_should_give_every_rank_the_roots_values";
    let Some((gpus, comm)) = comm_or_skip(test) else {
        return;
    };
    let values = |r: usize| {
        (0..1000u32)
            .map(|i| 1_000_000 * r as u32 + i)
            .collect::<Vec<_>>()
    };
    for root in 0..gpus.len() {
        let mut buffers = upload_each(&gpus, values);
        comm.broadcast(root, &mut buffers).unwrap();
        for (r, buffer) in buffers.iter().enumerate() {
            assert_eq!(
                buffer.to_vec().unwrap(),
                values(root),
                "rank {r}, root {root}"
            );
        }
    }
    let mut reals = upload_each(&gpus, |r| vec![r as f64 + 0.25; 7]);
    comm.broadcast(gpus.len() - 1, &mut reals).unwrap();
    for buffer in &reals {
        let expected = (gpus.len() - 1) as f64 + 0.25;
        assert!(
            buffer
                .to_vec()
                .unwrap()
                .iter()
                .all(|v| v.to_bits() == expected.to_bits())
        );
    }
}

#[test]
fn all_gather_should_concatenate_the_ranks_in_order() {
    let test = "all_gather_should_concatenate_the_ranks_in_order";
    let Some((gpus, comm)) = comm_or_skip(test) else {
        return;
    };
    let count = 5;
    let send = upload_each(&gpus, |r| {
        (0..count).map(|i| r as f32 + i as f32 / 8.0).collect()
    });
    let mut recv: Vec<DeviceBuffer<f32>> = gpus
        .iter()
        .map(|g| g.alloc_zeroed(count * gpus.len()).unwrap())
        .collect();
    comm.all_gather(&send, &mut recv).unwrap();
    let expected: Vec<f32> = (0..gpus.len())
        .flat_map(|r| (0..count).map(move |i| r as f32 + i as f32 / 8.0))
        .collect();
    for (r, buffer) in recv.iter().enumerate() {
        let got = buffer.to_vec().unwrap();
        assert!(
            got.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "rank {r}: {got:?} != {expected:?}"
        );
    }
}

#[test]
fn all_reduce_should_sum_integers_and_take_exact_maxima() {
    let test = "all_reduce_should_sum_integers_and_take_exact_maxima";
    let Some((gpus, comm)) = comm_or_skip(test) else {
        return;
    };
    let w = gpus.len() as u32;
    let mut sums = upload_each(&gpus, |r| (0..64u32).map(|i| i * (r as u32 + 1)).collect());
    comm.all_reduce(&mut sums, NcclReduce::Sum).unwrap();
    let expected: Vec<u32> = (0..64u32).map(|i| i * w * (w + 1) / 2).collect();
    for buffer in &sums {
        assert_eq!(buffer.to_vec().unwrap(), expected);
    }
    let mut maxima = upload_each(&gpus, |r| vec![-(r as f64) - 0.5, r as f64 * 1e-300]);
    comm.all_reduce(&mut maxima, NcclReduce::Max).unwrap();
    let expected = [-0.5f64, (gpus.len() - 1) as f64 * 1e-300];
    for buffer in &maxima {
        let got = buffer.to_vec().unwrap();
        assert_eq!(got[0].to_bits(), expected[0].to_bits());
        assert_eq!(got[1].to_bits(), expected[1].to_bits());
    }
}

#[test]
fn scatter_then_gather_should_return_the_whole_for_every_root() {
    let test = "scatter_then_gather_should_return_the_whole_for_every_root";
    let Some((gpus, comm)) = comm_or_skip(test) else {
        return;
    };
    let w = gpus.len();
    // Uneven parts on every rank; then the same with the last rank's part empty (nothing sent to it).
    let mut patterns = vec![(0..w).map(|r| 3 + 2 * r).collect::<Vec<usize>>()];
    if w > 1 {
        patterns.push(
            (0..w)
                .map(|r| if r == w - 1 { 0 } else { 3 + 2 * r })
                .collect(),
        );
    }
    for (lengths, root) in patterns
        .iter()
        .flat_map(|l| (0..w).map(move |root| (l, root)))
    {
        let total: usize = lengths.iter().sum();
        let whole: Vec<f64> = (0..total).map(|i| i as f64 * 1.5 - 7.0).collect();
        let source = gpus[root].upload(&whole).unwrap();
        let mut parts: Vec<DeviceBuffer<f64>> = gpus
            .iter()
            .zip(lengths.iter())
            .map(|(g, &n)| g.alloc_zeroed(n).unwrap())
            .collect();
        comm.scatter(root, &source, &mut parts).unwrap();
        let mut start = 0usize;
        for (r, part) in parts.iter().enumerate() {
            assert_eq!(
                part.to_vec().unwrap(),
                whole[start..start + lengths[r]],
                "part {r}, root {root}"
            );
            start += lengths[r];
        }
        let mut back = gpus[root].alloc_zeroed::<f64>(total).unwrap();
        comm.gather(root, &parts, &mut back).unwrap();
        assert_eq!(back.to_vec().unwrap(), whole, "root {root}");
    }
}

#[test]
fn bad_arguments_are_typed_errors_before_nccl_is_called() {
    let test = "bad_arguments_are_typed_errors_before_nccl_is_called";
    let Some((gpus, comm)) = comm_or_skip(test) else {
        return;
    };
    let w = gpus.len();
    let invalid = |result: evo_core::Result<()>, what: &str| match result {
        Err(Error::InvalidParameter { .. }) => {}
        other => panic!("{what}: expected InvalidParameter, got {other:?}"),
    };
    let mut buffers = upload_each(&gpus, |_| vec![1u32; 4]);
    invalid(comm.broadcast(w, &mut buffers), "root out of range");
    invalid(comm.broadcast(0, &mut buffers[..w - 1]), "too few buffers");
    let mut uneven = upload_each(&gpus, |r| vec![1u32; 4 + r]);
    if w > 1 {
        invalid(
            comm.all_reduce(&mut uneven, NcclReduce::Sum),
            "unequal lengths",
        );
        let mut swapped = upload_each(&gpus, |_| vec![1u32; 4]);
        swapped.swap(0, 1);
        invalid(
            comm.broadcast(0, &mut swapped),
            "buffers on other ranks' GPUs",
        );
    }
    let send = upload_each(&gpus, |_| vec![1.0f32; 3]);
    let mut short: Vec<DeviceBuffer<f32>> =
        gpus.iter().map(|g| g.alloc(3 * w - 1).unwrap()).collect();
    invalid(
        comm.all_gather(&send, &mut short),
        "recv shorter than W·send",
    );
    let source = gpus[0].upload(&[1.0f64; 10]).unwrap();
    let mut parts: Vec<DeviceBuffer<f64>> = gpus.iter().map(|g| g.alloc(1).unwrap()).collect();
    invalid(
        comm.scatter(0, &source, &mut parts),
        "parts that do not add up",
    );
}
