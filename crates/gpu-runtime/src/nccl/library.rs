//! Finding libnccl before cudarc would look for it, NCCL's error text, and NVLink multicast.
//!
//! cudarc loads NCCL on its first call and panics when none of its candidate names loads
//! (`libnccl.so`, `libnccl.so.12`, … but not `libnccl.so.2`, the name NVIDIA's PyPI wheels and PyTorch ship).
//! Every way to an [`NcclComm`](super::NcclComm) goes through [`require_nccl`] first, so the panic cannot
//! happen: a missing library is [`Error::LibraryNotFound`] naming the names tried and the fix.

use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use cudarc::nccl::{result, sys};
use evo_core::{Error, Result};

/// The variable that turns NCCL's NVLink multicast (NVLS) on or off.
pub const NVLS_VARIABLE: &str = "NCCL_NVLS_ENABLE";

/// Whether libnccl loads under one of the names cudarc tries (checked once per process: the loader's path
/// cannot change while the process runs).
pub fn nccl_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the candidate names and closes them again; loading
    // libnccl runs no initialisation that needs a device.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// `Ok` when libnccl loads; otherwise [`Error::LibraryNotFound`] for `feature`, with the names tried and how
/// to make the library found.
///
/// # Errors
/// [`Error::LibraryNotFound`] when no candidate name loads.
pub fn require_nccl(feature: &str) -> Result<()> {
    if nccl_present() {
        return Ok(());
    }
    let path = std::env::var_os("LD_LIBRARY_PATH").unwrap_or_default();
    let directories: Vec<PathBuf> = std::env::split_paths(&path).collect();
    Err(not_found(
        feature,
        &cudarc::get_lib_name_candidates("nccl"),
        &directories,
    ))
}

/// The error for a missing libnccl: `candidates` are the names the loader was asked for, `directories` the
/// ones searched for a versioned file (`libnccl.so.2`) that would serve under a link.
pub(crate) fn not_found(feature: &str, candidates: &[String], directories: &[PathBuf]) -> Error {
    let near = directories.iter().find_map(|d| versioned_library_in(d));
    let mut searched = format!(
        "{} on the loader's path (LD_LIBRARY_PATH, the ld.so cache, the system directories)",
        candidates.join(", ")
    );
    let remedy = match near {
        Some(found) => {
            searched.push_str(&format!(
                "; {} exists, but under a name that is not tried",
                found.display()
            ));
            format!(
                "make a directory holding the link `libnccl.so -> {}` (`mkdir -p DIR && ln -s {} DIR/libnccl.so`) \
                 and put DIR on LD_LIBRARY_PATH",
                found.display(),
                found.display()
            )
        }
        None => "install NCCL (`pip install nvidia-nccl-cu12` puts libnccl.so.2 in \
                 site-packages/nvidia/nccl/lib; PyTorch ships the same file there), then make a directory holding \
                 the link `libnccl.so -> <that lib directory>/libnccl.so.2` and put it on LD_LIBRARY_PATH"
            .to_string(),
    };
    Error::LibraryNotFound {
        feature: feature.to_string(),
        library: "NCCL",
        searched,
        remedy,
    }
}

/// The first `libnccl.so.<version>` file in `directory` (sorted by name), if any.
fn versioned_library_in(directory: &Path) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(directory)
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("libnccl.so."))
        })
        .collect();
    names.sort();
    names.into_iter().next()
}

/// Sets `NCCL_NVLS_ENABLE=0` unless the variable is already set, before this process's first communicator:
/// NVLink multicast can take a shared host's GPUs out of service, and the island and split collectives move
/// too little data to gain from it. Setting the variable to `1` before the first communicator keeps it on.
pub(crate) fn multicast_off_unless_set() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os(NVLS_VARIABLE).is_none() {
            // SAFETY: written once, before this process creates its first NCCL communicator (NCCL reads the
            // variable when it initialises). Rust code reads the environment under std's lock; a C library
            // that calls getenv on another thread at this instant is the remaining hazard, which the module
            // docs name (set the variable before starting threads to avoid the write).
            unsafe { std::env::set_var(NVLS_VARIABLE, "0") };
            tracing::info!("{NVLS_VARIABLE} was unset: set to 0 (NVLink multicast off)");
        }
    });
}

/// [`Error::Driver`] for a failed NCCL `call`, with NCCL's code and description.
pub(crate) fn nccl_error(call: &str, error: result::NcclError) -> Error {
    // SAFETY: ncclGetErrorString returns a pointer to a static, NUL-terminated string for every code (or
    // null, checked below); the library is loaded, as every caller holds a communicator.
    let text = unsafe {
        let pointer = sys::ncclGetErrorString(error.0);
        if pointer.is_null() {
            String::new()
        } else {
            CStr::from_ptr(pointer).to_string_lossy().into_owned()
        }
    };
    Error::Driver {
        call: call.to_string(),
        message: format!("{:?}: {text}", error.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "evo-nccl-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_library_names_the_names_tried_and_the_fix() {
        let candidates = vec!["libnccl.so".to_string(), "libnccl.so.12".to_string()];
        let error = not_found("NCCL communicator over GPUs 0, 1", &candidates, &[]);
        assert!(matches!(
            error,
            Error::LibraryNotFound {
                library: "NCCL",
                ..
            }
        ));
        let text = error.to_string();
        for part in [
            "GPUs 0, 1",
            "libnccl.so, libnccl.so.12",
            "nvidia-nccl-cu12",
            "LD_LIBRARY_PATH",
        ] {
            assert!(text.contains(part), "{part} missing from: {text}");
        }
    }

    #[test]
    fn a_versioned_library_on_the_path_is_named_with_the_link_to_make() {
        let empty = scratch("empty");
        let wheel = scratch("wheel");
        std::fs::write(wheel.join("libnccl.so.2"), b"").unwrap();
        std::fs::write(wheel.join("libother.so.2"), b"").unwrap();
        let error = not_found(
            "NCCL",
            &["libnccl.so".to_string()],
            &[empty.clone(), wheel.join("absent"), wheel.clone()],
        );
        let text = error.to_string();
        let found = wheel.join("libnccl.so.2").display().to_string();
        assert!(text.contains(&format!("libnccl.so -> {found}")), "{text}");
        assert!(!text.contains("libother"), "{text}");
        std::fs::remove_dir_all(empty).unwrap();
        std::fs::remove_dir_all(wheel).unwrap();
    }

    #[test]
    fn multicast_is_off_unless_the_variable_was_set() {
        let before = std::env::var_os(NVLS_VARIABLE);
        multicast_off_unless_set();
        let after = std::env::var_os(NVLS_VARIABLE);
        match before {
            Some(value) => assert_eq!(after, Some(value), "a value set by the user is kept"),
            None => assert_eq!(after.as_deref(), Some(std::ffi::OsStr::new("0"))),
        }
    }

    #[test]
    fn require_nccl_is_ok_exactly_when_the_library_loads() {
        match require_nccl("test") {
            Ok(()) => assert!(nccl_present()),
            Err(error) => {
                assert!(!nccl_present());
                assert!(matches!(error, Error::LibraryNotFound { .. }), "{error}");
                assert!(error.to_string().contains("libnccl.so"), "{error}");
            }
        }
    }
}
