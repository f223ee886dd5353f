//! This package's DLPack producer: [`DeviceView`] (`evogpu.DeviceView`), a row-major `float32` matrix of
//! memory the engine owns, exported without a copy through `__dlpack__` / `__dlpack_device__`.
//!
//! On the CUDA backend a view holds the engine's population (or trials) for one call of a Python fitness
//! function: `torch.from_dlpack(view)` or `cupy.from_dlpack(view)` gives a tensor of that very memory. The
//! engine queued the writes into it on its main stream; `__dlpack__(stream=s)` makes the consumer's stream
//! `s` wait for them (an event, no host wait), as the protocol asks. The memory is the engine's: the view
//! and every tensor made from it are valid during the call only (the view refuses a later export, and the
//! evaluator reports tensors kept alive past the call, [`ViewState`]). DE's ask/tell on the CUDA backend
//! hands out views the same way, each valid from `ask` to the next `tell`.
//!
//! On the host a view owns a copy of its values (the CPU tests of the protocol, `evogpu._host_view`), kept
//! alive by every capsule and tensor made from it.

use evo_gpu_runtime::{LEGACY_DEFAULT_STREAM, StreamOrder};
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use crate::dlpack::{
    CAPSULE, DEVICE_CPU, DEVICE_CUDA, DLDataType, DLDevice, DLManagedTensor,
    DLManagedTensorVersioned, DLPackVersion, DLTensor, MAJOR_VERSION, MINOR_VERSION,
    VERSIONED_CAPSULE,
};
use crate::errors::to_py;

/// Where a view's memory is.
#[derive(Clone)]
pub enum Memory {
    /// Host memory owned by the view (shared with its exports).
    Host(Arc<Vec<f32>>),
    /// Device memory at `address` of `order`'s device, owned by the engine and written on its main stream.
    Cuda {
        /// The device, with the engine's reused event that orders a consumer's stream after its main stream.
        order: Arc<StreamOrder>,
        /// The first value's device address.
        address: u64,
    },
}

/// What a view and its exports share: whether the view may still export, whether an export ordered a
/// consumer's stream (and which stream the last such export ordered), and how many exports (capsules and
/// the tensors consumers made of them) are alive.
#[derive(Debug)]
pub struct ViewState {
    valid: AtomicBool,
    ordered: AtomicBool,
    /// The handle of the consumer stream the last export ordered; 0 while none was.
    consumer: AtomicU64,
    exports: AtomicUsize,
}

impl ViewState {
    /// Exports alive now.
    pub fn exports(&self) -> usize {
        self.exports.load(Ordering::Acquire)
    }

    /// Whether an export of the view ordered a consumer's CUDA stream after the engine's main stream (as
    /// it stood then): every `__dlpack__` call on device memory but one with `stream=-1`.
    pub fn ordered_a_consumer(&self) -> bool {
        self.ordered.load(Ordering::Acquire)
    }

    /// The consumer stream the last ordering export ordered after the engine's main stream (the handle
    /// passed as `stream`, the legacy default stream for `None` and 0), if any export did.
    pub fn last_consumer_stream(&self) -> Option<u64> {
        match self.consumer.load(Ordering::Acquire) {
            0 => None,
            handle => Some(handle),
        }
    }
}

/// A row-major float32 matrix of memory the engine owns, exported without a copy through DLPack
/// (`torch.from_dlpack(view)`, `cupy.from_dlpack(view)`; `numpy.from_dlpack(view)` for host views).
///
/// `__dlpack__(stream=s)` makes the consumer's CUDA stream `s` wait for the engine's writes. A view of the
/// engine's population is valid while the engine waits for its fitness (during one call of the fitness
/// function, or from `DeAskTell.ask` to the next `tell`): later exports raise BufferError, and tensors of
/// it must not outlive that time nor be written.
#[pyclass(name = "DeviceView", module = "evogpu", frozen)]
pub struct DeviceView {
    rows: usize,
    columns: usize,
    memory: Memory,
    state: Arc<ViewState>,
}

impl DeviceView {
    /// A view of `rows × columns` values of the engine's device memory at `address` on `order`'s device,
    /// valid until [`DeviceView::invalidate`]; exports order their consumer's stream with `order`'s event.
    pub fn cuda(order: Arc<StreamOrder>, address: u64, rows: usize, columns: usize) -> Self {
        Self::new(Memory::Cuda { order, address }, rows, columns)
    }

    /// A view owning `values` (`rows × columns`, row-major) on the host.
    pub fn host(values: Vec<f32>, rows: usize, columns: usize) -> Self {
        Self::new(Memory::Host(Arc::new(values)), rows, columns)
    }

    fn new(memory: Memory, rows: usize, columns: usize) -> Self {
        Self {
            rows,
            columns,
            memory,
            state: Arc::new(ViewState {
                valid: AtomicBool::new(true),
                ordered: AtomicBool::new(false),
                consumer: AtomicU64::new(0),
                exports: AtomicUsize::new(0),
            }),
        }
    }

    /// The state shared with the view's exports.
    pub fn state(&self) -> Arc<ViewState> {
        Arc::clone(&self.state)
    }

    /// Refuses every later export (the memory is about to change).
    pub fn invalidate(&self) {
        self.state.valid.store(false, Ordering::Release);
    }

    /// The first value's address.
    fn address(&self) -> u64 {
        match &self.memory {
            Memory::Host(values) => values.as_ptr() as u64,
            Memory::Cuda { address, .. } => *address,
        }
    }

    fn device(&self) -> DLDevice {
        match &self.memory {
            Memory::Host(_) => DLDevice {
                device_type: DEVICE_CPU,
                device_id: 0,
            },
            Memory::Cuda { order, .. } => DLDevice {
                device_type: DEVICE_CUDA,
                // Device ordinals are small; an index beyond i32 cannot come from the driver.
                device_id: i32::try_from(order.gpu().index()).unwrap_or(i32::MAX),
            },
        }
    }

    /// Orders the consumer's `stream` after the engine's writes (the protocol's `stream` argument); the
    /// handle of the CUDA stream ordered, if one was.
    fn order_consumer(&self, stream: Option<i64>) -> PyResult<Option<u64>> {
        match &self.memory {
            Memory::Host(_) => match stream {
                None | Some(-1) => Ok(None),
                Some(other) => Err(PyValueError::new_err(format!(
                    "__dlpack__: a view of host memory takes stream=None, got {other}"
                ))),
            },
            Memory::Cuda { order, .. } => {
                let handle = match stream {
                    Some(-1) => return Ok(None),
                    // The protocol forbids 0 as ambiguous, but older consumers pass their default stream's
                    // handle, 0: the legacy default stream, whose wait also orders every blocking stream
                    // (a per-thread default stream included) that synchronises with it.
                    None | Some(0) => LEGACY_DEFAULT_STREAM,
                    Some(handle) => u64::try_from(handle).map_err(|_| {
                        PyValueError::new_err(format!(
                            "__dlpack__: stream must be -1, None or a stream handle >= 1, got {handle}"
                        ))
                    })?,
                };
                // SAFETY: the protocol makes `stream` a live stream of the consumer on this view's device (or
                // one of the special handles 1 and 2), kept alive by the consumer during `__dlpack__`; CUDA
                // libraries share the device's primary context, which the runtime uses.
                unsafe { order.order_after_main(handle) }.map_err(to_py)?;
                Ok(Some(handle))
            }
        }
    }
}

/// What an exported tensor keeps alive until its deleter runs.
struct Export {
    shape: [i64; 2],
    /// Row-major strides in elements, given explicitly rather than as the null that DLPack 1.x still
    /// allows for compact tensors, which some consumers no longer accept.
    strides: [i64; 2],
    state: Arc<ViewState>,
    _memory: Memory,
}

impl Drop for Export {
    fn drop(&mut self) {
        self.state.exports.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The deleter of an unversioned tensor: frees the tensor and its [`Export`].
unsafe extern "C" fn delete_tensor(tensor: *mut DLManagedTensor) {
    if tensor.is_null() {
        return;
    }
    // SAFETY: `tensor` was made by `Box::into_raw` in `export` and its deleter runs once (the protocol).
    let tensor = unsafe { Box::from_raw(tensor) };
    // SAFETY: `manager_ctx` was made by `Box::into_raw` of an `Export` in `export`, freed only here.
    drop(unsafe { Box::from_raw(tensor.manager_ctx.cast::<Export>()) });
}

/// The deleter of a versioned tensor, as [`delete_tensor`].
unsafe extern "C" fn delete_versioned(tensor: *mut DLManagedTensorVersioned) {
    if tensor.is_null() {
        return;
    }
    // SAFETY: as in `delete_tensor`.
    let tensor = unsafe { Box::from_raw(tensor) };
    // SAFETY: as in `delete_tensor`.
    drop(unsafe { Box::from_raw(tensor.manager_ctx.cast::<Export>()) });
}

/// The destructor of an unversioned capsule: deletes the tensor when no consumer took it over (the capsule
/// still has its unconsumed name).
unsafe extern "C" fn release_capsule(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: Python calls the destructor with the GIL held and the capsule alive; IsValid sets no error.
    if unsafe { pyo3::ffi::PyCapsule_IsValid(capsule, CAPSULE.as_ptr()) } == 1 {
        // SAFETY: the capsule is valid under this name, so the pointer is the tensor `export` stored.
        let tensor = unsafe { pyo3::ffi::PyCapsule_GetPointer(capsule, CAPSULE.as_ptr()) };
        // SAFETY: an unconsumed tensor is still ours to delete, once.
        unsafe { delete_tensor(tensor.cast()) };
    }
}

/// The destructor of a versioned capsule, as [`release_capsule`].
unsafe extern "C" fn release_versioned_capsule(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: as in `release_capsule`.
    if unsafe { pyo3::ffi::PyCapsule_IsValid(capsule, VERSIONED_CAPSULE.as_ptr()) } == 1 {
        // SAFETY: as in `release_capsule`.
        let tensor =
            unsafe { pyo3::ffi::PyCapsule_GetPointer(capsule, VERSIONED_CAPSULE.as_ptr()) };
        // SAFETY: as in `release_capsule`.
        unsafe { delete_versioned(tensor.cast()) };
    }
}

impl DeviceView {
    /// A new capsule of this view, versioned or not; the export is counted until its deleter runs.
    fn export<'py>(&self, py: Python<'py>, versioned: bool) -> PyResult<Bound<'py, PyAny>> {
        let rows = i64::try_from(self.rows).map_err(|_| PyValueError::new_err("too many rows"))?;
        let columns =
            i64::try_from(self.columns).map_err(|_| PyValueError::new_err("too many columns"))?;
        self.state.exports.fetch_add(1, Ordering::AcqRel);
        let export = Box::into_raw(Box::new(Export {
            shape: [rows, columns],
            strides: [columns, 1],
            state: Arc::clone(&self.state),
            _memory: self.memory.clone(),
        }));
        let view = DLTensor {
            data: self.address() as *mut c_void,
            device: self.device(),
            ndim: 2,
            dtype: DLDataType::F32,
            // SAFETY: `export` is a live allocation (freed only by the deleter), so its field's address is
            // valid for as long as the tensor.
            shape: unsafe { (&raw mut (*export).shape).cast::<i64>() },
            // SAFETY: as for `shape`.
            strides: unsafe { (&raw mut (*export).strides).cast::<i64>() },
            byte_offset: 0,
        };
        let capsule = if versioned {
            let tensor = Box::into_raw(Box::new(DLManagedTensorVersioned {
                version: DLPackVersion {
                    major: MAJOR_VERSION,
                    minor: MINOR_VERSION,
                },
                manager_ctx: export.cast(),
                deleter: Some(delete_versioned),
                flags: 0,
                dl_tensor: view,
            }));
            // SAFETY: the GIL is held; the name is a static C string; on failure nothing took the tensor.
            let capsule = unsafe {
                pyo3::ffi::PyCapsule_New(
                    tensor.cast(),
                    VERSIONED_CAPSULE.as_ptr(),
                    Some(release_versioned_capsule),
                )
            };
            if capsule.is_null() {
                // SAFETY: the capsule was not made, so the tensor is still only ours.
                unsafe { delete_versioned(tensor) };
            }
            capsule
        } else {
            let tensor = Box::into_raw(Box::new(DLManagedTensor {
                dl_tensor: view,
                manager_ctx: export.cast(),
                deleter: Some(delete_tensor),
            }));
            // SAFETY: as above.
            let capsule = unsafe {
                pyo3::ffi::PyCapsule_New(tensor.cast(), CAPSULE.as_ptr(), Some(release_capsule))
            };
            if capsule.is_null() {
                // SAFETY: as above.
                unsafe { delete_tensor(tensor) };
            }
            capsule
        };
        // SAFETY: `capsule` is a new reference or null with Python's error set.
        unsafe { Bound::from_owned_ptr_or_err(py, capsule) }
    }
}

#[pymethods]
impl DeviceView {
    /// A DLPack capsule of the view (the protocol's producer side; see the module docs for `stream`).
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !self.state.valid.load(Ordering::Acquire) {
            return Err(PyBufferError::new_err(
                "this view of the engine's population was valid only while the engine waited for its \
                 fitness (during the fitness call that received it, or until the tell after the ask that gave \
                 it); copy the tensor while it is valid (x.clone()) to keep its values",
            ));
        }
        let device = self.device();
        if let Some((device_type, device_id)) = dl_device
            && (device_type, device_id) != (device.device_type, device.device_id)
        {
            return Err(PyBufferError::new_err(format!(
                "__dlpack__: the view is on device ({}, {}) and is exported there only, not to \
                 ({device_type}, {device_id})",
                device.device_type, device.device_id
            )));
        }
        if copy == Some(true) {
            return Err(PyBufferError::new_err(
                "__dlpack__: the view exports the engine's memory itself and makes no copies (copy=True); \
                 copy the consumer's tensor instead",
            ));
        }
        if let Some(handle) = self.order_consumer(stream)? {
            self.state.consumer.store(handle, Ordering::Release);
            self.state.ordered.store(true, Ordering::Release);
        }
        let versioned = max_version.is_some_and(|(major, _)| major >= MAJOR_VERSION);
        self.export(py, versioned)
    }

    /// `(device_type, device_id)`: `(2, ordinal)` for CUDA memory, `(1, 0)` for the host.
    fn __dlpack_device__(&self) -> (i32, i32) {
        let device = self.device();
        (device.device_type, device.device_id)
    }

    /// `(rows, columns)`.
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.rows, self.columns)
    }

    /// The address of the first value (the engine's device buffer on the CUDA backend).
    #[getter]
    fn data_ptr(&self) -> u64 {
        self.address()
    }

    /// Always `"float32"`, the engines' gene type.
    #[getter]
    fn dtype(&self) -> &'static str {
        "float32"
    }

    /// Exports (capsules and the tensors made of them) alive now.
    #[getter]
    fn exports(&self) -> usize {
        self.state.exports()
    }

    fn __repr__(&self) -> String {
        let place = match &self.memory {
            Memory::Host(_) => "host".to_string(),
            Memory::Cuda { order, .. } => format!("cuda:{}", order.gpu().index()),
        };
        format!(
            "DeviceView(shape=({}, {}), dtype=float32, device={place})",
            self.rows, self.columns
        )
    }
}

/// A host view of `values` (a float32 matrix), for tests of the protocol without a GPU.
#[pyfunction]
pub fn _host_view(values: Vec<Vec<f32>>) -> PyResult<DeviceView> {
    let rows = values.len();
    let columns = values.first().map_or(0, Vec::len);
    if values.iter().any(|row| row.len() != columns) {
        return Err(PyValueError::new_err(
            "_host_view: every row must have the same length",
        ));
    }
    Ok(DeviceView::host(values.concat(), rows, columns))
}
