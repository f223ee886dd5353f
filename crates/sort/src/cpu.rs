//! The CPU twins: plain Rust (rayon where the work is large) producing the same permutations, ranks and
//! selections as the kernels of [`crate::cuda`], under the order of [`crate::order`].
//!
//! Each function sorts `(order key, index)` tuples, whose tuple order is exactly the crate's order on pairs
//! (key, then lower index). The order is strict, so every correct sort gives the same result and the twins
//! need not copy the kernels' networks; rayon's parallel sort and a sequential sort agree element for element.
//! Run them inside `rayon::ThreadPoolBuilder::new().num_threads(1)` for a single-thread figure.

use evo_core::{Error, Result};
use rayon::prelude::*;

use crate::limits::{COMPONENT, check_len, check_rows, check_segments, check_top_k};
use crate::order::SortKey;

/// Elements per rayon task in the argmin / argmax scan: fixed, so the partial results do not depend on the
/// number of threads (they could not differ anyway: the first pair of a strict order is unique).
const SELECT_CHUNK: usize = 1 << 16;

/// A segmented sort's output: per segment, the local indices in sorted order and the values in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct SortedSegments<T> {
    /// `order[s·len + r]` is the index, within segment `s`, of the entry of rank `r`.
    pub order: Vec<u32>,
    /// `sorted[s·len + r] = fitness[s·len + order[s·len + r]]`.
    pub sorted: Vec<T>,
}

fn keyed<T: SortKey>(values: &[T]) -> Vec<(T::Key, u32)> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (v.order_key(), i as u32))
        .collect()
}

/// Sorts each segment of `segment_len` entries (1..=4096) independently. Twin: `cuda::sort_segments`
/// (`sort_segments_bitonic_*`). O(n log segment_len) work, segments in parallel.
pub fn sort_segments<T: SortKey>(fitness: &[T], segment_len: usize) -> Result<SortedSegments<T>> {
    check_segments("sort_segments", fitness.len(), segment_len)?;
    let mut order = vec![0u32; fitness.len()];
    let mut sorted = fitness.to_vec();
    order
        .par_chunks_mut(segment_len)
        .zip(sorted.par_chunks_mut(segment_len))
        .zip(fitness.par_chunks(segment_len))
        .for_each(|((order, sorted), segment)| {
            let mut pairs = keyed(segment);
            pairs.sort_unstable();
            for (rank, &(_, from)) in pairs.iter().enumerate() {
                order[rank] = from;
                sorted[rank] = segment[from as usize];
            }
        });
    Ok(SortedSegments { order, sorted })
}

/// Sorts one population of 1..=4096 entries. Twin: `cuda::sort_population`.
pub fn sort_population<T: SortKey>(fitness: &[T]) -> Result<SortedSegments<T>> {
    if fitness.is_empty() {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "population size",
            0,
            "in 1..=4096",
        ));
    }
    sort_segments(fitness, fitness.len())
}

/// Checks that each segment of `order` is a permutation of `0..segment_len`.
fn check_permutation(routine: &'static str, order: &[u32], segment_len: usize) -> Result<()> {
    let mut seen = vec![false; segment_len];
    for (segment, chunk) in order.chunks(segment_len.max(1)).enumerate() {
        seen.iter_mut().for_each(|s| *s = false);
        for &from in chunk {
            let from = from as usize;
            if from >= chunk.len() || std::mem::replace(&mut seen[from], true) {
                return Err(Error::invalid_parameter(
                    COMPONENT,
                    "order",
                    format!(
                        "index {from} repeated or out of range in segment {segment} (in {routine})"
                    ),
                    format!("a permutation of 0..{} in every segment", chunk.len()),
                ));
            }
        }
    }
    Ok(())
}

/// Copies the rows of `src` (rows of `words_per_row` u32 words) into sorted order: row `r` of the result is
/// row `s·segment_len + order[r]` of `src`, where `s = r / segment_len`. `order` must be a permutation of
/// each segment. Twin: `cuda::exchange_rows` (`sort_exchange_rows_u32`, the GA paper's second kernel).
pub fn exchange_rows(
    src: &[u32],
    order: &[u32],
    words_per_row: usize,
    segment_len: usize,
) -> Result<Vec<u32>> {
    check_rows(src.len(), words_per_row, order.len())?;
    check_segments("exchange_rows", order.len(), segment_len)?;
    check_permutation("exchange_rows", order, segment_len)?;
    let mut dst = vec![0u32; src.len()];
    dst.par_chunks_mut(words_per_row)
        .enumerate()
        .for_each(|(row, target)| {
            let from = row / segment_len * segment_len + order[row] as usize;
            target.copy_from_slice(&src[from * words_per_row..(from + 1) * words_per_row]);
        });
    Ok(dst)
}

/// The permutation that sorts `fitness`: `order[r]` is the index of the entry of rank `r`. Twin:
/// `cuda::argsort` (LSD radix sort). O(n log n), parallel.
pub fn argsort<T: SortKey>(fitness: &[T]) -> Result<Vec<u32>> {
    check_len("argsort", fitness.len())?;
    let mut pairs: Vec<(T::Key, u32)> = fitness
        .par_iter()
        .enumerate()
        .map(|(i, v)| (v.order_key(), i as u32))
        .collect();
    pairs.par_sort_unstable();
    Ok(pairs.into_par_iter().map(|(_, i)| i).collect())
}

/// The inverse permutation: `ranks[order[r]] = r`. `order` must be a permutation of `0..n`. Twin:
/// `cuda::ranks_from_order`.
pub fn ranks_from_order(order: &[u32]) -> Result<Vec<u32>> {
    check_len("ranks_from_order", order.len())?;
    check_permutation("ranks_from_order", order, order.len())?;
    let mut ranks = vec![0u32; order.len()];
    for (rank, &from) in order.iter().enumerate() {
        ranks[from as usize] = rank as u32;
    }
    Ok(ranks)
}

/// The rank of every entry: `ranks[i]` is the position of entry `i` in sorted order (0 for the best).
/// Twin: `cuda::ranks`.
pub fn ranks<T: SortKey>(fitness: &[T]) -> Result<Vec<u32>> {
    ranks_from_order(&argsort(fitness)?)
}

/// `out[r] = values[order[r]]`; `order` must be a permutation of `0..n`. Twin: `cuda::gather`.
pub fn gather<T: SortKey>(values: &[T], order: &[u32]) -> Result<Vec<T>> {
    if values.len() != order.len() {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "order length",
            format!("{} (in gather of {} values)", order.len(), values.len()),
            "the number of values",
        ));
    }
    check_permutation("gather", order, order.len())?;
    Ok(order.iter().map(|&from| values[from as usize]).collect())
}

/// The index of the first pair under the order (`largest == false`) or under the order with keys reversed
/// and indices not (`largest == true`); `None` for an empty slice.
fn select<T: SortKey>(fitness: &[T], largest: bool) -> Option<usize> {
    let better = |a: (T::Key, usize), b: (T::Key, usize)| -> bool {
        let by_key = if largest {
            b.0.cmp(&a.0)
        } else {
            a.0.cmp(&b.0)
        };
        by_key.then(a.1.cmp(&b.1)).is_lt()
    };
    let partial: Vec<(T::Key, usize)> = fitness
        .par_chunks(SELECT_CHUNK)
        .enumerate()
        .filter_map(|(chunk, values)| {
            values
                .iter()
                .enumerate()
                .map(|(i, v)| (v.order_key(), chunk * SELECT_CHUNK + i))
                .reduce(|a, b| if better(b, a) { b } else { a })
        })
        .collect();
    partial
        .into_iter()
        .reduce(|a, b| if better(b, a) { b } else { a })
        .map(|(_, index)| index)
}

/// The index of the smallest value, the lowest index among equals; a NaN only when every value is NaN.
/// `None` for an empty slice. Twin: `cuda::argmin`.
pub fn argmin<T: SortKey>(fitness: &[T]) -> Option<usize> {
    select(fitness, false)
}

/// The index of the largest value under the same value order (so any NaN counts as largest, as it is the
/// worst fitness of a minimisation), the lowest index among equals. `None` for an empty slice. Twin:
/// `cuda::argmax`.
pub fn argmax<T: SortKey>(fitness: &[T]) -> Option<usize> {
    select(fitness, true)
}

/// The indices of the `k` first entries in sorted order (1 ≤ k ≤ min(n, 1024)), best first: the first `k`
/// of [`argsort`]. O(n + k log k). Twin: `cuda::top_k`.
pub fn top_k<T: SortKey>(fitness: &[T], k: usize) -> Result<Vec<u32>> {
    check_top_k(fitness.len(), k)?;
    let mut pairs = keyed(fitness);
    pairs.select_nth_unstable(k - 1);
    pairs.truncate(k);
    pairs.sort_unstable();
    Ok(pairs.into_iter().map(|(_, i)| i).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const AWKWARD: [f64; 10] = [
        3.0,
        f64::NAN,
        -0.0,
        0.0,
        f64::NEG_INFINITY,
        3.0,
        -f64::NAN,
        f64::INFINITY,
        -0.0,
        1.0,
    ];

    #[test]
    fn argsort_puts_nans_last_by_index_and_minus_zero_first() {
        let order = argsort(&AWKWARD).unwrap();
        assert_eq!(order, [4, 2, 8, 3, 9, 0, 5, 7, 1, 6]);
        let f32s: Vec<f32> = AWKWARD.iter().map(|&v| v as f32).collect();
        assert_eq!(argsort(&f32s).unwrap(), order);
    }

    #[test]
    fn segments_sort_independently_and_carry_values() {
        let sorted = sort_segments(&AWKWARD, 5).unwrap();
        assert_eq!(sorted.order, [4, 2, 3, 0, 1, 3, 4, 0, 2, 1]);
        assert_eq!(sorted.sorted[0], f64::NEG_INFINITY);
        assert!(sorted.sorted[4].is_nan());
        assert_eq!(sorted.sorted[5].to_bits(), (-0.0f64).to_bits());
        assert!(sort_segments(&AWKWARD, 3).is_err());
        assert!(sort_population::<f64>(&[]).is_err());
    }

    #[test]
    fn ranks_invert_the_order_and_gather_follows_it() {
        let order = argsort(&AWKWARD).unwrap();
        let ranks = ranks(&AWKWARD).unwrap();
        for (rank, &from) in order.iter().enumerate() {
            assert_eq!(ranks[from as usize] as usize, rank);
        }
        let values = gather(&AWKWARD, &order).unwrap();
        assert_eq!(values[0], f64::NEG_INFINITY);
        assert!(ranks_from_order(&[0, 0]).is_err());
        assert!(gather(&AWKWARD[..2], &[0, 2]).is_err());
    }

    #[test]
    fn exchange_moves_rows_within_segments() {
        let src: Vec<u32> = (0..12).collect();
        let dst = exchange_rows(&src, &[1, 0, 2, 0, 1, 2], 2, 3).unwrap();
        assert_eq!(dst, [2, 3, 0, 1, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert!(exchange_rows(&src, &[1, 1, 2, 0, 1, 2], 2, 3).is_err());
        assert!(exchange_rows(&src, &[0, 1, 2], 2, 3).is_err());
    }

    #[test]
    fn selections_break_ties_by_lower_index() {
        assert_eq!(argmin(&AWKWARD), Some(4));
        assert_eq!(argmax(&AWKWARD), Some(1));
        assert_eq!(argmax(&[1.0f32, 2.0, 2.0]), Some(1));
        assert_eq!(argmin(&[f32::NAN, f32::NAN]), Some(0));
        assert_eq!(argmin::<f64>(&[]), None);
        assert_eq!(top_k(&AWKWARD, 4).unwrap(), [4, 2, 8, 3]);
        assert_eq!(top_k(&AWKWARD, 10).unwrap(), argsort(&AWKWARD).unwrap());
    }
}
