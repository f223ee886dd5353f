//! The launches of the selections ([`crate::cuda::argmin`], [`crate::cuda::argmax`], [`crate::cuda::top_k`]):
//! the first pair per block, then per block of pairs; the k first per tile, then per tile of pairs.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, LaunchSite, Profile};

use super::{BITONIC_CHUNK, capped_grid, check_pair_outputs, item_blocks, pair_shared_bytes, site};
use crate::cuda::fitness::{DeviceFitness, DeviceKey};
use crate::cuda::params::{SortSelectParams, SortTopkParams};
use crate::limits::COMPONENT;

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
    let site = site(T::SELECT_FIRST_ENTRY, block)?;
    let n = fitness.len();
    let blocks = item_blocks(n, block, items_per_thread);
    check_pair_outputs(site, keys_out.len(), indices_out.len(), blocks)?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: site.to_u32("number of values", n)?,
        largest: u32::from(largest),
        items_per_thread,
    };
    let shared = pair_shared_bytes::<T::Key>(site, block as usize)?;
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
    let site = site(K::SELECT_PAIRS_ENTRY, block)?;
    let n = keys_in.len();
    let blocks = item_blocks(n, block, items_per_thread);
    site.check_len("indices length", indices_in.len(), n)?;
    check_pair_outputs(site, keys_out.len(), indices_out.len(), blocks)?;
    if blocks == 0 {
        return Ok(());
    }
    let params = SortSelectParams {
        n: site.to_u32("number of pairs", n)?,
        largest: 0,
        items_per_thread,
    };
    let shared = pair_shared_bytes::<K>(site, block as usize)?;
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

/// The parameters of a top-k pass keeping `k` of each tile of `tile` of the `n` inputs (`what` names them).
fn topk_params(
    site: LaunchSite,
    what: &'static str,
    n: usize,
    k: usize,
    tile: usize,
) -> Result<SortTopkParams> {
    Ok(SortTopkParams {
        n: site.to_u32(what, n)?,
        k: site.to_u32("k", k)?,
        tile: site.to_u32("top-k tile", tile)?,
    })
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
    let site = site(T::TOPK_TILES_ENTRY, block)?;
    check_topk_shape(site, k, tile)?;
    let n = fitness.len();
    let tiles = n.div_ceil(tile);
    check_pair_outputs(site, keys_out.len(), indices_out.len(), tiles * k)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = topk_params(site, "number of values", n, k, tile)?;
    let shared = pair_shared_bytes::<T::Key>(site, tile)?;
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
    let site = site(K::TOPK_PAIRS_ENTRY, block)?;
    check_topk_shape(site, k, tile)?;
    let n = keys_in.len();
    let tiles = n.div_ceil(tile);
    site.check_len("indices length", indices_in.len(), n)?;
    check_pair_outputs(site, keys_out.len(), indices_out.len(), tiles * k)?;
    if tiles == 0 {
        return Ok(());
    }
    let params = topk_params(site, "number of pairs", n, k, tile)?;
    let shared = pair_shared_bytes::<K>(site, tile)?;
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
