//! [`Island`]: what the island model asks of one island's engine, a migration's two halves.
//!
//! Between migrations the model starts every island's steps ([`Island::start_steps`]) before it finishes
//! any ([`Island::finish_steps`]): a CUDA DE island queues its generations on its device's stream and reads
//! its best back when finishing, so the islands of one device run back to back with one wait.
//!
//! A migration takes every island's [`departure`](Island::departure) (its `k` best, best first, and where
//! the next island's migrants will land: its `k` worst, worst first, ranked before any slot changes), then
//! hands each island its predecessor's emigrants with its own [`Landing`] ([`Island::land`]). The provided
//! methods go through a whole snapshot, one read and one restore per island and migration, which every
//! engine supports; an engine that can read and write single slots overrides both and moves only its
//! migrants (DE: [`DeCuda`](evo_de::DeCuda) reads `k` vectors and writes `k` rows, each way in one batch
//! of copies through page-locked staging, instead of copying `M × D` coordinates each way). Both ways give
//! the same result bit for bit, which the tests check against [`ring_migration`](crate::ring_migration).

use crate::migration::{Migrate, emigrants, immigrate, ranking};
use crate::params::MODEL;
use evo_core::{Engine, Error, Result};

/// Where an island's arriving migrants go, from its [`Island::departure`].
#[derive(Clone, Debug, PartialEq)]
pub enum Landing<S> {
    /// The island's snapshot, taken at departure: the migrants are settled into it ([`Migrate::settle`]
    /// into the worst slots, then [`Migrate::after_migration`]) and it is restored.
    Snapshot(S),
    /// The island's slots, worst first, ranked at departure: migrant `r` replaces slot `r`.
    Slots(Vec<usize>),
}

/// One island's half of a migration: its emigrants and where its arrivals land.
#[derive(Clone, Debug, PartialEq)]
pub struct Departure<S: Migrate> {
    /// The island's `k` best individuals, best first.
    pub emigrants: Vec<S::Migrant>,
    /// Where the predecessor's emigrants will go.
    pub landing: Landing<S>,
}

impl<S: Migrate> Departure<S> {
    /// The departure of an island whose population has `fitness`: its `k` best slots read with
    /// `individuals` (best first), and its `k` worst (worst first) as [`Landing::Slots`]; the ranking is
    /// [`ranking`]'s, as [`ring_migration`](crate::ring_migration)'s.
    ///
    /// # Errors
    /// The error of `individuals`.
    pub fn from_slots(
        fitness: &[f64],
        migrants: usize,
        individuals: impl FnOnce(&[usize]) -> Result<Vec<S::Migrant>>,
    ) -> Result<Self> {
        let ranked = ranking(fitness);
        let best: Vec<usize> = ranked.iter().copied().take(migrants).collect();
        let worst: Vec<usize> = ranked.iter().rev().copied().take(migrants).collect();
        Ok(Self {
            emigrants: individuals(&best)?,
            landing: Landing::Slots(worst),
        })
    }
}

/// An island of the model: an [`Engine`] whose snapshot [`Migrate`]s, with a migration's two halves. The
/// provided methods take a snapshot at departure and restore it on landing; engines that read and write
/// single slots override both (see the module docs). Every engine the crate's builders use implements it.
pub trait Island: Engine<Snapshot: Migrate> {
    /// Starts `steps` steps; [`finish_steps`](Island::finish_steps) completes them. The model starts the
    /// steps of every island of a backend before it finishes any, so that a device's islands queue their
    /// generations back to back and wait once. Provided: [`step_many`](Engine::step_many) (the steps are
    /// done here, and finishing does nothing).
    ///
    /// # Errors
    /// The engine's errors, as `step_many`'s.
    fn start_steps(&mut self, steps: u64) -> Result<()> {
        self.step_many(steps)
    }

    /// Completes the steps [`start_steps`](Island::start_steps) began: after it the engine is as after
    /// `step_many(steps)`. Provided: nothing to do.
    ///
    /// # Errors
    /// The engine's errors, as `step_many`'s.
    fn finish_steps(&mut self) -> Result<()> {
        Ok(())
    }

    /// The island's emigrants (its `migrants` best, best first) and where its arrivals will land, read
    /// before any island of the migration changes.
    ///
    /// # Errors
    /// The engine's errors (reading its state).
    fn departure(&self, migrants: usize) -> Result<Departure<Self::Snapshot>> {
        let snapshot = self.snapshot()?;
        Ok(Departure {
            emigrants: emigrants(&snapshot, migrants),
            landing: Landing::Snapshot(snapshot),
        })
    }

    /// Settles `arrivals` (the predecessor's emigrants, best first) where `landing` says: arrival `r`
    /// into the `r`-th worst slot.
    ///
    /// # Errors
    /// The engine's errors (writing its state); [`Error::InvalidParameter`] for a [`Landing::Slots`] here,
    /// which only an engine that overrides [`departure`](Island::departure) produces and must take.
    fn land(
        &mut self,
        landing: Landing<Self::Snapshot>,
        arrivals: Vec<<Self::Snapshot as Migrate>::Migrant>,
    ) -> Result<()> {
        match landing {
            Landing::Snapshot(mut snapshot) => {
                immigrate(&mut snapshot, arrivals);
                self.restore(&snapshot)
            }
            Landing::Slots(_) => Err(Error::invalid_parameter(
                MODEL,
                "landing",
                "slots without the island's snapshot",
                "a snapshot, unless the engine overrides Island::land to write slots itself",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_de::DeSnapshot;

    #[test]
    fn a_departure_from_slots_sends_the_best_first_and_lands_on_the_worst_first() {
        // Ties go to the lower slot: slot 1 before slot 5 among the best, slot 4 before slot 0 among the
        // worst (slot 4 ranks after slot 0, so it is the worse).
        let fitness = [7.0, 1.0, 3.0, 9.0, 7.0, 1.0];
        let mut asked = Vec::new();
        let departure = Departure::<DeSnapshot>::from_slots(&fitness, 2, |slots| {
            asked = slots.to_vec();
            Ok(Vec::new())
        })
        .unwrap();
        assert_eq!(asked, [1, 5]);
        assert_eq!(departure.landing, Landing::Slots(vec![3, 4]));
    }

    #[test]
    fn an_error_reading_the_emigrants_is_the_departures() {
        let error = Departure::<DeSnapshot>::from_slots(&[1.0, 2.0], 1, |_| {
            Err(Error::invalid_parameter("test", "slot", 9, "below 2"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("below 2"), "{error}");
    }
}
