//! Typed launch functions, one per kernel of `kernels/cuda/sort.cu` (parameter structs in `params.rs`).
//! Each function checks its buffers and derives the launch shape from their lengths; the
//! routines of [`crate::cuda`] compose them.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, Profile};
use evo_kernels::ModuleId;

use super::fitness::{DeviceFitness, DeviceKey};
use super::params::{
    SortExchangeParams, SortLengthParams, SortRadixParams, SortScanParams, SortSegmentsParams,
    SortSelectParams, SortTopkParams,
};
use crate::limits::{COMPONENT, MAX_SEGMENT_LEN, check_block};

/// The largest grid the launchers ask for; the kernels loop over further segments, rows or tiles.
const MAX_GRID: u32 = 1 << 20;

/// The bitonic network's smallest length: one chunk of 64 pairs, sorted in registers by one warp.
const BITONIC_CHUNK: usize = 64;

/// Dynamic shared memory a block may use without opting in.
const MAX_SHARED_BYTES: usize = 48 * 1024;

/// Radix digits per pass: 8 bits, 256 bins (`EVO_RADIX_BINS`).
pub(crate) const RADIX_BINS: usize = 256;

fn length_mismatch(kernel: &'static str, what: &'static str, got: usize, want: usize) -> Error {
    Error::invalid_parameter(
        COMPONENT,
        what,
        format!("{got} (in {kernel})"),
        format!("{want}"),
    )
}

fn check_len_eq(kernel: &'static str, what: &'static str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(length_mismatch(kernel, what, got, want))
    }
}

fn as_u32(kernel: &'static str, what: &'static str, value: usize) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            COMPONENT,
            what,
            format!("{value} (in {kernel})"),
            format!("at most {}", u32::MAX),
        )
    })
}

/// `blocks` capped at [`MAX_GRID`]; a count beyond u32::MAX is beyond the cap too.
fn capped_grid(blocks: usize) -> u32 {
    u32::try_from(blocks).map_or(MAX_GRID, |blocks| blocks.min(MAX_GRID))
}

/// Blocks for a grid-stride loop over `n` elements, one per thread.
fn elementwise_grid(n: usize, block: u32) -> u32 {
    capped_grid(n.div_ceil(block as usize)).max(1)
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
    check_block(T::SEGMENTS, block)?;
    let segments = crate::limits::check_segments(T::SEGMENTS, fitness.len(), segment_len)?;
    check_len_eq(T::SEGMENTS, "order length", order.len(), fitness.len())?;
    check_len_eq(T::SEGMENTS, "sorted length", sorted.len(), fitness.len())?;
    if segments == 0 {
        return Ok(());
    }
    // The network needs at least one 64-element chunk (`EVO_BITONIC_CHUNK`).
    let padded_len = segment_len.next_power_of_two().max(BITONIC_CHUNK);
    debug_assert!(padded_len <= MAX_SEGMENT_LEN);
    let shared = padded_len * (size_of::<T::Key>() + size_of::<u16>());
    let params = SortSegmentsParams {
        segments: as_u32(T::SEGMENTS, "number of segments", segments)?,
        segment_len: as_u32(T::SEGMENTS, "segment length", segment_len)?,
        padded_len: as_u32(T::SEGMENTS, "padded segment length", padded_len)?,
    };
    let shared = as_u32(T::SEGMENTS, "shared memory bytes", shared)?;
    let kernel = gpu.kernel(ModuleId::Sort, T::SEGMENTS, Profile::Exact)?;
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
    const KERNEL: &str = "sort_exchange_rows_u32";
    check_block(KERNEL, block)?;
    crate::limits::check_rows(src.len(), words_per_row, order.len())?;
    check_len_eq(KERNEL, "destination length", dst.len(), src.len())?;
    let rows = order.len();
    if rows == 0 {
        return Ok(());
    }
    if segment_len == 0 || !rows.is_multiple_of(segment_len) {
        return Err(length_mismatch(
            KERNEL,
            "rows",
            rows,
            rows.div_ceil(segment_len.max(1)) * segment_len,
        ));
    }
    let params = SortExchangeParams {
        rows: as_u32(KERNEL, "rows", rows)?,
        words_per_row: as_u32(KERNEL, "words per row", words_per_row)?,
        segment_len: as_u32(KERNEL, "segment length", segment_len)?,
    };
    let kernel = gpu.kernel(ModuleId::Sort, KERNEL, Profile::Exact)?;
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

/// `sort_radix_prepare_*`: `keys[i]` = order key of `fitness[i]`, `indices[i] = i`.
pub(crate) fn radix_prepare<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    keys: &mut DeviceBuffer<T::Key>,
    indices: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    check_block(T::PREPARE, block)?;
    let n = fitness.len();
    check_len_eq(T::PREPARE, "keys length", keys.len(), n)?;
    check_len_eq(T::PREPARE, "indices length", indices.len(), n)?;
    let params = SortLengthParams {
        n: as_u32(T::PREPARE, "number of keys", n)?,
    };
    let kernel = gpu.kernel(ModuleId::Sort, T::PREPARE, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_radix_prepare_*(const T*, K*, unsigned*, SortLengthParams)`; the
    // grid-stride loop touches indices below n, the common length of the three buffers.
    unsafe {
        kernel
            .launch()
            .input(fitness)
            .output(keys)
            .output(indices)
            .params(&params)
            .run(LaunchConfig::linear(elementwise_grid(n, block), block, 0))
    }
}

/// The tiles of a radix pass over `n` pairs with `items_per_thread` pairs per thread.
pub(crate) fn radix_tiles(n: usize, block: u32, items_per_thread: u32) -> usize {
    n.div_ceil(block as usize * items_per_thread as usize)
}

/// `sort_radix_histogram_*`: `counts[d · tiles + t]` = number of keys of tile t whose digit at `shift` is d.
pub(crate) fn radix_histogram<K: DeviceKey>(
    gpu: &Gpu,
    keys: &DeviceBuffer<K>,
    counts: &mut DeviceBuffer<u32>,
    shift: u32,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    check_block(K::HISTOGRAM, block)?;
    let n = keys.len();
    let tiles = radix_tiles(n, block, items_per_thread);
    check_len_eq(
        K::HISTOGRAM,
        "counts length",
        counts.len(),
        RADIX_BINS * tiles,
    )?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortRadixParams {
        n: as_u32(K::HISTOGRAM, "number of keys", n)?,
        shift,
        tiles: as_u32(K::HISTOGRAM, "tiles", tiles)?,
        items_per_thread,
    };
    let kernel = gpu.kernel(ModuleId::Sort, K::HISTOGRAM, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_radix_histogram_*(const K*, unsigned*, SortRadixParams)`; keys are
    // read below n and counts written below 256 · tiles = counts.len(); the bins are static shared memory.
    unsafe {
        kernel
            .launch()
            .input(keys)
            .output(counts)
            .params(&params)
            .run(LaunchConfig::linear(capped_grid(tiles), block, 0))
    }
}

/// `sort_radix_scatter_*`: moves each pair to `offsets[digit · tiles + tile]` plus its rank among the pairs of
/// its tile with the same digit, keeping input order (a stable pass).
#[allow(clippy::too_many_arguments)]
pub(crate) fn radix_scatter<K: DeviceKey>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    indices_in: &DeviceBuffer<u32>,
    offsets: &DeviceBuffer<u32>,
    keys_out: &mut DeviceBuffer<K>,
    indices_out: &mut DeviceBuffer<u32>,
    shift: u32,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    check_block(K::SCATTER, block)?;
    let n = keys_in.len();
    let tiles = radix_tiles(n, block, items_per_thread);
    check_len_eq(K::SCATTER, "indices length", indices_in.len(), n)?;
    check_len_eq(K::SCATTER, "output keys length", keys_out.len(), n)?;
    check_len_eq(K::SCATTER, "output indices length", indices_out.len(), n)?;
    check_len_eq(
        K::SCATTER,
        "offsets length",
        offsets.len(),
        RADIX_BINS * tiles,
    )?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortRadixParams {
        n: as_u32(K::SCATTER, "number of keys", n)?,
        shift,
        tiles: as_u32(K::SCATTER, "tiles", tiles)?,
        items_per_thread,
    };
    let warps = block as usize / 32;
    let tile = block as usize * items_per_thread as usize;
    let shared = tile * (size_of::<K>() + size_of::<u32>())
        + (3 * RADIX_BINS + RADIX_BINS * warps) * size_of::<u32>();
    if shared > MAX_SHARED_BYTES {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "radix tile",
            format!("{tile} pairs at block {block} (in {})", K::SCATTER),
            format!(
                "a tile whose scatter needs at most {MAX_SHARED_BYTES} bytes of shared memory, not {shared}"
            ),
        ));
    }
    let shared = as_u32(K::SCATTER, "shared memory bytes", shared)?;
    let kernel = gpu.kernel(ModuleId::Sort, K::SCATTER, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_radix_scatter_*(const K*, const unsigned*, const unsigned*, K*,
    // unsigned*, SortRadixParams)`. Inputs are read below n; offsets below 256 · tiles. `offsets` is the
    // exclusive scan of the histogram of these very keys at this shift, so the positions written form a
    // permutation of 0..n. The shared memory holds the tile's keys and indices and 3 · 256 + 256 · warps u32,
    // as the kernel lays them out.
    unsafe {
        kernel
            .launch()
            .input(keys_in)
            .input(indices_in)
            .input(offsets)
            .output(keys_out)
            .output(indices_out)
            .params(&params)
            .run(LaunchConfig::linear(capped_grid(tiles), block, shared))
    }
}

/// Counts per block of the scan kernels.
pub(crate) fn scan_chunks(n: usize, block: u32, items_per_thread: u32) -> usize {
    n.div_ceil(block as usize * items_per_thread as usize)
}

/// `sort_scan_exclusive_u32`: exclusive scan of each chunk of `counts` into `scanned`; chunk totals into
/// `chunk_sums`.
pub(crate) fn scan_exclusive(
    gpu: &Gpu,
    counts: &DeviceBuffer<u32>,
    scanned: &mut DeviceBuffer<u32>,
    chunk_sums: &mut DeviceBuffer<u32>,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "sort_scan_exclusive_u32";
    check_block(KERNEL, block)?;
    let n = counts.len();
    let chunks = scan_chunks(n, block, items_per_thread);
    check_len_eq(KERNEL, "scanned length", scanned.len(), n)?;
    check_len_eq(KERNEL, "chunk sums length", chunk_sums.len(), chunks)?;
    if chunks == 0 {
        return Ok(());
    }
    let params = SortScanParams {
        n: as_u32(KERNEL, "number of counts", n)?,
        items_per_thread,
    };
    let kernel = gpu.kernel(ModuleId::Sort, KERNEL, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_scan_exclusive_u32(const unsigned*, unsigned*, unsigned*,
    // SortScanParams)`; one block per chunk, so block b writes chunk_sums[b] with b < chunks =
    // chunk_sums.len(), and reads and writes counts below n only.
    unsafe {
        kernel
            .launch()
            .input(counts)
            .output(scanned)
            .output(chunk_sums)
            .params(&params)
            .run(LaunchConfig::linear(
                as_u32(KERNEL, "chunks", chunks)?,
                block,
                0,
            ))
    }
}

/// `sort_scan_add_u32`: adds `chunk_offsets[c]` to every element of chunk c of `scanned`.
pub(crate) fn scan_add(
    gpu: &Gpu,
    scanned: &mut DeviceBuffer<u32>,
    chunk_offsets: &DeviceBuffer<u32>,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "sort_scan_add_u32";
    check_block(KERNEL, block)?;
    let n = scanned.len();
    let chunks = scan_chunks(n, block, items_per_thread);
    check_len_eq(KERNEL, "chunk offsets length", chunk_offsets.len(), chunks)?;
    if chunks == 0 {
        return Ok(());
    }
    let params = SortScanParams {
        n: as_u32(KERNEL, "number of counts", n)?,
        items_per_thread,
    };
    let kernel = gpu.kernel(ModuleId::Sort, KERNEL, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_scan_add_u32(unsigned*, const unsigned*, SortScanParams)`; one block
    // per chunk reads chunk_offsets[b], b < chunks = chunk_offsets.len(), and touches elements below n.
    unsafe {
        kernel
            .launch()
            .output(scanned)
            .input(chunk_offsets)
            .params(&params)
            .run(LaunchConfig::linear(
                as_u32(KERNEL, "chunks", chunks)?,
                block,
                0,
            ))
    }
}

/// `sort_ranks_from_order_u32`: `ranks[order[r]] = r`.
pub(crate) fn ranks_from_order(
    gpu: &Gpu,
    order: &DeviceBuffer<u32>,
    ranks: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    const KERNEL: &str = "sort_ranks_from_order_u32";
    check_block(KERNEL, block)?;
    let n = order.len();
    check_len_eq(KERNEL, "ranks length", ranks.len(), n)?;
    let params = SortLengthParams {
        n: as_u32(KERNEL, "number of entries", n)?,
    };
    let kernel = gpu.kernel(ModuleId::Sort, KERNEL, Profile::Exact)?;
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
    check_block(T::GATHER, block)?;
    let n = values.len();
    check_len_eq(T::GATHER, "order length", order.len(), n)?;
    check_len_eq(T::GATHER, "output length", out.len(), n)?;
    let params = SortLengthParams {
        n: as_u32(T::GATHER, "number of values", n)?,
    };
    let kernel = gpu.kernel(ModuleId::Sort, T::GATHER, Profile::Exact)?;
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

/// Blocks of a selection pass over `n` inputs.
pub(crate) fn select_blocks(n: usize, block: u32, items_per_thread: u32) -> usize {
    n.div_ceil(block as usize * items_per_thread as usize)
}

/// `sort_select_first_*`: per block, the first (key, index) pair of its inputs (keys complemented when
/// `largest`).
pub(crate) fn select_first<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    keys_out: &mut DeviceBuffer<T::Key>,
    indices_out: &mut DeviceBuffer<u32>,
    largest: bool,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    check_block(T::SELECT_FIRST, block)?;
    let n = fitness.len();
    let blocks = select_blocks(n, block, items_per_thread);
    check_len_eq(
        T::SELECT_FIRST,
        "output keys length",
        keys_out.len(),
        blocks,
    )?;
    check_len_eq(
        T::SELECT_FIRST,
        "output indices length",
        indices_out.len(),
        blocks,
    )?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: as_u32(T::SELECT_FIRST, "number of values", n)?,
        largest: u32::from(largest),
        items_per_thread,
    };
    let shared = as_u32(
        T::SELECT_FIRST,
        "shared memory bytes",
        block as usize * (size_of::<T::Key>() + size_of::<u32>()),
    )?;
    let kernel = gpu.kernel(ModuleId::Sort, T::SELECT_FIRST, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_select_first_*(const T*, K*, unsigned*, SortSelectParams)`; block b
    // reads inputs below n and writes slot b < blocks of both outputs; the shared memory holds `block` keys
    // and `block` u32 indices as the kernel lays them out.
    unsafe {
        kernel
            .launch()
            .input(fitness)
            .output(keys_out)
            .output(indices_out)
            .params(&params)
            .run(LaunchConfig::linear(
                as_u32(T::SELECT_FIRST, "blocks", blocks)?,
                block,
                shared,
            ))
    }
}

/// `sort_select_pairs_*`: per block, the first pair of its input pairs.
pub(crate) fn select_pairs<K: DeviceKey>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    indices_in: &DeviceBuffer<u32>,
    keys_out: &mut DeviceBuffer<K>,
    indices_out: &mut DeviceBuffer<u32>,
    items_per_thread: u32,
    block: u32,
) -> Result<()> {
    check_block(K::SELECT_PAIRS, block)?;
    let n = keys_in.len();
    let blocks = select_blocks(n, block, items_per_thread);
    check_len_eq(K::SELECT_PAIRS, "indices length", indices_in.len(), n)?;
    check_len_eq(
        K::SELECT_PAIRS,
        "output keys length",
        keys_out.len(),
        blocks,
    )?;
    check_len_eq(
        K::SELECT_PAIRS,
        "output indices length",
        indices_out.len(),
        blocks,
    )?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: as_u32(K::SELECT_PAIRS, "number of pairs", n)?,
        largest: 0,
        items_per_thread,
    };
    let shared = as_u32(
        K::SELECT_PAIRS,
        "shared memory bytes",
        block as usize * (size_of::<K>() + size_of::<u32>()),
    )?;
    let kernel = gpu.kernel(ModuleId::Sort, K::SELECT_PAIRS, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_select_pairs_*(const K*, const unsigned*, K*, unsigned*,
    // SortSelectParams)`; block b reads pairs below n and writes slot b < blocks of both outputs; the shared
    // memory holds `block` keys and `block` u32 indices.
    unsafe {
        kernel
            .launch()
            .input(keys_in)
            .input(indices_in)
            .output(keys_out)
            .output(indices_out)
            .params(&params)
            .run(LaunchConfig::linear(
                as_u32(K::SELECT_PAIRS, "blocks", blocks)?,
                block,
                shared,
            ))
    }
}

/// Checks a top-k tile: a power of two, at least 2k, at most 2048 (24 KiB of shared memory for u64 keys).
fn check_topk_shape(kernel: &'static str, k: usize, tile: usize) -> Result<()> {
    if tile.is_power_of_two()
        && tile >= (2 * k).max(BITONIC_CHUNK)
        && tile <= 2 * crate::limits::MAX_TOP_K
        && k >= 1
    {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            "top-k tile",
            format!("{tile} for k = {k} (in {kernel})"),
            "a power of two in max(2k, 64)..=2048, with k ≥ 1",
        ))
    }
}

/// `sort_topk_tiles_*`: per tile of `tile` fitness values, its `k` first (key, index) pairs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn topk_tiles<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    keys_out: &mut DeviceBuffer<T::Key>,
    indices_out: &mut DeviceBuffer<u32>,
    k: usize,
    tile: usize,
    block: u32,
) -> Result<()> {
    check_block(T::TOPK_TILES, block)?;
    check_topk_shape(T::TOPK_TILES, k, tile)?;
    let n = fitness.len();
    let tiles = n.div_ceil(tile);
    check_len_eq(
        T::TOPK_TILES,
        "output keys length",
        keys_out.len(),
        tiles * k,
    )?;
    check_len_eq(
        T::TOPK_TILES,
        "output indices length",
        indices_out.len(),
        tiles * k,
    )?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortTopkParams {
        n: as_u32(T::TOPK_TILES, "number of values", n)?,
        k: as_u32(T::TOPK_TILES, "k", k)?,
        tile: as_u32(T::TOPK_TILES, "top-k tile", tile)?,
    };
    let shared = as_u32(
        T::TOPK_TILES,
        "shared memory bytes",
        tile * (size_of::<T::Key>() + size_of::<u32>()),
    )?;
    let kernel = gpu.kernel(ModuleId::Sort, T::TOPK_TILES, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_topk_tiles_*(const T*, K*, unsigned*, SortTopkParams)`; tile t reads
    // values below n and writes pairs t·k..(t+1)·k, below tiles · k = the outputs' length; the shared memory
    // holds `tile` keys and `tile` u32 indices.
    unsafe {
        kernel
            .launch()
            .input(fitness)
            .output(keys_out)
            .output(indices_out)
            .params(&params)
            .run(LaunchConfig::linear(capped_grid(tiles), block, shared))
    }
}

/// `sort_topk_pairs_*`: per tile of `tile` pairs, its `k` first pairs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn topk_pairs<K: DeviceKey>(
    gpu: &Gpu,
    keys_in: &DeviceBuffer<K>,
    indices_in: &DeviceBuffer<u32>,
    keys_out: &mut DeviceBuffer<K>,
    indices_out: &mut DeviceBuffer<u32>,
    k: usize,
    tile: usize,
    block: u32,
) -> Result<()> {
    check_block(K::TOPK_PAIRS, block)?;
    check_topk_shape(K::TOPK_PAIRS, k, tile)?;
    let n = keys_in.len();
    let tiles = n.div_ceil(tile);
    check_len_eq(K::TOPK_PAIRS, "indices length", indices_in.len(), n)?;
    check_len_eq(
        K::TOPK_PAIRS,
        "output keys length",
        keys_out.len(),
        tiles * k,
    )?;
    check_len_eq(
        K::TOPK_PAIRS,
        "output indices length",
        indices_out.len(),
        tiles * k,
    )?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortTopkParams {
        n: as_u32(K::TOPK_PAIRS, "number of pairs", n)?,
        k: as_u32(K::TOPK_PAIRS, "k", k)?,
        tile: as_u32(K::TOPK_PAIRS, "top-k tile", tile)?,
    };
    let shared = as_u32(
        K::TOPK_PAIRS,
        "shared memory bytes",
        tile * (size_of::<K>() + size_of::<u32>()),
    )?;
    let kernel = gpu.kernel(ModuleId::Sort, K::TOPK_PAIRS, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_topk_pairs_*(const K*, const unsigned*, K*, unsigned*,
    // SortTopkParams)`; tile t reads pairs below n and writes pairs t·k..(t+1)·k, below tiles · k = the
    // outputs' length; the shared memory holds `tile` keys and `tile` u32 indices.
    unsafe {
        kernel
            .launch()
            .input(keys_in)
            .input(indices_in)
            .output(keys_out)
            .output(indices_out)
            .params(&params)
            .run(LaunchConfig::linear(capped_grid(tiles), block, shared))
    }
}
