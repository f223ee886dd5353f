//! The fixed-shape reductions the problems use besides the canonical sum of [`evo_core::reduce`]: the
//! pairwise product (Griewank) and the canonical prefix sum (Ridge, Schwefel 1.2).
//!
//! Both have a shape that depends only on the number of terms, so the CUDA twins in
//! `kernels/common/problems/tree.cuh` compute the same bits whatever the launch configuration.
//!
//! # Pairwise product
//!
//! The tree of [`evo_core::reduce`] with `*` for `+` and `1.0` for the padding leaves.
//!
//! # Canonical prefix sum
//!
//! The inclusive prefix sums `S_i = z_0 + … + z_i` in this association, with `T` = [`SCAN_TILE`]:
//!
//! ```text
//! n <= T:  Hillis-Steele over one tile padded with +0.0:
//!          v⁰ = z,  v^{s+1}_j = v^s_{j-2^s} + v^s_j  (j >= 2^s),  v^{s+1}_j = v^s_j  (j < 2^s),
//!          S = v^{log2 T}
//! n > T:   tiles t of T terms; q = the one-tile scan of each tile; τ_t = q_{T-1} of tile t;
//!          C = scan(τ) (recursively, by this same definition);
//!          S_{tT+j} = q_j for t = 0,  C_{t-1} + q_j for t > 0
//! ```
//!
//! `v^s_j` with `j + 1` a multiple of `2^s` is the aligned subtree of the canonical tree, so each tile total
//! `τ_t` equals the tile's canonical pairwise sum: a GPU pass that only needs the tile totals computes them
//! with the block reduction.

use rayon::prelude::*;

/// Terms per tile of the canonical prefix sum; a power of two, part of the definition (not a tuning knob).
pub const SCAN_TILE: usize = 1024;

/// Leaves of the product tree reduced by one sequential task before going parallel (a power of two).
const PRODUCT_CHUNK: usize = 1 << 14;

/// The pairwise product of `factor(0..n)`: the canonical tree with `*` and padding `1.0`.
/// Twin: `evo_block_pairwise_product_f64` (CUDA).
pub fn pairwise_product_by<F>(n: usize, factor: F) -> f64
where
    F: Fn(usize) -> f64 + Sync,
{
    if n <= PRODUCT_CHUNK {
        return product_subtree(
            n.next_power_of_two(),
            |i| if i < n { factor(i) } else { 1.0 },
        );
    }
    let chunks = n.div_ceil(PRODUCT_CHUNK);
    let chunk_products: Vec<f64> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let base = c * PRODUCT_CHUNK;
            product_subtree(PRODUCT_CHUNK, |i| {
                if base + i < n { factor(base + i) } else { 1.0 }
            })
        })
        .collect();
    product_subtree(chunks.next_power_of_two(), |i| {
        chunk_products.get(i).copied().unwrap_or(1.0)
    })
}

/// The product tree over `leaves` (a power of two) leaves with a stack of completed subtrees.
fn product_subtree(leaves: usize, leaf: impl Fn(usize) -> f64) -> f64 {
    debug_assert!(leaves.is_power_of_two());
    let mut stack = [1.0f64; 65];
    let mut depth = 0usize;
    for i in 0..leaves {
        let mut node = leaf(i);
        let mut closed = i;
        while closed & 1 == 1 {
            depth -= 1;
            // IEEE multiplication is commutative, so this is the left sibling times the right one.
            node *= stack[depth];
            closed >>= 1;
        }
        stack[depth] = node;
        depth += 1;
    }
    stack[0]
}

/// The Hillis-Steele inclusive scan of one tile of `SCAN_TILE` values, in place.
fn scan_tile(tile: &mut [f64; SCAN_TILE]) {
    let mut offset = 1;
    while offset < SCAN_TILE {
        // Descending j reads v^s_{j-offset} before it is overwritten, so one buffer holds both levels.
        for j in (offset..SCAN_TILE).rev() {
            tile[j] += tile[j - offset];
        }
        offset <<= 1;
    }
}

/// The canonical inclusive prefix sums of `terms` (module docs). Twin: the `scan` passes of
/// `kernels/cuda/benchmarks_continuous.cu`.
pub fn canonical_prefix_sums(terms: &[f64]) -> Vec<f64> {
    let n = terms.len();
    let tiles = n.div_ceil(SCAN_TILE).max(1);
    let mut out = vec![0.0f64; tiles * SCAN_TILE];
    out.par_chunks_mut(SCAN_TILE)
        .enumerate()
        .for_each(|(t, chunk)| {
            let mut tile = [0.0f64; SCAN_TILE];
            for (j, v) in tile.iter_mut().enumerate() {
                *v = terms.get(t * SCAN_TILE + j).copied().unwrap_or(0.0);
            }
            scan_tile(&mut tile);
            chunk.copy_from_slice(&tile);
        });
    if tiles > 1 {
        let totals: Vec<f64> = out.chunks(SCAN_TILE).map(|c| c[SCAN_TILE - 1]).collect();
        let carries = canonical_prefix_sums(&totals);
        out.par_chunks_mut(SCAN_TILE)
            .enumerate()
            .skip(1)
            .for_each(|(t, chunk)| {
                let carry = carries[t - 1];
                for v in chunk.iter_mut() {
                    *v += carry;
                }
            });
    }
    out.truncate(n);
    out
}

/// `Σ_i S_i²` for the canonical prefix sums `S` of `term(0..n)`, summed with the canonical tree: the Ridge
/// and Schwefel 1.2 functions.
pub fn sum_of_squared_prefix_sums<F>(n: usize, term: F) -> f64
where
    F: Fn(usize) -> f64 + Sync + Send,
{
    let terms: Vec<f64> = (0..n).into_par_iter().map(term).collect();
    let prefix = canonical_prefix_sums(&terms);
    evo_core::reduce::pairwise_sum_by(n, |i| prefix[i] * prefix[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use evo_core::reduce::pairwise_sum_f64;

    fn awkward(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                ((i as f64 * 0.618_033_988_749_894_9).fract() - 0.5)
                    * 10f64.powi((i % 13) as i32 - 6)
            })
            .collect()
    }

    #[test]
    fn prefix_sums_are_close_to_sequential_ones() {
        for n in [
            1usize,
            7,
            SCAN_TILE,
            SCAN_TILE + 1,
            3 * SCAN_TILE + 5,
            SCAN_TILE * SCAN_TILE + 3,
        ] {
            let z = awkward(n);
            let prefix = canonical_prefix_sums(&z);
            assert_eq!(prefix.len(), n);
            let mut running = 0.0;
            let scale: f64 = z.iter().map(|v| v.abs()).sum();
            for (i, (&s, &v)) in prefix.iter().zip(&z).enumerate() {
                running += v;
                assert!(
                    (s - running).abs() <= 1e-13 * scale,
                    "n {n} i {i}: {s} vs {running}"
                );
            }
        }
    }

    #[test]
    fn tile_totals_equal_the_canonical_sum() {
        let z = awkward(SCAN_TILE);
        let prefix = canonical_prefix_sums(&z);
        assert_eq!(
            prefix[SCAN_TILE - 1].to_bits(),
            pairwise_sum_f64(&z).to_bits()
        );
    }

    #[test]
    fn product_tree_matches_level_by_level_definition() {
        for n in [0usize, 1, 3, 100, PRODUCT_CHUNK + 3, 3 * PRODUCT_CHUNK] {
            let f: Vec<f64> = (0..n)
                .map(|i| 1.0 + ((i as f64 * 0.37).fract() - 0.5) * 1e-3)
                .collect();
            let mut level = f.clone();
            level.resize(n.next_power_of_two(), 1.0);
            while level.len() > 1 {
                level = level.chunks(2).map(|p| p[0] * p[1]).collect();
            }
            let got = pairwise_product_by(n, |i| f[i]);
            assert_eq!(got.to_bits(), level[0].to_bits(), "n = {n}");
        }
    }
}
