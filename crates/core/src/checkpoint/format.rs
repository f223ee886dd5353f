//! The binary checkpoint file: encoding, verification and decoding (layout in the module docs of
//! [`checkpoint`](super)).

use super::RunState;
use crate::atomic_file::write_atomically;
use crate::error::{Error, Result};
use crate::fingerprint::{ResumeOverrides, RunFingerprint};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// The first 8 bytes of every checkpoint file.
pub const MAGIC: [u8; 8] = *b"EVO-CKPT";

/// The checkpoint layout version this build writes and reads (version 1 was the JSON format).
pub const CHECKPOINT_FORMAT_VERSION: u32 = 2;

/// Bytes before the header: magic, format version, header length, payload length.
const FIXED: usize = 8 + 4 + 4 + 8;

/// Bytes of the trailing checksum.
const CHECKSUM: usize = 4;

/// The identifying part of a checkpoint, readable without knowing the algorithm's snapshot type
/// ([`read_header`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointHeader {
    /// The algorithm's name ([`Engine::algorithm`](crate::Engine::algorithm)).
    pub algorithm: String,
    /// The evo-core version that wrote the file.
    pub crate_version: String,
    /// The run's seed, parameters and problem.
    pub fingerprint: RunFingerprint,
}

/// Encodes a checkpoint file.
pub(crate) fn encode<S: Serialize>(
    header: &CheckpointHeader,
    snapshot: &S,
    state: &RunState,
) -> Result<Vec<u8>> {
    let codec = |what: &str, error: postcard::Error| Error::Serialization {
        what: format!("{what} of a {} checkpoint", header.algorithm),
        reason: error.to_string(),
    };
    let header_bytes = postcard::to_stdvec(header).map_err(|error| codec("header", error))?;
    let payload = (snapshot, state);
    let payload_len = postcard::experimental::serialized_size(&payload)
        .map_err(|error| codec("payload", error))?;
    let header_len = u32::try_from(header_bytes.len()).map_err(|_| Error::Serialization {
        what: format!("header of a {} checkpoint", header.algorithm),
        reason: format!("{} bytes exceed the 4 GiB header limit", header_bytes.len()),
    })?;
    // One buffer of the final size: the payload, by far the largest part, is encoded in place.
    let mut file = Vec::with_capacity(FIXED + header_bytes.len() + payload_len + CHECKSUM);
    file.extend_from_slice(&MAGIC);
    file.extend_from_slice(&CHECKPOINT_FORMAT_VERSION.to_le_bytes());
    file.extend_from_slice(&header_len.to_le_bytes());
    file.extend_from_slice(&(payload_len as u64).to_le_bytes());
    file.extend_from_slice(&header_bytes);
    let mut file = postcard::to_extend(&payload, file).map_err(|error| codec("payload", error))?;
    let checksum = crc32fast::hash(&file);
    file.extend_from_slice(&checksum.to_le_bytes());
    Ok(file)
}

/// Encodes and writes a checkpoint atomically.
pub(crate) fn write<S: Serialize>(
    path: &Path,
    header: &CheckpointHeader,
    snapshot: &S,
    state: &RunState,
) -> Result<()> {
    write_atomically(path, &encode(header, snapshot, state)?)
}

/// A checkpoint whose framing and checksum were verified, with its header decoded.
pub(crate) struct Verified<'a> {
    /// The decoded header.
    pub(crate) header: CheckpointHeader,
    /// The payload's bytes.
    payload: &'a [u8],
}

/// Reads `u32`/`u64` fields of the fixed part (the caller checked the length).
fn le_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Checks magic, version, length and checksum, and decodes the header; the reason names what failed.
pub(crate) fn verify(bytes: &[u8]) -> std::result::Result<Verified<'_>, String> {
    let magic_len = MAGIC.len().min(bytes.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        let hint = if bytes.first() == Some(&b'{') {
            " (it looks like JSON: a checkpoint of format version 1, which this build no longer reads, \
             or an exported checkpoint)"
        } else {
            ""
        };
        return Err(format!(
            "bad magic bytes: it is not an evo-gpu checkpoint{hint}"
        ));
    }
    if bytes.len() < FIXED + CHECKSUM {
        return Err(format!(
            "truncated: {} bytes, shorter than the {} bytes of an empty checkpoint",
            bytes.len(),
            FIXED + CHECKSUM
        ));
    }
    let version = le_u32(bytes, 8);
    if version != CHECKPOINT_FORMAT_VERSION {
        return Err(format!(
            "it has format version {version}, but this build of evo-core reads version \
             {CHECKPOINT_FORMAT_VERSION}"
        ));
    }
    let header_len = le_u32(bytes, 12) as usize;
    let payload_len = le_u64(bytes, 16);
    let expected = usize::try_from(payload_len)
        .ok()
        .and_then(|payload| (FIXED + CHECKSUM + header_len).checked_add(payload));
    let Some(expected) = expected else {
        return Err(format!(
            "corrupted: its payload length {payload_len} cannot be a file on this machine"
        ));
    };
    if bytes.len() < expected {
        return Err(format!(
            "truncated: {} of the {expected} bytes its header announces",
            bytes.len()
        ));
    }
    if bytes.len() > expected {
        return Err(format!(
            "corrupted: {} bytes where its header announces {expected}",
            bytes.len()
        ));
    }
    let body = &bytes[..expected - CHECKSUM];
    let stored = le_u32(bytes, expected - CHECKSUM);
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(format!(
            "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupted"
        ));
    }
    let (header_bytes, payload) = body[FIXED..].split_at(header_len);
    let header = decode_exact::<CheckpointHeader>(header_bytes)
        .map_err(|error| format!("its header does not decode: {error}"))?;
    Ok(Verified { header, payload })
}

/// Decodes one value that must use all of `bytes`.
fn decode_exact<T: DeserializeOwned>(bytes: &[u8]) -> std::result::Result<T, String> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!("{} bytes left over after the value", rest.len())),
        Err(error) => Err(error.to_string()),
    }
}

impl Verified<'_> {
    /// Decodes the payload as the snapshot type `S` and the executor's state.
    pub(crate) fn payload<S: DeserializeOwned>(
        &self,
    ) -> std::result::Result<(S, RunState), String> {
        decode_exact::<(S, RunState)>(self.payload).map_err(|error| {
            format!(
                "its payload does not decode as a {} snapshot of this build: {error}",
                self.header.algorithm
            )
        })
    }
}

/// Reads a checkpoint written for `algorithm` by a run with fingerprint `this_run`.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Checkpoint`] when it is not a valid checkpoint of
/// this format version and algorithm; [`Error::RunMismatch`] when it belongs to another run (unless the
/// differing parameters are in `overrides`).
pub(crate) fn read<S: DeserializeOwned>(
    path: &Path,
    algorithm: &str,
    this_run: &RunFingerprint,
    overrides: &ResumeOverrides,
) -> Result<(S, RunState)> {
    let bytes = fs::read(path).map_err(|error| Error::io(path, error))?;
    let refuse = |reason: String| Error::Checkpoint {
        path: path.to_path_buf(),
        reason,
    };
    let verified = verify(&bytes).map_err(refuse)?;
    if verified.header.algorithm != algorithm {
        return Err(refuse(format!(
            "it was written by algorithm `{}`, but this engine runs `{algorithm}`",
            verified.header.algorithm
        )));
    }
    verified
        .header
        .fingerprint
        .check_resume(this_run, overrides, path)?;
    verified.payload().map_err(refuse)
}

/// Reads only the header of a checkpoint (algorithm, writer version, fingerprint), after verifying the
/// whole file; a tool that resumes any algorithm reads it to know which engine to build.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read; [`Error::Checkpoint`] when it is not a valid checkpoint of
/// this format version.
pub fn read_header(path: impl AsRef<Path>) -> Result<CheckpointHeader> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|error| Error::io(path, error))?;
    verify(&bytes)
        .map(|verified| verified.header)
        .map_err(|reason| Error::Checkpoint {
            path: path.to_path_buf(),
            reason,
        })
}

/// The JSON export's layout, borrowing the decoded parts.
#[derive(Serialize)]
struct Export<'a, S> {
    format_version: u32,
    #[serde(flatten)]
    header: &'a CheckpointHeader,
    snapshot: &'a S,
    executor: &'a RunState,
}

/// The checkpoint as indented JSON, for inspection: `format_version`, `algorithm`, `crate_version`,
/// `fingerprint`, `snapshot` (decoded as `S`, the engine's snapshot type) and `executor`. JSON is an export
/// only; [`Executor::resume_from`](crate::Executor::resume_from) reads the binary file.
///
/// # Errors
/// As [`read_header`], plus [`Error::Checkpoint`] when the payload is not an `S`, and
/// [`Error::Serialization`] when JSON cannot hold it.
pub fn export_json<S: Serialize + DeserializeOwned>(path: impl AsRef<Path>) -> Result<String> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|error| Error::io(path, error))?;
    let refuse = |reason: String| Error::Checkpoint {
        path: path.to_path_buf(),
        reason,
    };
    let verified = verify(&bytes).map_err(refuse)?;
    let (snapshot, executor) = verified.payload::<S>().map_err(refuse)?;
    let export = Export {
        format_version: CHECKPOINT_FORMAT_VERSION,
        header: &verified.header,
        snapshot: &snapshot,
        executor: &executor,
    };
    serde_json::to_string_pretty(&export).map_err(|error| Error::Serialization {
        what: format!("JSON export of checkpoint {}", path.display()),
        reason: error.to_string(),
    })
}
