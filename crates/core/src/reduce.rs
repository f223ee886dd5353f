//! The canonical reduction: a fixed pairwise tree that the CPU and the GPU both compute.
//!
//! Any sum whose result feeds a decision (fitness, distance, best index) is computed with one tree whose
//! shape depends only on the number of terms `n`, never on the device, the block size or the thread count:
//!
//! ```text
//! pad to P = next_power_of_two(n) leaves, leaf i = term i (or +0.0 for i >= n)
//! node(0, i)     = leaf i
//! node(l + 1, i) = node(l, 2i) + node(l, 2i + 1)      (adjacent pairs, left operand first)
//! sum            = node(log2 P, 0)
//! ```
//!
//! Every aligned subtree of 2^k leaves is the same number whoever computes it, so a GPU block of B threads that
//! reduces 2B consecutive leaves, and a second pass over the block results, give the same bits as this
//! module; so does any rayon split along aligned chunks. Padding with `+0.0` changes nothing
//! (`x + 0.0 = x`, except that `-0.0 + 0.0 = +0.0` on both sides alike). Terms are accumulated in `f64`;
//! `f32` terms are widened exactly before the first addition.
//!
//! CUDA twins: `evo_block_pairwise_sum_f64` in `kernels/common/reduce.cuh` and the `reduce_sum_*` kernels
//! of `kernels/cuda/reduce.cu`.

use rayon::prelude::*;

/// Leaves reduced by one sequential task before the tree goes parallel; a power of two.
const CHUNK_LEAVES: usize = 1 << 14;

/// The canonical pairwise sum of `terms` (see the module docs). Twin: `reduce_sum_f64` (CUDA).
pub fn pairwise_sum_f64(terms: &[f64]) -> f64 {
    pairwise_sum_by(terms.len(), |i| terms[i])
}

/// The canonical pairwise sum of `f32` terms widened to `f64`. Twin: `reduce_sum_f32_to_f64` (CUDA).
pub fn pairwise_sum_f32_as_f64(terms: &[f32]) -> f64 {
    pairwise_sum_by(terms.len(), |i| f64::from(terms[i]))
}

/// The canonical pairwise sum of `n` terms given by `term(i)`, computed in parallel over aligned chunks.
///
/// The result does not depend on the number of threads: each chunk is an aligned subtree and the chunk sums
/// are combined by the same tree.
pub fn pairwise_sum_by<F>(n: usize, term: F) -> f64
where
    F: Fn(usize) -> f64 + Sync,
{
    if n <= CHUNK_LEAVES {
        return subtree_sum(n.next_power_of_two(), |i| if i < n { term(i) } else { 0.0 });
    }
    let chunks = n.div_ceil(CHUNK_LEAVES);
    let chunk_sums: Vec<f64> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let base = c * CHUNK_LEAVES;
            subtree_sum(CHUNK_LEAVES, |i| {
                if base + i < n { term(base + i) } else { 0.0 }
            })
        })
        .collect();
    // The chunk sums are the nodes of level log2(CHUNK_LEAVES); padding them with +0.0 up to a power of two
    // gives exactly the nodes an all-padding chunk would have produced.
    subtree_sum(chunks.next_power_of_two(), |i| {
        chunk_sums.get(i).copied().unwrap_or(0.0)
    })
}

/// Sums `leaves` (a power of two) values `leaf(0..leaves)` with the adjacent-pair tree, using a small stack
/// instead of a buffer of `leaves` entries: after leaf i the stack holds the completed subtrees of i + 1
/// leaves, one per set bit, exactly as a level-by-level pass would have formed them.
fn subtree_sum(leaves: usize, leaf: impl Fn(usize) -> f64) -> f64 {
    debug_assert!(leaves.is_power_of_two());
    // One slot per level: at most 64 levels for any usize count.
    let mut stack = [0.0f64; 65];
    let mut depth = 0usize;
    for i in 0..leaves {
        let mut node = leaf(i);
        // Each trailing one bit of i closes a subtree: merge the left sibling (on the stack) with it.
        let mut closed = i;
        while closed & 1 == 1 {
            depth -= 1;
            // The left sibling is the left operand, as in the tree's definition.
            let parent = stack[depth] + node;
            node = parent;
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

    /// The tree computed level by level, the definition in the module docs, written as plainly as possible.
    fn level_by_level(terms: &[f64]) -> f64 {
        let mut level: Vec<f64> = terms.to_vec();
        level.resize(terms.len().next_power_of_two(), 0.0);
        while level.len() > 1 {
            level = level.chunks(2).map(|pair| pair[0] + pair[1]).collect();
        }
        level[0]
    }

    fn awkward_terms(n: usize) -> Vec<f64> {
        // Mixed magnitudes and signs make every change of tree shape visible in the low bits.
        (0..n)
            .map(|i| {
                let x = (i as f64 * 0.618_033_988_749_894_9).fract() - 0.5;
                x * 10f64.powi((i % 17) as i32 - 8)
            })
            .collect()
    }

    #[test]
    fn stack_tree_equals_level_by_level_definition() {
        for n in [0usize, 1, 2, 3, 5, 8, 13, 100, 1000, 4097] {
            let terms = awkward_terms(n);
            let expected = level_by_level(&terms);
            let got = pairwise_sum_f64(&terms);
            assert_eq!(
                got.to_bits(),
                expected.to_bits(),
                "n = {n}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn parallel_chunks_equal_level_by_level_definition() {
        for n in [CHUNK_LEAVES + 1, 3 * CHUNK_LEAVES + 7, 5 * CHUNK_LEAVES] {
            let terms = awkward_terms(n);
            let expected = level_by_level(&terms);
            let got = pairwise_sum_f64(&terms);
            assert_eq!(
                got.to_bits(),
                expected.to_bits(),
                "n = {n}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn tree_differs_from_sequential_order_on_awkward_input() {
        // Guards the tests above against inputs where every order gives the same bits.
        let terms = awkward_terms(1000);
        let sequential = terms.iter().fold(0.0, |acc, t| acc + t);
        assert_ne!(pairwise_sum_f64(&terms).to_bits(), sequential.to_bits());
    }

    #[test]
    fn f32_terms_are_widened_before_adding() {
        let terms = [1.0e8f32, 1.0, -1.0e8, 1.0];
        assert_eq!(pairwise_sum_f32_as_f64(&terms), 2.0);
    }

    #[test]
    fn empty_sum_is_positive_zero() {
        assert_eq!(pairwise_sum_f64(&[]).to_bits(), 0.0f64.to_bits());
    }
}
