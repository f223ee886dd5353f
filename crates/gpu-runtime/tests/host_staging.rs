//! `HostStaging`: a device buffer's rows reach the host chunk by chunk in page-locked memory, the host's
//! results reach the device in stream order, and a run that skips rows or fails copies nothing back. Skips
//! (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::num::NonZeroUsize;

use evo_core::Error;
use evo_gpu_runtime::{Gpu, HostStaging, RowChunk};

const ROWS: usize = 37;
const ROW_LEN: usize = 5;

fn nonzero(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

/// Row `i`, value `j`: `seed + i·10 + j`, so that each row says which row it is.
fn rows(seed: f32) -> Vec<f32> {
    (0..ROWS * ROW_LEN)
        .map(|k| seed + (k / ROW_LEN * 10 + k % ROW_LEN) as f32)
        .collect()
}

/// The host's result for a row: its sum.
fn row_sums(values: &[f32]) -> Vec<f64> {
    values
        .chunks(ROW_LEN)
        .map(|row| row.iter().map(|&v| f64::from(v)).sum())
        .collect()
}

/// Waits for `chunk` and writes its rows' sums, checking that the rows are the chunk's own.
fn sum_chunk(chunk: RowChunk<'_, f32, f64>, seed: f32) -> evo_core::Result<()> {
    let first = chunk.first_row();
    let (values, sums) = chunk.wait()?;
    assert_eq!(values.len(), sums.len() * ROW_LEN);
    assert_eq!(values[0], seed + (first * 10) as f32, "row {first}");
    sums.copy_from_slice(&row_sums(values));
    Ok(())
}

fn staging(gpu: &Gpu, chunks: usize) -> HostStaging<f32, f64> {
    HostStaging::new(gpu, ROWS, ROW_LEN, nonzero(chunks)).unwrap()
}

fn invalid_name(error: &Error) -> &'static str {
    match error {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other}"),
    }
}

#[test]
fn chunks_waited_on_other_threads_in_any_order_give_every_row_its_result() {
    let Some(gpu) = common::gpu_or_skip(
        "chunks_waited_on_other_threads_in_any_order_give_every_row_its_result",
    ) else {
        return;
    };
    let mut staging = staging(&gpu, 4);
    assert_eq!(staging.chunks(), 4);
    let mut input = gpu.alloc_zeroed::<f32>(ROWS * ROW_LEN).unwrap();
    let mut output = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
    let mut after = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
    // Two runs on the same staging, each reading what was queued just before it and read by what is queued
    // just after it, with no wait in between.
    for seed in [0.0f32, 1000.0] {
        let values = rows(seed);
        input.copy_from_host(&values).unwrap();
        staging
            .run(&input, &mut output, |chunks| {
                assert_eq!(chunks.len(), 4);
                let firsts: Vec<usize> = chunks.iter().map(RowChunk::first_row).collect();
                assert_eq!(firsts, [0, 10, 20, 30]);
                std::thread::scope(|scope| {
                    let handles: Vec<_> = chunks
                        .into_iter()
                        .rev()
                        .map(|chunk| scope.spawn(move || sum_chunk(chunk, seed)))
                        .collect();
                    handles
                        .into_iter()
                        .try_for_each(|handle| handle.join().unwrap())
                })
            })
            .unwrap();
        after.copy_from_device(&output).unwrap();
        assert_eq!(after.to_vec().unwrap(), row_sums(&values), "seed {seed}");
    }
}

#[test]
fn back_to_back_runs_into_different_outputs_each_get_their_own_results() {
    let Some(gpu) =
        common::gpu_or_skip("back_to_back_runs_into_different_outputs_each_get_their_own_results")
    else {
        return;
    };
    // A run does not wait for the previous run's results copy: the stream orders that copy before this
    // run's copies to the host, and the host writes a chunk's results only once its rows have landed. Runs
    // queued back to back with nothing read in between must still leave each output its own sums.
    let mut staging = staging(&gpu, 3);
    let seeds: Vec<Vec<f32>> = (0..3)
        .map(|round| (0..4).map(|k| (round * 4 + k) as f32 * 1000.0).collect())
        .collect();
    let inputs: Vec<Vec<_>> = seeds
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|&s| gpu.upload(&rows(s)).unwrap())
                .collect()
        })
        .collect();
    let mut outputs: Vec<_> = (0..4)
        .map(|_| gpu.alloc_zeroed::<f64>(ROWS).unwrap())
        .collect();
    for (round, inputs) in seeds.iter().zip(&inputs) {
        for ((input, output), &seed) in inputs.iter().zip(&mut outputs).zip(round) {
            staging
                .run(input, output, |chunks| {
                    chunks.into_iter().try_for_each(|c| sum_chunk(c, seed))
                })
                .unwrap();
        }
        for (output, &seed) in outputs.iter().zip(round) {
            assert_eq!(
                output.to_vec().unwrap(),
                row_sums(&rows(seed)),
                "seed {seed}"
            );
        }
    }
}

#[test]
fn many_threads_waiting_for_pieces_of_one_chunk_at_once_each_get_their_rows() {
    let Some(gpu) = common::gpu_or_skip(
        "many_threads_waiting_for_pieces_of_one_chunk_at_once_each_get_their_rows",
    ) else {
        return;
    };
    // One thread asks the driver for the chunk's event while the others watch its answer.
    let mut staging = staging(&gpu, 1);
    for seed in [0.0f32, 500.0, 9000.0] {
        let values = rows(seed);
        let input = gpu.upload(&values).unwrap();
        let mut output = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
        staging
            .run(&input, &mut output, |chunks| {
                let pieces: Vec<_> = chunks
                    .into_iter()
                    .flat_map(|chunk| chunk.split_rows(nonzero(1)))
                    .collect();
                std::thread::scope(|scope| {
                    let handles: Vec<_> = pieces
                        .into_iter()
                        .map(|piece| scope.spawn(move || sum_chunk(piece, seed)))
                        .collect();
                    handles
                        .into_iter()
                        .try_for_each(|handle| handle.join().unwrap())
                })
            })
            .unwrap();
        assert_eq!(output.to_vec().unwrap(), row_sums(&values), "seed {seed}");
    }
}

#[test]
fn pieces_cover_each_chunk_in_row_order() {
    let Some(gpu) = common::gpu_or_skip("pieces_cover_each_chunk_in_row_order") else {
        return;
    };
    let mut staging = staging(&gpu, 2);
    let values = rows(0.0);
    let input = gpu.upload(&values).unwrap();
    let mut output = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
    let pieces = staging
        .run(&input, &mut output, |chunks| {
            let pieces: Vec<_> = chunks
                .into_iter()
                .flat_map(|chunk| chunk.split_rows(nonzero(3)))
                .collect();
            let shape: Vec<(usize, usize)> =
                pieces.iter().map(|p| (p.first_row(), p.rows())).collect();
            for piece in pieces {
                sum_chunk(piece, 0.0)?;
            }
            Ok(shape)
        })
        .unwrap();
    // Chunks of 19 and 18 rows, each cut into pieces of 3 rows.
    let mut next = 0;
    for &(first, rows) in &pieces {
        assert_eq!(first, next, "{pieces:?}");
        assert!((1..=3).contains(&rows), "{pieces:?}");
        next += rows;
    }
    assert_eq!(next, ROWS);
    assert!(
        pieces.contains(&(18, 1)) && pieces.contains(&(19, 3)),
        "{pieces:?}"
    );
    assert_eq!(output.to_vec().unwrap(), row_sums(&values));
}

#[test]
fn a_run_that_skips_rows_or_fails_copies_nothing_back_and_the_staging_stays_usable() {
    let Some(gpu) = common::gpu_or_skip(
        "a_run_that_skips_rows_or_fails_copies_nothing_back_and_the_staging_stays_usable",
    ) else {
        return;
    };
    let mut staging = staging(&gpu, 3);
    let values = rows(0.0);
    let input = gpu.upload(&values).unwrap();
    let untouched = vec![-1.0f64; ROWS];
    let mut output = gpu.upload(&untouched).unwrap();
    // Only the first chunk waited for: its results would be the only ones written.
    let skipped = staging
        .run(&input, &mut output, |chunks| {
            let first = chunks.into_iter().next().unwrap();
            sum_chunk(first, 0.0)
        })
        .unwrap_err();
    assert_eq!(invalid_name(&skipped), "rows waited for", "{skipped}");
    assert!(skipped.to_string().contains("37"), "{skipped}");
    assert_eq!(output.to_vec().unwrap(), untouched);
    // The work's own error comes back as it is.
    let failed = staging
        .run(&input, &mut output, |chunks| {
            for chunk in chunks {
                sum_chunk(chunk, 0.0)?;
            }
            Err::<(), _>(Error::NonFiniteFitness {
                problem: "probe".to_string(),
                individual: 7,
                value: f64::NAN,
            })
        })
        .unwrap_err();
    assert!(
        matches!(failed, Error::NonFiniteFitness { individual: 7, .. }),
        "{failed}"
    );
    assert_eq!(output.to_vec().unwrap(), untouched);
    staging
        .run(&input, &mut output, |chunks| {
            chunks.into_iter().try_for_each(|c| sum_chunk(c, 0.0))
        })
        .unwrap();
    assert_eq!(output.to_vec().unwrap(), row_sums(&values));
}

#[test]
fn sizes_that_do_not_match_the_staging_are_refused() {
    let Some(gpu) = common::gpu_or_skip("sizes_that_do_not_match_the_staging_are_refused") else {
        return;
    };
    for (rows, row_len, name) in [(0, 5, "rows"), (3, 0, "row length")] {
        let error = HostStaging::<f32, f64>::new(&gpu, rows, row_len, nonzero(1)).unwrap_err();
        assert_eq!(invalid_name(&error), name, "{error}");
    }
    let too_many = HostStaging::<f32, f64>::new(&gpu, usize::MAX, 2, nonzero(1)).unwrap_err();
    assert_eq!(invalid_name(&too_many), "rows × row length", "{too_many}");
    let mut staging = staging(&gpu, 2);
    let short = gpu.alloc_zeroed::<f32>(ROWS * ROW_LEN - 1).unwrap();
    let input = gpu.alloc_zeroed::<f32>(ROWS * ROW_LEN).unwrap();
    let mut output = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
    let mut long = gpu.alloc_zeroed::<f64>(ROWS + 1).unwrap();
    let never = |_: Vec<RowChunk<'_, f32, f64>>| -> evo_core::Result<()> {
        panic!("the work must not run on buffers of the wrong length")
    };
    let error = staging.run(&short, &mut output, never).unwrap_err();
    assert_eq!(invalid_name(&error), "input length", "{error}");
    let error = staging.run(&input, &mut long, never).unwrap_err();
    assert_eq!(invalid_name(&error), "output length", "{error}");
}

#[test]
fn a_run_inside_a_graph_recording_is_refused() {
    let Some(gpu) = common::gpu_or_skip("a_run_inside_a_graph_recording_is_refused") else {
        return;
    };
    let mut staging = staging(&gpu, 2);
    let input = gpu.alloc_zeroed::<f32>(ROWS * ROW_LEN).unwrap();
    let mut output = gpu.alloc_zeroed::<f64>(ROWS).unwrap();
    let error = gpu
        .record_graph(|| {
            staging.run(&input, &mut output, |chunks| {
                chunks.into_iter().try_for_each(|c| sum_chunk(c, 0.0))
            })
        })
        .unwrap_err();
    assert_eq!(
        invalid_name(&error),
        "call while recording a graph",
        "{error}"
    );
}
