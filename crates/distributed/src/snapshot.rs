//! [`IslandSnapshot`]: every island's snapshot and the migration counter.

use crate::migration::Migrate;
use crate::params::IslandParams;
use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// The whole state of an island model: each island's own snapshot (of either backend) in island order,
/// the model's generation and the migrations done. Checkpoints store it through the project's format
/// ([`evo_core::checkpoint`]); restoring it on any placement continues the run bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IslandSnapshot<S> {
    /// Generations completed by every island.
    pub generation: u64,
    /// Migrations done: `generation div m`.
    pub migrations: u64,
    /// Island `i`'s snapshot at index `i`.
    pub islands: Vec<S>,
}

impl<S: Migrate> IslandSnapshot<S> {
    /// Checks what the model can check before the islands check their own snapshots: `K` snapshots, each at
    /// the model's generation, and `migrations = generation div m`.
    pub(crate) fn check(&self, params: &IslandParams) -> Result<()> {
        let algorithm = S::ALGORITHM;
        if self.islands.len() != params.islands() {
            return Err(Error::invalid_snapshot(
                algorithm,
                "islands",
                format!("{} island snapshots", self.islands.len()),
                format!("one per island, K = {}", params.islands()),
            ));
        }
        if let Some((i, island)) = self
            .islands
            .iter()
            .enumerate()
            .find(|(_, island)| island.generation() != self.generation)
        {
            return Err(Error::invalid_snapshot(
                algorithm,
                format!("islands[{i}].generation"),
                island.generation(),
                format!("the model's generation {}", self.generation),
            ));
        }
        let migrations = self.generation / params.migration_interval();
        if self.migrations != migrations {
            return Err(Error::invalid_snapshot(
                algorithm,
                "migrations",
                self.migrations,
                format!(
                    "generation div m = {} div {} = {migrations}",
                    self.generation,
                    params.migration_interval()
                ),
            ));
        }
        Ok(())
    }
}
