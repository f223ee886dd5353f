//! The device memory of a split run, per slice and per GPU, computed before anything is allocated
//! from the layout of the slice buffers (`slice.rs`); pure host arithmetic.

use evo_ma_sw_chains::MaParams;
use evo_ma_sw_chains::cuda::slice::tiles_of;
use evo_ma_sw_chains::memory::{HEADROOM_BYTES, default_lookahead, sw_rows};

use super::layout::{Slice, SliceLayout};

/// The rows of one evaluation of a slice at most: the population (initialisation, restart), the children,
/// the Solis–Wets probe rows; and the pairs of one distance launch.
pub(crate) fn work_rows(params: &MaParams, lookahead: u32) -> usize {
    let n = params.population();
    let k = params.children_per_step();
    let pairs = (k * params.nam_candidates()).max(n - 1);
    n.max(k).max(sw_rows(lookahead)).max(pairs)
}

/// The Solis–Wets look-ahead of a split run of `dimension` variables: that of [`evo_ma_sw_chains::MaCuda`]
/// at the same `D`, the same for every slice (the slices decide the same groups in lockstep).
pub fn split_lookahead(dimension: usize) -> u32 {
    default_lookahead(dimension)
}

/// Bytes of one slice of `layout` (its GPU's share of the run, without the per-GPU headroom), for any
/// problem the split takes:
///
/// | buffer | values |
/// | --- | --- |
/// | population, chain biases (f32) | 2·N·w |
/// | children area (f32) | K·w |
/// | LS point, LS bias, bounds, shift (f32) | 5·w |
/// | Solis–Wets probe rows (f32) | 8·w (D ≤ 500 000) or 2·w |
/// | tile nodes (f64) | 4·R·⌈len/1024⌉ |
/// | block nodes (f64) | 4·R·blocks |
///
/// with `w = len + 1` for every slice but the last (the halo column of a term of two neighbours, counted for
/// every problem), `R` the most rows or pairs of one evaluation (`max(N, K, probe rows, K·n_ass, N − 1)`: 60
/// by default), nodes of four values (the segment summaries of Ridge and Schwefel 1.2; one value for the
/// other trees) and block nodes for four values per block (one tree of summaries; two trees of one value for
/// Ackley and Griewank, one for the others); each large buffer may be rounded up by the buffer pool's size
/// classes (at most 1/8), which is included.
pub fn slice_bytes(params: &MaParams, layout: &SliceLayout, slice: &Slice) -> u64 {
    let len = slice.len as u64;
    let w = if slice.first + slice.len < layout.dimension() {
        len + 1
    } else {
        len
    };
    let n = params.population() as u64;
    let k = params.children_per_step() as u64;
    let lookahead = split_lookahead(layout.dimension());
    let rows = work_rows(params, lookahead) as u64;
    let rounded = |bytes: u64| bytes + bytes / 8;
    let probes = sw_rows(lookahead) as u64 * w;
    let vectors = [n * w, n * w, k * w, w, w, w, w, w, probes]
        .iter()
        .map(|&values| rounded(4 * values))
        .sum::<u64>();
    let partials = rounded(4 * 8 * rows * tiles_of(len));
    let sums = rounded(4 * 8 * rows * layout.blocks_of(slice) as u64);
    vectors + partials + sums
}

/// Bytes each GPU of `layout` needs: the sum of its slices plus one [`HEADROOM_BYTES`] (its context and
/// modules), as `(gpu, bytes)` in [`SliceLayout::gpus`] order.
pub fn gpu_bytes(params: &MaParams, layout: &SliceLayout) -> Vec<(usize, u64)> {
    layout
        .gpus()
        .into_iter()
        .map(|gpu| {
            let slices = layout
                .slices()
                .iter()
                .filter(|s| s.gpu == gpu)
                .map(|s| slice_bytes(params, layout, s))
                .sum::<u64>();
            (gpu, slices + HEADROOM_BYTES)
        })
        .collect()
}
