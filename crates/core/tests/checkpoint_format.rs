//! The binary checkpoint file: every damaged or foreign file is refused with a reason that names the
//! cause, the file is left as it was, and no input makes the reader panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SphereEngine, SphereSnapshot, temp_path};
use evo_core::checkpoint::{self, CHECKPOINT_FORMAT_VERSION};
use evo_core::{Checkpointing, Error, Executor, Termination};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

const SEED: u64 = 5;
const DIMENSION: usize = 6;

/// A valid checkpoint of a short sphere run, written once per name.
fn valid_checkpoint(name: &str) -> PathBuf {
    let path = temp_path(name);
    Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(4))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 2).unwrap())
        .run()
        .unwrap();
    path
}

/// Resumes from `path` and returns the reason of the `Error::Checkpoint`, checking the file is unchanged.
fn refusal(path: &Path) -> String {
    let before = std::fs::read(path).unwrap();
    let result = Executor::new(SphereEngine::new(DIMENSION, SEED)).resume_from(path);
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "a refused file is left as it was"
    );
    match result {
        Err(Error::Checkpoint { reason, .. }) => reason,
        Err(other) => panic!("expected Error::Checkpoint, got {other}"),
        Ok(_) => panic!("expected Error::Checkpoint, got a resumed executor"),
    }
}

/// The CRC-32 trailer recomputed after an edit, so that the edit reaches the checks behind the checksum.
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 4;
    let checksum = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&checksum.to_le_bytes());
}

#[test]
fn a_changed_byte_anywhere_is_refused() {
    let good = valid_checkpoint("flip-good.ckpt");
    let bytes = std::fs::read(&good).unwrap();
    let path = temp_path("flip.ckpt");
    // Every byte after the magic and version (those have their own reasons, tested below).
    for at in 12..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        std::fs::write(&path, &damaged).unwrap();
        let reason = refusal(&path);
        assert!(
            reason.contains("checksum mismatch")
                || reason.contains("truncated")
                || reason.contains("corrupted"),
            "byte {at}: {reason}"
        );
    }
}

#[test]
fn a_truncated_file_is_refused_at_every_length() {
    let good = valid_checkpoint("truncate-good.ckpt");
    let bytes = std::fs::read(&good).unwrap();
    let path = temp_path("truncated.ckpt");
    for length in 0..bytes.len() {
        std::fs::write(&path, &bytes[..length]).unwrap();
        let reason = refusal(&path);
        assert!(reason.contains("truncated"), "length {length}: {reason}");
    }
}

#[test]
fn trailing_bytes_are_refused() {
    let good = valid_checkpoint("trailing-good.ckpt");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.push(0);
    let path = temp_path("trailing.ckpt");
    std::fs::write(&path, &bytes).unwrap();
    assert!(refusal(&path).contains("corrupted"));
}

#[test]
fn foreign_files_are_refused_as_not_checkpoints() {
    let path = temp_path("foreign-bytes.ckpt");
    std::fs::write(&path, b"\x7fELF\x02\x01\x01\x00 not a checkpoint at all").unwrap();
    assert!(refusal(&path).contains("bad magic"));
    // A checkpoint of the old JSON format (version 1) gets a hint.
    std::fs::write(
        &path,
        br#"{"format_version":1,"algorithm":"sphere-toy","snapshot":{},"executor":{}}"#,
    )
    .unwrap();
    let reason = refusal(&path);
    assert!(
        reason.contains("bad magic") && reason.contains("format version 1"),
        "{reason}"
    );
}

#[test]
fn another_format_version_is_refused_by_number() {
    let good = valid_checkpoint("version-good.ckpt");
    let mut bytes = std::fs::read(&good).unwrap();
    bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
    let path = temp_path("version.ckpt");
    std::fs::write(&path, &bytes).unwrap();
    let reason = refusal(&path);
    assert!(
        reason.contains("format version 99")
            && reason.contains(&format!("reads version {CHECKPOINT_FORMAT_VERSION}")),
        "{reason}"
    );
}

#[test]
fn a_payload_that_does_not_decode_is_refused_behind_a_valid_checksum() {
    let good = valid_checkpoint("payload-good.ckpt");
    let mut bytes = std::fs::read(&good).unwrap();
    // Cut the payload short and fix both the announced length and the checksum: only decoding can tell.
    let payload_len = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
    let checksum_at = bytes.len() - 4;
    bytes.drain(checksum_at - 3..checksum_at);
    bytes[16..24].copy_from_slice(&(payload_len - 3).to_le_bytes());
    reseal(&mut bytes);
    let path = temp_path("payload.ckpt");
    std::fs::write(&path, &bytes).unwrap();
    let reason = refusal(&path);
    assert!(reason.contains("payload does not decode"), "{reason}");
}

#[test]
fn the_json_export_shows_every_part() {
    let path = valid_checkpoint("export.ckpt");
    let json: serde_json::Value =
        serde_json::from_str(&checkpoint::export_json::<SphereSnapshot>(&path).unwrap()).unwrap();
    assert_eq!(json["format_version"], CHECKPOINT_FORMAT_VERSION);
    assert_eq!(json["fingerprint"]["seed"], SEED);
    assert_eq!(json["snapshot"]["generation"], 4);
    assert_eq!(json["executor"]["steps"], 4);
}

#[test]
fn the_round_trip_is_bit_exact() {
    let path = temp_path("round-trip.ckpt");
    let mut executor = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(9))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 100).unwrap());
    executor.run().unwrap();
    let original = evo_core::Engine::snapshot(executor.engine()).unwrap();
    drop(executor);
    let resumed = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .resume_from(&path)
        .unwrap();
    let restored = evo_core::Engine::snapshot(resumed.engine()).unwrap();
    let bits = |s: &SphereSnapshot| {
        (
            s.x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            s.fx.to_bits(),
            s.sigma.to_bits(),
            s.generation,
            s.evaluations,
        )
    };
    assert_eq!(bits(&restored), bits(&original));
}

/// Reads `bytes` as a checkpoint; the only acceptable outcomes are a resumed executor or a typed error.
fn read_never_panics(name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = temp_path(name);
    std::fs::write(&path, bytes).unwrap();
    match Executor::new(SphereEngine::new(DIMENSION, SEED)).resume_from(&path) {
        Ok(_)
        | Err(Error::Checkpoint { .. })
        | Err(Error::RunMismatch { .. })
        | Err(Error::InvalidSnapshot { .. }) => {}
        Err(other) => return Err(TestCaseError::fail(format!("unexpected error {other}"))),
    }
    let _ = checkpoint::read_header(&path);
    let _ = checkpoint::export_json::<SphereSnapshot>(&path);
    prop_assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the reader wrote the file"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        read_never_panics("fuzz-random.ckpt", &bytes)?;
    }

    #[test]
    fn random_bytes_behind_a_valid_magic_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut bytes = b"EVO-CKPT".to_vec();
        bytes.extend_from_slice(&CHECKPOINT_FORMAT_VERSION.to_le_bytes());
        bytes.extend_from_slice(&tail);
        read_never_panics("fuzz-magic.ckpt", &bytes)?;
    }

    /// Mutations of a valid file, resealed so that they reach the header and payload decoders.
    #[test]
    fn resealed_mutations_of_a_valid_file_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let good = valid_checkpoint("fuzz-good.ckpt");
        let mut bytes = std::fs::read(&good).unwrap();
        let body = bytes.len() - 4;
        for (index, value) in edits {
            // Keep magic and version so the decoders are reached.
            let at = 12 + index.index(body - 12);
            bytes[at] = value;
        }
        reseal(&mut bytes);
        read_never_panics("fuzz-mutated.ckpt", &bytes)?;
    }
}
