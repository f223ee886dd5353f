//! The host's join of the slices' block nodes: the top levels of each canonical tree
//! ([`combine_block_sums`] for one sum, [`combine_block_nodes`] for a [`SliceFitness`]), pure host arithmetic.

use evo_benchmarks::prefix_squares::PrefixSquares;
use evo_benchmarks::tree::pairwise_product_by;
use evo_core::reduce::pairwise_sum_f64;
use evo_core::{Error, Result};
use evo_ma_sw_chains::cuda::slice::SliceTree;

use super::COMPONENT;
use super::problem::SliceFitness;

/// Checks that `per_slice` has one entry per slice of `blocks` and that each of `nodes(s)` holds `rows ·
/// blocks[s]` nodes of `width` values.
fn check_shapes<'a>(
    slices: usize,
    blocks: &[usize],
    rows: usize,
    width: usize,
    nodes: impl Iterator<Item = (usize, &'a [f64])>,
) -> Result<()> {
    if slices != blocks.len() {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "slices of block sums",
            slices,
            format!("{} (one per slice)", blocks.len()),
        ));
    }
    for (s, sums) in nodes {
        let b = blocks[s];
        if sums.len() < rows * b * width {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "block sums of a slice",
                format!("{} in slice {s}", sums.len()),
                format!("{rows} rows x {b} blocks x {width} values"),
            ));
        }
    }
    Ok(())
}

/// Row `r`'s block nodes (of `width` values) of every slice, concatenated in coordinate order into `leaves`.
fn gather_row<'a>(
    leaves: &mut Vec<f64>,
    nodes: impl Iterator<Item = &'a [f64]>,
    blocks: &[usize],
    width: usize,
    r: usize,
) {
    leaves.clear();
    for (sums, &b) in nodes.zip(blocks) {
        leaves.extend_from_slice(&sums[r * b * width..(r + 1) * b * width]);
    }
}

/// The top of the segment-summary tree of `evo_benchmarks::prefix_squares` over `nodes` (`(N, A, B, C)` each,
/// in coordinate order): padded with empty segments to a power of two and joined level by level with
/// [`PrefixSquares::then`], adjacent pairs left first. An empty segment joins without arithmetic, so the
/// padding (here and below the blocks) never changes a bit.
fn join_prefix_nodes(nodes: &[f64]) -> PrefixSquares {
    let mut level: Vec<PrefixSquares> = nodes
        .chunks_exact(SliceTree::PrefixSquares.node_values())
        .map(|n| PrefixSquares {
            // A whole number of variables below 2^53, exact in the f64 the kernels carry it in.
            count: n[0] as u64,
            total: n[1],
            prefix_sum: n[2],
            square_sum: n[3],
        })
        .collect();
    level.resize(level.len().next_power_of_two(), PrefixSquares::EMPTY);
    while level.len() > 1 {
        level = level.chunks_exact(2).map(|p| p[0].then(p[1])).collect();
    }
    level.first().copied().unwrap_or(PrefixSquares::EMPTY)
}

fn with_bias(value: f64, bias: Option<f64>) -> f64 {
    match bias {
        Some(bias) => value + bias,
        None => value,
    }
}

/// The full-vector value of each of `rows` rows from the slices' block sums: `per_slice[s]` holds slice `s`'s
/// `blocks[s]` block sums of each row, row-major, slices in coordinate order. Row `r`'s value is the canonical
/// tree ([`pairwise_sum_f64`]) over the concatenation of its block sums, plus `bias` when given: the top
/// levels of the tree whose lower levels the blocks are (module docs of [`super`]).
///
/// # Errors
/// [`Error::InvalidParameter`] when `per_slice` and `blocks` differ in length, or a slice's sums are fewer
/// than `rows · blocks[s]`.
pub fn combine_block_sums(
    per_slice: &[Vec<f64>],
    blocks: &[usize],
    rows: usize,
    bias: Option<f64>,
) -> Result<Vec<f64>> {
    check_shapes(
        per_slice.len(),
        blocks,
        rows,
        1,
        per_slice.iter().map(Vec::as_slice).enumerate(),
    )?;
    let mut leaves = Vec::with_capacity(blocks.iter().sum());
    Ok((0..rows)
        .map(|r| {
            gather_row(
                &mut leaves,
                per_slice.iter().map(Vec::as_slice),
                blocks,
                1,
                r,
            );
            with_bias(pairwise_sum_f64(&leaves), bias)
        })
        .collect())
}

/// The fitness of each of `rows` rows of `D = dimension` variables from the slices' block nodes of every tree
/// of `fitness`: `per_slice[s][c]` holds slice `s`'s `blocks[s]` nodes of tree `c` ([`SliceFitness::trees`])
/// of each row, row-major, slices in coordinate order (a node of [`SliceTree::PrefixSquares`] is four
/// values, `N, A, B, C`). For each tree, the top levels of its canonical tree over the concatenated nodes:
/// [`pairwise_sum_f64`] for a sum, `evo_benchmarks::tree`'s [`pairwise_product_by`] for a product (padding
/// `1.0`), [`PrefixSquares::then`]'s tree for the segment summaries (the root's `C`); then
/// [`SliceFitness::finish`] on the roots, then `+ bias` when given: the order of operations of the problem's
/// own evaluation.
///
/// # Errors
/// [`Error::InvalidParameter`] when `per_slice` and `blocks` differ in length, a slice does not hold one
/// entry per tree, or a slice's nodes of a tree are fewer than `rows · blocks[s]`.
pub fn combine_block_nodes(
    fitness: SliceFitness,
    dimension: usize,
    per_slice: &[Vec<Vec<f64>>],
    blocks: &[usize],
    rows: usize,
    bias: Option<f64>,
) -> Result<Vec<f64>> {
    let trees = fitness.trees();
    for (s, slice) in per_slice.iter().enumerate() {
        if slice.len() != trees.len() {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "trees of a slice",
                format!("{} in slice {s}", slice.len()),
                format!("{} for {fitness:?}", trees.len()),
            ));
        }
    }
    for (c, term) in trees.iter().enumerate() {
        check_shapes(
            per_slice.len(),
            blocks,
            rows,
            term.tree().node_values(),
            per_slice
                .iter()
                .map(|slice| slice[c].as_slice())
                .enumerate(),
        )?;
    }
    let mut leaves = Vec::with_capacity(blocks.iter().sum());
    let mut roots = vec![0.0; trees.len()];
    (0..rows)
        .map(|r| {
            for (c, (term, root)) in trees.iter().zip(&mut roots).enumerate() {
                let nodes = per_slice.iter().map(|slice| slice[c].as_slice());
                let tree = term.tree();
                gather_row(&mut leaves, nodes, blocks, tree.node_values(), r);
                *root = match tree {
                    SliceTree::Sum => pairwise_sum_f64(&leaves),
                    SliceTree::Product => pairwise_product_by(leaves.len(), |i| leaves[i]),
                    SliceTree::PrefixSquares => join_prefix_nodes(&leaves).square_sum,
                };
            }
            Ok(with_bias(fitness.finish(dimension, &roots)?, bias))
        })
        .collect()
}
