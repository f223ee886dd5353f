//! The on-disk device-binary cache, beside the PTX cache: the driver's JIT output (a cubin) for one module's
//! PTX on one GPU architecture under one driver, so that a later process loads machine code directly and
//! neither NVRTC nor the driver's PTX JIT runs.
//!
//! The binary is produced by the driver's linker (`cuLinkCreate` / `cuLinkAddData` with the PTX /
//! `cuLinkComplete`), which runs the same JIT as loading the PTX would, with the default options; the PTX
//! already fixes every rounding decision of the Exact profile (`mul.rn`, `add.rn`, no `fma`), so the binary
//! computes what the PTX does. The key hashes the PTX text, the architecture and the driver version; a file
//! that is not an ELF image is ignored and rebuilt.

use std::ffi::{CString, c_void};
use std::path::Path;

use cudarc::driver::sys;
use evo_core::{Error, Result};

use crate::ptx_cache::{self, Fnv128, entry_path};

/// The key of the binary of `ptx` for `arch` under driver `driver_version`.
pub(crate) fn binary_key(ptx: &str, arch: &str, driver_version: &str) -> u128 {
    let mut hash = Fnv128::new();
    hash.bytes(b"evo-gpu binary cache v1");
    hash.bytes(ptx.as_bytes());
    hash.bytes(arch.as_bytes());
    hash.bytes(driver_version.as_bytes());
    hash.0
}

/// The cached binary, if present and an ELF image.
pub(crate) fn read(dir: &Path, name: &str, key: u128) -> Option<Vec<u8>> {
    let path = entry_path(dir, name, key, "cubin");
    let bytes = std::fs::read(&path).ok()?;
    if bytes.starts_with(b"\x7fELF") {
        Some(bytes)
    } else {
        tracing::warn!(path = %path.display(), "ignoring a corrupted binary cache entry");
        None
    }
}

/// Stores `binary` atomically (a temporary file renamed into place).
pub(crate) fn store(dir: &Path, name: &str, key: u128, binary: &[u8]) -> std::io::Result<()> {
    ptx_cache::store(dir, &entry_path(dir, name, key, "cubin"), binary)
}

fn link_error(call: &str, name: &str, result: sys::CUresult) -> Error {
    Error::Driver {
        call: format!("{call} for module `{name}`"),
        message: format!("{result:?}"),
    }
}

/// JIT-compiles `ptx` for the current context's device and returns the binary. The caller must have made the
/// context current on this thread.
pub(crate) fn link_ptx(name: &str, ptx: &str) -> Result<Vec<u8>> {
    let ptx = CString::new(ptx).map_err(|_| Error::Driver {
        call: format!("link module `{name}`"),
        message: "the PTX contains a NUL byte".into(),
    })?;
    let c_name = CString::new(name).unwrap_or_default();
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: no options are passed (null arrays with count 0); `state` receives a new link state.
    let created =
        unsafe { sys::cuLinkCreate_v2(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut state) };
    if created != sys::CUresult::CUDA_SUCCESS {
        return Err(link_error("cuLinkCreate", name, created));
    }
    let linked = (|| {
        // SAFETY: `state` is a live link state; the PTX and the name are NUL-terminated and outlive the call;
        // the size includes the terminating NUL, as the driver expects for PTX text.
        let added = unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                ptx.as_ptr() as *mut c_void,
                ptx.as_bytes_with_nul().len(),
                c_name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        if added != sys::CUresult::CUDA_SUCCESS {
            return Err(link_error("cuLinkAddData", name, added));
        }
        let mut image: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live and holds the PTX; the image it returns stays valid until cuLinkDestroy.
        let completed = unsafe { sys::cuLinkComplete(state, &mut image, &mut size) };
        if completed != sys::CUresult::CUDA_SUCCESS || image.is_null() {
            return Err(link_error("cuLinkComplete", name, completed));
        }
        // SAFETY: the driver returned `size` readable bytes at `image`, owned by `state` (destroyed below).
        Ok(unsafe { std::slice::from_raw_parts(image as *const u8, size) }.to_vec())
    })();
    // SAFETY: `state` was created above and is destroyed once, after its image was copied.
    let destroyed = unsafe { sys::cuLinkDestroy(state) };
    if destroyed != sys::CUresult::CUDA_SUCCESS {
        tracing::warn!(module = name, "cuLinkDestroy failed: {destroyed:?}");
    }
    linked
}
