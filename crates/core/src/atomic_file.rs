//! Atomic file writes, shared by checkpoints and reports.
//!
//! A file is written to a temporary name next to it, flushed to disk (`fsync`), renamed over the target,
//! and the directory is flushed, so a crash or a power cut at any moment leaves either the previous file or
//! the new one, never half a file. The temporary name is unique per write (process id, a per-process
//! counter and the clock's nanoseconds), so two writers of one path, in one process or in two, never write
//! into each other's temporary file; the last rename wins.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Writes in this process so far; part of every temporary name.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// The temporary name of one write of `path`: `<path>.<pid>.<counter>.<nanos>.tmp`.
pub(crate) fn temporary_path(path: &Path) -> PathBuf {
    let counter = WRITES.fetch_add(1, Ordering::Relaxed);
    // The clock only separates two processes that reuse one pid; a clock before 1970 still gives a name.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.subsec_nanos());
    let mut name = OsString::from(path.as_os_str());
    name.push(format!(".{}.{counter}.{nanos}.tmp", std::process::id()));
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically (see the module docs). Missing parent directories are created.
///
/// # Errors
/// [`Error::Io`] naming the temporary file or the target when writing, syncing or renaming fails; the
/// temporary file is removed then.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let temporary = temporary_path(path);
    let parent = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty());
    if let Some(parent) = parent {
        fs::create_dir_all(parent).map_err(|error| Error::io(parent, error))?;
    }
    let written = File::create_new(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(error) = written {
        // The partial temporary file is useless; removing it is best effort, the write error is what matters.
        let _ = fs::remove_file(&temporary);
        return Err(Error::io(&temporary, error));
    }
    if let Err(error) = fs::rename(&temporary, path) {
        let _ = fs::remove_file(&temporary);
        return Err(Error::io(path, error));
    }
    sync_directory(parent.unwrap_or(Path::new(".")));
    Ok(())
}

/// Flushes a directory entry to disk. Best effort: some file systems refuse to sync directories, and the
/// file itself is already safe, so a failure is only logged.
fn sync_directory(directory: &Path) {
    #[cfg(unix)]
    if let Err(error) = File::open(directory).and_then(|dir| dir.sync_all()) {
        tracing::debug!("cannot sync directory {}: {error}", directory.display());
    }
    #[cfg(not(unix))]
    let _ = directory;
}
