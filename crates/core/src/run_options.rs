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

/// Writes the option methods of an algorithm crate's `Run` builder (`observer`, `checkpoint`,
/// `resume_if_present`, `history_every`, `check_every`, `ctrl_c`), each forwarding to the [`RunOptions`]
/// in the builder's `options` field, so that every crate's builder offers the same options with the same
/// contract. Invoke it inside the builder's `impl` block.
#[macro_export]
macro_rules! run_options_methods {
    () => {
        /// Adds an observer ([`evo_core::Executor::with_observer`]).
        pub fn observer(
            mut self,
            observer: impl $crate::Observer + ::core::marker::Send + 'static,
        ) -> Self {
            self.options = self.options.observer(observer);
            self
        }

        /// Saves checkpoints ([`evo_core::Executor::with_checkpointing`]).
        pub fn checkpoint(mut self, checkpointing: $crate::Checkpointing) -> Self {
            self.options = self.options.checkpoint(checkpointing);
            self
        }

        /// Continues from the checkpoint file when it exists
        /// ([`evo_core::Executor::resume_if_present`]; needs [`checkpoint`](Self::checkpoint)).
        pub fn resume_if_present(mut self, resume: bool) -> Self {
            self.options = self.options.resume_if_present(resume);
            self
        }

        /// A history point every `every` steps (default 1; 0 is refused when the run starts). The history
        /// needs the host at every point, so a larger value lets the executor batch more steps.
        pub fn history_every(mut self, every: u64) -> Self {
            self.options = self.options.history_every(every);
            self
        }

        /// Checks the rules that need the host (target, wall time, stagnation, checkpoints' stagnation
        /// counter) every `every` steps ([`evo_core::Executor::with_check_every`]; default 1; 0 is refused
        /// when the run starts).
        pub fn check_every(mut self, every: u64) -> Self {
            self.options = self.options.check_every(every);
            self
        }

        /// Stops gracefully on Ctrl-C ([`evo_core::Termination::with_ctrl_c`]).
        pub fn ctrl_c(mut self, enabled: bool) -> Self {
            self.options = self.options.ctrl_c(enabled);
            self
        }
    };
}
