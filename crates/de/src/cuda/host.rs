//! The host evaluation of [`DeCuda`](super::DeCuda) (`DeviceEvaluation::Host`, any Rust problem): the
//! vectors reach the host in page-locked chunks ([`HostStaging`], allocated once per engine), rayon
//! evaluates each piece of rows with the problem's `evaluate_checked` as soon as its chunk has landed while
//! the later chunks are still being copied (a lone piece on the calling thread, without a hand-over to the
//! pool and back), and the fitness goes back on the stream ahead of the merge.
//!
//! The pieces follow the host: how finely the rows are cut is chosen by the wall clock of the evaluations
//! ([`PieceTuner`]), so a cheap problem runs in a few pieces, which wake few threads (on a many-core host,
//! waking the whole pool costs far more than a cheap problem's rows), and an expensive one spreads over
//! every thread.
//!
//! Every row's fitness is the problem's own function of that row alone, so the pieces, their sizes, their
//! order and the threads that run them change no value: the fitness is the CPU engine's bit for bit. A
//! non-finite fitness is reported for the lowest row that has one, as the CPU engine's check of the whole
//! population does.

use std::num::NonZeroUsize;
use std::time::Instant;

use evo_core::{ContinuousProblem, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, HostStaging, RowChunk};
use rayon::prelude::*;

use super::host_pieces::PieceTuner;

/// Bytes of vectors per copy chunk: a copy this large runs near the bus's full speed, and the first chunk
/// lands soon after the trials are built.
const CHUNK_BYTES: usize = 512 * 1024;

/// The most chunks per evaluation: each is a copy and an event that the host queues before its work can
/// start, and the host's work, not the copies, is what usually takes longest.
const MAX_CHUNKS: usize = 4;

/// The chunks the vectors of `population × dimension` coordinates are copied in.
fn copy_chunks(population: usize, dimension: usize) -> NonZeroUsize {
    let bytes = population
        .saturating_mul(dimension)
        .saturating_mul(size_of::<f32>());
    NonZeroUsize::new((bytes / CHUNK_BYTES).clamp(1, MAX_CHUNKS)).unwrap_or(NonZeroUsize::MIN)
}

/// The page-locked staging of one engine's host evaluations, and how finely they cut their rows.
pub(super) struct HostEvaluation {
    staging: HostStaging<f32, f64>,
    pieces: PieceTuner,
}

impl HostEvaluation {
    /// Staging on `gpu` for `population` vectors of `dimension` coordinates.
    ///
    /// # Errors
    /// The runtime's refusal to lock that much host memory ([`Error::Driver`]).
    pub(super) fn new(gpu: &Gpu, population: usize, dimension: usize) -> Result<Self> {
        let staging = HostStaging::new(
            gpu,
            population,
            dimension,
            copy_chunks(population, dimension),
        )?;
        let pieces = PieceTuner::new(population, staging.chunks(), rayon::current_num_threads());
        Ok(Self { staging, pieces })
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
        let threads = rayon::current_num_threads();
        if self.pieces.threads() != threads {
            // Called from another rayon pool than the last time: the sizes are made for its threads.
            self.pieces = PieceTuner::new(self.staging.rows(), self.staging.chunks(), threads);
        }
        let piece = self.pieces.choose();
        let start = Instant::now();
        evo_core::catch_problem_panic(problem.name(), || {
            self.staging.run(vectors, fitness, |chunks| {
                let mut pieces: Vec<_> = chunks
                    .into_iter()
                    .flat_map(|chunk| chunk.split_rows(piece))
                    .collect();
                if pieces.len() == 1 {
                    // One piece runs on this thread: handing it to the pool would cost a wake-up there and
                    // one back here, for no parallelism (a problem that uses rayon inside still does).
                    return pieces
                        .pop()
                        .map_or(Ok(()), |only| evaluate_piece(problem, only));
                }
                // A parallel iterator hands the pieces over by splitting them in halves, each thread that
                // takes a half waking the next, so the wake-ups are paid by many threads at once instead of
                // one after another by this one; the outcomes come back in row order.
                let outcomes: Vec<Result<()>> = pieces
                    .into_par_iter()
                    .map(|piece| evaluate_piece(problem, piece))
                    .collect();
                // The first error in row order.
                outcomes.into_iter().collect::<Result<()>>()
            })
        })?;
        self.pieces.record(start.elapsed());
        Ok(())
    }
}

/// Waits for `piece`'s rows and evaluates them.
fn evaluate_piece<P: ContinuousProblem>(problem: &P, piece: RowChunk<'_, f32, f64>) -> Result<()> {
    let first = piece.first_row();
    let (rows, fitness) = piece.wait()?;
    problem
        .evaluate_checked(rows, fitness)
        .map_err(|error| in_population(error, first))
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
