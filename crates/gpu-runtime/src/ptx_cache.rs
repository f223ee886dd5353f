//! The on-disk PTX cache: a compiled module is written once and read back by every later process.
//!
//! The key is a 128-bit FNV-1a hash of everything that changes the PTX: the NVRTC version, the module's name
//! and source, every header of the table, the options of the profile and the architecture. The cache lives in
//! `$EVO_GPU_CACHE_DIR` when set, otherwise in the user's cache directory (`~/.cache/evo-gpu/ptx` on Linux).
//! Each entry carries a header with its length and a hash of its contents, checked before the PTX is used;
//! a damaged entry is removed and recompiled, and so is one the driver refuses to load. Entries are written
//! to a unique temporary file, flushed to the disk and renamed into place (see `cache_entry.rs`).
//! [`clear_ptx_cache`] empties the cache.

use std::path::{Path, PathBuf};

use evo_core::{Error, Result};

use crate::cache_entry::{self, EntryKind};
use crate::nvrtc::{Profile, compile_options, compile_to_ptx, nvrtc_version};

/// Environment variable that overrides the cache directory.
pub const CACHE_DIR_VARIABLE: &str = "EVO_GPU_CACHE_DIR";

/// PTX for one module, with where it came from.
#[derive(Debug, Clone)]
pub struct CompiledPtx {
    /// The PTX text.
    pub ptx: String,
    /// Whether it was read from the disk cache rather than compiled now.
    pub from_cache: bool,
}

/// The directory of the PTX cache, if one can be determined.
pub fn ptx_cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_VARIABLE) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|dir| dir.join("evo-gpu").join("ptx")),
    }
}

/// Deletes every cached PTX and device-binary file, and temporaries left by interrupted writes; returns how
/// many files were removed.
pub fn clear_ptx_cache() -> Result<usize> {
    let Some(dir) = ptx_cache_dir() else {
        return Ok(0);
    };
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut removed = 0;
    for entry in entries {
        let path = entry.map_err(|e| Error::io(&dir, e))?.path();
        let entry = path
            .extension()
            .is_some_and(|ext| ext == "ptx" || ext == "cubin");
        if entry || cache_entry::is_temporary(&path) {
            std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// 128-bit FNV-1a, fed field by field with a length prefix so that field boundaries cannot shift.
pub(crate) struct Fnv128(pub(crate) u128);

impl Fnv128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    pub(crate) fn new() -> Self {
        Self(Self::OFFSET)
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}

/// The cache key of a module compiled with `options` by NVRTC `version`.
fn cache_key(name: &str, source: &str, options: &[String], version: (i32, i32)) -> u128 {
    let mut hash = Fnv128::new();
    hash.bytes(b"evo-gpu ptx cache v1");
    hash.bytes(format!("{}.{}", version.0, version.1).as_bytes());
    hash.bytes(name.as_bytes());
    hash.bytes(source.as_bytes());
    for header in evo_kernels::HEADERS {
        hash.bytes(header.name.as_bytes());
        hash.bytes(header.source.as_bytes());
    }
    for option in options {
        hash.bytes(option.as_bytes());
    }
    hash.0
}

/// The file of a cache entry: `<name with non-alphanumerics as _>-<key>.<extension>` in `dir`.
pub(crate) fn entry_path(dir: &Path, name: &str, key: u128, extension: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(format!("{safe}-{key:032x}.{extension}"))
}

/// PTX of `source` for `profile` and `arch`, from the disk cache when present, otherwise compiled and stored.
///
/// A cache that cannot be written (read-only home, full disk) costs a recompilation next time, not an error;
/// it is reported through `tracing`.
pub fn cached_ptx(name: &str, source: &str, profile: Profile, arch: &str) -> Result<CompiledPtx> {
    cached_ptx_in(ptx_cache_dir().as_deref(), name, source, profile, arch)
}

/// [`cached_ptx`] with the cache in `dir` (`None`: no disk cache, always compile).
pub fn cached_ptx_in(
    dir: Option<&Path>,
    name: &str,
    source: &str,
    profile: Profile,
    arch: &str,
) -> Result<CompiledPtx> {
    let path = match dir {
        Some(dir) => Some(ptx_entry_path(dir, name, source, profile, arch)?),
        None => None,
    };
    if let Some(ptx) = path.as_deref().and_then(cache_entry::read_text) {
        return Ok(CompiledPtx {
            ptx,
            from_cache: true,
        });
    }
    let ptx = compile_to_ptx(name, source, profile, arch)?;
    if let (Some(dir), Some(path)) = (dir, &path)
        && let Err(e) = cache_entry::write(dir, path, EntryKind::Ptx, ptx.as_bytes())
    {
        tracing::warn!(dir = %dir.display(), "could not write the PTX cache: {e}");
    }
    Ok(CompiledPtx {
        ptx,
        from_cache: false,
    })
}

/// The file of the cache entry of `source` compiled under `profile` for `arch`, in `dir`.
pub(crate) fn ptx_entry_path(
    dir: &Path,
    name: &str,
    source: &str,
    profile: Profile,
    arch: &str,
) -> Result<PathBuf> {
    let options = compile_options(profile, arch)?;
    let key = cache_key(name, source, &options, nvrtc_version()?);
    Ok(entry_path(dir, name, key, "ptx"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_with_every_input() {
        let options = vec!["--fmad=false".to_string()];
        let base = cache_key("m", "src", &options, (12, 9));
        assert_ne!(base, cache_key("n", "src", &options, (12, 9)));
        assert_ne!(base, cache_key("m", "src2", &options, (12, 9)));
        assert_ne!(
            base,
            cache_key("m", "src", &["--fmad=true".to_string()], (12, 9))
        );
        assert_ne!(base, cache_key("m", "src", &options, (13, 0)));
        assert_eq!(base, cache_key("m", "src", &options, (12, 9)));
    }

    #[test]
    fn field_boundaries_do_not_collide() {
        let options: Vec<String> = Vec::new();
        assert_ne!(
            cache_key("ab", "c", &options, (12, 9)),
            cache_key("a", "bc", &options, (12, 9))
        );
    }

    #[test]
    fn entry_names_are_file_system_safe() {
        let path = entry_path(Path::new("/tmp"), "user/kernel name", 1, "ptx");
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(file.starts_with("user_kernel_name-"), "{file}");
    }
}
