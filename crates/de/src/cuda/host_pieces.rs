//! How finely the host evaluation cuts its rows into pieces for rayon, chosen by the wall clock.
//!
//! A piece handed to a sleeping rayon thread costs a wake-up (a system call; tens of microseconds on some
//! virtual machines), and the problem's own `evaluate_batch` may spread a piece over the pool again. Neither
//! that cost nor the problem's time per row is known in advance, and a model of them measured inside the
//! pieces would count the hand-over as work. So [`PieceTuner`] measures the thing to minimise, the
//! evaluation's wall time, for a short list of piece sizes: one piece per copy chunk, then twice, four
//! times … as many, down to [`PIECES_PER_THREAD`] pieces per rayon thread. Each size is tried once, in that
//! order; then the size with the lowest running mean is used, and every [`EXPLORE_EVERY`]-th evaluation
//! tries one of its two neighbours again (the smaller and the larger by turns), so that a change of the
//! costs (the rows converging, the host's load) moves the choice.
//!
//! The pieces change no value (every row's fitness is the problem's function of that row alone), so the
//! choice, which depends on timings, never changes a run's results.

use std::num::NonZeroUsize;
use std::time::Duration;

/// The most pieces per rayon thread: enough that threads that finish early take others' pieces, and that
/// the pieces of the chunk that lands first keep the pool busy while the later ones are still copied.
pub(super) const PIECES_PER_THREAD: usize = 4;

/// Every this many evaluations, a neighbour of the best size is tried again instead of the best.
pub(super) const EXPLORE_EVERY: u64 = 16;

/// Each measurement moves a size's running mean this fraction (1 / `MEAN_WEIGHT`) of the way: one slow
/// evaluation (a thread descheduled) moves it little, a lasting change within a few tries.
const MEAN_WEIGHT: u32 = 4;

/// The piece size of one host evaluation after another (see the module docs).
#[derive(Debug, Clone)]
pub(super) struct PieceTuner {
    /// The rayon threads the sizes were made for.
    threads: usize,
    /// Rows per piece of each candidate, from the largest (one piece per chunk) to the smallest.
    sizes: Vec<NonZeroUsize>,
    /// Each candidate's running mean of the evaluation's wall time; `None` until tried.
    means: Vec<Option<Duration>>,
    /// Evaluations recorded so far.
    recorded: u64,
    /// The candidate the last [`choose`](Self::choose) handed out.
    current: usize,
}

impl PieceTuner {
    /// The candidates for `rows` rows copied in `chunks` chunks and `threads` rayon threads.
    pub(super) fn new(rows: usize, chunks: usize, threads: usize) -> Self {
        let rows = rows.max(1);
        let most_pieces = threads.max(1).saturating_mul(PIECES_PER_THREAD);
        let smallest = rows.div_ceil(most_pieces);
        let mut sizes = Vec::new();
        let mut pieces = chunks.max(1);
        loop {
            let size = rows.div_ceil(pieces).max(smallest);
            if sizes
                .last()
                .is_none_or(|last: &NonZeroUsize| last.get() > size)
            {
                sizes.push(NonZeroUsize::new(size).unwrap_or(NonZeroUsize::MIN));
            }
            if size <= smallest || pieces >= rows {
                break;
            }
            pieces = pieces.saturating_mul(2);
        }
        let means = vec![None; sizes.len()];
        Self {
            threads,
            sizes,
            means,
            recorded: 0,
            current: 0,
        }
    }

    /// The rayon threads the candidates were made for (a tuner made for other threads is replaced).
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// The candidates' rows per piece, largest first.
    #[cfg(test)]
    fn sizes(&self) -> Vec<usize> {
        self.sizes.iter().map(|size| size.get()).collect()
    }

    /// The rows per piece of the next evaluation.
    pub(super) fn choose(&mut self) -> NonZeroUsize {
        self.current = match self.means.iter().position(Option::is_none) {
            Some(untried) => untried,
            None => {
                let best = self.best();
                let last = self.sizes.len() - 1;
                let round = self.recorded / EXPLORE_EVERY;
                match ((self.recorded + 1).is_multiple_of(EXPLORE_EVERY), last) {
                    (false, _) | (true, 0) => best,
                    (true, _) if best == 0 => 1,
                    (true, _) if best == last => last - 1,
                    (true, _) if round.is_multiple_of(2) => best + 1,
                    (true, _) => best - 1,
                }
            }
        };
        self.sizes[self.current]
    }

    /// Records the wall time of the evaluation run with the last chosen size.
    pub(super) fn record(&mut self, wall: Duration) {
        let mean = &mut self.means[self.current];
        *mean = Some(match *mean {
            None => wall,
            Some(mean) if wall >= mean => mean.saturating_add((wall - mean) / MEAN_WEIGHT),
            Some(mean) => mean - (mean - wall) / MEAN_WEIGHT,
        });
        self.recorded += 1;
    }

    /// The tried candidate with the lowest running mean (the larger pieces on a tie), 0 before any.
    fn best(&self) -> usize {
        self.means
            .iter()
            .enumerate()
            .filter_map(|(i, mean)| mean.map(|mean| (mean, i)))
            .min()
            .map_or(0, |(_, i)| i)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Runs `evaluations` evaluations whose wall time is `cost(rows per piece)`; returns the sizes chosen.
    fn drive(
        tuner: &mut PieceTuner,
        evaluations: usize,
        cost: impl Fn(usize) -> u64,
    ) -> Vec<usize> {
        (0..evaluations)
            .map(|_| {
                let size = tuner.choose().get();
                tuner.record(Duration::from_micros(cost(size)));
                size
            })
            .collect()
    }

    #[test]
    fn the_sizes_go_from_one_piece_per_chunk_to_four_per_thread() {
        assert_eq!(
            PieceTuner::new(1024, 4, 64).sizes(),
            [256, 128, 64, 32, 16, 8, 4]
        );
        assert_eq!(PieceTuner::new(64, 1, 64).sizes(), [64, 32, 16, 8, 4, 2, 1]);
        // 64 rows on 2 threads: at most 8 pieces of 8 rows.
        assert_eq!(PieceTuner::new(64, 1, 2).sizes(), [64, 32, 16, 8]);
        // Uneven halvings round up, and never go below the four-per-thread size.
        assert_eq!(PieceTuner::new(100, 1, 4).sizes(), [100, 50, 25, 13, 7]);
        // One thread: one piece per chunk, then down to four pieces.
        assert_eq!(PieceTuner::new(10, 2, 1).sizes(), [5, 3]);
        assert_eq!(PieceTuner::new(1, 1, 64).sizes(), [1]);
        assert_eq!(PieceTuner::new(0, 0, 0).sizes(), [1]);
    }

    #[test]
    fn every_size_is_tried_once_then_the_fastest_is_kept() {
        let mut tuner = PieceTuner::new(64, 1, 2);
        // Fastest at 16 rows per piece.
        let cost = |size: usize| (size as u64).abs_diff(16) + 100;
        let chosen = drive(&mut tuner, 15, cost);
        assert_eq!(chosen[..4], [64, 32, 16, 8]);
        assert!(chosen[4..].iter().all(|&size| size == 16), "{chosen:?}");
    }

    #[test]
    fn a_neighbour_of_the_best_is_tried_again_by_turns() {
        let mut tuner = PieceTuner::new(1024, 4, 64);
        let cost = |size: usize| (size as u64).abs_diff(32) + 100;
        let every = usize::try_from(EXPLORE_EVERY).unwrap();
        let chosen = drive(&mut tuner, 4 * every, cost);
        let explored: Vec<usize> = (1..=4).map(|round| chosen[round * every - 1]).collect();
        assert_eq!(explored, [16, 64, 16, 64]);
        let kept = chosen
            .iter()
            .enumerate()
            .skip(tuner.sizes().len())
            .filter(|(i, _)| !(i + 1).is_multiple_of(every));
        assert!(kept.clone().all(|(_, &size)| size == 32), "{chosen:?}");
        assert!(kept.count() > 40);
    }

    #[test]
    fn a_lasting_change_of_the_costs_moves_the_choice() {
        let mut tuner = PieceTuner::new(64, 1, 64);
        // First the largest pieces are fastest (a cheap problem); then the rows get expensive and every
        // halving of the pieces pays.
        let cheap = |size: usize| 1000 - size as u64;
        drive(&mut tuner, 40, cheap);
        assert_eq!(tuner.choose().get(), 64);
        tuner.record(Duration::from_micros(1000 - 64));
        let expensive = |size: usize| 100 * size as u64;
        drive(
            &mut tuner,
            40 * usize::try_from(EXPLORE_EVERY).unwrap(),
            expensive,
        );
        assert_eq!(tuner.sizes[tuner.best()].get(), 1, "{:?}", tuner.means);
    }

    #[test]
    fn a_single_size_is_always_chosen() {
        let mut tuner = PieceTuner::new(1, 1, 64);
        assert!(drive(&mut tuner, 40, |_| 5).iter().all(|&size| size == 1));
        assert_eq!(tuner.threads(), 64);
    }

    #[test]
    fn the_mean_starts_at_the_first_time_and_moves_a_quarter_of_the_way() {
        let mut tuner = PieceTuner::new(8, 1, 1);
        let micros = Duration::from_micros;
        tuner.choose();
        tuner.record(micros(100));
        assert_eq!(tuner.means[0], Some(micros(100)));
        tuner.current = 0;
        tuner.record(micros(500));
        assert_eq!(tuner.means[0], Some(micros(200)));
        tuner.current = 0;
        tuner.record(micros(0));
        assert_eq!(tuner.means[0], Some(micros(150)));
        tuner.current = 0;
        tuner.record(Duration::MAX);
        assert!(tuner.means[0].is_some());
    }
}
