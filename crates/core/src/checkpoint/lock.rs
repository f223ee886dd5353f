//! The advisory lock an executor holds on its checkpoint path.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// An exclusive advisory lock on `<checkpoint>.lock`, held until dropped.
///
/// The lock is on a file next to the checkpoint, not on the checkpoint itself, because every write replaces
/// the checkpoint by a rename (a lock on the old file would not cover the new one). The lock file stays on
/// disk after the lock is released: deleting it would let a third run lock a fresh file while a second one
/// still holds the deleted one. The lock is advisory: it keeps evo-gpu executors apart, not other programs.
#[derive(Debug)]
pub(crate) struct CheckpointLock {
    /// The checkpoint the lock guards.
    path: PathBuf,
    /// The open, locked lock file; closing it releases the lock.
    _file: File,
}

impl CheckpointLock {
    /// Takes the lock for `path` without waiting.
    ///
    /// # Errors
    /// [`Error::CheckpointLocked`] when another executor holds it; [`Error::Io`] when the lock file cannot
    /// be created or locked (a file system without locks).
    pub(crate) fn acquire(path: &Path) -> Result<Self> {
        let lock = lock_path(path);
        if let Some(parent) = lock.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|error| Error::io(parent, error))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock)
            .map_err(|error| Error::io(&lock, error))?;
        match file.try_lock() {
            Ok(()) => Ok(Self {
                path: path.to_path_buf(),
                _file: file,
            }),
            Err(TryLockError::WouldBlock) => Err(Error::CheckpointLocked {
                path: path.to_path_buf(),
                lock,
            }),
            Err(TryLockError::Error(error)) => Err(Error::io(&lock, error)),
        }
    }

    /// The checkpoint the lock guards.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// `<path>.lock`.
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(".lock");
    PathBuf::from(name)
}
