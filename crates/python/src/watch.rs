//! How a Python run is stopped: the observer every run carries calls the user's callback and looks for
//! Ctrl-C, and every stop (the callback, Ctrl-C, the fitness function raising, `StopToken.stop()`) goes
//! through the run's own [`evo_core::termination::StopToken`], so it ends that run and no other.

use evo_core::termination::StopToken as RunToken;
use evo_core::{Cadence, Observer, Progress, Termination};
use pyo3::prelude::*;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Why a run was stopped from Python.
pub enum Stop {
    /// The callback, the fitness function or a signal handler (Ctrl-C: `KeyboardInterrupt`) raised: the run
    /// ends and the exception is raised again from `minimize`.
    Raised(PyErr),
    /// The callback returned `True`: the run ends and its result is returned.
    Requested,
}

/// The first [`Stop`] of a run and the run's stop token, shared by the observer, the Python fitness
/// function and `minimize`.
#[derive(Clone)]
pub struct StopSlot {
    first: Arc<Mutex<Option<Stop>>>,
    token: RunToken,
}

impl StopSlot {
    /// A slot that stops the run carrying `token`.
    pub fn new(token: RunToken) -> Self {
        Self {
            first: Arc::default(),
            token,
        }
    }

    /// Keeps `stop` unless an earlier one is there (the first cause is the one reported) and stops the run.
    pub fn set(&self, stop: Stop) {
        let mut slot = self.first.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(stop);
        }
        self.token.stop();
    }

    /// Whether a stop is recorded.
    pub fn is_set(&self) -> bool {
        self.first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The recorded stop, taken out.
    pub fn take(&self) -> Option<Stop> {
        self.first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// The run's stop token, for its termination.
    pub fn token(&self) -> RunToken {
        self.token.clone()
    }

    /// `termination` stopped by this slot's token as well.
    pub fn stopping(&self, termination: Termination) -> Termination {
        termination.with_stop_token(self.token())
    }
}

/// Calls `callback(generation, evaluations, best_fitness, elapsed_s)` after every generation when there is
/// one, and checks Python's signals (Ctrl-C) after every batch of generations when there is none.
///
/// Python runs signal handlers in the main thread only, so Ctrl-C raises `KeyboardInterrupt` in (and stops)
/// the run of the main thread; a run in another thread goes on, as Python code there would.
pub struct PythonWatch {
    callback: Option<Py<PyAny>>,
    stop: StopSlot,
}

impl PythonWatch {
    /// A watch that records its stops in `stop`.
    pub fn new(callback: Option<Py<PyAny>>, stop: StopSlot) -> Self {
        Self { callback, stop }
    }

    /// Runs the callback and the signal handlers; what they raise, or a truthy return, is a stop.
    fn visit(&self, py: Python<'_>, progress: &Progress, elapsed: Duration) -> Option<Stop> {
        if let Some(callback) = &self.callback {
            let arguments = (
                progress.generation,
                progress.evaluations,
                progress.best_fitness,
                elapsed.as_secs_f64(),
            );
            match callback
                .call1(py, arguments)
                .and_then(|answer| answer.is_truthy(py))
            {
                Ok(true) => return Some(Stop::Requested),
                Ok(false) => {}
                Err(error) => return Some(Stop::Raised(error)),
            }
        }
        py.check_signals().err().map(Stop::Raised)
    }
}

impl Observer for PythonWatch {
    fn cadence(&self) -> Cadence {
        if self.callback.is_some() {
            Cadence::EveryStep
        } else {
            Cadence::Batches
        }
    }

    fn on_step(&mut self, progress: &Progress, elapsed: Duration) {
        if let Some(stop) = Python::attach(|py| self.visit(py, progress, elapsed)) {
            self.stop.set(stop);
        }
    }
}

/// `evogpu.StopToken`: stops the runs it is passed to (`minimize(..., stop_token=token)`) after their
/// current batch of generations, from any thread, and no other run. The result is returned as for any
/// other stopping rule, with the message "interrupted". A stopped token stays stopped: a run started with
/// it later stops before its first generation.
#[pyclass(module = "evogpu", frozen)]
pub struct StopToken(pub RunToken);

#[pymethods]
impl StopToken {
    /// A token not stopped yet.
    #[new]
    fn new() -> Self {
        Self(RunToken::new())
    }

    /// Asks the runs carrying this token to stop.
    fn stop(&self) {
        self.0.stop();
    }

    /// Whether `stop()` was called.
    #[getter]
    fn stopped(&self) -> bool {
        self.0.is_stopped()
    }

    fn __repr__(&self) -> String {
        let stopped = if self.0.is_stopped() { "True" } else { "False" };
        format!("StopToken(stopped={stopped})")
    }
}
