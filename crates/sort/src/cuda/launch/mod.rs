//! Typed launch functions, one per kernel of `kernels/cuda/sort.cu` (parameter structs in `params.rs`), by
//! the routine they serve: here the segment sort, the row exchange and the order-to-ranks and gather steps;
//! [`radix`] the radix sort's passes and the scan; [`select`] argmin/argmax and top-k. Each function checks its
//! buffers against one [`LaunchSite`] (errors name the kernel and the buffer) and derives the launch shape
//! from their lengths; the routines of [`crate::cuda`] compose them.

mod radix;
mod select;

pub(crate) use radix::{
    RADIX_BINS, radix_histogram, radix_prepare, radix_scatter, scan_add, scan_exclusive,
};
pub(crate) use select::{select_first, select_pairs, topk_pairs, topk_tiles};

use evo_core::Result;
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, LaunchSite, Profile};
use evo_kernels::EntryPoint;
use evo_kernels::entry::sort;

use super::fitness::DeviceFitness;
use super::params::{SortExchangeParams, SortLengthParams, SortSegmentsParams};
use crate::limits::{COMPONENT, MAX_SEGMENT_LEN, check_block};

/// The largest grid the launchers ask for; the kernels loop over further segments, rows or tiles.
const MAX_GRID: u32 = 1 << 20;

/// The bitonic network's smallest length: one chunk of 64 pairs, sorted in registers by one warp.
const BITONIC_CHUNK: usize = 64;

/// Dynamic shared memory a block may use without opting in.
const MAX_SHARED_BYTES: usize = 48 * 1024;

/// `blocks` capped at [`MAX_GRID`]; a count beyond u32::MAX is beyond the cap too.
fn capped_grid(blocks: usize) -> u32 {
    u32::try_from(blocks).map_or(MAX_GRID, |blocks| blocks.min(MAX_GRID))
}

/// Blocks for a grid-stride loop over `n` elements, one per thread.
fn elementwise_grid(n: usize, block: u32) -> u32 {
    capped_grid(n.div_ceil(block as usize)).max(1)
}

/// The launch site of `entry` once `block` is checked: how every launch function starts.
fn site(entry: EntryPoint, block: u32) -> Result<LaunchSite> {
    let site = LaunchSite::new(COMPONENT, entry);
    check_block(site.entry().name(), block)?;
    Ok(site)
}

/// The blocks of a launch over `n` items with `items_per_thread` items per thread: a radix pass's tiles, a
/// scan's chunks, a selection pass's blocks.
pub(crate) fn item_blocks(n: usize, block: u32, items_per_thread: u32) -> usize {
    n.div_ceil(block as usize * items_per_thread as usize)
}

/// Checks the (keys, indices) outputs of a launch that writes `pairs` pairs.
fn check_pair_outputs(site: LaunchSite, keys: usize, indices: usize, pairs: usize) -> Result<()> {
    site.check_len("output keys length", keys, pairs)?;
    site.check_len("output indices length", indices, pairs)
}

/// The dynamic shared memory of `pairs` (key, u32 index) pairs with keys of type `K`, in bytes.
fn pair_shared_bytes<K>(site: LaunchSite, pairs: usize) -> Result<u32> {
    site.to_u32(
        "shared memory bytes",
        pairs * (size_of::<K>() + size_of::<u32>()),
    )
}

/// `sort_segments_bitonic_*`: sorts each segment of `segment_len` (1..=4096) fitness values; writes the local
/// indices in sorted order to `order` and the values in that order to `sorted`.
pub(crate) fn segments_bitonic<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    segment_len: usize,
    order: &mut DeviceBuffer<u32>,
    sorted: &mut DeviceBuffer<T>,
    block: u32,
) -> Result<()> {
    let site = site(T::SEGMENTS_ENTRY, block)?;
    let segments = crate::limits::check_segments(site.entry().name(), fitness.len(), segment_len)?;
    site.check_len("order length", order.len(), fitness.len())?;
    site.check_len("sorted length", sorted.len(), fitness.len())?;
    if segments == 0 {
        return Ok(());
    }
    // The network needs at least one 64-element chunk (`EVO_BITONIC_CHUNK`).
    let padded_len = segment_len.next_power_of_two().max(BITONIC_CHUNK);
    debug_assert!(padded_len <= MAX_SEGMENT_LEN);
    let shared = padded_len * (size_of::<T::Key>() + size_of::<u16>());
    let params = SortSegmentsParams {
        segments: site.to_u32("number of segments", segments)?,
        segment_len: site.to_u32("segment length", segment_len)?,
        padded_len: site.to_u32("padded segment length", padded_len)?,
    };
    let shared = site.to_u32("shared memory bytes", shared)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_segments_bitonic_*(const T*, unsigned*, T*, SortSegmentsParams)`;
    // block b touches entries of its segments only, all below segments · segment_len = the common length of
    // the three buffers; the shared memory holds padded_len keys and padded_len u16 indices as the kernel
    // lays them out, and padded_len ≤ 4096 keeps every index in a u16.
    unsafe {
        kernel
            .launch()
            .input(fitness)
            .output(order)
            .output(sorted)
            .params(&params)
            .run(LaunchConfig::linear(
                params.segments.min(MAX_GRID),
                block,
                shared,
            ))
    }
}

/// `sort_exchange_rows_u32`: `dst` row r = `src` row (segment start + `order[r]`).
pub(crate) fn exchange_rows(
    gpu: &Gpu,
    src: &DeviceBuffer<u32>,
    order: &DeviceBuffer<u32>,
    dst: &mut DeviceBuffer<u32>,
    words_per_row: usize,
    segment_len: usize,
    block: u32,
) -> Result<()> {
    let site = site(sort::EXCHANGE_ROWS_U32, block)?;
    crate::limits::check_rows(src.len(), words_per_row, order.len())?;
    site.check_len("destination length", dst.len(), src.len())?;
    let rows = order.len();
    if rows == 0 {
        return Ok(());
    }
    // Whole segments only: the rows rounded up to a multiple of segment_len (none fit when it is 0).
    site.check_len(
        "rows",
        rows,
        rows.div_ceil(segment_len.max(1)) * segment_len,
    )?;
    let params = SortExchangeParams {
        rows: site.to_u32("rows", rows)?,
        words_per_row: site.to_u32("words per row", words_per_row)?,
        segment_len: site.to_u32("segment length", segment_len)?,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_exchange_rows_u32(const unsigned*, const unsigned*, unsigned*,
    // SortExchangeParams)`; rows · words_per_row = src.len() = dst.len() and `order` has `rows` entries; the
    // kernel skips any order entry ≥ segment_len, so every source row it reads is below `rows`.
    unsafe {
        kernel
            .launch()
            .input(src)
            .input(order)
            .output(dst)
            .params(&params)
            .run(LaunchConfig::linear(params.rows.min(MAX_GRID), block, 0))
    }
}

/// `sort_ranks_from_order_u32`: `ranks[order[r]] = r`.
pub(crate) fn ranks_from_order(
    gpu: &Gpu,
    order: &DeviceBuffer<u32>,
    ranks: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let site = site(sort::RANKS_FROM_ORDER_U32, block)?;
    let n = order.len();
    site.check_len("ranks length", ranks.len(), n)?;
    let params = SortLengthParams {
        n: site.to_u32("number of entries", n)?,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_ranks_from_order_u32(const unsigned*, unsigned*, SortLengthParams)`;
    // r < n reads order[r] and the kernel writes ranks[from] only when from < n = ranks.len().
    unsafe {
        kernel
            .launch()
            .input(order)
            .output(ranks)
            .params(&params)
            .run(LaunchConfig::linear(elementwise_grid(n, block), block, 0))
    }
}

/// `sort_gather_*`: `out[r] = values[order[r]]`.
pub(crate) fn gather<T: DeviceFitness>(
    gpu: &Gpu,
    values: &DeviceBuffer<T>,
    order: &DeviceBuffer<u32>,
    out: &mut DeviceBuffer<T>,
    block: u32,
) -> Result<()> {
    let site = site(T::GATHER_ENTRY, block)?;
    let n = values.len();
    site.check_len("order length", order.len(), n)?;
    site.check_len("output length", out.len(), n)?;
    let params = SortLengthParams {
        n: site.to_u32("number of values", n)?,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_gather_*(const T*, const unsigned*, T*, SortLengthParams)`; r < n
    // indexes order and out, and the kernel reads values[from] only when from < n = values.len().
    unsafe {
        kernel
            .launch()
            .input(values)
            .input(order)
            .output(out)
            .params(&params)
            .run(LaunchConfig::linear(elementwise_grid(n, block), block, 0))
    }
}
