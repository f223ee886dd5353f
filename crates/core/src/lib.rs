//! # evo-core
//!
//! The shared vocabulary of evo-gpu: problem traits, the `Engine` trait both backends of every algorithm
//! implement, the executor that runs an engine to a termination with observers and checkpoints, the JSON
//! report, the backend choice, the one error type, and the portable math and reductions whose CUDA twins
//! (`kernels/common/math.cuh`, `kernels/common/reduce.cuh`) give bit-identical results.
//!
//! This crate has no GPU dependency.
//!
//! # Overview
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`problem`] | [`ContinuousProblem`], [`BinaryProblem`], [`ConstrainedProblem`], [`Bounds`], [`Bits`] (minimisation everywhere) |
//! | [`engine`] | [`Engine`]: `step`, `progress`, `best`, `snapshot`, `restore`; [`Progress`] |
//! | [`executor`] | [`Executor`]: runs an engine to a [`Termination`] with observers and checkpoints |
//! | `run_builder` | [`RunBuilder`]: every algorithm crate's `Run` builder, written once over what the crate says in [`RunAlgorithm`] (backend choice, engines, default termination) |
//! | [`termination`] | [`Termination`] rules and the [`TerminationReason`] that fired |
//! | [`observers`] | [`Observer`], [`ProgressBarObserver`], [`TracingObserver`] |
//! | [`checkpoint`] | [`Checkpointing`] and the binary checkpoint file format |
//! | [`fingerprint`] | [`RunFingerprint`] (seed, parameters, problem) and [`ResumeOverrides`] |
//! | [`snapshot_checks`] | the value checks every engine's `restore` runs |
//! | [`report`] | [`Report`] (JSON), [`Summary`] |
//! | [`history`] | [`HistoryPoint`] |
//! | [`backend`] | [`Backend`] (`cpu`, `cpu:4`, `cuda:1`, `auto`) and the CPU thread pool |
//! | [`user_code`] | [`catch_problem_panic`]: a panic in a problem's code becomes an error |
//! | [`error`] | the one [`Error`] enum |
//!
//! An algorithm implements [`Engine`] once per backend; users hand an engine to an [`Executor`]:
//!
//! ```
//! use evo_core::{
//!     Engine, Executor, ProblemIdentity, Progress, Result, RunFingerprint, Termination, TerminationReason,
//! };
//!
//! /// A (1+1) search on f(x) = (x - 3)^2 with a deterministic, counter-based mutation.
//! struct Toy { x: f64, fx: f64, generation: u64 }
//!
//! impl Engine for Toy {
//!     type Solution = f64;
//!     type Snapshot = (f64, f64, u64);
//!
//!     fn algorithm(&self) -> &'static str { "toy" }
//!
//!     // No seed and no parameters: the problem alone identifies the run.
//!     fn fingerprint(&self) -> Result<RunFingerprint> {
//!         RunFingerprint::new(0, &(), ProblemIdentity::new("(x - 3)^2", 1))
//!     }
//!
//!     fn step(&mut self) -> Result<()> {
//!         self.generation += 1;
//!         // A step size that cycles through 1, 1/2, 1/4, ... and a sign that alternates.
//!         let size = 0.5f64.powi((self.generation % 20) as i32);
//!         let candidate = self.x + if self.generation % 2 == 0 { size } else { -size };
//!         let f = (candidate - 3.0).powi(2);
//!         if f < self.fx {
//!             (self.x, self.fx) = (candidate, f);
//!         }
//!         Ok(())
//!     }
//!
//!     fn progress(&self) -> Progress {
//!         Progress { generation: self.generation, evaluations: self.generation + 1, best_fitness: self.fx }
//!     }
//!
//!     fn best(&self) -> Result<(f64, f64)> { Ok((self.x, self.fx)) }
//!     fn snapshot(&self) -> Result<Self::Snapshot> { Ok((self.x, self.fx, self.generation)) }
//!     fn restore(&mut self, s: &Self::Snapshot) -> Result<()> {
//!         (self.x, self.fx, self.generation) = *s;
//!         Ok(())
//!     }
//! }
//!
//! let report = Executor::new(Toy { x: 0.0, fx: 9.0, generation: 0 })
//!     .with_termination(Termination::new().with_max_generations(500).with_target_fitness(1e-6)?)?
//!     .run()?;
//! assert_eq!(report.termination, TerminationReason::TargetFitness);
//! assert!(report.best_fitness <= 1e-6);
//! println!("{}", report.to_json_pretty()?);
//! # Ok::<(), evo_core::Error>(())
//! ```

mod atomic_file;
pub mod backend;
mod batching;
pub mod checkpoint;
pub mod engine;
pub mod error;
pub mod executor;
pub mod fingerprint;
pub mod history;
pub mod math;
pub mod observers;
pub mod problem;
pub mod reduce;
pub mod report;
mod run_builder;
mod run_options;
pub mod serde_f64;
pub mod snapshot_checks;
pub mod termination;
pub mod user_code;

pub use backend::Backend;
pub use checkpoint::Checkpointing;
pub use engine::{Engine, Progress};
pub use error::{Error, Result};
pub use executor::Executor;
pub use fingerprint::{InstanceDigest, ProblemIdentity, ResumeOverrides, RunFingerprint};
pub use history::{HistoryPoint, MAX_DEFAULT_HISTORY_EVERY, default_history_every};
pub use observers::{Cadence, Observer, ProgressBarObserver, StepCounter, TracingObserver};
pub use problem::{
    BinaryProblem, Bits, Bounds, ConstrainedProblem, ConstrainedValue, ContinuousProblem,
    check_fitness,
};
pub use report::{Report, Summary};
pub use run_builder::{
    BACKEND_REASON, BackendChoice, DeviceSupport, GpuPresence, OnDevice, RunAlgorithm, RunBuilder,
    choose_backend,
};
pub use termination::{Termination, TerminationReason};
pub use user_code::catch_problem_panic;
