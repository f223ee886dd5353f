//! The device's own time per call, with the host out of the way, and the host's time to queue one call.
//!
//! A pipelined sample times the stream between two events while the host queues the calls: when the host
//! queues a call more slowly than the device runs one (two kernel launches of a few µs each, against a few µs of
//! device work at 8 MB), the events measure the host. Here a 1 GiB device-to-device copy first holds the
//! stream (about 0.75 ms on an H100) while the host queues [`QUEUED_CALLS`] calls behind it; the events then
//! bracket calls that were all queued before the first of them started, so their time is the device's alone.
//! The host's enqueue time of those calls is measured beside it; a sample whose queuing outlasted the copy
//! (the device caught up with the host) is reported as such.

use std::time::Instant;

use evo_gpu_runtime::{Gpu, GpuTimer};

use crate::bench::{BenchContext, Timing};

/// Calls queued behind the copy per sample.
pub(super) const QUEUED_CALLS: usize = 32;
/// Bytes of each of the two buffers of the copy that holds the stream.
const HOLD_BYTES: usize = 1 << 30;

/// What [`queued`] measured.
pub(super) struct Queued {
    /// The device time per call, one entry per sample.
    pub timing: Timing,
    /// The host's median time to queue one call, in µs.
    pub host_us_per_call: f64,
    /// Every sample finished queuing before the holding copy ended (otherwise the device waited for the host).
    pub host_ahead: bool,
}

/// The device time per call of `call(k)` for k = 0..[`QUEUED_CALLS`], queued behind a long copy (see the module
/// docs), over the context's samples.
pub(super) fn queued(
    ctx: &BenchContext,
    gpu: &Gpu,
    mut call: impl FnMut(usize) -> anyhow::Result<()>,
) -> anyhow::Result<Queued> {
    let source = gpu.alloc_zeroed::<u8>(HOLD_BYTES)?;
    let mut target = gpu.alloc::<u8>(HOLD_BYTES)?;
    let stream = gpu.stream();
    let hold = GpuTimer::new(gpu)?;
    let timer = GpuTimer::new(gpu)?;
    let samples = ctx.sampling().samples.max(1);
    let mut samples_ms = Vec::with_capacity(samples);
    let mut host_us = Vec::with_capacity(samples);
    let mut host_ahead = true;
    for _ in 0..samples {
        gpu.synchronize()?;
        hold.start(&stream)?;
        target.copy_from_device(&source)?;
        hold.stop(&stream)?;
        timer.start(&stream)?;
        let queuing = Instant::now();
        for k in 0..QUEUED_CALLS {
            call(k)?;
        }
        let queued_ms = queuing.elapsed().as_secs_f64() * 1e3;
        timer.stop(&stream)?;
        let per_call_ms = f64::from(timer.elapsed_ms()?) / QUEUED_CALLS as f64;
        host_ahead &= queued_ms < f64::from(hold.elapsed_ms()?);
        samples_ms.push(per_call_ms);
        host_us.push(queued_ms * 1e3 / QUEUED_CALLS as f64);
    }
    gpu.synchronize()?;
    host_us.sort_by(f64::total_cmp);
    Ok(Queued {
        timing: Timing { samples_ms },
        host_us_per_call: host_us[host_us.len() / 2],
        host_ahead,
    })
}
