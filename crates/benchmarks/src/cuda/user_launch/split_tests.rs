//! A host replay of `user_real.cuh`'s work split, lane by lane (the same leaf of each lane in each round, the
//! shuffles' out-of-range lanes reading their own value, the rounds' slots, the warps' tree, the finish's
//! chunks), checked against `evo_core::reduce`'s canonical tree with terms whose sum depends on the order:
//! the shape and the index arithmetic give the canonical bits for every row length, before any GPU runs them.

use super::UserRealParams;
use evo_core::reduce::pairwise_sum_by;

const WARP: usize = 32;

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

/// `EvoUserRounds`: pushes of rounds `0 .. count` into four slots, the tree of `count` rounds.
fn rounds(values: &[f64]) -> f64 {
    let mut slot = [f64::NAN; 4];
    for (i, &v) in values.iter().enumerate() {
        let mut node = v;
        let mut level = 0;
        while (i >> level) & 1 == 1 {
            node += slot[level];
            level += 1;
        }
        slot[level] = node;
    }
    slot[values.len().trailing_zeros() as usize]
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

/// The tiles kernel's sum of tile `t` for each row of a block, `leaf(s, i)` being leaf `i` of the block's
/// row `s` (zero beyond the terms).
fn tile(p: &UserRealParams, t: usize, leaf: &dyn Fn(usize, usize) -> f64) -> Vec<f64> {
    let leaves = us(p.leaves);
    let items = us(p.items);
    let threads = us(p.tile_threads());
    let width = leaves.min(WARP);
    let mut per_round = vec![vec![0.0; threads]; items];
    for (i, round) in per_round.iter_mut().enumerate() {
        for (idx, value) in round.iter_mut().enumerate() {
            let (s, j) = (idx / leaves, idx % leaves);
            let first = t * leaves * items + (j / width) * width * items + j % width;
            *value = leaf(s, first + i * width);
        }
        warp_tree(round, width);
    }
    let lanes: Vec<f64> = (0..threads)
        .map(|idx| rounds(&per_round.iter().map(|r| r[idx]).collect::<Vec<_>>()))
        .collect();
    (0..us(p.segments))
        .map(|s| warps_tree(&lanes[s * leaves..], leaves))
        .collect()
}

/// The finish kernel over the tile sums of one row.
fn finish(p: &UserRealParams, tiles: &[f64]) -> f64 {
    let leaves = us(p.finish_leaves);
    let items = us(p.finish_items);
    let block = leaves.max(WARP);
    let mut values: Vec<f64> = (0..block)
        .map(|idx| {
            if idx >= leaves {
                return 0.0;
            }
            pairwise_sum_by(items, |i| {
                tiles.get(idx * items + i).copied().unwrap_or(0.0)
            })
        })
        .collect();
    warp_tree(&mut values, leaves.min(WARP));
    warps_tree(&values, leaves)
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

#[test]
fn the_split_should_give_the_canonical_tree_for_every_row_length() {
    for terms in [
        1usize, 2, 3, 5, 7, 8, 17, 31, 32, 33, 63, 64, 100, 255, 256, 257, 511, 1000, 2047, 2048,
        2049, 5000, 40_000,
    ] {
        for rows in [1, 3, 33] {
            for (row, got) in replay(terms, rows).into_iter().enumerate() {
                let canonical = pairwise_sum_by(terms, |i| term(row, i));
                assert_eq!(
                    got.to_bits(),
                    canonical.to_bits(),
                    "{terms} terms, {rows} rows: row {row}"
                );
            }
        }
    }
}

#[test]
fn a_shuffled_order_should_round_differently() {
    // The terms make the check able to fail: summing them in a line gives other bits than the tree.
    let terms = 1000;
    let tree = pairwise_sum_by(terms, |i| term(0, i));
    let line = (0..terms).map(|i| term(0, i)).fold(0.0, |a, b| a + b);
    assert_ne!(tree.to_bits(), line.to_bits());
}
