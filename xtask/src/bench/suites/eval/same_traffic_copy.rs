//! The device-to-device copy that moves as many bytes as one evaluation cell: the ceiling a kernel of that
//! traffic can expect at that size, beside the large-copy ceiling the targets use.
//!
//! A cell of `bytes` compulsory traffic (4·D·(individuals + 1)) is matched by a copy of `bytes / 2` (read
//! plus write = `bytes`). Copies are queued back to back, rotating over enough buffer pairs that together
//! they exceed the rotation size, so that the source is read from memory, not L2 (as the pipelined
//! evaluation rows); the figure is per copy. The same copies are also timed queued behind a long copy
//! ([`super::queued`]): the device's own time per copy, where the host queues a copy more slowly than the
//! device runs it.

use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::queued::{Queued, queued};
use crate::bench::{BenchContext, Timing};

/// One pipelined copy of `bytes / 2` bytes in each of `calls` copies per sample: the per-copy timing, the
/// number of copies per sample, and the copies queued behind a long copy.
pub(super) fn same_traffic_copy(
    ctx: &BenchContext,
    gpu: &Gpu,
    bytes: usize,
    rotation_bytes: usize,
    sample_ms: f64,
) -> anyhow::Result<(Timing, usize, Queued)> {
    let words = (bytes / 2).div_ceil(4).max(1);
    let pairs = rotation_bytes.div_ceil(8 * words).max(1);
    let sources = (0..pairs)
        .map(|_| gpu.alloc_zeroed::<f32>(words))
        .collect::<Result<Vec<_>, _>>()?;
    let mut targets: Vec<DeviceBuffer<f32>> = (0..pairs)
        .map(|_| gpu.alloc::<f32>(words))
        .collect::<Result<Vec<_>, _>>()?;
    let (one, ()) = ctx.time_gpu(gpu, || Ok(targets[0].copy_from_device(&sources[0])?))?;
    let calls = ((sample_ms / one.median_ms()).ceil() as usize).clamp(1, 1000);
    let (many, ()) = ctx.time_gpu(gpu, || {
        for call in 0..calls {
            let pair = call % pairs;
            targets[pair].copy_from_device(&sources[pair])?;
        }
        Ok(())
    })?;
    let per_copy = Timing {
        samples_ms: many.samples_ms.iter().map(|ms| ms / calls as f64).collect(),
    };
    let behind = queued(ctx, gpu, |k| {
        let pair = k % pairs;
        Ok(targets[pair].copy_from_device(&sources[pair])?)
    })?;
    Ok((per_copy, calls, behind))
}
