//! NumPy conversions the doors make at every call (a Python fitness function's answer, a tell's values),
//! through a function looked up once per process rather than imported by name each time.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

/// `numpy.ascontiguousarray(values, dtype)`: `values` as a C-contiguous array of `dtype` (the array itself
/// when it already is one).
///
/// # Errors
/// NumPy's, for values it cannot convert; an `ImportError` without NumPy.
pub fn contiguous<'py>(
    values: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    // NumPy's function, found once: an import by name costs the import machinery's lookups every call.
    static ASCONTIGUOUSARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    ASCONTIGUOUSARRAY
        .import(values.py(), "numpy", "ascontiguousarray")?
        .call1((values, dtype))
}
