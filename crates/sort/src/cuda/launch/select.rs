//! The launches of the selections ([`crate::cuda::argmin`], [`crate::cuda::argmax`], [`crate::cuda::top_k`]):
//! the first pair per block, then per block of pairs; the k first per tile, then per tile of pairs.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, LaunchSite, Profile};

use super::{BITONIC_CHUNK, capped_grid};
use crate::cuda::fitness::{DeviceFitness, DeviceKey};
use crate::cuda::params::{SortSelectParams, SortTopkParams};
use crate::limits::{COMPONENT, check_block};

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
    let site = LaunchSite::new(COMPONENT, T::SELECT_FIRST_ENTRY);
    check_block(site.entry().name(), block)?;
    let n = fitness.len();
    let blocks = select_blocks(n, block, items_per_thread);
    site.check_len("output keys length", keys_out.len(), blocks)?;
    site.check_len("output indices length", indices_out.len(), blocks)?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: site.to_u32("number of values", n)?,
        largest: u32::from(largest),
        items_per_thread,
    };
    let shared = site.to_u32(
        "shared memory bytes",
        block as usize * (size_of::<T::Key>() + size_of::<u32>()),
    )?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
                site.to_u32("blocks", blocks)?,
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
    let site = LaunchSite::new(COMPONENT, K::SELECT_PAIRS_ENTRY);
    check_block(site.entry().name(), block)?;
    let n = keys_in.len();
    let blocks = select_blocks(n, block, items_per_thread);
    site.check_len("indices length", indices_in.len(), n)?;
    site.check_len("output keys length", keys_out.len(), blocks)?;
    site.check_len("output indices length", indices_out.len(), blocks)?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: site.to_u32("number of pairs", n)?,
        largest: 0,
        items_per_thread,
    };
    let shared = site.to_u32(
        "shared memory bytes",
        block as usize * (size_of::<K>() + size_of::<u32>()),
    )?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
                site.to_u32("blocks", blocks)?,
                block,
                shared,
            ))
    }
}

/// Checks a top-k tile: a power of two, at least 2k, at most 2048 (24 KiB of shared memory for u64 keys).
fn check_topk_shape(site: LaunchSite, k: usize, tile: usize) -> Result<()> {
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
            format!("{tile} for k = {k} (in {})", site.entry()),
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
    let site = LaunchSite::new(COMPONENT, T::TOPK_TILES_ENTRY);
    check_block(site.entry().name(), block)?;
    check_topk_shape(site, k, tile)?;
    let n = fitness.len();
    let tiles = n.div_ceil(tile);
    site.check_len("output keys length", keys_out.len(), tiles * k)?;
    site.check_len("output indices length", indices_out.len(), tiles * k)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortTopkParams {
        n: site.to_u32("number of values", n)?,
        k: site.to_u32("k", k)?,
        tile: site.to_u32("top-k tile", tile)?,
    };
    let shared = site.to_u32(
        "shared memory bytes",
        tile * (size_of::<T::Key>() + size_of::<u32>()),
    )?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
    let site = LaunchSite::new(COMPONENT, K::TOPK_PAIRS_ENTRY);
    check_block(site.entry().name(), block)?;
    check_topk_shape(site, k, tile)?;
    let n = keys_in.len();
    let tiles = n.div_ceil(tile);
    site.check_len("indices length", indices_in.len(), n)?;
    site.check_len("output keys length", keys_out.len(), tiles * k)?;
    site.check_len("output indices length", indices_out.len(), tiles * k)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = SortTopkParams {
        n: site.to_u32("number of pairs", n)?,
        k: site.to_u32("k", k)?,
        tile: site.to_u32("top-k tile", tile)?,
    };
    let shared = site.to_u32(
        "shared memory bytes",
        tile * (size_of::<K>() + size_of::<u32>()),
    )?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
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
