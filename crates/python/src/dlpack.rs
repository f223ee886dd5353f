//! The DLPack ABI (dlpack.h, version 1.x): the C structs a capsule carries between array libraries, and the
//! capsule names of the Python protocol (`__dlpack__`, `__dlpack_device__`).
//!
//! A producer's `__dlpack__` returns a `PyCapsule` named `"dltensor"` holding a [`DLManagedTensor`] (or, when
//! the consumer passed `max_version=(1, …)`, one named `"dltensor_versioned"` holding a
//! [`DLManagedTensorVersioned`]). The consumer takes the tensor over by renaming the capsule
//! `"used_dltensor"` (`"used_dltensor_versioned"`) and calls the tensor's `deleter` when done; a capsule that
//! is destroyed unconsumed calls the deleter itself. [`dlpack_export`](crate::dlpack_export) is this
//! package's producer, [`dlpack_import`](crate::dlpack_import) its consumer.

use std::ffi::{CStr, c_void};

/// An unconsumed capsule of a [`DLManagedTensor`].
pub const CAPSULE: &CStr = c"dltensor";
/// A consumed capsule of a [`DLManagedTensor`].
pub const USED_CAPSULE: &CStr = c"used_dltensor";
/// An unconsumed capsule of a [`DLManagedTensorVersioned`].
pub const VERSIONED_CAPSULE: &CStr = c"dltensor_versioned";
/// A consumed capsule of a [`DLManagedTensorVersioned`].
pub const USED_VERSIONED_CAPSULE: &CStr = c"used_dltensor_versioned";

/// The DLPack major version this package reads and writes (1.x; 0.x is the unversioned struct).
pub const MAJOR_VERSION: u32 = 1;
/// The minor version written into versioned tensors.
pub const MINOR_VERSION: u32 = 0;

/// `kDLCPU`: host memory.
pub const DEVICE_CPU: i32 = 1;
/// `kDLCUDA`: CUDA device memory.
pub const DEVICE_CUDA: i32 = 2;

/// `kDLFloat`: IEEE floating point.
pub const FLOAT: u8 = 2;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Incompatible changes.
    pub major: u32,
    /// Compatible additions.
    pub minor: u32,
}

/// `DLDevice`: where the memory is.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` ([`DEVICE_CPU`], [`DEVICE_CUDA`], …).
    pub device_type: i32,
    /// The device's ordinal (0 for the host).
    pub device_id: i32,
}

/// `DLDataType`: an element's type.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode` ([`FLOAT`], …).
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes per element (1 for scalars).
    pub lanes: u16,
}

impl DLDataType {
    /// `float32`.
    pub const F32: Self = Self {
        code: FLOAT,
        bits: 32,
        lanes: 1,
    };
    /// `float64`.
    pub const F64: Self = Self {
        code: FLOAT,
        bits: 64,
        lanes: 1,
    };
}

/// `DLTensor`: a strided view of memory owned by someone else.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// The allocation's base address (the first element is at `data + byte_offset`).
    pub data: *mut c_void,
    /// Where `data` lives.
    pub device: DLDevice,
    /// The number of dimensions.
    pub ndim: i32,
    /// The element type.
    pub dtype: DLDataType,
    /// `ndim` extents.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or null for a compact row-major layout.
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor` (DLPack 0.x, capsule `"dltensor"`).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The view.
    pub dl_tensor: DLTensor,
    /// The producer's own state, for its deleter.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer (or the unconsumed capsule) to release the tensor.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned` (DLPack 1.x, capsule `"dltensor_versioned"`).
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The ABI version of this struct.
    pub version: DLPackVersion,
    /// The producer's own state, for its deleter.
    pub manager_ctx: *mut c_void,
    /// Called once by the consumer (or the unconsumed capsule) to release the tensor.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// [`FLAG_READ_ONLY`] and the other `DLPACK_FLAG_BITMASK_*` bits.
    pub flags: u64,
    /// The view.
    pub dl_tensor: DLTensor,
}

/// A dtype as NumPy names it, for messages.
pub fn dtype_name(dtype: DLDataType) -> String {
    let kind = match dtype.code {
        0 => "int",
        1 => "uint",
        FLOAT => "float",
        4 => "bfloat",
        5 => "complex",
        6 => "bool",
        _ => "code",
    };
    if dtype.lanes == 1 {
        format!("{kind}{}", dtype.bits)
    } else {
        format!("{kind}{}x{}", dtype.bits, dtype.lanes)
    }
}
