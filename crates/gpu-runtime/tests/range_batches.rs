//! `RangeReads` and `RangeWrites` on a real GPU: a batch of reads over buffers of several element types
//! gives each range its elements, a batch of writes changes those elements and no other (the later of two
//! writes to one element stays), both are ordered after the work queued before them and before the work
//! queued after, the page-locked staging is reused across batches and grown only when a batch needs more,
//! batches on several threads at once each get their own values, and a range outside its buffer is refused
//! with nothing copied. Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Mutex, MutexGuard};

use evo_core::Error;
use evo_gpu_runtime::{Gpu, RangeReads, RangeWrites};

/// The tests of this binary one at a time: they share the device's staging, whose counters one of them
/// checks.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

fn invalid_name(error: &Error) -> &'static str {
    match error {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other}"),
    }
}

/// `n` values of `f32` that say where they are: element `i` is `seed + i`.
fn ramp(n: usize, seed: f32) -> Vec<f32> {
    (0..n).map(|i| seed + i as f32).collect()
}

#[test]
fn a_batch_of_reads_should_give_each_range_its_elements_whatever_the_types() {
    let Some(gpu) = common::gpu_or_skip(
        "a_batch_of_reads_should_give_each_range_its_elements_whatever_the_types",
    ) else {
        return;
    };
    let _serial = serial();
    // 64 Ki f32: ranges at both ends are farther apart than one copy bridges, ranges near each other are not.
    let rows = ramp(1 << 16, 0.5);
    let fitness: Vec<f64> = (0..100).map(|i| -f64::from(i) * 0.25).collect();
    let table: Vec<u32> = (0..50).map(|i| i * 3 + 1).collect();
    let bytes: Vec<u8> = (0..=255).collect();
    let (d_rows, d_fitness) = (gpu.upload(&rows).unwrap(), gpu.upload(&fitness).unwrap());
    let (d_table, d_bytes) = (gpu.upload(&table).unwrap(), gpu.upload(&bytes).unwrap());

    let mut first = [0.0f32; 8];
    let mut near = [0.0f32; 5];
    let mut last = [0.0f32; 16];
    let mut overlapping = [0.0f32; 6];
    let mut again = [0.0f32; 8];
    let mut empty: [f32; 0] = [];
    let mut values = [0.0f64; 3];
    let mut one = [0.0f64];
    let mut entries = [0u32; 50];
    let mut odd = [0u8; 7];
    let mut reads = RangeReads::new(&gpu);
    reads.read(&d_rows, (1 << 16) - 16, &mut last).unwrap();
    reads.read(&d_fitness, 97, &mut values).unwrap();
    reads.read(&d_rows, 0, &mut first).unwrap();
    reads.read(&d_rows, 20, &mut near).unwrap();
    reads.read(&d_table, 0, &mut entries).unwrap();
    reads.read(&d_rows, 4, &mut overlapping).unwrap();
    reads.read(&d_bytes, 249, &mut odd).unwrap();
    reads.read(&d_rows, 0, &mut again).unwrap();
    reads.read(&d_rows, 1 << 16, &mut empty).unwrap();
    reads.read(&d_fitness, 0, &mut one).unwrap();
    assert_eq!(reads.len(), 10);
    reads.run().unwrap();

    assert_eq!(first[..], rows[..8]);
    assert_eq!(again, first);
    assert_eq!(near[..], rows[20..25]);
    assert_eq!(overlapping[..], rows[4..10]);
    assert_eq!(last[..], rows[(1 << 16) - 16..]);
    assert_eq!(values[..], fitness[97..]);
    assert_eq!(one, [0.0]);
    assert_eq!(entries[..], table[..]);
    assert_eq!(odd[..], bytes[249..]);
}

#[test]
fn a_batch_of_writes_should_change_its_ranges_and_nothing_else() {
    let Some(gpu) =
        common::gpu_or_skip("a_batch_of_writes_should_change_its_ranges_and_nothing_else")
    else {
        return;
    };
    let _serial = serial();
    let mut rows = ramp(40, 0.0);
    let mut fitness: Vec<f64> = vec![7.0; 10];
    let mut table: Vec<u32> = vec![1; 10];
    let (mut d_rows, mut d_fitness) = (gpu.upload(&rows).unwrap(), gpu.upload(&fitness).unwrap());
    let mut d_table = gpu.upload(&table).unwrap();

    let mut host_row = [-1.0f32, -2.0, -3.0, -4.0];
    let later = [9.5f32, 9.25];
    let (low, high) = ([0.5f64], [-0.5f64, -0.75]);
    let zero = [0u32];
    let mut writes = RangeWrites::new(&gpu);
    writes
        .write(
            &mut d_rows,
            [
                (8, &host_row[..]),
                (12, &host_row[..2]),
                (36, &host_row[..]),
                (9, &later[..]),
                (20, &[][..]),
            ],
        )
        .unwrap();
    writes
        .write(&mut d_fitness, [(0, &low[..]), (8, &high[..])])
        .unwrap();
    writes
        .write(&mut d_table, [3, 7, 9].map(|slot| (slot, &zero[..])))
        .unwrap();
    assert_eq!(writes.len(), 10);
    writes.run().unwrap();
    // The batch staged the host's values when it ran: changing them now changes nothing on the device.
    host_row.fill(100.0);

    rows[8..12].copy_from_slice(&[-1.0, -2.0, -3.0, -4.0]);
    rows[12..14].copy_from_slice(&[-1.0, -2.0]);
    rows[36..40].copy_from_slice(&[-1.0, -2.0, -3.0, -4.0]);
    rows[9..11].copy_from_slice(&later);
    fitness[0] = 0.5;
    fitness[8..10].copy_from_slice(&high);
    for slot in [3, 7, 9] {
        table[slot] = 0;
    }
    assert_eq!(d_rows.to_vec().unwrap(), rows);
    assert_eq!(d_fitness.to_vec().unwrap(), fitness);
    assert_eq!(d_table.to_vec().unwrap(), table);
}

#[test]
fn batches_should_follow_the_work_queued_before_them_and_precede_the_work_after() {
    let Some(gpu) = common::gpu_or_skip(
        "batches_should_follow_the_work_queued_before_them_and_precede_the_work_after",
    ) else {
        return;
    };
    let _serial = serial();
    // 64 MiB copied on the device ahead of the batches: long enough that a batch not ordered after it would
    // read the old values.
    let n = 1 << 24;
    let source = gpu.upload(&ramp(n, 1.0)).unwrap();
    let mut target = gpu.alloc_zeroed::<f32>(n).unwrap();
    for round in 0..3 {
        target.fill_zero().unwrap();
        target.copy_from_device(&source).unwrap();
        let marks = [-1.0f32 - round as f32; 3];
        let mut writes = RangeWrites::new(&gpu);
        writes.write(&mut target, [(n - 3, &marks[..])]).unwrap();
        writes.run().unwrap();
        // Queued after the writes: it must copy the marks along.
        let mut copy = gpu.alloc::<f32>(n).unwrap();
        copy.copy_from_device(&target).unwrap();

        let (mut head, mut tail, mut copied) = ([0.0f32; 4], [0.0f32; 4], [0.0f32; 4]);
        let mut reads = RangeReads::new(&gpu);
        reads.read(&target, 0, &mut head).unwrap();
        reads.read(&target, n - 4, &mut tail).unwrap();
        reads.read(&copy, n - 4, &mut copied).unwrap();
        reads.run().unwrap();
        assert_eq!(head, [1.0, 2.0, 3.0, 4.0], "round {round}");
        let expected = [(n - 4) as f32 + 1.0, marks[0], marks[1], marks[2]];
        assert_eq!(tail, expected, "round {round}");
        assert_eq!(copied, expected, "round {round}");
    }
}

#[test]
fn the_staging_should_be_reused_across_batches_and_grown_only_for_a_larger_one() {
    let Some(gpu) = common::gpu_or_skip(
        "the_staging_should_be_reused_across_batches_and_grown_only_for_a_larger_one",
    ) else {
        return;
    };
    let _serial = serial();
    let mut buffer = gpu.upload(&ramp(4096, 0.0)).unwrap();
    let read = |buffer: &evo_gpu_runtime::DeviceBuffer<f32>, len: usize| {
        let mut back = vec![0.0f32; len];
        let mut reads = RangeReads::new(&gpu);
        reads.read(buffer, 100, &mut back).unwrap();
        reads.run().unwrap();
        back
    };
    let write = |buffer: &mut evo_gpu_runtime::DeviceBuffer<f32>, len: usize, value: f32| {
        let values = vec![value; len];
        let mut writes = RangeWrites::new(&gpu);
        writes.write(buffer, [(100, &values[..])]).unwrap();
        writes.run().unwrap();
        values
    };
    read(&buffer, 1000);
    let warm = gpu.range_staging_stats();
    assert!(warm.allocations >= 1 && warm.blocks >= 1, "{warm:?}");
    // A read waits for its copies, so its block is free for the next one: reads alone never allocate again.
    for i in 0..20 {
        assert_eq!(read(&buffer, 1000 + i)[0], 100.0);
    }
    assert_eq!(
        gpu.range_staging_stats().allocations,
        warm.allocations,
        "reads of the same size reuse the staging"
    );
    // A write's block stays in flight after it returns; a read right after it may need a second block,
    // once: from then on each finds a free one.
    for i in 0..20 {
        let values = write(&mut buffer, 1000 + i, i as f32);
        assert_eq!(read(&buffer, 1000 + i), values);
    }
    let reused = gpu.range_staging_stats();
    assert!(
        reused.allocations <= warm.allocations + 1,
        "writes and reads of the same size reuse the staging: {warm:?} then {reused:?}"
    );
    // As many f32 as the cached blocks hold bytes together: more than any one block holds.
    let larger = usize::try_from(reused.bytes).unwrap();
    let big = gpu.upload(&ramp(larger + 100, 0.0)).unwrap();
    assert_eq!(read(&big, larger)[larger - 1], (larger + 99) as f32);
    let grown = gpu.range_staging_stats();
    assert_eq!(grown.allocations, reused.allocations + 1, "{grown:?}");
    for _ in 0..5 {
        read(&big, larger);
    }
    assert_eq!(gpu.range_staging_stats().allocations, grown.allocations);
}

#[test]
fn batches_on_several_threads_at_once_should_each_get_their_own_values() {
    let Some(gpu) =
        common::gpu_or_skip("batches_on_several_threads_at_once_should_each_get_their_own_values")
    else {
        return;
    };
    let _serial = serial();
    std::thread::scope(|scope| {
        for thread in 0..6 {
            let gpu = gpu.clone();
            scope.spawn(move || {
                let mut buffer = gpu.alloc_zeroed::<f32>(4096).unwrap();
                for round in 0..50 {
                    let value = (thread * 1000 + round) as f32;
                    let values = [value; 7];
                    let mut writes = RangeWrites::new(&gpu);
                    writes
                        .write(
                            &mut buffer,
                            [(round * 13, &values[..]), (4000, &values[..])],
                        )
                        .unwrap();
                    writes.run().unwrap();
                    let (mut a, mut b) = ([0.0f32; 7], [0.0f32; 7]);
                    let mut reads = RangeReads::new(&gpu);
                    reads.read(&buffer, round * 13, &mut a).unwrap();
                    reads.read(&buffer, 4000, &mut b).unwrap();
                    reads.run().unwrap();
                    assert_eq!((a, b), (values, values), "thread {thread}, round {round}");
                }
            });
        }
    });
}

#[test]
fn a_range_outside_its_buffer_should_be_refused_with_nothing_copied() {
    let Some(gpu) =
        common::gpu_or_skip("a_range_outside_its_buffer_should_be_refused_with_nothing_copied")
    else {
        return;
    };
    let _serial = serial();
    let values: Vec<f64> = (0..10).map(f64::from).collect();
    let mut buffer = gpu.upload(&values).unwrap();

    let mut past = [-1.0f64; 3];
    let mut inside = [-1.0f64; 2];
    let mut overflowing = [-1.0f64; 2];
    let mut reads = RangeReads::new(&gpu);
    let error = reads.read(&buffer, 8, &mut past).unwrap_err();
    assert_eq!(invalid_name(&error), "element range", "{error}");
    assert!(
        error
            .to_string()
            .contains("within the buffer's 10 elements"),
        "{error}"
    );
    assert!(reads.read(&buffer, usize::MAX, &mut overflowing).is_err());
    assert!(reads.is_empty(), "a refused read is not added");
    reads.read(&buffer, 2, &mut inside).unwrap();
    reads.run().unwrap();
    assert_eq!(past, [-1.0; 3], "a refused read writes nothing");
    assert_eq!(inside, [2.0, 3.0]);

    let marks = [-5.0f64; 2];
    let mut writes = RangeWrites::new(&gpu);
    let error = writes
        .write(&mut buffer, [(0, &marks[..]), (9, &marks[..])])
        .unwrap_err();
    assert_eq!(invalid_name(&error), "element range", "{error}");
    assert!(writes.is_empty(), "none of the buffer's ranges is added");
    writes.run().unwrap();
    assert_eq!(buffer.to_vec().unwrap(), values, "nothing was written");

    let error = gpu
        .record_graph(|| {
            let mut reads = RangeReads::new(&gpu);
            reads.read(&buffer, 0, &mut inside)?;
            reads.run()
        })
        .unwrap_err();
    assert_eq!(
        invalid_name(&error),
        "call while recording a graph",
        "{error}"
    );

    if let Ok(other) = Gpu::open(1) {
        let elsewhere = other.upload(&values).unwrap();
        let mut reads = RangeReads::new(&gpu);
        let error = reads.read(&elsewhere, 0, &mut inside).unwrap_err();
        assert_eq!(invalid_name(&error), "buffer's device", "{error}");
    }
}
