//! evo-gpu's typed errors as Python exceptions, with the crates' own messages.

use evo_core::Error;
use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};

/// The Python exception for `error`: `ValueError` for what the caller gave (parameters, problems, files,
/// fitness values, checkpoints of another run), `OSError` for the file system, `RuntimeError` for what went
/// wrong while running (devices, drivers, kernels, thread pools, a problem's panic). The message is the
/// error's `Display`, unchanged.
pub fn to_py(error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::InvalidParameter { .. }
        | Error::NonFiniteFitness { .. }
        | Error::BadInputFile { .. }
        | Error::RunMismatch { .. }
        | Error::InvalidSnapshot { .. } => PyValueError::new_err(message),
        Error::Io { .. } => PyOSError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// A `ValueError` for a bad argument of this package's own functions (not from a crate).
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
