//! Where the public benchmark instances live, and the line-by-line reader the instance loaders share.
//!
//! The instances (Braun et al.'s ETC matrices, the QIGA paper's knapsacks) are not shipped with the crate: a
//! checkout keeps them in `shared/data/` beside the project root (`../shared/data/` seen from the root).
//! [`shared_data_dir`] finds that folder; the environment variable `EVO_DATA_DIR` overrides it (a GPU machine
//! that receives a carried copy points it there). Tests that need the files skip, with a printed message, when
//! the folder is absent ([`shared_data_dir_or_skip`]).

use evo_core::{Error, Result};
use std::path::{Path, PathBuf};

/// The environment variable that overrides the location of the data folder.
pub const DATA_DIR_VARIABLE: &str = "EVO_DATA_DIR";

/// The data folder: `$EVO_DATA_DIR` when set (and non-empty), otherwise `../shared/data` relative to the
/// project root this crate was built in. `None` when that folder does not exist.
pub fn shared_data_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(DATA_DIR_VARIABLE) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    dir.is_dir().then_some(dir)
}

/// [`shared_data_dir`], or `None` after printing `SKIPPED <test>: ...` (to stderr, which a test harness
/// shows) explaining which folder is missing and how to point at one.
pub fn shared_data_dir_or_skip(test: &str) -> Option<PathBuf> {
    let dir = shared_data_dir();
    if dir.is_none() {
        eprintln!(
            "SKIPPED {test}: the benchmark data folder is absent (looked for ${DATA_DIR_VARIABLE}, then \
             ../shared/data beside the project root)"
        );
    }
    dir
}

/// Reads a whole instance file; an I/O failure is reported as [`Error::BadInputFile`] at line 0.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|error| Error::BadInputFile {
        path: path.to_path_buf(),
        line: 0,
        expected: "a readable file".to_string(),
        found: error.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|error| Error::BadInputFile {
        path: path.to_path_buf(),
        line: 0,
        expected: "UTF-8 text".to_string(),
        found: format!("invalid UTF-8 at byte {}", error.utf8_error().valid_up_to()),
    })
}

/// The error for line `line` (1-based) of `path`: what was expected there and what was found.
pub(crate) fn bad_line(
    path: &Path,
    line: usize,
    expected: impl Into<String>,
    found: impl Into<String>,
) -> Error {
    Error::BadInputFile {
        path: path.to_path_buf(),
        line,
        expected: expected.into(),
        found: found.into(),
    }
}

/// `found` text for an error message: the token quoted, shortened to 40 characters.
pub(crate) fn quoted(token: &str) -> String {
    let mut shown: String = token.chars().take(40).collect();
    if shown.len() < token.len() {
        shown.push('…');
    }
    format!("`{shown}`")
}

/// Parses one token as a finite number of type `T` (`f32` or `f64`), or explains what was wrong.
pub(crate) fn parse_finite<T>(path: &Path, line: usize, token: &str, what: &str) -> Result<T>
where
    T: std::str::FromStr + Copy + Into<f64>,
{
    match token.parse::<T>() {
        Ok(value) if value.into().is_finite() => Ok(value),
        Ok(_) => Err(bad_line(
            path,
            line,
            format!("a finite {what}"),
            quoted(token),
        )),
        Err(_) => Err(bad_line(
            path,
            line,
            format!("a number ({what})"),
            quoted(token),
        )),
    }
}
