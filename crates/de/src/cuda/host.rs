//! The host evaluation of [`DeCuda`](super::DeCuda) (`DeviceEvaluation::Host`, any Rust problem): the
//! vectors reach the host in page-locked chunks ([`HostStaging`], allocated once per engine), rayon
//! evaluates each piece of rows with the problem's `evaluate_checked` as soon as its chunk has landed while
//! the later chunks are still being copied, and the fitness goes back on the stream ahead of the merge.
//!
//! The pieces follow the work: the engine keeps a running mean of the problem's time per row, measured in
//! the pieces as they run, and a piece carries at least [`GRAIN`] of it, up to [`PIECES_PER_THREAD`] pieces
//! per rayon thread ([`piece_rows`]). A cheap problem then runs in one or a few pieces, which wake few
//! threads (on a many-core host, waking the whole pool costs far more than a cheap problem's rows), and an
//! expensive one still spreads over every thread.
//!
//! Every row's fitness is the problem's own function of that row alone, so the pieces, their sizes, their
//! order and the threads that run them change no value: the fitness is the CPU engine's bit for bit. A
//! non-finite fitness is reported for the lowest row that has one, as the CPU engine's check of the whole
//! population does.

use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use evo_core::{ContinuousProblem, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, HostStaging, RowChunk};
use rayon::prelude::*;

/// Bytes of vectors per copy chunk: a copy this large runs near the bus's full speed, and the first chunk
/// lands soon after the trials are built.
const CHUNK_BYTES: usize = 512 * 1024;

/// The most chunks per evaluation: each is a copy and an event that the host queues before its work can
/// start, and the host's work, not the copies, is what usually takes longest.
const MAX_CHUNKS: usize = 4;

/// The least work per piece: handing a piece to a sleeping rayon thread costs a wake-up (a system call,
/// several microseconds on a virtual machine) and the thread's start, so a piece should carry well over
/// that for the hand-over to pay.
const GRAIN: Duration = Duration::from_micros(50);

/// The most pieces per rayon thread: enough that threads that finish early take others' pieces, and that
/// the pieces of the chunk that lands first keep the pool busy while the later ones are still copied.
const PIECES_PER_THREAD: usize = 4;

/// The running mean of the time per row moves this fraction (1 / `MEAN_WEIGHT`) of the way to each new
/// measurement: one slow generation (a thread descheduled) moves the pieces little, while a change of the
/// problem's cost (its rows converging) is followed within a few generations.
const MEAN_WEIGHT: u32 = 4;

/// The chunks the vectors of `population × dimension` coordinates are copied in.
fn copy_chunks(population: usize, dimension: usize) -> NonZeroUsize {
    let bytes = population
        .saturating_mul(dimension)
        .saturating_mul(size_of::<f32>());
    NonZeroUsize::new((bytes / CHUNK_BYTES).clamp(1, MAX_CHUNKS)).unwrap_or(NonZeroUsize::MIN)
}

/// Rows per piece of `population` rows for `threads` rayon threads when a row takes `per_row` (the
/// running mean; `None` before anything was measured): enough rows for [`GRAIN`] of work, at least one,
/// and no fewer than make [`PIECES_PER_THREAD`] pieces per thread (pieces never span chunks, so there may
/// be one more per chunk).
///
/// Before the first measurement each chunk is one piece: the problem's default `evaluate_batch` spreads a
/// piece's rows over the pool by itself, so an expensive first evaluation still uses every thread, and a
/// cheap one does not pay for a wake-up per piece; the measurement of that evaluation sets the pieces of
/// the next.
fn piece_rows(population: usize, threads: usize, per_row: Option<Duration>) -> NonZeroUsize {
    let rows = match per_row {
        None => population,
        Some(per_row) => {
            let most_pieces = threads.max(1).saturating_mul(PIECES_PER_THREAD);
            let grain_rows = GRAIN.as_nanos().div_ceil(per_row.as_nanos().max(1));
            usize::try_from(grain_rows)
                .unwrap_or(usize::MAX)
                .max(population.div_ceil(most_pieces))
                .min(population)
        }
    };
    NonZeroUsize::new(rows).unwrap_or(NonZeroUsize::MIN)
}

/// The running mean of the time per row after an evaluation of `rows` rows whose pieces took `busy` in
/// all: that evaluation's time per row when there was no mean yet.
fn updated_mean(mean: Option<Duration>, busy: Duration, rows: usize) -> Duration {
    let nanos = busy.as_nanos() / rows.max(1) as u128;
    let sample = Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
    match mean {
        None => sample,
        Some(mean) if sample >= mean => mean.saturating_add((sample - mean) / MEAN_WEIGHT),
        Some(mean) => mean - (mean - sample) / MEAN_WEIGHT,
    }
}

/// The page-locked staging of one engine's host evaluations, and the problem's measured time per row.
pub(super) struct HostEvaluation {
    staging: HostStaging<f32, f64>,
    /// The running mean of the problem's time per row ([`updated_mean`]): the wall clock of each piece's
    /// `evaluate_checked` (not its wait for the rows), summed over the pieces, per row, so it includes
    /// what the problem's own `evaluate_batch` costs to hand rows to other threads; `None` before the first
    /// evaluation that succeeded.
    per_row: Option<Duration>,
}

impl HostEvaluation {
    /// Staging on `gpu` for `population` vectors of `dimension` coordinates.
    ///
    /// # Errors
    /// The runtime's refusal to lock that much host memory ([`Error::Driver`]).
    pub(super) fn new(gpu: &Gpu, population: usize, dimension: usize) -> Result<Self> {
        Ok(Self {
            staging: HostStaging::new(
                gpu,
                population,
                dimension,
                copy_chunks(population, dimension),
            )?,
            per_row: None,
        })
    }

    /// Evaluates the rows of `vectors` into `fitness` on the host (see the module docs); the fitness is
    /// queued on the stream, before whatever is queued next.
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`] for the lowest row with a non-finite fitness, [`Error::ProblemPanicked`]
    /// when the problem panics (nothing is copied back in either case); GPU errors.
    pub(super) fn evaluate<P: ContinuousProblem>(
        &mut self,
        problem: &P,
        vectors: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
    ) -> Result<()> {
        let rows = self.staging.rows();
        let piece = piece_rows(rows, rayon::current_num_threads(), self.per_row);
        let busy = evo_core::catch_problem_panic(problem.name(), || {
            self.staging.run(vectors, fitness, |chunks| {
                let pieces: Vec<_> = chunks
                    .into_iter()
                    .flat_map(|chunk| chunk.split_rows(piece))
                    .collect();
                // A parallel iterator hands the pieces over by splitting them in halves, each thread that
                // takes a half waking the next, so the wake-ups are paid by many threads at once instead of
                // one after another by this one; the outcomes come back in row order.
                let outcomes: Vec<Result<Duration>> = pieces
                    .into_par_iter()
                    .map(|piece| evaluate_piece(problem, piece))
                    .collect();
                // The first error in row order, or the pieces' time in all.
                outcomes
                    .into_iter()
                    .try_fold(Duration::ZERO, |busy, outcome| {
                        Ok(busy.saturating_add(outcome?))
                    })
            })
        })?;
        self.per_row = Some(updated_mean(self.per_row, busy, rows));
        Ok(())
    }
}

/// Waits for `piece`'s rows and evaluates them; returns the time the evaluation took (not the wait).
fn evaluate_piece<P: ContinuousProblem>(
    problem: &P,
    piece: RowChunk<'_, f32, f64>,
) -> Result<Duration> {
    let first = piece.first_row();
    let (rows, fitness) = piece.wait()?;
    let start = Instant::now();
    problem
        .evaluate_checked(rows, fitness)
        .map_err(|error| in_population(error, first))?;
    Ok(start.elapsed())
}

/// `error` of a piece whose first row is row `first` of the population, as the population's: a non-finite
/// fitness names its row in the population.
fn in_population(error: Error, first: usize) -> Error {
    match error {
        Error::NonFiniteFitness {
            problem,
            individual,
            value,
        } => Error::NonFiniteFitness {
            problem,
            individual: first + individual,
            value,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_grow_with_the_bytes_up_to_the_most() {
        assert_eq!(copy_chunks(64, 128).get(), 1);
        assert_eq!(copy_chunks(64, 2048).get(), 1);
        assert_eq!(copy_chunks(64, 4096).get(), 2);
        assert_eq!(copy_chunks(1024, 512).get(), 4);
        assert_eq!(copy_chunks(100, 1_000_000).get(), MAX_CHUNKS);
        assert_eq!(copy_chunks(usize::MAX, usize::MAX).get(), MAX_CHUNKS);
    }

    #[test]
    fn before_any_measurement_each_chunk_is_one_piece() {
        assert_eq!(piece_rows(1024, 64, None).get(), 1024);
        assert_eq!(piece_rows(64, 2, None).get(), 64);
        assert_eq!(piece_rows(0, 64, None).get(), 1);
    }

    #[test]
    fn a_piece_carries_at_least_the_grain_of_work() {
        // 5 µs a row: 10 rows make the 50 µs grain, whatever the threads.
        assert_eq!(GRAIN, Duration::from_micros(50));
        let per_row = Some(Duration::from_micros(5));
        assert_eq!(piece_rows(1024, 64, per_row).get(), 10);
        assert_eq!(piece_rows(1024, 256, per_row).get(), 10);
        // 3 µs: 16.7 rows, rounded up so that no piece carries less than the grain.
        assert_eq!(
            piece_rows(1024, 64, Some(Duration::from_micros(3))).get(),
            17
        );
        // A cheap problem runs in a few pieces instead of four per thread.
        let cheap = Some(Duration::from_nanos(100));
        assert_eq!(piece_rows(1024, 64, cheap).get(), 500);
        assert_eq!(1024usize.div_ceil(piece_rows(1024, 64, cheap).get()), 3);
    }

    #[test]
    fn a_problem_too_cheap_to_split_is_one_piece_per_chunk() {
        assert_eq!(
            piece_rows(64, 64, Some(Duration::from_nanos(100))).get(),
            64
        );
        assert_eq!(piece_rows(1024, 64, Some(Duration::ZERO)).get(), 1024);
    }

    #[test]
    fn an_expensive_problem_gets_several_pieces_per_thread_and_a_piece_at_least_a_row() {
        let expensive = Some(Duration::from_millis(1));
        assert_eq!(piece_rows(1024, 64, expensive).get(), 4);
        assert_eq!(piece_rows(1024, 32, expensive).get(), 8);
        assert_eq!(piece_rows(64, 2, expensive).get(), 8);
        assert_eq!(piece_rows(64, 64, expensive).get(), 1);
        assert_eq!(piece_rows(5, 0, expensive).get(), 2);
        assert_eq!(piece_rows(5, 1, Some(Duration::MAX)).get(), 2);
        assert_eq!(piece_rows(usize::MAX, usize::MAX, expensive).get(), 1);
    }

    #[test]
    fn the_mean_starts_at_the_first_measurement_and_moves_a_quarter_of_the_way() {
        let micros = Duration::from_micros;
        assert_eq!(updated_mean(None, micros(1000), 100), micros(10));
        assert_eq!(
            updated_mean(Some(micros(10)), micros(3000), 100),
            micros(15)
        );
        assert_eq!(updated_mean(Some(micros(10)), micros(200), 100), micros(8));
        assert_eq!(
            updated_mean(Some(micros(10)), micros(1000), 100),
            micros(10)
        );
        assert_eq!(updated_mean(None, micros(7), 0), micros(7));
        // A time per row beyond u64 nanoseconds (584 years) counts as that, and nothing overflows.
        let longest = Duration::from_nanos(u64::MAX);
        assert_eq!(updated_mean(None, Duration::MAX, 1), longest);
        assert_eq!(
            updated_mean(Some(Duration::ZERO), Duration::MAX, 1),
            longest / 4
        );
        assert_eq!(
            updated_mean(Some(Duration::MAX), Duration::ZERO, 1),
            Duration::MAX - Duration::MAX / 4
        );
    }

    #[test]
    fn a_pieces_non_finite_row_is_named_by_its_row_in_the_population() {
        let error = Error::NonFiniteFitness {
            problem: "p".to_string(),
            individual: 3,
            value: f64::NAN,
        };
        match in_population(error, 40) {
            Error::NonFiniteFitness {
                problem,
                individual,
                value,
            } => {
                assert_eq!(problem, "p");
                assert_eq!(individual, 43);
                assert!(value.is_nan());
            }
            other => panic!("expected NonFiniteFitness, got {other}"),
        }
        let other = Error::invalid_parameter("DE", "x", 1, "2");
        assert!(matches!(
            in_population(other, 40),
            Error::InvalidParameter { name: "x", .. }
        ));
    }
}
