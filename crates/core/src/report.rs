//! The result of a run, as JSON.

use crate::atomic_file::write_atomically;
use crate::error::{Error, Result};
use crate::history::HistoryPoint;
use crate::termination::TerminationReason;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What an [`Executor`](crate::Executor) returns: the best solution and how the run went.
///
/// Serializes to JSON ([`to_json_pretty`](Self::to_json_pretty), [`write_json`](Self::write_json)); a
/// best fitness or history value that is not finite is written as a string (see [`serde_f64`](crate::serde_f64)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report<S> {
    /// The algorithm's name ([`Engine::algorithm`](crate::Engine::algorithm)).
    pub algorithm: String,
    /// The best solution found.
    pub best: S,
    /// Its fitness (to minimise).
    #[serde(with = "crate::serde_f64")]
    pub best_fitness: f64,
    /// Objective function evaluations, initialisation included.
    pub evaluations: u64,
    /// Generations completed.
    pub generations: u64,
    /// Wall time in seconds, including time before a resume.
    pub wall_time_s: f64,
    /// The rule that ended the run.
    pub termination: TerminationReason,
    /// The trajectory: the initial point, every `history_every`-th generation, and the final point.
    pub history: Vec<HistoryPoint>,
    /// Free-form facts about the run: backend, device, compile profile, seed, problem, commit...
    pub metadata: BTreeMap<String, String>,
}

/// A report without its solution, for [`Observer::on_finish`](crate::Observer::on_finish) (which does not
/// know the solution type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The algorithm's name.
    pub algorithm: String,
    /// The best fitness.
    #[serde(with = "crate::serde_f64")]
    pub best_fitness: f64,
    /// Evaluations.
    pub evaluations: u64,
    /// Generations completed.
    pub generations: u64,
    /// Wall time in seconds.
    pub wall_time_s: f64,
    /// The rule that ended the run.
    pub termination: TerminationReason,
}

impl<S> Report<S> {
    /// The report without its solution, history and metadata.
    pub fn summary(&self) -> Summary {
        Summary {
            algorithm: self.algorithm.clone(),
            best_fitness: self.best_fitness,
            evaluations: self.evaluations,
            generations: self.generations,
            wall_time_s: self.wall_time_s,
            termination: self.termination,
        }
    }

    /// The report with its wall times (the run's and every history point's) set to zero: what two runs of
    /// the same seed must agree on bit for bit, whatever their timing.
    pub fn without_wall_times(mut self) -> Self {
        self.wall_time_s = 0.0;
        for point in &mut self.history {
            point.elapsed_s = 0.0;
        }
        self
    }
}

impl<S: Serialize> Report<S> {
    /// The report as indented JSON.
    ///
    /// # Errors
    /// [`Error::Serialization`] when the solution type's `Serialize` fails.
    pub fn to_json_pretty(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|error| Error::Serialization {
            what: format!("report of {}", self.algorithm),
            reason: error.to_string(),
        })
    }

    /// Writes the report as indented JSON to `path`, atomically (a reader never sees half a file), creating
    /// missing parent directories.
    ///
    /// # Errors
    /// [`Error::Serialization`] as [`to_json_pretty`](Self::to_json_pretty), [`Error::Io`] naming the path.
    pub fn write_json(&self, path: impl AsRef<Path>) -> Result<()> {
        let mut json = self.to_json_pretty()?;
        json.push('\n');
        write_atomically(path.as_ref(), json.as_bytes())
    }
}
