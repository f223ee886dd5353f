//! The observer every Python run carries: it calls the user's callback, looks for Ctrl-C, and stops the run
//! when either asks.

use evo_core::termination::request_interrupt;
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

/// The first [`Stop`] of a run, shared by the observer, the Python fitness function and `minimize`.
#[derive(Clone, Default)]
pub struct StopSlot(Arc<Mutex<Option<Stop>>>);

impl StopSlot {
    /// Keeps `stop` unless an earlier one is there (the first cause is the one reported).
    pub fn set(&self, stop: Stop) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(stop);
        }
    }

    /// Whether a stop is recorded.
    pub fn is_set(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The recorded stop, taken out.
    pub fn take(&self) -> Option<Stop> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// Calls `callback(generation, evaluations, best_fitness, elapsed_s)` after every generation when there is
/// one, and checks Python's signals (Ctrl-C) after every batch of generations when there is none.
pub struct PythonWatch {
    callback: Option<Py<PyAny>>,
    stop: StopSlot,
    termination: Option<Termination>,
}

impl PythonWatch {
    /// A watch that records its stops in `stop`.
    pub fn new(callback: Option<Py<PyAny>>, stop: StopSlot) -> Self {
        Self {
            callback,
            stop,
            termination: None,
        }
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

    /// Whether a rule of the run's termination already holds at `progress`, so the run ends without being
    /// asked (asking would leave evo-core's process-wide interrupt flag raised for the next run).
    fn ends_anyway(&self, progress: &Progress, elapsed: Duration) -> bool {
        self.termination.as_ref().is_some_and(|rules| {
            rules
                .target_fitness()
                .is_some_and(|target| progress.best_fitness <= target)
                || rules
                    .max_generations()
                    .is_some_and(|max| progress.generation >= max)
                || rules
                    .max_evaluations()
                    .is_some_and(|max| progress.evaluations >= max)
                || rules.max_wall_time().is_some_and(|max| elapsed >= max)
        })
    }
}

impl Observer for PythonWatch {
    fn on_start(&mut self, _algorithm: &str, _progress: &Progress, termination: &Termination) {
        self.termination = Some(termination.clone());
    }

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
        if self.stop.is_set() && !self.ends_anyway(progress, elapsed) {
            request_interrupt();
        }
    }
}
