//! Turning raw cudarc errors into [`evo_core::Error`] values that say what was being done.

use cudarc::driver::DriverError;
use cudarc::driver::sys::CUresult;
use evo_core::Error;

/// The driver's name and description of `error` ("CUDA_ERROR_INVALID_VALUE: invalid argument").
pub(crate) fn describe(error: &DriverError) -> String {
    let name = error.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = error
        .error_string()
        .map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(name), Ok(text)) => format!("{name}: {text}"),
        (Ok(name), Err(_)) => name,
        _ => format!("{:?}", error.0),
    }
}

/// [`Error::Driver`] for a failed call, naming what was being done.
pub(crate) fn driver(call: impl Into<String>, error: DriverError) -> Error {
    Error::Driver {
        call: call.into(),
        message: describe(&error),
    }
}

/// Whether `error` is the driver's out-of-memory code.
pub(crate) fn is_out_of_memory(error: &DriverError) -> bool {
    error.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY
}
