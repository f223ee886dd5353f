//! Ranking of large arrays: an LSD radix argsort over the order keys, the inverse permutation (ranks), and
//! the gather of values into sorted order.
//!
//! Keys are the order keys of [`crate::order`] (u32 for f32, u64 for f64), so unsigned order is the value
//! order with NaN last. Each pass sorts stably by one 8-bit digit, from the lowest; starting from index order,
//! the stable passes leave equal keys in index order, which is the index tie-break. Per pass: a histogram of
//! digits per tile, an exclusive scan of the digit-major counts, and a stable scatter (`common/sort/radix.cuh`).

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::fitness::{DeviceFitness, DeviceKey};
use super::launch::{self, RADIX_BINS};
use super::permutation::DevicePermutation;
use crate::limits::{COMPONENT, check_len};

/// Pairs per thread and tile of the radix passes: tiles of 2048 pairs (1024 for blocks of 1024 threads), whose
/// keys, indices and counters fit the scatter's 48 KiB of shared memory.
fn radix_items(block: u32) -> u32 {
    if block >= 1024 { 1 } else { 2048 / block }
}
/// Counts per thread of the scan.
const SCAN_ITEMS: u32 = 8;

/// Exclusive scan of `counts` into `scanned`, chunk by chunk, then the chunk totals recursively.
fn exclusive_scan(
    gpu: &Gpu,
    counts: &DeviceBuffer<u32>,
    scanned: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let chunks = launch::item_blocks(counts.len(), block, SCAN_ITEMS);
    let mut chunk_sums = gpu.alloc::<u32>(chunks)?;
    launch::scan_exclusive(gpu, counts, scanned, &mut chunk_sums, SCAN_ITEMS, block)?;
    if chunks > 1 {
        let mut chunk_offsets = gpu.alloc::<u32>(chunks)?;
        exclusive_scan(gpu, &chunk_sums, &mut chunk_offsets, block)?;
        launch::scan_add(gpu, scanned, &chunk_offsets, SCAN_ITEMS, block)?;
    }
    Ok(())
}

fn check_single_segment(routine: &'static str, order: &DevicePermutation, n: usize) -> Result<()> {
    if order.len() == n && (n == 0 || order.segments() == 1) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            "order",
            format!(
                "{} segment(s) of {} (in {routine} of {n} entries)",
                order.segments(),
                order.segment_len()
            ),
            "one segment of the array's length (DevicePermutation::for_array)",
        ))
    }
}

/// Writes into `order` the permutation that sorts `fitness` (up to 2^32 − 1 keys): `order[r]` is the index of
/// the entry of rank r. `order` must be one segment of `fitness.len()` entries
/// ([`DevicePermutation::for_array`]). Cost: `BITS / 8` passes (4 for f32, 8 for f64), each reading the keys
/// twice and the indices once and writing both once: about (3·key + 2·4) bytes per key and pass, with
/// 2·n keys and n indices of scratch from the buffer pool. Twin: [`crate::cpu::argsort`].
pub fn argsort<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    order: &mut DevicePermutation,
    block: u32,
) -> Result<()> {
    let n = fitness.len();
    check_len("argsort", n)?;
    check_single_segment("argsort", order, n)?;
    crate::limits::check_block("argsort", block)?;
    if n == 0 {
        return Ok(());
    }
    let mut keys = gpu.alloc::<T::Key>(n)?;
    let mut keys_spare = gpu.alloc::<T::Key>(n)?;
    let mut indices_spare = gpu.alloc::<u32>(n)?;
    launch::radix_prepare(gpu, fitness, &mut keys, order.indices_mut(), block)?;
    let items = radix_items(block);
    let tiles = launch::item_blocks(n, block, items);
    let mut counts = gpu.alloc::<u32>(RADIX_BINS * tiles)?;
    let mut offsets = gpu.alloc::<u32>(RADIX_BINS * tiles)?;
    for shift in (0..<T::Key as DeviceKey>::BITS).step_by(8) {
        launch::radix_histogram(gpu, &keys, &mut counts, shift, items, block)?;
        exclusive_scan(gpu, &counts, &mut offsets, block)?;
        launch::radix_scatter(
            gpu,
            &keys,
            order.indices(),
            &offsets,
            &mut keys_spare,
            &mut indices_spare,
            shift,
            items,
            block,
        )?;
        std::mem::swap(&mut keys, &mut keys_spare);
        std::mem::swap(order.indices_mut(), &mut indices_spare);
    }
    Ok(())
}

/// The inverse permutation of a one-segment `order`: `ranks[order[r]] = r`. One pass, n scattered writes.
/// Twin: [`crate::cpu::ranks_from_order`].
pub fn ranks_from_order(
    gpu: &Gpu,
    order: &DevicePermutation,
    ranks: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    check_single_segment("ranks_from_order", order, order.len())?;
    launch::ranks_from_order(gpu, order.indices(), ranks, block)
}

/// The rank of every entry of `fitness` (0 for the best): [`argsort`] then [`ranks_from_order`]. Twin:
/// [`crate::cpu::ranks`].
pub fn ranks<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    ranks: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let mut order = DevicePermutation::for_array(gpu, fitness.len())?;
    argsort(gpu, fitness, &mut order, block)?;
    ranks_from_order(gpu, &order, ranks, block)
}

/// `out[r] = values[order[r]]` for a one-segment `order` (the values in sorted order). Twin:
/// [`crate::cpu::gather`].
pub fn gather<T: DeviceFitness>(
    gpu: &Gpu,
    values: &DeviceBuffer<T>,
    order: &DevicePermutation,
    out: &mut DeviceBuffer<T>,
    block: u32,
) -> Result<()> {
    check_single_segment("gather", order, values.len())?;
    launch::gather(gpu, values, order.indices(), out, block)
}
