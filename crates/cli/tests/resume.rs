//! Runs survive: a run killed between checkpoints or stopped by Ctrl-C and resumed ends as an uninterrupted
//! run does, and a damaged or foreign checkpoint is refused and left as it was.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{
    fails_in, kill_after_first_checkpoint, ok_in, outcome, result, resumed_at, spawn_in, wait_for,
};
use std::path::Path;
use std::process::Command;

/// The run of these tests: long enough that the first checkpoint comes well before the end.
fn de_args<'a>(out: &'a str, seed: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "de",
        "--problem",
        "rastrigin:8",
        "--backend",
        "cpu:1",
        "--generations",
        "2000",
        "--set",
        "population=16",
        "--seed",
        seed,
        "--out",
        out,
        "-q",
    ]
}

fn with_checkpoint<'a>(mut args: Vec<&'a str>, checkpoint: &'a str) -> Vec<&'a str> {
    args.extend_from_slice(&["--checkpoint", checkpoint, "--every", "100"]);
    args
}

#[test]
fn a_run_killed_between_checkpoints_resumes_to_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_in(dir, &de_args("whole", "7"));

    kill_after_first_checkpoint(
        dir,
        &with_checkpoint(de_args("parts", "7"), "run.ckpt"),
        "run.ckpt",
        "parts",
    );

    let resumed = ok_in(dir, &["resume", "run.ckpt", "-q"]);
    resumed_at(&resumed, 2000);
    assert_eq!(
        outcome(&result(&dir.join("parts"))),
        outcome(&result(&dir.join("whole")))
    );
}

#[test]
fn a_run_resumed_with_another_backend_ends_as_uninterrupted_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_in(dir, &de_args("whole", "5"));
    kill_after_first_checkpoint(
        dir,
        &with_checkpoint(de_args("parts", "5"), "run.ckpt"),
        "run.ckpt",
        "parts",
    );

    let resumed = ok_in(dir, &["resume", "run.ckpt", "--backend", "cpu:2", "-q"]);
    resumed_at(&resumed, 2000);
    let parts = result(&dir.join("parts"));
    assert_eq!(parts["backend"], "cpu:2");
    assert_eq!(parts["backend_reason"], "cpu:2 was asked for");
    assert_eq!(outcome(&parts), outcome(&result(&dir.join("whole"))));
    let run_file = std::fs::read_to_string(dir.join("run.ckpt.run.json")).unwrap();
    assert!(run_file.contains("cpu:2"), "{run_file}");
}

#[test]
fn a_ma_run_killed_mid_way_resumes_to_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let args = |out: &'static str| {
        vec![
            "run",
            "ma-sw-chains",
            "--problem",
            "shifted-rastrigin:16",
            "--backend",
            "cpu:1",
            "--set",
            "population=8",
            "--set",
            "ls_intensity=20",
            "--set",
            "max_evaluations=60000",
            "--out",
            out,
            "-q",
        ]
    };
    ok_in(dir, &args("whole"));
    let mut checkpointed = args("parts");
    checkpointed.extend_from_slice(&["--checkpoint", "ma.ckpt", "--every", "20"]);
    kill_after_first_checkpoint(dir, &checkpointed, "ma.ckpt", "parts");

    let resumed = ok_in(dir, &["resume", "ma.ckpt", "-q"]);
    let whole_generations = result(&dir.join("whole"))["generations"].as_u64().unwrap();
    resumed_at(&resumed, whole_generations);
    assert_eq!(
        outcome(&result(&dir.join("parts"))),
        outcome(&result(&dir.join("whole")))
    );
}

#[test]
fn ctrl_c_saves_a_checkpoint_exits_130_and_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_in(dir, &de_args("whole", "3"));

    let mut child = spawn_in(dir, &with_checkpoint(de_args("parts", "3"), "run.ckpt"));
    wait_for(&dir.join("run.ckpt"), &mut child);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status}");
    let interrupted = result(&dir.join("parts"));
    assert_eq!(interrupted["termination"], "interrupted");
    assert!(interrupted["generations"].as_u64().unwrap() < 2000);

    let output = ok_in(dir, &["resume", "run.ckpt", "-q"]);
    let at = resumed_at(&output, 2000);
    assert_eq!(
        at,
        interrupted["generations"].as_u64().unwrap(),
        "resumed where Ctrl-C stopped"
    );
    let resumed = result(&dir.join("parts"));
    assert_eq!(resumed["termination"], "max_generations");
    assert_eq!(outcome(&resumed), outcome(&result(&dir.join("whole"))));
}

/// A finished run with a checkpoint, for the damage tests: returns the checkpoint's bytes.
fn finished_checkpoint(dir: &Path, name: &str, seed: &str) -> Vec<u8> {
    let checkpoint = format!("{name}.ckpt");
    ok_in(
        dir,
        &[
            "run",
            "de",
            "--problem",
            "rastrigin:4",
            "--backend",
            "cpu:1",
            "--generations",
            "20",
            "--set",
            "population=8",
            "--seed",
            seed,
            "--out",
            name,
            "--checkpoint",
            &checkpoint,
            "--every",
            "5",
            "-q",
        ],
    );
    std::fs::read(dir.join(&checkpoint)).unwrap()
}

#[test]
fn a_corrupted_checkpoint_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut bytes = finished_checkpoint(dir, "a", "1");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(dir.join("a.ckpt"), &bytes).unwrap();
    let stderr = fails_in(dir, &["resume", "a.ckpt", "-q"]);
    assert!(
        stderr.contains("a.ckpt") && stderr.contains("checksum"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(dir.join("a.ckpt")).unwrap(), bytes);
}

#[test]
fn a_truncated_checkpoint_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let bytes = finished_checkpoint(dir, "a", "1");
    let truncated = &bytes[..bytes.len() - 9];
    std::fs::write(dir.join("a.ckpt"), truncated).unwrap();
    let stderr = fails_in(dir, &["resume", "a.ckpt", "-q"]);
    assert!(
        stderr.contains("a.ckpt") && stderr.contains("truncated"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(dir.join("a.ckpt")).unwrap(), truncated);
}

#[test]
fn a_checkpoint_of_another_run_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    finished_checkpoint(dir, "a", "1");
    let foreign = finished_checkpoint(dir, "b", "2");
    std::fs::write(dir.join("a.ckpt"), &foreign).unwrap();
    let stderr = fails_in(dir, &["resume", "a.ckpt", "-q"]);
    assert!(stderr.contains("seed"), "{stderr}");
    assert_eq!(std::fs::read(dir.join("a.ckpt")).unwrap(), foreign);
}

#[test]
fn a_checkpoint_without_its_run_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    finished_checkpoint(dir, "a", "1");
    std::fs::remove_file(dir.join("a.ckpt.run.json")).unwrap();
    let stderr = fails_in(dir, &["resume", "a.ckpt", "-q"]);
    assert!(stderr.contains("a.ckpt.run.json"), "{stderr}");
}

/// `evo resume` continues a checkpoint or fails; a run file whose checkpoint is gone (a run killed before
/// its first checkpoint) never starts the run afresh in its place.
#[test]
fn a_run_file_without_its_checkpoint_is_refused_not_started_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    finished_checkpoint(dir, "a", "1");
    std::fs::remove_file(dir.join("a.ckpt")).unwrap();
    let stderr = fails_in(dir, &["resume", "a.ckpt", "--out", "again", "-q"]);
    assert!(
        stderr.contains("a.ckpt does not exist") && stderr.contains("evo run"),
        "{stderr}"
    );
    assert!(!dir.join("again").exists());
}
