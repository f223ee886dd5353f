//! Checkpoints: resuming reproduces the uninterrupted run; bad files are refused with a reason.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{ScriptedEngine, SphereEngine, SphereSnapshot, temp_path};
use evo_core::checkpoint::{self, MAGIC};
use evo_core::{Checkpointing, Error, Executor, Report, Termination, TerminationReason};
use std::path::Path;
use std::time::Duration;

const SEED: u64 = 42;
const DIMENSION: usize = 8;
const GENERATIONS: u64 = 60;

/// The rules of the reference run; the stagnation rule never fires but its counter must survive resumes.
fn termination(generations: u64) -> Termination {
    Termination::new()
        .with_max_generations(generations)
        .with_stagnation(1000, 1e-9)
        .unwrap()
}

fn executor(
    engine: SphereEngine,
    generations: u64,
    path: &Path,
    every: u64,
) -> Executor<SphereEngine> {
    Executor::new(engine)
        .with_termination(termination(generations))
        .unwrap()
        .with_history_every(3)
        .unwrap()
        .with_checkpointing(Checkpointing::new(path, every).unwrap())
}

fn uninterrupted() -> Report<Vec<f32>> {
    Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(termination(GENERATIONS))
        .unwrap()
        .with_history_every(3)
        .unwrap()
        .run()
        .unwrap()
}

/// Asserts two reports are identical except for wall-clock times, comparing floats by their bits.
fn assert_same_run(got: &Report<Vec<f32>>, expected: &Report<Vec<f32>>) {
    let strip = |report: &Report<Vec<f32>>| {
        let mut report = report.clone();
        report.wall_time_s = 0.0;
        report
            .history
            .iter_mut()
            .for_each(|point| point.elapsed_s = 0.0);
        report
    };
    assert_eq!(strip(got), strip(expected));
    let bits =
        |report: &Report<Vec<f32>>| report.best.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got), bits(expected));
    assert_eq!(got.best_fitness.to_bits(), expected.best_fitness.to_bits());
}

/// The checkpoint's JSON export, for assertions on its content.
fn exported(path: &Path) -> serde_json::Value {
    serde_json::from_str(&checkpoint::export_json::<SphereSnapshot>(path).unwrap()).unwrap()
}

fn checkpoint_error(result: Result<Executor<SphereEngine>, Error>) -> String {
    match result {
        Err(Error::Checkpoint { reason, .. }) => reason,
        Err(other) => panic!("expected Error::Checkpoint, got {other}"),
        Ok(_) => panic!("expected Error::Checkpoint, got a resumed executor"),
    }
}

#[test]
fn resuming_after_each_stop_reproduces_the_uninterrupted_run() {
    let expected = uninterrupted();
    // With and without per-step snapshots, since the final checkpoint is taken differently in each case.
    for last_good in [true, false] {
        let path = temp_path(&format!("resume-chain-{last_good}.json"));
        let leg = |generations| {
            executor(SphereEngine::new(DIMENSION, SEED), generations, &path, 10)
                .with_checkpointing(
                    Checkpointing::new(&path, 10)
                        .unwrap()
                        .with_last_good_snapshot(last_good),
                )
                .resume_if_present()
                .unwrap()
                .run()
                .unwrap()
        };
        // Stops off and on the checkpoint cadence; each leg starts from a freshly built engine.
        for stop in [7, 20, 43] {
            assert_eq!(leg(stop).generations, stop);
        }
        assert_same_run(&leg(GENERATIONS), &expected);
    }
}

#[test]
fn a_failing_step_saves_the_state_after_the_last_good_step() {
    let expected = uninterrupted();
    let path = temp_path("failing-step.json");
    let error = executor(
        SphereEngine::new(DIMENSION, SEED).failing_at(27),
        GENERATIONS,
        &path,
        10,
    )
    .run()
    .unwrap_err();
    assert!(matches!(error, Error::NonFiniteFitness { .. }), "{error}");
    let saved = exported(&path);
    assert_eq!(saved["snapshot"]["generation"], 26);
    assert_eq!(saved["executor"]["steps"], 26);
    let resumed = executor(SphereEngine::new(DIMENSION, SEED), GENERATIONS, &path, 10)
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    assert_same_run(&resumed, &expected);
}

#[test]
fn without_last_good_snapshots_a_failing_step_leaves_the_periodic_checkpoint() {
    let expected = uninterrupted();
    let path = temp_path("failing-step-periodic.json");
    let checkpointing = Checkpointing::new(&path, 10)
        .unwrap()
        .with_last_good_snapshot(false);
    let error = executor(
        SphereEngine::new(DIMENSION, SEED).failing_at(27),
        GENERATIONS,
        &path,
        10,
    )
    .with_checkpointing(checkpointing)
    .run()
    .unwrap_err();
    assert!(matches!(error, Error::NonFiniteFitness { .. }), "{error}");
    let saved = exported(&path);
    assert_eq!(saved["snapshot"]["generation"], 20);
    assert_eq!(saved["executor"]["steps"], 20);
    let resumed = executor(SphereEngine::new(DIMENSION, SEED), GENERATIONS, &path, 10)
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    assert_same_run(&resumed, &expected);
}

#[test]
fn resume_if_present_without_a_file_starts_afresh() {
    let path = temp_path("absent.json");
    let report = executor(SphereEngine::new(DIMENSION, SEED), GENERATIONS, &path, 1000)
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    assert_same_run(&report, &uninterrupted());
    assert!(path.exists(), "the final checkpoint is written");
}

#[test]
fn resume_if_present_needs_checkpointing() {
    let error = Executor::new(SphereEngine::new(2, 1))
        .resume_if_present()
        .err()
        .unwrap();
    assert!(matches!(
        error,
        Error::InvalidParameter {
            algorithm: "Executor",
            name: "checkpointing",
            ..
        }
    ));
}

#[test]
fn checkpoint_is_binary_with_a_header_and_no_temporary_file_remains() {
    let directory = temp_path("header-dir");
    let _ = std::fs::remove_dir_all(&directory);
    let path = directory.join("run.ckpt");
    executor(SphereEngine::new(DIMENSION, SEED), 5, &path, 2)
        .run()
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes[..8], MAGIC);
    let header = checkpoint::read_header(&path).unwrap();
    assert_eq!(header.algorithm, "sphere-toy");
    assert_eq!(header.crate_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(header.fingerprint.seed, SEED);
    assert_eq!(header.fingerprint.parameters["lambda"], "10");
    let saved = exported(&path);
    assert_eq!(saved["algorithm"], "sphere-toy");
    assert_eq!(saved["executor"]["steps"], 5);
    let mut names: Vec<String> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["run.ckpt", "run.ckpt.lock"],
        "no temporary file remains"
    );
}

#[test]
fn a_checkpoint_of_another_algorithm_is_refused() {
    let path = temp_path("foreign.ckpt");
    Executor::new(ScriptedEngine::new(&[1.0]))
        .with_termination(Termination::new().with_max_generations(2))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap())
        .run()
        .unwrap();
    let reason =
        checkpoint_error(Executor::new(SphereEngine::new(DIMENSION, SEED)).resume_from(&path));
    assert!(
        reason.contains("`scripted`") && reason.contains("`sphere-toy`"),
        "{reason}"
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let path = temp_path("missing.json");
    let error = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(matches!(error, Error::Io { .. }), "{error}");
}

#[test]
fn wall_time_counts_the_time_before_a_resume() {
    let path = temp_path("wall-time.json");
    let rules = || {
        Termination::new()
            .with_max_generations(10_000)
            .with_max_wall_time(Duration::from_millis(30))
            .unwrap()
    };
    let slow = || {
        let mut engine = SphereEngine::new(DIMENSION, SEED);
        engine.sleep = Duration::from_millis(5);
        engine
    };
    let checkpointing = || Checkpointing::new(&path, 1000).unwrap();
    let first = Executor::new(slow())
        .with_termination(rules())
        .unwrap()
        .with_checkpointing(checkpointing())
        .run()
        .unwrap();
    assert_eq!(first.termination, TerminationReason::WallTime);
    let resumed = Executor::new(slow())
        .with_termination(rules())
        .unwrap()
        .with_checkpointing(checkpointing())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(resumed.termination, TerminationReason::WallTime);
    assert_eq!(
        resumed.generations, first.generations,
        "no step after the budget was spent"
    );
    assert!(resumed.wall_time_s >= first.wall_time_s);
}

#[test]
fn checkpointing_parameters_are_validated() {
    assert!(matches!(
        Checkpointing::new("run.json", 0),
        Err(Error::InvalidParameter {
            algorithm: "Checkpointing",
            name: "every",
            ..
        })
    ));
    for path in ["", "..", "/"] {
        assert!(Checkpointing::new(path, 1).is_err(), "{path:?}");
    }
    let checkpointing = Checkpointing::new("out/run.json", 5).unwrap();
    assert_eq!(
        (checkpointing.path(), checkpointing.every()),
        (Path::new("out/run.json"), 5)
    );
    assert!(checkpointing.last_good_snapshot());
}
