//! Checkpoints: an engine snapshot and the executor's state, saved to disk so a run can resume.
//!
//! # File format (version 2)
//!
//! A checkpoint is a binary file; every integer is little-endian:
//!
//! | offset | bytes | field |
//! | --- | --- | --- |
//! | 0 | 8 | magic `EVO-CKPT` ([`MAGIC`]) |
//! | 8 | 4 | format version, `u32` ([`CHECKPOINT_FORMAT_VERSION`]) |
//! | 12 | 4 | header length `H`, `u32` |
//! | 16 | 8 | payload length `P`, `u64` |
//! | 24 | `H` | header: [`CheckpointHeader`] (algorithm, evo-core version, [`RunFingerprint`]) |
//! | 24 + `H` | `P` | payload: the engine's `Snapshot`, then the executor's state (steps, elapsed time, history, stagnation counter, best fitness) |
//! | 24 + `H` + `P` | 4 | CRC-32 (IEEE) of bytes `0 .. 24 + H + P` |
//!
//! Header and payload are encoded with [postcard](https://docs.rs/postcard) (serde; varint integers,
//! floats as their IEEE bytes, so every `f32` and `f64` comes back bit for bit; a `Vec<f32>` is its length
//! and 4 bytes per element). A file is refused with [`Error::Checkpoint`] whose reason names the cause, in
//! this order: bad magic (with a hint when it is JSON, as version 1 files were), truncated or over-long
//! (against the two lengths), another format version, checksum mismatch, another algorithm, a payload that
//! does not decode as the engine's snapshot. A file of another run is refused with [`Error::RunMismatch`]
//! naming the field (see [`fingerprint`](crate::fingerprint)). Reading never writes: a refused file stays as
//! it was.
//!
//! JSON remains as an export for inspection ([`export_json`]); [`read_header`] reads the header alone,
//! for tools that resume any algorithm.
//!
//! # Atomic writes and ownership
//!
//! The file is written to a temporary file with a unique name, flushed to disk (`fsync`), then renamed
//! over the target, so a crash at any moment leaves either the previous checkpoint or the new one. While an
//! [`Executor`](crate::Executor) writes a checkpoint path it holds an advisory lock on `<path>.lock`; a
//! second executor on the same path, in this process or another, gets [`Error::CheckpointLocked`].
//!
//! # Values checked on restore
//!
//! The checksum catches a changed byte in the file. Each engine's `restore` then checks the snapshot's
//! values (shape, finite fitness, genes in bounds, parameters in range, consistent counters) with the
//! helpers of [`snapshot_checks`](crate::snapshot_checks); it does not re-evaluate the population.

mod format;
mod lock;

pub use crate::fingerprint::RunFingerprint;
pub use format::{CHECKPOINT_FORMAT_VERSION, CheckpointHeader, MAGIC, export_json, read_header};
pub(crate) use format::{read, write};
pub(crate) use lock::CheckpointLock;

use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::history::HistoryPoint;
use crate::termination::StagnationState;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where and how often the [`Executor`](crate::Executor) saves checkpoints.
///
/// A checkpoint is written after every `every`-th step, when the run ends (whatever the reason, Ctrl-C
/// included), and, when a step fails, with the state after the last successful batch of steps (the
/// executor advances the engine in batches; see "Batching" in [`Executor`](crate::Executor)).
///
/// To make that last guarantee without reading a failed engine's state, the executor keeps a snapshot of the
/// state after each batch in memory. For engines whose snapshot is expensive (a CUDA engine with a huge
/// population copies it to the host every batch) turn that off with
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

    /// Whether to keep a snapshot after every batch of steps so that a failing step saves the state after
    /// the last successful batch (default `true`; see the type docs for the cost).
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

    /// Whether a snapshot is kept after every batch of steps.
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

impl RunState {
    /// Checks the executor's state read from a checkpoint against the restored engine's `progress`: the
    /// steps and history cannot be ahead of the engine, and the best fitness is a number. Returns the reason
    /// for refusal.
    pub(crate) fn check(&self, progress: &Progress) -> std::result::Result<(), String> {
        if self.steps > progress.generation {
            return Err(format!(
                "its executor state counts {} steps, more than the snapshot's {} generations",
                self.steps, progress.generation
            ));
        }
        if self.best_fitness.is_nan() {
            return Err("its executor state has a NaN best fitness".to_string());
        }
        let mut previous = 0;
        for point in &self.history {
            if point.generation < previous || point.generation > progress.generation {
                return Err(format!(
                    "its history has a point at generation {} out of order (allowed: ascending, at most \
                     the snapshot's {} generations)",
                    point.generation, progress.generation
                ));
            }
            previous = point.generation;
        }
        Ok(())
    }
}
