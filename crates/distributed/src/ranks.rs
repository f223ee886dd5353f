//! [`Ranks`]: the processes a [`RankedIslandModel`](crate::RankedIslandModel) is spread over, and which
//! islands each one owns.

use crate::params::MODEL;
use evo_core::{Error, Result};
use std::ops::Range;

/// The `R` processes (ranks) of one run, as the island model over ranks needs them: who this process is,
/// and one collective, an all-gather with a deadline. `MpiRanks` (cargo feature `mpi`) implements it over
/// an MPI communicator; any other transport with the same contract can stand in (the crate's tests use
/// threads and channels).
///
/// Every rank calls [`all_gather`](Self::all_gather) the same number of times in the same order; that is
/// the whole protocol.
pub trait Ranks {
    /// This process's rank, in `0 .. size`.
    fn rank(&self) -> usize;

    /// The number of ranks `R ≥ 1`.
    fn size(&self) -> usize;

    /// Every rank's `bytes`, in rank order (this rank's own at index [`rank`](Self::rank)).
    ///
    /// # Errors
    /// [`Error::RankFailed`] naming the lowest rank whose bytes did not arrive before the transport's
    /// deadline (a process that died or hangs), with `exchange` (what was being exchanged, for the
    /// message) and the deadline.
    fn all_gather(&self, bytes: Vec<u8>, exchange: &str) -> Result<Vec<Vec<u8>>>;
}

/// The islands rank `rank` of `ranks` owns out of `islands`: the contiguous block
/// `⌊rank·K/R⌋ .. ⌊(rank+1)·K/R⌋`, so that the blocks cover `0 .. K` in rank order and their sizes differ
/// by at most one.
///
/// ```
/// use evo_distributed::island_block;
///
/// let blocks: Vec<_> = (0..3).map(|rank| island_block(rank, 3, 5)).collect::<Result<_, _>>()?;
/// assert_eq!(blocks, [0..1, 1..3, 3..5]);
/// assert!(island_block(0, 6, 5).is_err());
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for more ranks than islands (a rank without an island would idle) and for
/// a rank outside `0 .. ranks`.
pub fn island_block(rank: usize, ranks: usize, islands: usize) -> Result<Range<usize>> {
    if ranks == 0 || ranks > islands {
        return Err(Error::invalid_parameter(
            MODEL,
            "rank count R",
            ranks,
            format!("in 1 ..= K = {islands} (every rank owns at least one island)"),
        ));
    }
    if rank >= ranks {
        return Err(Error::invalid_parameter(
            MODEL,
            "rank",
            rank,
            format!("in 0 .. R = {ranks}"),
        ));
    }
    // K·R fits in u128 for any usize pair, so the bounds are exact.
    let start = |r: usize| (r as u128 * islands as u128 / ranks as u128) as usize;
    Ok(start(rank)..start(rank + 1))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn blocks_cover_the_islands_in_rank_order_and_differ_by_at_most_one() {
        for islands in 1..=9 {
            for ranks in 1..=islands {
                let blocks: Vec<Range<usize>> = (0..ranks)
                    .map(|rank| island_block(rank, ranks, islands).unwrap())
                    .collect();
                assert_eq!(blocks[0].start, 0);
                assert_eq!(blocks[ranks - 1].end, islands);
                for pair in blocks.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                }
                let sizes: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
                let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(
                    *min >= 1 && max - min <= 1,
                    "{islands} on {ranks}: {sizes:?}"
                );
            }
        }
    }

    #[test]
    fn more_ranks_than_islands_or_a_rank_out_of_range_are_refused() {
        let over = island_block(0, 4, 3).unwrap_err().to_string();
        assert_eq!(
            over,
            "island model: rank count R must be in 1 ..= K = 3 (every rank owns at least one island), got 4"
        );
        let rank = island_block(2, 2, 3).unwrap_err().to_string();
        assert_eq!(rank, "island model: rank must be in 0 .. R = 2, got 2");
    }
}
