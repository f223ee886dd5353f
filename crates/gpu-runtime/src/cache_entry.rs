//! The file format of an on-disk cache entry (PTX or device binary), and its durable, atomic write.
//!
//! Every entry starts with a 40-byte header, all integers little-endian:
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..8 | magic `EVOCACHE` |
//! | 8..12 | format version ([`FORMAT_VERSION`]) |
//! | 12..16 | kind: 1 PTX, 2 device binary |
//! | 16..24 | payload length in bytes |
//! | 24..40 | 128-bit FNV-1a hash of the payload |
//!
//! The header is checked before the payload is returned: a truncated file, a flipped byte, a file of the
//! other kind, garbage or an entry of an older format (which had no header) is a miss, and the file is
//! removed so that the entry is rebuilt. The driver therefore never sees a damaged cubin (half a cubin used
//! to crash the process inside `cuModuleLoadData` on every run).
//!
//! A write goes to a temporary file whose name is unique to the process, thread and write, is flushed to
//! the disk (`fsync`), then renamed over the entry, so a reader sees the old entry or the new one, whole,
//! even across a power loss, and two writers of one key never write into each other's file.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::ptx_cache::Fnv128;

/// The current format version of cache entries.
pub(crate) const FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"EVOCACHE";
const HEADER_BYTES: usize = 40;

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// PTX text from NVRTC.
    Ptx,
    /// A device binary (cubin) from the driver's JIT.
    Cubin,
}

impl EntryKind {
    fn code(self) -> u32 {
        match self {
            EntryKind::Ptx => 1,
            EntryKind::Cubin => 2,
        }
    }
}

/// Why an entry's bytes are not a valid entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Defect {
    /// Shorter than the header.
    Truncated { bytes: usize },
    /// No magic: garbage, or an entry of the format before headers.
    NoHeader,
    /// Written by another format version.
    Version { found: u32 },
    /// An entry of another kind.
    Kind { found: u32 },
    /// The payload is not as long as the header says.
    Length { header: u64, actual: u64 },
    /// The payload's hash differs from the header's.
    Hash,
    /// A PTX payload that is not UTF-8.
    NotText,
}

impl std::fmt::Display for Defect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Defect::Truncated { bytes } => {
                write!(
                    f,
                    "{bytes} bytes, shorter than the {HEADER_BYTES}-byte header"
                )
            }
            Defect::NoHeader => f.write_str("no header (garbage, or an entry of an older format)"),
            Defect::Version { found } => {
                write!(f, "format version {found}, expected {FORMAT_VERSION}")
            }
            Defect::Kind { found } => write!(f, "an entry of kind {found}"),
            Defect::Length { header, actual } => {
                write!(
                    f,
                    "a payload of {actual} bytes where the header says {header}"
                )
            }
            Defect::Hash => f.write_str("the payload's hash does not match the header"),
            Defect::NotText => f.write_str("PTX that is not UTF-8"),
        }
    }
}

/// The hash stored in the header.
fn payload_hash(payload: &[u8]) -> u128 {
    let mut hash = Fnv128::new();
    hash.bytes(b"evo-gpu cache payload");
    hash.bytes(payload);
    hash.0
}

/// The bytes of an entry of `kind` holding `payload`.
pub(crate) fn encode(kind: EntryKind, payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&kind.code().to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&payload_hash(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// `N` bytes of `bytes` from `at`; the caller has checked that the header is complete.
fn field<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&bytes[at..at + N]);
    out
}

/// The payload of an entry of `kind`, after every check of the header.
pub(crate) fn decode(kind: EntryKind, bytes: &[u8]) -> Result<&[u8], Defect> {
    if !bytes.starts_with(MAGIC) {
        return Err(if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
            Defect::Truncated { bytes: bytes.len() }
        } else {
            Defect::NoHeader
        });
    }
    if bytes.len() < HEADER_BYTES {
        return Err(Defect::Truncated { bytes: bytes.len() });
    }
    let version = u32::from_le_bytes(field(bytes, 8));
    if version != FORMAT_VERSION {
        return Err(Defect::Version { found: version });
    }
    let found = u32::from_le_bytes(field(bytes, 12));
    if found != kind.code() {
        return Err(Defect::Kind { found });
    }
    let length = u64::from_le_bytes(field(bytes, 16));
    let payload = &bytes[HEADER_BYTES..];
    let actual = payload.len() as u64;
    if length != actual {
        return Err(Defect::Length {
            header: length,
            actual,
        });
    }
    if u128::from_le_bytes(field(bytes, 24)) != payload_hash(payload) {
        return Err(Defect::Hash);
    }
    Ok(payload)
}

/// Removes the entry at `path`, saying why through `tracing`; a removal that fails is reported too (the
/// entry then stays a miss on every read, and is rewritten by the next store).
pub(crate) fn evict(path: &Path, reason: &dyn std::fmt::Display) {
    tracing::warn!(path = %path.display(), "evicting a cache entry: {reason}");
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(path = %path.display(), "could not remove the cache entry: {e}"),
    }
}

/// The payload of the entry of `kind` at `path`; `None` for a miss. A defective entry is evicted.
pub(crate) fn read(path: &Path, kind: EntryKind) -> Option<Vec<u8>> {
    let mut bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::warn!(path = %path.display(), "could not read a cache entry: {e}");
            return None;
        }
    };
    match decode(kind, &bytes) {
        Ok(_) => {
            bytes.drain(..HEADER_BYTES);
            Some(bytes)
        }
        Err(defect) => {
            evict(path, &defect);
            None
        }
    }
}

/// The PTX text of the entry at `path`; `None` for a miss. A defective entry is evicted.
pub(crate) fn read_text(path: &Path) -> Option<String> {
    let bytes = read(path, EntryKind::Ptx)?;
    match String::from_utf8(bytes) {
        Ok(text) => Some(text),
        Err(_) => {
            evict(path, &Defect::NotText);
            None
        }
    }
}

/// A temporary name beside `path` that no other process, thread or write uses.
fn temporary_name(path: &Path) -> std::path::PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let write = WRITES.fetch_add(1, Ordering::Relaxed);
    let thread: String = format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{thread}-{write}", std::process::id()));
    path.with_file_name(name)
}

/// Whether `path` is a temporary file of [`write`] (left behind by a process that died mid-write).
pub(crate) fn is_temporary(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.to_string_lossy().starts_with("tmp-"))
}

/// Writes an entry of `kind` holding `payload` to `path` (in `dir`, created if needed): a uniquely named
/// temporary file, flushed to the disk, renamed into place; then the directory is flushed so that the rename
/// itself survives a crash.
pub(crate) fn write(
    dir: &Path,
    path: &Path,
    kind: EntryKind,
    payload: &[u8],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let temporary = temporary_name(path);
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(&encode(kind, payload))?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        // A failed write leaves no temporary behind; the error itself is what the caller reports.
        let _ = std::fs::remove_file(&temporary);
        return written;
    }
    // Flushing a directory is not supported everywhere (some network file systems refuse it); the entry is
    // complete either way, only its durability across a power loss depends on it.
    if let Err(e) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
        tracing::debug!(dir = %dir.display(), "could not flush the cache directory: {e}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(test: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("evo-gpu-cache-entry-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    const PAYLOAD: &[u8] = b"\x7fELF a device binary, long enough to cut in half";

    #[test]
    fn an_entry_round_trips() {
        let dir = scratch("round-trip");
        let path = dir.join("m-1.cubin");
        write(&dir, &path, EntryKind::Cubin, PAYLOAD).unwrap();
        assert_eq!(read(&path, EntryKind::Cubin).as_deref(), Some(PAYLOAD));
        write(&dir, &path, EntryKind::Ptx, b".version 8.0").unwrap();
        assert_eq!(read_text(&path).as_deref(), Some(".version 8.0"));
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| is_temporary(p))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Writes a valid entry, damages it with `damage`, and checks that reading it is a miss that removes
    /// the file.
    fn damaged_entry_is_a_miss_and_removed(test: &str, damage: impl FnOnce(&mut Vec<u8>)) {
        let dir = scratch(test);
        let path = dir.join("m-2.cubin");
        write(&dir, &path, EntryKind::Cubin, PAYLOAD).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        damage(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(read(&path, EntryKind::Cubin), None, "{test}");
        assert!(!path.exists(), "{test}: the damaged entry was not removed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_truncated_entry_is_evicted() {
        damaged_entry_is_a_miss_and_removed("half", |b| b.truncate(b.len() / 2));
        damaged_entry_is_a_miss_and_removed("header-only", |b| b.truncate(HEADER_BYTES));
        damaged_entry_is_a_miss_and_removed("short-header", |b| b.truncate(20));
        damaged_entry_is_a_miss_and_removed("empty", Vec::clear);
    }

    #[test]
    fn a_flipped_byte_is_evicted() {
        damaged_entry_is_a_miss_and_removed("flip-payload", |b| {
            let last = b.len() - 1;
            b[last] ^= 0x01;
        });
        damaged_entry_is_a_miss_and_removed("flip-hash", |b| b[30] ^= 0x80);
        damaged_entry_is_a_miss_and_removed("flip-length", |b| b[16] ^= 0x01);
    }

    #[test]
    fn garbage_and_legacy_entries_are_evicted() {
        damaged_entry_is_a_miss_and_removed("garbage", |b| {
            *b = b"not a cache entry at all, but long enough for a header".to_vec()
        });
        // The format before headers stored the bare cubin.
        damaged_entry_is_a_miss_and_removed("legacy", |b| *b = PAYLOAD.to_vec());
        damaged_entry_is_a_miss_and_removed("version", |b| b[8] = 9);
    }

    #[test]
    fn an_entry_of_the_other_kind_is_evicted() {
        let dir = scratch("kind");
        let path = dir.join("m-3.cubin");
        write(&dir, &path, EntryKind::Ptx, b".version 8.0").unwrap();
        assert_eq!(read(&path, EntryKind::Cubin), None);
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn ptx_that_is_not_text_is_evicted() {
        let dir = scratch("not-text");
        let path = dir.join("m-4.ptx");
        write(&dir, &path, EntryKind::Ptx, &[0xff, 0xfe, 0x00]).unwrap();
        assert_eq!(read_text(&path), None);
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn decode_names_each_defect() {
        let entry = encode(EntryKind::Cubin, PAYLOAD);
        assert_eq!(decode(EntryKind::Cubin, &entry), Ok(PAYLOAD));
        assert_eq!(
            decode(EntryKind::Cubin, &entry[..entry.len() - 1]),
            Err(Defect::Length {
                header: PAYLOAD.len() as u64,
                actual: PAYLOAD.len() as u64 - 1
            })
        );
        assert_eq!(
            decode(EntryKind::Cubin, &entry[..3]),
            Err(Defect::Truncated { bytes: 3 })
        );
        assert_eq!(
            decode(EntryKind::Ptx, &entry),
            Err(Defect::Kind { found: 2 })
        );
        assert_eq!(decode(EntryKind::Cubin, PAYLOAD), Err(Defect::NoHeader));
    }

    #[test]
    fn temporary_names_differ_between_threads_and_writes() {
        let path = Path::new("/cache/m-5.cubin");
        let here = [temporary_name(path), temporary_name(path)];
        let there = std::thread::spawn(move || temporary_name(path))
            .join()
            .unwrap();
        assert_ne!(here[0], here[1]);
        assert_ne!(here[0], there);
        assert_ne!(here[1], there);
        assert!(here.iter().chain([&there]).all(|p| is_temporary(p)));
    }

    #[test]
    fn concurrent_writers_of_one_key_never_corrupt_it() {
        let dir = scratch("writers");
        let path = dir.join("m-6.cubin");
        let payloads: Vec<Vec<u8>> = (0..4u8)
            .map(|w| vec![w; 64 * 1024 + usize::from(w)])
            .collect();
        write(&dir, &path, EntryKind::Cubin, &payloads[0]).unwrap();
        std::thread::scope(|scope| {
            for payload in &payloads {
                let (dir, path) = (&dir, &path);
                scope.spawn(move || {
                    for _ in 0..25 {
                        write(dir, path, EntryKind::Cubin, payload).unwrap();
                    }
                });
            }
            let (path, payloads) = (&path, &payloads);
            scope.spawn(move || {
                for _ in 0..200 {
                    let read =
                        read(path, EntryKind::Cubin).expect("a complete entry at every moment");
                    assert!(payloads.contains(&read));
                }
            });
        });
        let last = read(&path, EntryKind::Cubin).unwrap();
        assert!(payloads.contains(&last));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
