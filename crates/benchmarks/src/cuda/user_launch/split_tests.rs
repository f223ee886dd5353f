//! A host replay of `user_real.cuh`'s work split, lane by lane (the same leaf of each lane in each round, the
//! shuffles' out-of-range lanes reading their own value, the butterfly's exchanges, the warps' tree, the last
//! block's chunks), checked against `evo_core::reduce`'s canonical tree with terms whose sum depends on the order:
//! the shape and the index arithmetic give the canonical bits for every row length, before any GPU runs them.

use super::UserRealParams;
use evo_core::reduce::pairwise_sum_by;

const WARP: usize = 32;
/// Threads of a block whose rows take several tiles.
const MAX_BLOCK: u64 = 256;

/// A shape field as a host index.
fn us(value: u64) -> usize {
    usize::try_from(value).expect("a shape field fits a usize")
}

/// `__shfl_down_sync` trees over each warp of `values` with offsets below `width`: lane l adds lane l + off
/// of its warp, or itself when l + off leaves the warp (what the hardware returns).
fn warp_tree(values: &mut [f64], width: usize) {
    let mut off = 1;
    while off < width {
        let before = values.to_vec();
        for (l, value) in values.iter_mut().enumerate() {
            let lane = l % WARP;
            let other = if lane + off < WARP {
                before[l + off]
            } else {
                before[l]
            };
            *value = before[l] + other;
        }
        off <<= 1;
    }
}

/// One add of the canonical tree, the left subtree's node first, in the kernels' operand order.
fn tree_add(left: f64, right: f64) -> f64 {
    left + right
}

/// `evo_user_pair` in every lane of a warp: lane l adds the node of lane l ^ off (what it sent), the lower
/// lane's on the left.
fn pair(keep: &[f64], send: &[f64], off: usize) -> Vec<f64> {
    (0..WARP)
        .map(|l| {
            let other = send[l ^ off];
            let (left, right) = if l & off != 0 {
                (other, keep[l])
            } else {
                (keep[l], other)
            };
            tree_add(left, right)
        })
        .collect()
}

/// `evo_user_warp_eight` over one warp, `v[l][k]` being round k of lane l: every lane's result.
fn warp_eight(v: &[[f64; 8]]) -> Vec<f64> {
    let bit = |l: usize, b: usize| l & (1 << b) != 0;
    // Level 1: the lower lane keeps rounds 0-3, the upper 4-7.
    let u: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            let keep: Vec<f64> = (0..WARP)
                .map(|l| if bit(l, 0) { v[l][4 + i] } else { v[l][i] })
                .collect();
            let send: Vec<f64> = (0..WARP)
                .map(|l| if bit(l, 0) { v[l][i] } else { v[l][4 + i] })
                .collect();
            pair(&keep, &send, 1)
        })
        .collect();
    // Level 2: of those, the lower lane keeps the first two.
    let w: Vec<Vec<f64>> = (0..2)
        .map(|i| {
            let keep: Vec<f64> = (0..WARP)
                .map(|l| if bit(l, 1) { u[2 + i][l] } else { u[i][l] })
                .collect();
            let send: Vec<f64> = (0..WARP)
                .map(|l| if bit(l, 1) { u[i][l] } else { u[2 + i][l] })
                .collect();
            pair(&keep, &send, 2)
        })
        .collect();
    let keep: Vec<f64> = (0..WARP)
        .map(|l| if bit(l, 2) { w[1][l] } else { w[0][l] })
        .collect();
    let send: Vec<f64> = (0..WARP)
        .map(|l| if bit(l, 2) { w[0][l] } else { w[1][l] })
        .collect();
    let mut y = pair(&keep, &send, 4);
    for off in [8, 16, 4, 2, 1] {
        y = pair(&y, &y, off);
    }
    y
}

/// `evo_user_warps_tree` after the lanes' values: thread 0's value.
fn warps_tree(values: &[f64], leaves: usize) -> f64 {
    if leaves <= WARP {
        return values[0];
    }
    let warps = leaves / WARP;
    let mut first: Vec<f64> = (0..WARP)
        .map(|l| if l < warps { values[l * WARP] } else { 0.0 })
        .collect();
    warp_tree(&mut first, warps);
    first[0]
}

/// The kernel's sum of tile `t` for each row of a block, `leaf(s, i)` being leaf `i` of the block's row `s`
/// (zero beyond the terms).
fn tile(p: &UserRealParams, t: usize, leaf: &dyn Fn(usize, usize) -> f64) -> Vec<f64> {
    let leaves = us(p.leaves);
    let threads = us(p.tile_threads());
    if p.items == 1 {
        // One round: lane j of row s takes leaf j.
        let mut lanes: Vec<f64> = (0..threads)
            .map(|idx| leaf(idx / leaves, t * leaves + idx % leaves))
            .collect();
        warp_tree(&mut lanes, leaves.min(WARP));
        return (0..us(p.segments))
            .map(|s| warps_tree(&lanes[s * leaves..], leaves))
            .collect();
    }
    // Eight rounds, one row: lane l of warp w takes leaf t·8·leaves + 256 w + 32 k + l in round k.
    assert_eq!((p.items, p.segments), (8, 1));
    let mut lanes = Vec::with_capacity(threads);
    for w in 0..leaves / WARP {
        let v: Vec<[f64; 8]> = (0..WARP)
            .map(|l| std::array::from_fn(|k| leaf(0, t * leaves * 8 + 256 * w + 32 * k + l)))
            .collect();
        lanes.extend(warp_eight(&v));
    }
    vec![warps_tree(&lanes, leaves)]
}

/// The row's last block over the tile sums of the row: pass c sums the segment of `finish_leaves` tile sums
/// from c · finish_leaves (zero beyond the tiles), thread 0 combines the passes with its stack.
fn finish(p: &UserRealParams, tiles: &[f64]) -> f64 {
    let leaves = us(p.finish_leaves);
    let mut stack: Vec<f64> = Vec::new();
    for c in 0..us(p.finish_items) {
        let mut values: Vec<f64> = (0..us(MAX_BLOCK))
            .map(|j| {
                if j < leaves {
                    tiles.get(c * leaves + j).copied().unwrap_or(0.0)
                } else {
                    0.0
                }
            })
            .collect();
        warp_tree(&mut values, leaves.min(WARP));
        let mut node = warps_tree(&values, leaves);
        let mut closed = c;
        while closed & 1 == 1 {
            node = tree_add(stack.pop().expect("a pending left subtree"), node);
            closed >>= 1;
        }
        stack.push(node);
    }
    assert_eq!(stack.len(), 1, "the passes are a power of two");
    stack[0]
}

/// Term `i` of row `row`: magnitudes from 1e-8 to 1e8 of both signs, so that another order of the additions
/// rounds differently.
fn term(row: usize, i: usize) -> f64 {
    let h = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (row as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let mantissa = (h >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
    let exponent = ((h >> 3) % 17) as i32 - 8;
    let sign = if h & 1 == 0 { 1.0 } else { -1.0 };
    sign * mantissa * 10f64.powi(exponent)
}

/// Every row of a `rows`-row launch of `terms` terms, as the kernels compute it.
fn replay(terms: usize, rows: usize) -> Vec<f64> {
    let p = UserRealParams::new(terms as u64, terms as u64, rows as u64);
    let segments = us(p.segments);
    let mut fitness = vec![f64::NAN; rows];
    for g in 0..us(p.row_blocks()) {
        let leaf = |s: usize, i: usize| {
            let row = g * segments + s;
            if row < rows && i < terms {
                term(row, i)
            } else {
                0.0
            }
        };
        let tile_sums: Vec<Vec<f64>> = (0..us(p.tiles)).map(|t| tile(&p, t, &leaf)).collect();
        for s in 0..segments {
            let row = g * segments + s;
            if row >= rows {
                continue;
            }
            fitness[row] = if p.tiles == 1 {
                tile_sums[0][s]
            } else {
                finish(&p, &tile_sums.iter().map(|t| t[s]).collect::<Vec<_>>())
            };
        }
    }
    fitness
}

/// Checks every row of a `rows`-row launch of `terms` terms against the canonical tree.
fn check(terms: usize, rows: usize) {
    for (row, got) in replay(terms, rows).into_iter().enumerate() {
        let canonical = pairwise_sum_by(terms, |i| term(row, i));
        assert_eq!(
            got.to_bits(),
            canonical.to_bits(),
            "{terms} terms, {rows} rows: row {row}"
        );
    }
}

#[test]
fn the_split_should_give_the_canonical_tree_for_every_row_length() {
    for terms in [
        1usize, 2, 3, 5, 7, 8, 17, 31, 32, 33, 63, 64, 100, 255, 256, 257, 511, 513, 1000, 1025,
        2047, 2048, 2049, 4097, 5000, 40_000,
    ] {
        for rows in [1, 3, 33] {
            check(terms, rows);
        }
    }
}

#[test]
fn a_row_of_more_than_256_tiles_should_sum_them_in_passes_with_the_canonical_tree() {
    // 1.2 · 10^6 terms: 586 tiles of 2048, padded to 1024, four passes of 256 in the last block.
    let p = UserRealParams::new(1_200_000, 1_200_000, 2);
    assert_eq!((p.tiles, p.finish_leaves, p.finish_items), (586, 256, 4));
    check(1_200_000, 2);
}

#[test]
fn a_shuffled_order_should_round_differently() {
    // The terms make the check able to fail: summing them in a line gives other bits than the tree.
    let terms = 1000;
    let tree = pairwise_sum_by(terms, |i| term(0, i));
    let line = (0..terms).map(|i| term(0, i)).fold(0.0, |a, b| a + b);
    assert_ne!(tree.to_bits(), line.to_bits());
}
