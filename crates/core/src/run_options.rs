//! What a [`RunBuilder`](crate::RunBuilder) attaches to an [`Executor`] besides the engine and the termination.

use crate::checkpoint::Checkpointing;
use crate::engine::Engine;
use crate::error::Result;
use crate::executor::Executor;
use crate::history::default_history_every;
use crate::observers::Observer;
use crate::termination::{StopToken, Termination};

/// The observers, checkpoints, Ctrl-C, history and batching options a [`RunBuilder`](crate::RunBuilder)
/// collects. Unset options keep the executor's defaults (checks after every step, no checkpoints, Ctrl-C not
/// watched) except the history, which defaults to [`default_history_every`] of the generation budget, so a
/// builder with no options runs exactly as the algorithm crate's one-call `run`.
#[derive(Default)]
pub(crate) struct RunOptions {
    pub(crate) observers: Vec<Box<dyn Observer + Send>>,
    pub(crate) checkpointing: Option<Checkpointing>,
    pub(crate) resume: bool,
    pub(crate) history_every: Option<u64>,
    pub(crate) check_every: Option<u64>,
    pub(crate) ctrl_c: bool,
    pub(crate) stop_token: Option<StopToken>,
}

impl RunOptions {
    /// Attaches the options and `termination` to `executor` (resuming last, once everything is set).
    ///
    /// # Errors
    /// The errors of the executor's setters ([`Error::InvalidParameter`](crate::Error::InvalidParameter)
    /// for a 0 cadence or a termination that cannot end the run) and of
    /// [`Executor::resume_if_present`] (which also refuses a resume without checkpointing).
    pub(crate) fn apply<E: Engine>(
        self,
        mut executor: Executor<E>,
        termination: Termination,
    ) -> Result<Executor<E>> {
        let ctrl_c = self.ctrl_c || termination.ctrl_c();
        let history_every = self
            .history_every
            .unwrap_or_else(|| default_history_every(termination.max_generations()));
        let termination = match self.stop_token {
            Some(token) => termination.with_stop_token(token),
            None => termination,
        };
        executor = executor.with_termination(termination.with_ctrl_c(ctrl_c))?;
        for observer in self.observers {
            executor = executor.with_observer(observer);
        }
        executor = executor.with_history_every(history_every)?;
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
