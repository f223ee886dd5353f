//! [`IslandParams`]: the island count `K`, the migration interval `m` and the migrant count `k`.

use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// The name errors of the island model carry.
pub(crate) const MODEL: &str = "island model";

/// The island model's parameters, validated by the `with_*` setters.
///
/// | parameter | default | range |
/// | --- | --- | --- |
/// | islands `K` | 4 | `1 ..` |
/// | migration interval `m` (generations) | 25 | `1 ..` |
/// | migrants `k` per island and migration | 1 | `1 ..= M/2` (checked when the model is built, against the population size `M`) |
///
/// They are part of the run's identity (its [`RunFingerprint`](evo_core::RunFingerprint)); where the
/// islands run is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IslandParams {
    islands: usize,
    migration_interval: u64,
    migrants: usize,
}

impl Default for IslandParams {
    fn default() -> Self {
        Self {
            islands: 4,
            migration_interval: 25,
            migrants: 1,
        }
    }
}

impl IslandParams {
    /// `K` islands (`K ≥ 1`; with `K = 1` the ring is the island itself, see the crate docs).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_islands(mut self, islands: usize) -> Result<Self> {
        if islands == 0 {
            return Err(Error::invalid_parameter(
                MODEL,
                "island count K",
                islands,
                "at least 1",
            ));
        }
        self.islands = islands;
        Ok(self)
    }

    /// Migration after every `m`-th generation (`m ≥ 1`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_migration_interval(mut self, generations: u64) -> Result<Self> {
        if generations == 0 {
            return Err(Error::invalid_parameter(
                MODEL,
                "migration interval m",
                generations,
                "at least 1 generation",
            ));
        }
        self.migration_interval = generations;
        Ok(self)
    }

    /// `k` migrants per island and migration (`k ≥ 1`; at most half the population, checked when the model
    /// is built).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_migrants(mut self, migrants: usize) -> Result<Self> {
        if migrants == 0 {
            return Err(Error::invalid_parameter(
                MODEL,
                "migrant count k",
                migrants,
                "at least 1 (islands that never exchange anyone are independent runs)",
            ));
        }
        self.migrants = migrants;
        Ok(self)
    }

    /// The island count `K`.
    pub fn islands(&self) -> usize {
        self.islands
    }

    /// The migration interval `m`, in generations.
    pub fn migration_interval(&self) -> u64 {
        self.migration_interval
    }

    /// The migrant count `k`.
    pub fn migrants(&self) -> usize {
        self.migrants
    }

    /// Checks `k ≤ M/2` for islands of `population` individuals, so that an island's `k` best and `k` worst
    /// are disjoint (its best is never overwritten by a migration).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `k`, `M` and the limit.
    pub fn check_population(&self, population: usize) -> Result<()> {
        if self.migrants > population / 2 {
            return Err(Error::invalid_parameter(
                MODEL,
                "migrant count k",
                self.migrants,
                format!(
                    "at most half the population size M = {population}, i.e. at most {}",
                    population / 2
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn zero_islands_interval_or_migrants_are_refused_with_the_allowed_range() {
        let p = IslandParams::default();
        let k0 = p.with_islands(0).unwrap_err().to_string();
        assert_eq!(k0, "island model: island count K must be at least 1, got 0");
        let m0 = p.with_migration_interval(0).unwrap_err().to_string();
        assert_eq!(
            m0,
            "island model: migration interval m must be at least 1 generation, got 0"
        );
        let migrants = p.with_migrants(0).unwrap_err().to_string();
        assert!(migrants.starts_with("island model: migrant count k must be at least 1"));
        let set = p
            .with_islands(3)
            .unwrap()
            .with_migration_interval(7)
            .unwrap()
            .with_migrants(2)
            .unwrap();
        assert_eq!(
            (set.islands(), set.migration_interval(), set.migrants()),
            (3, 7, 2)
        );
    }

    #[test]
    fn more_migrants_than_half_the_population_are_refused() {
        let p = IslandParams::default().with_migrants(3).unwrap();
        assert!(p.check_population(6).is_ok());
        let error = p.check_population(5).unwrap_err().to_string();
        assert_eq!(
            error,
            "island model: migrant count k must be at most half the population size M = 5, i.e. at most 2, got 3"
        );
    }
}
