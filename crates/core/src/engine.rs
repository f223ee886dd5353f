//! The trait both backends of every algorithm implement.

use crate::error::Result;
use crate::fingerprint::RunFingerprint;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Where a run stands after the last step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Generations (or steady-state cycles) completed; 0 right after initialisation.
    pub generation: u64,
    /// Objective function evaluations so far, initialisation included.
    pub evaluations: u64,
    /// The best fitness found so far (to minimise); `+inf` before anything was evaluated.
    #[serde(with = "crate::serde_f64")]
    pub best_fitness: f64,
}

/// One algorithm on one backend, advanced a generation at a time by an [`Executor`](crate::Executor).
///
/// # Contract
///
/// - [`step`](Self::step) advances one generation (or one steady-state cycle); [`step_many`](Self::step_many)
///   advances several and leaves the state bit-identical to as many `step` calls. They are the only methods
///   that do work. State stays where the backend keeps it (device memory for CUDA engines) between steps.
/// - [`progress`](Self::progress) and [`best`](Self::best) describe the state after the last step; `best`
///   is the best solution found so far (not only in the current population), and its fitness equals
///   `progress().best_fitness`.
/// - [`snapshot`](Self::snapshot) copies the *whole* state to the host as a plain serde value (population,
///   fitness, RNG counters, adapted parameters, generation and evaluation counters); after
///   [`restore`](Self::restore) of that value, the engine continues exactly as the original would have, bit
///   for bit. The snapshot type is shared by the CPU and CUDA engines of an algorithm, so a snapshot taken
///   on one backend restores on the other.
/// - An engine is deterministic for a given seed when the executor's checkpoint-and-resume guarantee is
///   wanted (the same inputs give the same snapshots).
/// - The problem and the parameters are not part of the snapshot: the engine restoring it was built with
///   them. [`fingerprint`](Self::fingerprint) names them (with the seed), checkpoints store it, and a
///   resume from a file of another run is refused before the snapshot is decoded.
/// - [`restore`](Self::restore) checks the snapshot's values before taking any of them: its shape, its
///   seed where the snapshot carries one (the same rule in every algorithm: another seed is an
///   [`Error::InvalidSnapshot`](crate::Error::InvalidSnapshot) naming `seed`), finite fitness, genes within
///   the bounds where the algorithm keeps them there, adapted parameters in their ranges and counters the
///   algorithm can reach ([`snapshot_checks`](crate::snapshot_checks)). It does not re-evaluate the
///   population: a file's checksum covers corruption on disk, and re-evaluating would cost a generation.
pub trait Engine {
    /// The representation of a solution in reports (`Vec<f32>`, [`Bits`](crate::Bits), ...).
    type Solution: Clone + Serialize + DeserializeOwned;

    /// The whole engine state as a plain host value, shared by both backends of the algorithm.
    type Snapshot: Clone + Serialize + DeserializeOwned;

    /// The algorithm's short name ("DE", "QIGA"); checkpoints record it and refuse to resume another's.
    /// Both backends of an algorithm return the same name.
    fn algorithm(&self) -> &'static str;

    /// What identifies this run: seed, parameters and problem instance. Both backends of an algorithm build
    /// it with one shared helper, so it does not depend on the backend.
    ///
    /// # Errors
    /// [`Error::Serialization`](crate::Error::Serialization) when the parameters do not serialize.
    fn fingerprint(&self) -> Result<RunFingerprint>;

    /// Advances one generation.
    ///
    /// # Errors
    /// Whatever went wrong (a non-finite fitness, a device failure). The executor then stops and, when
    /// checkpointing, saves the state after the last successful step.
    fn step(&mut self) -> Result<()>;

    /// Advances `steps` generations as if [`step`](Self::step) were called `steps` times: afterwards the
    /// state, [`progress`](Self::progress) and [`best`](Self::best) are bit-identical to that. `steps == 0`
    /// does nothing. The default loops over `step`; an engine that can queue generations without reading
    /// anything back in between (a CUDA engine reading the best fitness once per batch) overrides it. The
    /// [`Executor`](crate::Executor) calls it with as many steps as it can take before it next needs the host.
    ///
    /// # Errors
    /// The first error of a generation, as [`step`](Self::step). The generations before the failing one are
    /// done, and the engine is in the state `step` leaves after an error (possibly half-way through a
    /// generation), so it must not be stepped further: resume from a checkpoint instead.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        for _ in 0..steps {
            self.step()?;
        }
        Ok(())
    }

    /// The evaluations every [`step`](Self::step) adds when that number is fixed (`None`, the default,
    /// when it varies or is not known). With it the [`Executor`](crate::Executor) batches exactly up to an
    /// evaluation limit; without it an evaluation limit is checked after every step (or every
    /// [`with_check_every`](crate::Executor::with_check_every) steps).
    fn evaluations_per_step(&self) -> Option<u64> {
        None
    }

    /// The generation, evaluation count and best fitness after the last step.
    fn progress(&self) -> Progress;

    /// The best solution so far and its fitness.
    ///
    /// # Errors
    /// When the state cannot be read (a CUDA engine's device copy failed).
    fn best(&self) -> Result<(Self::Solution, f64)>;

    /// Copies the whole state to the host.
    ///
    /// # Errors
    /// When the state cannot be read (a CUDA engine's device copy failed).
    fn snapshot(&self) -> Result<Self::Snapshot>;

    /// Replaces the state with a snapshot taken by either backend of this algorithm.
    ///
    /// # Errors
    /// When the snapshot does not fit this engine (population size, dimension), holds a value the
    /// algorithm cannot reach ([`Error::InvalidSnapshot`](crate::Error::InvalidSnapshot)), or cannot be
    /// uploaded. The engine's state is unchanged after an error found by the checks.
    fn restore(&mut self, snapshot: &Self::Snapshot) -> Result<()>;
}
