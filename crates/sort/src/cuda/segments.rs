//! The GA paper's two sort kernels (§3.2.2) and their batched form: bitonic sorts of segments in shared
//! memory, then the exchange of individuals into sorted order.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::fitness::DeviceFitness;
use super::launch;
use super::permutation::DevicePermutation;
use crate::limits::{COMPONENT, MAX_SEGMENT_LEN};

/// Sorts every segment of `fitness` (segments of `order.segment_len()` entries, 1..=4096) independently:
/// `order` receives each segment's local indices in sorted order and `sorted` the values in that order. One
/// block per segment runs the bitonic network over the segment padded to p = max(64, next power of two):
/// p·log2(p)·(log2(p)+1)/4 compare-exchanges in log2(p)(log2(p)+1)/2 stages, those of stride ≤ 32 in
/// registers and warp shuffles, the others (log2(p/64)(log2(p/64)+1)/2 stages) in shared memory.
/// Twin: [`crate::cpu::sort_segments`].
pub fn sort_segments<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    order: &mut DevicePermutation,
    sorted: &mut DeviceBuffer<T>,
    block: u32,
) -> Result<()> {
    let segment_len = order.segment_len();
    launch::segments_bitonic(
        gpu,
        fitness,
        segment_len,
        order.indices_mut(),
        sorted,
        block,
    )
}

/// Sorts one population of 1..=4096 fitness values (the GA paper's first sort kernel): `order` must be a
/// single segment of `fitness.len()` entries. Twin: [`crate::cpu::sort_population`].
pub fn sort_population<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    order: &mut DevicePermutation,
    sorted: &mut DeviceBuffer<T>,
    block: u32,
) -> Result<()> {
    let n = fitness.len();
    if !(1..=MAX_SEGMENT_LEN).contains(&n) || order.segments() != 1 {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "population",
            format!(
                "{n} fitness values with an order of {} segment(s) of {}",
                order.segments(),
                order.segment_len()
            ),
            format!("1..={MAX_SEGMENT_LEN} values and an order of one segment of that length"),
        ));
    }
    sort_segments(gpu, fitness, order, sorted, block)
}

/// Copies the individuals of `src` (rows of `words_per_row` u32 words, e.g. bit-packed genomes) into sorted
/// order: row r of `dst` is row (segment start + `order[r]`) of `src`. One block per individual, threads over
/// its words (the GA paper's second sort kernel); 2 · rows · words_per_row · 4 bytes of memory traffic.
/// `src` and `dst` are distinct buffers. Twin: [`crate::cpu::exchange_rows`].
pub fn exchange_rows(
    gpu: &Gpu,
    src: &DeviceBuffer<u32>,
    order: &DevicePermutation,
    dst: &mut DeviceBuffer<u32>,
    words_per_row: usize,
    block: u32,
) -> Result<()> {
    launch::exchange_rows(
        gpu,
        src,
        order.indices(),
        dst,
        words_per_row,
        order.segment_len(),
        block,
    )
}
