//! This package's DLPack consumer: a tensor taken over from another library's capsule (`torch.Tensor`,
//! `cupy.ndarray`, `numpy.ndarray`, or a bare capsule), described as one vector of `float32` or `float64`
//! values, and released through the producer's deleter when dropped.

use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict};
use std::ffi::CStr;

use crate::dlpack::{
    CAPSULE, DEVICE_CPU, DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLTensor,
    MAJOR_VERSION, USED_CAPSULE, USED_VERSIONED_CAPSULE, VERSIONED_CAPSULE, dtype_name,
};

/// `kDLCUDAHost`: pinned host memory, readable by the host like `kDLCPU`.
const DEVICE_CUDA_HOST: i32 = 3;

enum Managed {
    Plain(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

/// A tensor this package consumed: its memory stays valid until the value drops, which calls the
/// producer's deleter once.
pub struct Imported {
    managed: Managed,
}

// SAFETY: the tensor is owned by this value alone once its capsule is renamed; DLPack asks producers for
// deleters callable from any thread (the ones that need the GIL take it themselves).
unsafe impl Send for Imported {}

/// One vector of fitness values as the device or the host reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vector {
    /// The address of element 0.
    pub address: u64,
    /// Elements between two consecutive values (may be negative or zero).
    pub stride: i64,
    /// Whether the values are `float64` (else `float32`).
    pub is_f64: bool,
}

/// The keyword arguments of a consumer's `__dlpack__` calls on one stream, built once and passed to every
/// call: a caller that takes an answer every generation makes no dict, stream int or version tuple per call.
/// A callee cannot change them for the next call: Python functions receive keywords in a dict of their own,
/// and the argument parsing of C functions only reads them.
pub struct Request {
    /// `stream=…, max_version=(1, 0)`.
    versioned: Py<PyDict>,
    /// `stream=…` alone, for producers that predate `max_version`.
    unversioned: Py<PyDict>,
}

impl Request {
    /// The arguments of `__dlpack__(stream=stream, max_version=(1, 0))` and of its retry without
    /// `max_version`.
    ///
    /// # Errors
    /// Python's, when it cannot allocate the dicts.
    pub fn new(py: Python<'_>, stream: Option<i64>) -> PyResult<Self> {
        let unversioned = PyDict::new(py);
        unversioned.set_item(intern!(py, "stream"), stream)?;
        let versioned = unversioned.copy()?;
        versioned.set_item(intern!(py, "max_version"), (MAJOR_VERSION, 0))?;
        Ok(Self {
            versioned: versioned.unbind(),
            unversioned: unversioned.unbind(),
        })
    }

    /// [`Request::new`] on the CUDA stream whose handle is `handle` (the engine's stream, as
    /// `Gpu::main_stream_handle` gives it).
    ///
    /// # Errors
    /// `ValueError` when the handle does not fit in a Python int; Python's, as [`Request::new`].
    pub fn on_stream_handle(py: Python<'_>, handle: u64) -> PyResult<Self> {
        let stream = i64::try_from(handle).map_err(|_| {
            PyValueError::new_err("the engine's stream handle does not fit in a Python int")
        })?;
        Self::new(py, Some(stream))
    }
}

impl Imported {
    /// Takes over the tensor of `object`: a capsule as it is, anything else through
    /// `object.__dlpack__(stream=stream, max_version=(1, 0))` (without `max_version` for producers that
    /// predate it).
    ///
    /// # Errors
    /// As [`Imported::take_with`].
    pub fn take(object: &Bound<'_, PyAny>, stream: Option<i64>) -> PyResult<Self> {
        Self::take_with(object, &Request::new(object.py(), stream)?)
    }

    /// [`Imported::take`] with the arguments of `request`, made once for many calls.
    ///
    /// # Errors
    /// `TypeError` for an object without `__dlpack__`; the producer's errors; `ValueError` for a consumed
    /// capsule or a DLPack major version other than 1.
    pub fn take_with(object: &Bound<'_, PyAny>, request: &Request) -> PyResult<Self> {
        if let Ok(capsule) = object.cast::<PyCapsule>() {
            return Self::from_capsule(capsule);
        }
        let py = object.py();
        let dlpack = match object.getattr(intern!(py, "__dlpack__")) {
            Ok(method) => method,
            Err(error) if error.is_instance_of::<PyAttributeError>(py) => {
                return Err(PyTypeError::new_err(format!(
                    "expected an array with __dlpack__ (a torch tensor, a CuPy or NumPy array), got {}",
                    object.get_type().name()?
                )));
            }
            Err(error) => return Err(error),
        };
        let capsule = match dlpack.call((), Some(request.versioned.bind(py))) {
            Ok(capsule) => capsule,
            Err(error) if error.is_instance_of::<PyTypeError>(py) => {
                dlpack.call((), Some(request.unversioned.bind(py)))?
            }
            Err(error) => return Err(error),
        };
        let capsule = capsule.cast_into::<PyCapsule>().map_err(|_| {
            PyTypeError::new_err("__dlpack__ returned something other than a capsule")
        })?;
        Self::from_capsule(&capsule)
    }

    /// Takes over the tensor of a `"dltensor"` or `"dltensor_versioned"` capsule, renaming it `used_…`.
    fn from_capsule(capsule: &Bound<'_, PyCapsule>) -> PyResult<Self> {
        let py = capsule.py();
        let raw = capsule.as_ptr();
        let valid = |name: &CStr| {
            // SAFETY: `raw` is a live capsule (borrowed from `capsule`) and the GIL is held; IsValid sets no
            // error.
            unsafe { pyo3::ffi::PyCapsule_IsValid(raw, name.as_ptr()) == 1 }
        };
        let pointer = |name: &CStr| -> PyResult<*mut std::ffi::c_void> {
            // SAFETY: as above; the name is the capsule's (checked by `valid`).
            let pointer = unsafe { pyo3::ffi::PyCapsule_GetPointer(raw, name.as_ptr()) };
            if pointer.is_null() {
                return Err(PyErr::fetch(py));
            }
            Ok(pointer)
        };
        let rename = |name: &CStr| -> PyResult<()> {
            // SAFETY: as above; the new name is a static C string, which the capsule may keep.
            if unsafe { pyo3::ffi::PyCapsule_SetName(raw, name.as_ptr()) } != 0 {
                return Err(PyErr::fetch(py));
            }
            Ok(())
        };
        if valid(VERSIONED_CAPSULE) {
            let tensor = pointer(VERSIONED_CAPSULE)?.cast::<DLManagedTensorVersioned>();
            // SAFETY: a valid "dltensor_versioned" capsule holds a live DLManagedTensorVersioned.
            let major = unsafe { (*tensor).version.major };
            if major != MAJOR_VERSION {
                // Left unconsumed, so the capsule's destructor still releases it.
                return Err(PyValueError::new_err(format!(
                    "DLPack major version {major} is not supported (version {MAJOR_VERSION} is)"
                )));
            }
            rename(USED_VERSIONED_CAPSULE)?;
            return Ok(Self {
                managed: Managed::Versioned(tensor),
            });
        }
        if valid(CAPSULE) {
            let tensor = pointer(CAPSULE)?.cast::<DLManagedTensor>();
            rename(USED_CAPSULE)?;
            return Ok(Self {
                managed: Managed::Plain(tensor),
            });
        }
        if valid(USED_CAPSULE) || valid(USED_VERSIONED_CAPSULE) {
            return Err(PyValueError::new_err(
                "this DLPack capsule was already consumed; a capsule can be used once",
            ));
        }
        Err(PyTypeError::new_err(
            "expected a DLPack capsule named \"dltensor\" or \"dltensor_versioned\"",
        ))
    }

    fn tensor(&self) -> &DLTensor {
        // SAFETY: the managed tensor is alive until `drop` calls its deleter.
        unsafe {
            match self.managed {
                Managed::Plain(tensor) => &(*tensor).dl_tensor,
                Managed::Versioned(tensor) => &(*tensor).dl_tensor,
            }
        }
    }

    /// Where the memory is.
    pub fn device(&self) -> DLDevice {
        self.tensor().device
    }

    /// The tensor as a vector of `n` values: shape `(n,)` or `(n, 1)`, dtype `float32` or `float64`.
    /// `source` names where the values come from in the errors ("the fitness function must return").
    ///
    /// # Errors
    /// `ValueError` naming the shape or dtype found.
    pub fn vector(&self, n: usize, source: &str) -> PyResult<Vector> {
        let tensor = self.tensor();
        let ndim = usize::try_from(tensor.ndim).unwrap_or(0);
        let shape: &[i64] = if ndim == 0 {
            &[]
        } else {
            // SAFETY: a DLTensor's `shape` holds `ndim` extents while the tensor is alive.
            unsafe { std::slice::from_raw_parts(tensor.shape, ndim) }
        };
        let strides: Option<&[i64]> = if tensor.strides.is_null() || ndim == 0 {
            None
        } else {
            // SAFETY: non-null `strides` hold `ndim` strides while the tensor is alive.
            Some(unsafe { std::slice::from_raw_parts(tensor.strides, ndim) })
        };
        let rows = i64::try_from(n).unwrap_or(i64::MAX);
        let shape_ok = match shape {
            [r] => *r == rows,
            [r, 1] => *r == rows,
            _ => false,
        };
        if !shape_ok {
            return Err(PyValueError::new_err(format!(
                "{source} {n} values, shape ({n},) or ({n}, 1), got shape {shape:?}"
            )));
        }
        let is_f64 = match tensor.dtype {
            DLDataType::F64 => true,
            DLDataType::F32 => false,
            other => {
                return Err(PyValueError::new_err(format!(
                    "{source} float64 or float32 values, got {}",
                    dtype_name(other)
                )));
            }
        };
        let stride = strides.map_or(1, |strides| strides[0]);
        Ok(Vector {
            address: (tensor.data as u64).wrapping_add(tensor.byte_offset),
            stride,
            is_f64,
        })
    }

    /// The `n` values of a host tensor ([`Imported::vector`]'s layout and errors), as `f64` (exact for
    /// `float32`).
    ///
    /// # Errors
    /// As [`Imported::vector`]; `ValueError` for memory the host cannot read.
    pub fn host_values(&self, n: usize, source: &str) -> PyResult<Vec<f64>> {
        let device = self.device();
        if device.device_type != DEVICE_CPU && device.device_type != DEVICE_CUDA_HOST {
            return Err(PyValueError::new_err(format!(
                "host values asked of a tensor on device type {}",
                device.device_type
            )));
        }
        let vector = self.vector(n, source)?;
        let values = (0..n)
            .map(|row| {
                // Row offsets stay inside the producer's allocation, which holds n values at this stride.
                let offset = (row as i64).wrapping_mul(vector.stride);
                if vector.is_f64 {
                    let address = (vector.address as *const f64).wrapping_offset(offset as isize);
                    // SAFETY: the producer's tensor holds element `row` at this address while alive.
                    unsafe { address.read_unaligned() }
                } else {
                    let address = (vector.address as *const f32).wrapping_offset(offset as isize);
                    // SAFETY: as above.
                    f64::from(unsafe { address.read_unaligned() })
                }
            })
            .collect();
        Ok(values)
    }
}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: this value owns the consumed tensor; its deleter runs exactly once, here.
        unsafe {
            match self.managed {
                Managed::Plain(tensor) => {
                    if let Some(deleter) = (*tensor).deleter {
                        deleter(tensor);
                    }
                }
                Managed::Versioned(tensor) => {
                    if let Some(deleter) = (*tensor).deleter {
                        deleter(tensor);
                    }
                }
            }
        }
    }
}

/// The values of a host vector through DLPack (any object with `__dlpack__`, or a capsule), for tests of
/// the protocol without a GPU.
#[pyfunction]
pub fn _read_dlpack(object: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f64>> {
    Imported::take(object, None)?.host_values(n, "the fitness function must return")
}
