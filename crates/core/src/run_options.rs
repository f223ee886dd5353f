//! What the algorithm crates' `Run` builders attach to an [`Executor`] besides the engine and the termination.

use crate::checkpoint::Checkpointing;
use crate::engine::Engine;
use crate::error::Result;
use crate::executor::Executor;
use crate::observers::Observer;
use crate::termination::Termination;

/// Observers, checkpoints, Ctrl-C, history and batching options shared by every algorithm's `Run` builder,
/// so that each builder is a thin layer over [`Executor`]. Unset options keep the executor's defaults
/// (history and checks after every step, no checkpoints, Ctrl-C not watched), so a builder with no options
/// runs exactly as the crate's one-call `run`.
#[derive(Default)]
pub struct RunOptions {
    observers: Vec<Box<dyn Observer + Send>>,
    checkpointing: Option<Checkpointing>,
    resume: bool,
    history_every: Option<u64>,
    check_every: Option<u64>,
    ctrl_c: bool,
}

impl RunOptions {
    /// No observers, no checkpoints, the executor's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an observer ([`Executor::with_observer`]).
    pub fn observer(mut self, observer: impl Observer + Send + 'static) -> Self {
        self.observers.push(Box::new(observer));
        self
    }

    /// Saves checkpoints ([`Executor::with_checkpointing`]).
    pub fn checkpoint(mut self, checkpointing: Checkpointing) -> Self {
        self.checkpointing = Some(checkpointing);
        self
    }

    /// Continues from the checkpoint file when it exists ([`Executor::resume_if_present`]); needs
    /// [`checkpoint`](Self::checkpoint).
    pub fn resume_if_present(mut self, resume: bool) -> Self {
        self.resume = resume;
        self
    }

    /// A history point every `every` steps ([`Executor::with_history_every`]; checked when the run starts).
    pub fn history_every(mut self, every: u64) -> Self {
        self.history_every = Some(every);
        self
    }

    /// Rules needing the host checked every `every` steps ([`Executor::with_check_every`]; checked when the
    /// run starts).
    pub fn check_every(mut self, every: u64) -> Self {
        self.check_every = Some(every);
        self
    }

    /// Stops gracefully on Ctrl-C ([`Termination::with_ctrl_c`]).
    pub fn ctrl_c(mut self, enabled: bool) -> Self {
        self.ctrl_c = enabled;
        self
    }

    /// Attaches the options and `termination` to `executor` (resuming last, once everything is set).
    ///
    /// # Errors
    /// The errors of the executor's setters ([`Error::InvalidParameter`](crate::Error::InvalidParameter)
    /// for a 0 cadence or a termination that cannot end the run) and of
    /// [`Executor::resume_if_present`] (which also refuses a resume without checkpointing).
    pub fn apply<E: Engine>(
        self,
        mut executor: Executor<E>,
        termination: Termination,
    ) -> Result<Executor<E>> {
        let ctrl_c = self.ctrl_c || termination.ctrl_c();
        executor = executor.with_termination(termination.with_ctrl_c(ctrl_c))?;
        for observer in self.observers {
            executor = executor.with_observer(observer);
        }
        if let Some(every) = self.history_every {
            executor = executor.with_history_every(every)?;
        }
        if let Some(every) = self.check_every {
            executor = executor.with_check_every(every)?;
        }
        if let Some(checkpointing) = self.checkpointing {
            executor = executor.with_checkpointing(checkpointing);
        }
        if self.resume {
            executor = executor.resume_if_present()?;
        }
        Ok(executor)
    }
}
