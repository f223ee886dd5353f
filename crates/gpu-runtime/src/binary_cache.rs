//! The on-disk device-binary cache, beside the PTX cache: the driver's JIT output (a cubin) for one module's
//! PTX on one GPU architecture under one driver, so that a later process loads machine code directly and
//! neither NVRTC nor the driver's PTX JIT runs.
//!
//! The binary is produced by the driver's linker (`cuLinkCreate` / `cuLinkAddData` with the PTX /
//! `cuLinkComplete`), which runs the same JIT as loading the PTX would, with the default options; the PTX
//! already fixes every rounding decision of the Exact profile (`mul.rn`, `add.rn`, no `fma`), so the binary
//! computes what the PTX does. The key hashes the PTX text, the architecture and the driver version. An entry
//! whose header does not match its contents (see `cache_entry.rs`) never reaches the driver: it is removed and
//! rebuilt, and so is one the driver refuses to load.

use std::ffi::{CString, c_void};
use std::path::Path;

use cudarc::driver::sys;
use evo_core::Error;

use crate::cache_entry::{self, EntryKind};
use crate::ptx_cache::{Fnv128, entry_path};

/// The key of the binary of `ptx` for `arch` under driver `driver_version`.
pub(crate) fn binary_key(ptx: &str, arch: &str, driver_version: &str) -> u128 {
    let mut hash = Fnv128::new();
    hash.bytes(b"evo-gpu binary cache v1");
    hash.bytes(ptx.as_bytes());
    hash.bytes(arch.as_bytes());
    hash.bytes(driver_version.as_bytes());
    hash.0
}

/// The cached binary, if present and intact (a damaged entry is removed).
pub(crate) fn read(dir: &Path, name: &str, key: u128) -> Option<Vec<u8>> {
    cache_entry::read(&entry_path(dir, name, key, "cubin"), EntryKind::Cubin)
}

/// Stores `binary` durably and atomically.
pub(crate) fn store(dir: &Path, name: &str, key: u128, binary: &[u8]) -> std::io::Result<()> {
    let path = entry_path(dir, name, key, "cubin");
    cache_entry::write(dir, &path, EntryKind::Cubin, binary)
}

/// Removes the binary entry, which the driver refused for `reason`.
pub(crate) fn evict(dir: &Path, name: &str, key: u128, reason: &dyn std::fmt::Display) {
    cache_entry::evict(&entry_path(dir, name, key, "cubin"), reason);
}

/// A failed step of [`link_ptx`]: the call and the driver's code.
#[derive(Debug)]
pub(crate) struct LinkError {
    pub(crate) call: String,
    pub(crate) code: sys::CUresult,
}

impl LinkError {
    /// As an [`Error::Driver`] naming the module.
    pub(crate) fn into_error(self, name: &str) -> Error {
        Error::Driver {
            call: format!("{} for module `{name}`", self.call),
            message: format!("{:?}", self.code),
        }
    }
}

fn link_error(call: &str, code: sys::CUresult) -> LinkError {
    LinkError {
        call: call.to_string(),
        code,
    }
}

/// JIT-compiles `ptx` for the current context's device and returns the binary. The caller must have made the
/// context current on this thread.
pub(crate) fn link_ptx(name: &str, ptx: &str) -> std::result::Result<Vec<u8>, LinkError> {
    let ptx = CString::new(ptx).map_err(|_| LinkError {
        call: "link (the PTX contains a NUL byte)".into(),
        code: sys::CUresult::CUDA_ERROR_INVALID_PTX,
    })?;
    let c_name = CString::new(name).unwrap_or_default();
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: no options are passed (null arrays with count 0); `state` receives a new link state.
    let created =
        unsafe { sys::cuLinkCreate_v2(0, std::ptr::null_mut(), std::ptr::null_mut(), &mut state) };
    if created != sys::CUresult::CUDA_SUCCESS {
        return Err(link_error("cuLinkCreate", created));
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
            return Err(link_error("cuLinkAddData", added));
        }
        let mut image: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live and holds the PTX; the image it returns stays valid until cuLinkDestroy.
        let completed = unsafe { sys::cuLinkComplete(state, &mut image, &mut size) };
        if completed != sys::CUresult::CUDA_SUCCESS || image.is_null() {
            return Err(link_error("cuLinkComplete", completed));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_binary_is_a_miss_and_is_removed() {
        let dir = std::env::temp_dir().join(format!("evo-gpu-binary-cache-{}", std::process::id()));
        let key = binary_key(".version 8.0", "sm_90", "12.8");
        let path = entry_path(&dir, "reduce", key, "cubin");
        let binary = b"\x7fELF machine code of the reduce module".to_vec();
        store(&dir, "reduce", key, &binary).unwrap();
        assert_eq!(read(&dir, "reduce", key), Some(binary.clone()));
        // Half a cubin used to reach cuModuleLoadData and crash the process.
        let whole = std::fs::read(&path).unwrap();
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        assert_eq!(read(&dir, "reduce", key), None);
        assert!(!path.exists());
        // A bare cubin of the format before headers is rebuilt too.
        std::fs::write(&path, &binary).unwrap();
        assert_eq!(read(&dir, "reduce", key), None);
        assert!(!path.exists());
        store(&dir, "reduce", key, &binary).unwrap();
        evict(&dir, "reduce", key, &"refused by the driver");
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
