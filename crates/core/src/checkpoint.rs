//! Checkpoints: an engine snapshot and the executor's state, saved to disk so a run can resume.
//!
//! # File format
//!
//! A checkpoint is one JSON object (written compactly):
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "algorithm": "DE",
//!   "snapshot": { "...": "the engine's Snapshot, shared by its CPU and CUDA engines" },
//!   "executor": {
//!     "steps": 40, "elapsed": { "secs": 3, "nanos": 250000000 },
//!     "history": [ { "generation": 0, "evaluations": 50, "best_fitness": 12.5, "elapsed_s": 0.01 } ],
//!     "stagnation": { "reference": 0.25, "stagnant_generations": 3 },
//!     "best_fitness": 0.25
//!   }
//! }
//! ```
//!
//! `format_version` changes whenever this layout changes; a file of another version, of another algorithm,
//! or that does not parse is refused with [`Error::Checkpoint`] saying which. Floats keep every bit (the
//! crate enables serde_json's `float_roundtrip`), so a resumed run continues bit for bit.
//!
//! # Atomic writes
//!
//! The file is written to `<path>.tmp`, flushed to disk (`fsync`), then renamed over `<path>`, so a crash
//! or a power cut at any moment leaves either the previous checkpoint or the new one, never half a file.

use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::report::HistoryPoint;
use crate::termination::StagnationState;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The checkpoint layout version this build writes and reads.
pub const CHECKPOINT_FORMAT_VERSION: u32 = 1;

/// Where and how often the [`Executor`](crate::Executor) saves checkpoints.
///
/// A checkpoint is written after every `every`-th step, when the run ends (whatever the reason, Ctrl-C
/// included), and, when a step fails, with the state after the last successful step.
///
/// To make that last guarantee without reading a failed engine's state, the executor keeps a snapshot of the
/// state after each step in memory. For engines whose snapshot is expensive (a CUDA engine with a huge
/// population copies it to the host every step) turn that off with
/// [`with_last_good_snapshot(false)`](Self::with_last_good_snapshot): a failing step then leaves the last
/// periodic checkpoint, up to `every - 1` steps old.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpointing {
    path: PathBuf,
    every: u64,
    last_good_snapshot: bool,
}

impl Checkpointing {
    /// Saves to `path` every `every` steps.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `every` is 0 or `path` does not name a file.
    pub fn new(path: impl Into<PathBuf>, every: u64) -> Result<Self> {
        let path = path.into();
        if every == 0 {
            return Err(Error::invalid_parameter(
                "Checkpointing",
                "every",
                every,
                "at least 1",
            ));
        }
        if path.file_name().is_none() {
            return Err(Error::invalid_parameter(
                "Checkpointing",
                "path",
                path.display(),
                "a file path (not a directory or `..`)",
            ));
        }
        Ok(Self {
            path,
            every,
            last_good_snapshot: true,
        })
    }

    /// Whether to keep a snapshot after every step so that a failing step saves the state after the last
    /// successful step (default `true`; see the type docs for the cost).
    pub fn with_last_good_snapshot(mut self, enabled: bool) -> Self {
        self.last_good_snapshot = enabled;
        self
    }

    /// The checkpoint file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Steps between two periodic checkpoints.
    pub fn every(&self) -> u64 {
        self.every
    }

    /// Whether a snapshot is kept after every step.
    pub fn last_good_snapshot(&self) -> bool {
        self.last_good_snapshot
    }
}

/// The executor's part of a checkpoint: everything besides the engine that a resumed run needs to end with
/// the same report as an uninterrupted one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunState {
    /// Steps taken by executors on this run, across resumes (drives the history and checkpoint cadence).
    pub(crate) steps: u64,
    /// Wall time spent on this run before the current session.
    pub(crate) elapsed: Duration,
    /// The history sampled so far (without the final point, which is added to the report only).
    pub(crate) history: Vec<HistoryPoint>,
    /// The stagnation counter.
    pub(crate) stagnation: StagnationState,
    /// The lowest best fitness reported so far.
    #[serde(with = "crate::serde_f64")]
    pub(crate) best_fitness: f64,
}

impl RunState {
    /// The state of a fresh run whose engine is at `progress`: no step taken, the initial history point.
    pub(crate) fn start(progress: &Progress) -> Self {
        Self {
            steps: 0,
            elapsed: Duration::ZERO,
            history: vec![HistoryPoint::new(progress, Duration::ZERO)],
            stagnation: StagnationState::new(progress.best_fitness),
            best_fitness: progress.best_fitness,
        }
    }

    /// Accounts for one successful step that brought the engine to `progress` at `now`: the step count, the
    /// best fitness, the stagnation counter, and a history point every `history_every` steps.
    pub(crate) fn record_step(
        &mut self,
        progress: &Progress,
        now: Duration,
        min_improvement: f64,
        history_every: u64,
    ) {
        self.steps += 1;
        self.best_fitness = self.best_fitness.min(progress.best_fitness);
        self.stagnation
            .update(progress.best_fitness, min_improvement);
        if self.steps.is_multiple_of(history_every) {
            self.history.push(HistoryPoint::new(progress, now));
        }
    }
}

/// The file as written, borrowing its parts to avoid copying a large snapshot.
#[derive(Serialize)]
struct CheckpointOut<'a, S> {
    format_version: u32,
    algorithm: &'a str,
    snapshot: &'a S,
    executor: &'a RunState,
}

/// The file as read.
#[derive(Deserialize)]
struct CheckpointIn<S> {
    format_version: u32,
    algorithm: String,
    snapshot: S,
    executor: RunState,
}

/// Only the identifying fields, to explain why a file that does not parse as a whole was refused.
#[derive(Deserialize)]
struct Header {
    format_version: u32,
    algorithm: String,
}

/// Writes a checkpoint atomically.
pub(crate) fn write<S: Serialize>(
    path: &Path,
    algorithm: &str,
    snapshot: &S,
    state: &RunState,
) -> Result<()> {
    let file = CheckpointOut {
        format_version: CHECKPOINT_FORMAT_VERSION,
        algorithm,
        snapshot,
        executor: state,
    };
    let json = serde_json::to_vec(&file).map_err(|error| Error::Serialization {
        what: format!("checkpoint of {algorithm}"),
        reason: error.to_string(),
    })?;
    write_atomically(path, &json)
}

/// Reads a checkpoint written for `algorithm`.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read, [`Error::Checkpoint`] when it is not a checkpoint of this
/// format version and algorithm, or its snapshot does not fit the engine's snapshot type.
pub(crate) fn read<S: DeserializeOwned>(path: &Path, algorithm: &str) -> Result<(S, RunState)> {
    let bytes = fs::read(path).map_err(|error| Error::io(path, error))?;
    let refuse = |reason: String| Error::Checkpoint {
        path: path.to_path_buf(),
        reason,
    };
    // The whole file is parsed once; only when that fails is the header parsed again to say why, so a large
    // checkpoint costs one pass in the common case.
    match serde_json::from_slice::<CheckpointIn<S>>(&bytes) {
        Ok(file) => {
            check_identity(file.format_version, &file.algorithm, algorithm).map_err(refuse)?;
            Ok((file.snapshot, file.executor))
        }
        Err(full_error) => {
            let reason = match serde_json::from_slice::<Header>(&bytes) {
                Err(error) => format!(
                    "it is not a checkpoint file (corrupted, truncated or foreign JSON: {error})"
                ),
                Ok(header) => {
                    match check_identity(header.format_version, &header.algorithm, algorithm) {
                        Err(reason) => reason,
                        Ok(()) => format!(
                            "its snapshot or executor state does not fit this engine: {full_error}"
                        ),
                    }
                }
            };
            Err(refuse(reason))
        }
    }
}

/// Checks a file's version and algorithm, returning the reason for refusal.
fn check_identity(
    format_version: u32,
    written_by: &str,
    algorithm: &str,
) -> std::result::Result<(), String> {
    if format_version != CHECKPOINT_FORMAT_VERSION {
        Err(format!(
            "it has format version {format_version}, but this build of evo-core reads version \
             {CHECKPOINT_FORMAT_VERSION}"
        ))
    } else if written_by != algorithm {
        Err(format!(
            "it was written by algorithm `{written_by}`, but this engine runs `{algorithm}`"
        ))
    } else {
        Ok(())
    }
}

/// Writes `bytes` to `path` atomically: to `<path>.tmp`, fsync, rename, then fsync the directory so the
/// rename itself survives a power cut. Missing parent directories are created.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let parent = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty());
    if let Some(parent) = parent {
        fs::create_dir_all(parent).map_err(|error| Error::io(parent, error))?;
    }
    let written = File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(error) = written {
        // The partial temporary file is useless; removing it is best effort, the write error is what matters.
        let _ = fs::remove_file(&temporary);
        return Err(Error::io(&temporary, error));
    }
    fs::rename(&temporary, path).map_err(|error| Error::io(path, error))?;
    sync_directory(parent.unwrap_or(Path::new(".")));
    Ok(())
}

/// Flushes a directory entry to disk. Best effort: some file systems refuse to sync directories, and the
/// file itself is already safe, so a failure is only logged.
fn sync_directory(directory: &Path) {
    #[cfg(unix)]
    if let Err(error) = File::open(directory).and_then(|dir| dir.sync_all()) {
        tracing::debug!("cannot sync directory {}: {error}", directory.display());
    }
    #[cfg(not(unix))]
    let _ = directory;
}
