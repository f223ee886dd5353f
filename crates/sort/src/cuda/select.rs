//! Selection: argmin / argmax by a block tree over (key, index) pairs, and top-k by sorting tiles.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::fitness::DeviceFitness;
use super::launch;
use crate::limits::{COMPONENT, MAX_TOP_K, check_block, check_len, check_top_k};

/// Inputs per thread of a selection pass.
const SELECT_ITEMS: u32 = 16;
/// The smallest top-k tile: small k still sorts tiles of 1024, so the rounds shrink the candidates fast.
const MIN_TOPK_TILE: usize = 1024;

fn select_into<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    largest: bool,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let routine = if largest { "argmax" } else { "argmin" };
    check_block(routine, block)?;
    check_len(routine, fitness.len())?;
    if fitness.is_empty() || out.len() != 1 {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "buffers",
            format!(
                "{} values and an output of {} (in {routine})",
                fitness.len(),
                out.len()
            ),
            "at least one value and an output of exactly one index",
        ));
    }
    let mut blocks = launch::item_blocks(fitness.len(), block, SELECT_ITEMS);
    let mut keys = gpu.alloc::<T::Key>(blocks)?;
    if blocks == 1 {
        return launch::select_first(gpu, fitness, &mut keys, out, largest, SELECT_ITEMS, block);
    }
    let mut indices = gpu.alloc::<u32>(blocks)?;
    launch::select_first(
        gpu,
        fitness,
        &mut keys,
        &mut indices,
        largest,
        SELECT_ITEMS,
        block,
    )?;
    loop {
        blocks = launch::item_blocks(blocks, block, SELECT_ITEMS);
        let mut next_keys = gpu.alloc::<T::Key>(blocks)?;
        if blocks == 1 {
            return launch::select_pairs(
                gpu,
                &keys,
                &indices,
                &mut next_keys,
                out,
                SELECT_ITEMS,
                block,
            );
        }
        let mut next_indices = gpu.alloc::<u32>(blocks)?;
        launch::select_pairs(
            gpu,
            &keys,
            &indices,
            &mut next_keys,
            &mut next_indices,
            SELECT_ITEMS,
            block,
        )?;
        keys = next_keys;
        indices = next_indices;
    }
}

/// Writes to `out` (one element) the index of the smallest value of `fitness` (at least one value), the
/// lowest index among equals; a NaN only when every value is NaN. The result stays on the device. Passes of
/// `block · 16` inputs per block until one pair is left: n·(key + 4) bytes read in the first pass.
/// Twin: [`crate::cpu::argmin`].
pub fn argmin_into<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    select_into(gpu, fitness, false, out, block)
}

/// Writes to `out` the index of the largest value under the same order (any NaN counts as largest, the
/// worst fitness of a minimisation), the lowest index among equals. Twin: [`crate::cpu::argmax`].
pub fn argmax_into<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    select_into(gpu, fitness, true, out, block)
}

fn select_to_host<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    largest: bool,
    block: u32,
) -> Result<Option<usize>> {
    if fitness.is_empty() {
        return Ok(None);
    }
    let mut out = gpu.alloc::<u32>(1)?;
    select_into(gpu, fitness, largest, &mut out, block)?;
    let mut index = [0u32];
    out.copy_to_host(&mut index)?;
    Ok(Some(index[0] as usize))
}

/// [`argmin_into`], copied to the host; `None` for an empty buffer.
pub fn argmin<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    block: u32,
) -> Result<Option<usize>> {
    select_to_host(gpu, fitness, false, block)
}

/// [`argmax_into`], copied to the host; `None` for an empty buffer.
pub fn argmax<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    block: u32,
) -> Result<Option<usize>> {
    select_to_host(gpu, fitness, true, block)
}

/// Writes to `out` (k elements, 1 ≤ k ≤ min(n, 1024)) the indices of the k first entries of `fitness` in
/// sorted order, best first. Each round sorts tiles of t = max(1024, 2k) pairs (a power of two) with the
/// bitonic network and keeps the k first of each tile; the k first of the whole set survive every round, and
/// the candidates shrink by t / k per round, until one tile is left. Twin: [`crate::cpu::top_k`].
pub fn top_k<T: DeviceFitness>(
    gpu: &Gpu,
    fitness: &DeviceBuffer<T>,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let k = out.len();
    check_block("top_k", block)?;
    check_top_k(fitness.len(), k)?;
    let tile = (2 * k).next_power_of_two().max(MIN_TOPK_TILE);
    debug_assert!(tile <= 2 * MAX_TOP_K);
    let mut candidates = fitness.len().div_ceil(tile) * k;
    let mut keys = gpu.alloc::<T::Key>(candidates)?;
    if candidates == k {
        return launch::topk_tiles(gpu, fitness, &mut keys, out, k, tile, block);
    }
    let mut indices = gpu.alloc::<u32>(candidates)?;
    launch::topk_tiles(gpu, fitness, &mut keys, &mut indices, k, tile, block)?;
    loop {
        candidates = candidates.div_ceil(tile) * k;
        let mut next_keys = gpu.alloc::<T::Key>(candidates)?;
        if candidates == k {
            return launch::topk_pairs(gpu, &keys, &indices, &mut next_keys, out, k, tile, block);
        }
        let mut next_indices = gpu.alloc::<u32>(candidates)?;
        launch::topk_pairs(
            gpu,
            &keys,
            &indices,
            &mut next_keys,
            &mut next_indices,
            k,
            tile,
            block,
        )?;
        keys = next_keys;
        indices = next_indices;
    }
}
