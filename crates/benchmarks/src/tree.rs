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
        }
    }
}
