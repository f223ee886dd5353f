//! The pairwise product (Griewank), the fixed-shape reduction the problems use besides the canonical sum of
//! [`evo_core::reduce`]: the tree of [`evo_core::reduce`] with `*` for `+` and `1.0` for the padding leaves.
//! Its shape depends only on the number of factors, so the CUDA twin in `kernels/common/problems/tree.cuh`
//! computes the same bits whatever the launch configuration. The sum of squared prefix sums (Ridge,
//! Schwefel 1.2) has its own tree: [`crate::prefix_squares`].

use rayon::prelude::*;

/// Leaves of the product tree reduced by one sequential task before going parallel (a power of two).
const PRODUCT_CHUNK: usize = 1 << 14;

/// The pairwise product of `factor(0..n)`: the canonical tree with `*` and padding `1.0`.
/// Twin: `evo_block_pairwise_product_f64` (CUDA).
pub fn pairwise_product_by<F>(n: usize, factor: F) -> f64
where
    F: Fn(usize) -> f64 + Sync,
{
    chunked_product(n, PRODUCT_CHUNK, factor)
}

/// The canonical product tree over `leaf(0..n)`: chunks of `chunk` leaves (a power of two) in parallel, then
/// the tree over the chunks' products, padded with `1.0`.
fn chunked_product<L>(n: usize, chunk: usize, leaf: L) -> f64
where
    L: Fn(usize) -> f64 + Sync,
{
    if n <= chunk {
        return product_subtree(n.next_power_of_two(), |i| if i < n { leaf(i) } else { 1.0 });
    }
    let chunks = n.div_ceil(chunk);
    let chunk_products: Vec<f64> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let base = c * chunk;
            product_subtree(chunk, |i| if base + i < n { leaf(base + i) } else { 1.0 })
        })
        .collect();
    product_subtree(chunks.next_power_of_two(), |i| {
        chunk_products.get(i).copied().unwrap_or(1.0)
    })
}

/// Leaves per call of the `eight` callback of [`pairwise_product_by_eights`].
pub const EIGHT: usize = 8;

/// [`pairwise_product_by`] with the leaves computed eight at a time: `eight(first, count, out)` writes the
/// factors `first .. first + count` (`first` a multiple of 8, `count = min(8, n − first)`) to `out[..count]`,
/// whose other entries stay `1.0`. The aligned block of 8 is the subtree `((f₀f₁)(f₂f₃))((f₄f₅)(f₆f₇))` of
/// the canonical tree and the tree over the blocks is canonical too, so the bits are those of
/// [`pairwise_product_by`] (padding beyond the next power of two of `n` only multiplies by `1.0`, exactly);
/// a caller computes the eight factors together (independent chains in one function body) instead of one
/// call per leaf.
pub fn pairwise_product_by_eights<F>(n: usize, eight: F) -> f64
where
    F: Fn(usize, usize, &mut [f64; EIGHT]) + Sync,
{
    let block = |b: usize| -> f64 {
        let first = b * EIGHT;
        let mut out = [1.0f64; EIGHT];
        if first < n {
            eight(first, (n - first).min(EIGHT), &mut out);
        }
        ((out[0] * out[1]) * (out[2] * out[3])) * ((out[4] * out[5]) * (out[6] * out[7]))
    };
    chunked_product(n.div_ceil(EIGHT), PRODUCT_CHUNK / EIGHT, block)
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

#[cfg(test)]
mod tests {
    use super::*;

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
            let by_eights = pairwise_product_by_eights(n, |first, count, out| {
                assert!(first % EIGHT == 0 && count == (n - first).min(EIGHT));
                out[..count].copy_from_slice(&f[first..first + count]);
            });
            assert_eq!(by_eights.to_bits(), level[0].to_bits(), "eights, n = {n}");
        }
    }

    #[test]
    fn eights_keep_signed_zeros_and_non_finite_factors() {
        for f in [
            vec![-0.0, 1.0, 1.0],
            vec![2.0, f64::INFINITY, 0.5, 3.0, 1.0],
            vec![1.0; 9],
        ] {
            let n = f.len();
            let one = pairwise_product_by(n, |i| f[i]);
            let eights = pairwise_product_by_eights(n, |first, count, out| {
                out[..count].copy_from_slice(&f[first..first + count]);
            });
            assert_eq!(one.to_bits(), eights.to_bits(), "{f:?}");
        }
    }
}
