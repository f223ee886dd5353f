//! The launches of the radix sort ([`crate::cuda::argsort`]): key preparation, the per-tile digit histogram,
//! the stable scatter, and the two-level exclusive scan of the histogram.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::sort;

use super::{
    MAX_SHARED_BYTES, capped_grid, check_pair_outputs, elementwise_grid, item_blocks, site,
};
use crate::cuda::fitness::{DeviceFitness, DeviceKey};
use crate::cuda::params::{SortLengthParams, SortRadixParams, SortScanParams};
use crate::limits::COMPONENT;

/// Radix digits per pass: 8 bits, 256 bins (`EVO_RADIX_BINS`).
pub(crate) const RADIX_BINS: usize = 256;

/// `sort_radix_prepare_*`: `keys[i]` = order key of `fitness[i]`, `indices[i] = i`.
pub(crate) fn radix_prepare<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    keys: &mut DeviceBuffer<T::Key>,
    indices: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let site = site(T::PREPARE_ENTRY, block)?;
    let n = fitness.len();
    site.check_len("keys length", keys.len(), n)?;
    site.check_len("indices length", indices.len(), n)?;
    let params = SortLengthParams {
        n: site.to_u32("number of keys", n)?,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
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

/// The parameters of a radix pass over `n` keys in `tiles` tiles, at digit `shift`.
fn radix_params(
    site: LaunchSite,
    n: usize,
    shift: u32,
    tiles: usize,
    items_per_thread: u32,
) -> Result<SortRadixParams> {
    Ok(SortRadixParams {
        n: site.to_u32("number of keys", n)?,
        shift,
        tiles: site.to_u32("tiles", tiles)?,
        items_per_thread,
    })
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
    let site = site(K::HISTOGRAM_ENTRY, block)?;
    let n = keys.len();
    let tiles = item_blocks(n, block, items_per_thread);
    site.check_len("counts length", counts.len(), RADIX_BINS * tiles)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = radix_params(site, n, shift, tiles, items_per_thread)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
    let site = site(K::SCATTER_ENTRY, block)?;
    let n = keys_in.len();
    let tiles = item_blocks(n, block, items_per_thread);
    site.check_len("indices length", indices_in.len(), n)?;
    check_pair_outputs(site, keys_out.len(), indices_out.len(), n)?;
    site.check_len("offsets length", offsets.len(), RADIX_BINS * tiles)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = radix_params(site, n, shift, tiles, items_per_thread)?;
    let warps = block as usize / 32;
    let tile = block as usize * items_per_thread as usize;
    let shared = tile * (size_of::<K>() + size_of::<u32>())
        + (3 * RADIX_BINS + RADIX_BINS * warps) * size_of::<u32>();
    if shared > MAX_SHARED_BYTES {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "radix tile",
            format!("{tile} pairs at block {block} (in {})", site.entry()),
            format!(
                "a tile whose scatter needs at most {MAX_SHARED_BYTES} bytes of shared memory, not {shared}"
            ),
        ));
    }
    let shared = site.to_u32("shared memory bytes", shared)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
    let site = site(sort::SCAN_EXCLUSIVE_U32, block)?;
    let n = counts.len();
    let chunks = item_blocks(n, block, items_per_thread);
    site.check_len("scanned length", scanned.len(), n)?;
    site.check_len("chunk sums length", chunk_sums.len(), chunks)?;
    if chunks == 0 {
        return Ok(());
    }
    let params = SortScanParams {
        n: site.to_u32("number of counts", n)?,
        items_per_thread,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
                site.to_u32("chunks", chunks)?,
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
    let site = site(sort::SCAN_ADD_U32, block)?;
    let n = scanned.len();
    let chunks = item_blocks(n, block, items_per_thread);
    site.check_len("chunk offsets length", chunk_offsets.len(), chunks)?;
    if chunks == 0 {
        return Ok(());
    }
    let params = SortScanParams {
        n: site.to_u32("number of counts", n)?,
        items_per_thread,
    };
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `sort_scan_add_u32(unsigned*, const unsigned*, SortScanParams)`; one block
    // per chunk reads chunk_offsets[b], b < chunks = chunk_offsets.len(), and touches elements below n.
    unsafe {
        kernel
            .launch()
            .output(scanned)
            .input(chunk_offsets)
            .params(&params)
            .run(LaunchConfig::linear(
                site.to_u32("chunks", chunks)?,
                block,
                0,
            ))
    }
}
