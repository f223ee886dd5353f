//! Generations queued without a read-back, so that the engines of one device (the islands of a model)
//! queue theirs back to back on the device's stream and wait once.

use super::DeCuda;
use crate::problem::DeviceProblem;
use evo_core::Result;
#[cfg(doc)]
use evo_core::{Engine, Error};

impl<P: DeviceProblem> DeCuda<P> {
    /// Queues `generations` generations on the device without reading anything back, so that the engines of
    /// one device can queue theirs back to back and wait once ([`DeCuda::read_back`]). Until then
    /// [`progress`](Engine::progress)'s best fitness and [`best`](Engine::best) are those before the queue;
    /// `queue_generations(n)` then `read_back()` equals `step_many(n)`.
    ///
    /// # Errors
    /// As [`Engine::step`] (launch errors; a host evaluation's, which still waits for its trials).
    pub fn queue_generations(&mut self, generations: u64) -> Result<()> {
        for _ in 0..generations {
            self.launch_generation()?;
        }
        Ok(())
    }

    /// Waits for the queued generations and reads the best fitness and index back (and, for a user's fused
    /// problem, reports a non-finite trial fitness of the generations since the last read).
    ///
    /// # Errors
    /// The device's errors; [`Error::NonFiniteFitness`] as [`Engine::step`].
    pub fn read_back(&mut self) -> Result<()> {
        self.read_best()
    }
}
