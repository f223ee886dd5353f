//! The sum of squared prefix sums `Σ_i S_i²`, `S_i = z_0 + … + z_i` (Ridge, Schwefel 1.2), as a fixed-shape
//! tree, so that a GPU computes it in one pass over `z` with the same bits as the CPU.
//!
//! # The segment summary
//!
//! A segment `z_a … z_{b−1}` of `n = b − a` terms is summarised by
//!
//! ```text
//! N = n,   A = Σ_k z_k,   B = Σ_k p_k,   C = Σ_k p_k²,   p_k = z_a + … + z_k   (prefix inside the segment)
//! ```
//!
//! and two adjacent segments `L`, `R` combine into the summary of their concatenation: every prefix of `R`
//! grows by `A_L`, so
//!
//! ```text
//! N = N_L + N_R
//! A = A_L + A_R
//! B = B_L + (N_R A_L + B_R)
//! C = C_L + (N_R A_L² + 2 A_L B_R + C_R)  =  C_L + (A_L (N_R A_L + 2 B_R) + C_R)
//! ```
//!
//! This combination is associative, so `C` of the whole row, the function value, can be computed by any
//! fixed tree: a prefix scan fused into a reduction, which reads `z` once instead of a scan pass and a
//! squares pass.
//!
//! # The canonical association
//!
//! - Leaves are the groups of [`PREFIX_GROUP`] = 4 consecutive terms `4g … 4g + 3` (the last one may be
//!   shorter), summarised sequentially from `(0, 0, 0, 0)`: `p ← p + z`, `B ← B + p`, `C ← fma(p, p, C)`.
//! - Groups are combined by the pairwise tree over `next_power_of_two(groups)` leaves (left subtree first,
//!   as [`evo_core::reduce`]); the padding leaves are empty segments (`N = 0`), and combining with an empty
//!   segment returns the other operand unchanged (no arithmetic), so padding never changes a bit.
//! - The combination is evaluated exactly as written, with fused multiply-adds where shown:
//!   `A = A_L + A_R`, `B = B_L + fma(N_R, A_L, B_R)`, `C = C_L + fma(A_L, fma(N_R, A_L, 2 B_R), C_R)`.
//!
//! The CUDA twin (`kernels/common/problems/prefix_squares.cuh`) uses the same leaves and the same tree: a
//! lane's 4 adjacent terms are a leaf, the warp's shuffle tree and the block's tree are aligned subtrees,
//! and the tile summaries are combined by the same tree in a second kernel.
//!
//! # Accuracy
//!
//! The expansion `N_R A_L² + 2 A_L B_R + C_R` is `Σ_{k∈R} (A_L + p_k)²` without forming `A_L + p_k`, so
//! its rounding error is relative to `Σ_{k∈R} (A_L² + p_k²)` rather than to the value: with `u = 2^−53`,
//! each level of the tree adds at most about `4u Σ_k (|A_L| + |p_k|)²`, and the `log2(n/4)` levels together
//! stay within `c u log2(n) Σ_i (Σ_{j≤i} |z_j|)²`. That is the same kind of bound as the sequential
//! evaluation (whose prefix sums carry errors of `u Σ_{j≤i} |z_j|` each); it is loose only when the prefix
//! sums cancel to much less than the sums of absolute values, e.g. next to the optimum `z = 0`, where
//! every term, and so the error, is small. The tests check the relative error against a sequential
//! double-double evaluation on random and adversarial rows.

use rayon::prelude::*;

/// Terms per leaf of the canonical tree; part of the definition (not a tuning knob).
pub const PREFIX_GROUP: usize = 4;

/// Leaves (groups) below which a subtree is computed by one task.
const SEQUENTIAL_GROUPS: usize = 1 << 12;

/// The summary `(N, A, B, C)` of a segment (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrefixSquares {
    /// Number of terms `N`.
    pub count: u64,
    /// `A = Σ z`, the segment's total.
    pub total: f64,
    /// `B = Σ p`, the sum of the prefix sums inside the segment.
    pub prefix_sum: f64,
    /// `C = Σ p²`, the sum of their squares.
    pub square_sum: f64,
}

impl PrefixSquares {
    /// The empty segment, the identity of [`then`](Self::then).
    pub const EMPTY: Self = Self {
        count: 0,
        total: 0.0,
        prefix_sum: 0.0,
        square_sum: 0.0,
    };

    /// The summary of the terms of one leaf, in order: `p ← p + z`, `B ← B + p`, `C ← fma(p, p, C)`.
    pub fn leaf(terms: impl IntoIterator<Item = f64>) -> Self {
        let mut leaf = Self::EMPTY;
        for z in terms {
            leaf.total += z;
            leaf.prefix_sum += leaf.total;
            leaf.square_sum = leaf.total.mul_add(leaf.total, leaf.square_sum);
            leaf.count += 1;
        }
        leaf
    }

    /// The summary of `self` followed by `right` (module docs); an empty operand returns the other.
    #[must_use]
    pub fn then(self, right: Self) -> Self {
        if right.count == 0 {
            return self;
        }
        if self.count == 0 {
            return right;
        }
        let n_right = right.count as f64;
        let inner = n_right.mul_add(self.total, 2.0 * right.prefix_sum);
        Self {
            count: self.count + right.count,
            total: self.total + right.total,
            prefix_sum: self.prefix_sum + n_right.mul_add(self.total, right.prefix_sum),
            square_sum: self.square_sum + self.total.mul_add(inner, right.square_sum),
        }
    }
}

/// The canonical summary of `term(0..n)` (module docs). Twin: `evo_prefix_squares_*` (CUDA).
pub fn prefix_squares_by<F>(n: usize, term: F) -> PrefixSquares
where
    F: Fn(usize) -> f64 + Sync,
{
    let groups = n.div_ceil(PREFIX_GROUP);
    if groups == 0 {
        return PrefixSquares::EMPTY;
    }
    let leaf = |g: usize| {
        let first = g * PREFIX_GROUP;
        PrefixSquares::leaf((first..(first + PREFIX_GROUP).min(n)).map(&term))
    };
    subtree(0, groups.next_power_of_two(), groups, &leaf)
}

/// The tree over the `size` (a power of two) leaves from `first`; leaves at or beyond `groups` are empty.
fn subtree<L>(first: usize, size: usize, groups: usize, leaf: &L) -> PrefixSquares
where
    L: Fn(usize) -> PrefixSquares + Sync,
{
    if size == 1 {
        return leaf(first);
    }
    let half = size / 2;
    if first + half >= groups {
        return subtree(first, half, groups, leaf);
    }
    let (left, right) = if size > SEQUENTIAL_GROUPS {
        rayon::join(
            || subtree(first, half, groups, leaf),
            || subtree(first + half, half, groups, leaf),
        )
    } else {
        (
            subtree(first, half, groups, leaf),
            subtree(first + half, half, groups, leaf),
        )
    };
    left.then(right)
}

/// `Σ_i S_i²` for the prefix sums `S` of `term(0..n)`: the `C` of [`prefix_squares_by`]; the Ridge and
/// Schwefel 1.2 functions.
pub fn sum_of_squared_prefix_sums<F>(n: usize, term: F) -> f64
where
    F: Fn(usize) -> f64 + Sync + Send,
{
    if n <= SEQUENTIAL_GROUPS * PREFIX_GROUP {
        return prefix_squares_by(n, term).square_sum;
    }
    // Evaluate each term once, in parallel, before the tree reads them.
    let terms: Vec<f64> = (0..n).into_par_iter().map(term).collect();
    prefix_squares_by(n, |i| terms[i]).square_sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Σ_i S_i²` in double-double arithmetic, sequentially: a reference about 2^−100 relative.
    fn double_double_reference(z: &[f64]) -> f64 {
        fn two_sum(a: f64, b: f64) -> (f64, f64) {
            let s = a + b;
            let v = s - a;
            (s, (a - (s - v)) + (b - v))
        }
        fn add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
            let (s, e) = two_sum(a.0, b.0);
            let e = e + a.1 + b.1;
            two_sum(s, e)
        }
        fn square(a: (f64, f64)) -> (f64, f64) {
            let p = a.0 * a.0;
            let e = a.0.mul_add(a.0, -p) + 2.0 * a.0 * a.1;
            two_sum(p, e)
        }
        let mut prefix = (0.0, 0.0);
        let mut sum = (0.0, 0.0);
        for &v in z {
            prefix = add(prefix, (v, 0.0));
            sum = add(sum, square(prefix));
        }
        sum.0 + sum.1
    }

    /// The bound of the module docs with c = 4: `4 u log2(n) Σ_i (Σ_{j≤i} |z_j|)²`.
    fn error_bound(z: &[f64]) -> f64 {
        let mut absolute = 0.0;
        let mut sum = 0.0;
        for &v in z {
            absolute += v.abs();
            sum += absolute * absolute;
        }
        let levels = (z.len().max(2) as f64).log2() + 2.0;
        4.0 * f64::EPSILON / 2.0 * levels * sum
    }

    fn lcg_row(n: usize, seed: u64, scale: f64) -> Vec<f64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * scale
            })
            .collect()
    }

    /// The tree as defined: leaves of 4, then level by level over the padded leaves.
    fn level_by_level(z: &[f64]) -> PrefixSquares {
        let mut level: Vec<PrefixSquares> = z
            .chunks(PREFIX_GROUP)
            .map(|c| PrefixSquares::leaf(c.iter().copied()))
            .collect();
        if level.is_empty() {
            return PrefixSquares::EMPTY;
        }
        level.resize(level.len().next_power_of_two(), PrefixSquares::EMPTY);
        while level.len() > 1 {
            level = level.chunks(2).map(|p| p[0].then(p[1])).collect();
        }
        level[0]
    }

    #[test]
    fn recursive_tree_equals_level_by_level_definition() {
        for n in [0usize, 1, 3, 4, 5, 50, 127, 128, 129, 2048, 2049, 70_001] {
            let z = lcg_row(n, n as u64 + 7, 200.0);
            let got = prefix_squares_by(n, |i| z[i]);
            let want = level_by_level(&z);
            assert_eq!(got.count, n as u64);
            assert_eq!(got.total.to_bits(), want.total.to_bits(), "n = {n}");
            assert_eq!(
                got.prefix_sum.to_bits(),
                want.prefix_sum.to_bits(),
                "n = {n}"
            );
            assert_eq!(
                got.square_sum.to_bits(),
                want.square_sum.to_bits(),
                "n = {n}"
            );
            assert_eq!(
                sum_of_squared_prefix_sums(n, |i| z[i]).to_bits(),
                want.square_sum.to_bits()
            );
        }
    }

    #[test]
    fn summary_matches_its_definition_on_exact_inputs() {
        // Small integers: every operation is exact, so B and C equal their definitions exactly.
        let z: Vec<f64> = (0..37).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let got = prefix_squares_by(z.len(), |i| z[i]);
        let mut p = 0.0;
        let (mut b, mut c) = (0.0, 0.0);
        for &v in &z {
            p += v;
            b += p;
            c += p * p;
        }
        assert_eq!((got.total, got.prefix_sum, got.square_sum), (p, b, c));
    }

    #[test]
    fn value_is_within_the_documented_bound_of_a_double_double_reference() {
        let mut rows = vec![
            lcg_row(1000, 1, 200.0),
            lcg_row(100_003, 2, 200.0),
            lcg_row(4099, 3, 1e-3),
        ];
        // Adversarial: large swings whose prefix sums cancel (alternating ±100 with a tiny drift).
        rows.push(
            (0..8192)
                .map(|i| if i % 2 == 0 { 100.0 } else { -100.0 + 1e-9 })
                .collect(),
        );
        for z in rows {
            let got = sum_of_squared_prefix_sums(z.len(), |i| z[i]);
            let want = double_double_reference(&z);
            let bound = error_bound(&z);
            assert!(
                (got - want).abs() <= bound,
                "n = {}: {got} vs {want}, bound {bound}",
                z.len()
            );
        }
    }

    #[test]
    fn typical_rows_are_accurate_to_a_few_ulp_relative() {
        for (n, seed) in [(1000usize, 11u64), (65_536, 12), (1_000_001, 13)] {
            let z = lcg_row(n, seed, 200.0);
            let got = sum_of_squared_prefix_sums(n, |i| z[i]);
            let want = double_double_reference(&z);
            assert!(
                ((got - want) / want).abs() < 1e-13,
                "n = {n}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn empty_and_zero_rows_give_exact_zero() {
        assert_eq!(sum_of_squared_prefix_sums(0, |_| 1.0).to_bits(), 0);
        assert_eq!(sum_of_squared_prefix_sums(4099, |_| 0.0).to_bits(), 0);
    }
}
