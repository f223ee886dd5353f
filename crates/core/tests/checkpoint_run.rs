//! A checkpoint belongs to one run: another seed, problem or parameter is refused by name unless overridden,
//! and one checkpoint path has one owner at a time.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SphereEngine, temp_path};
use evo_core::{Checkpointing, Error, Executor, ResumeOverrides, Termination};
use std::path::{Path, PathBuf};

const SEED: u64 = 7;
const DIMENSION: usize = 5;

fn run_to(engine: SphereEngine, generations: u64, path: &Path) {
    Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap()
        .with_checkpointing(Checkpointing::new(path, 1).unwrap())
        .run()
        .unwrap();
}

fn checkpoint(name: &str) -> PathBuf {
    let path = temp_path(name);
    run_to(SphereEngine::new(DIMENSION, SEED), 3, &path);
    path
}

/// The mismatch error's (field, checkpoint value, this run's value).
fn mismatch(result: evo_core::Result<Executor<SphereEngine>>) -> (String, String, String) {
    match result {
        Err(Error::RunMismatch {
            field,
            checkpoint,
            this_run,
            ..
        }) => (field, checkpoint, this_run),
        Err(other) => panic!("expected Error::RunMismatch, got {other}"),
        Ok(_) => panic!("expected Error::RunMismatch, got a resumed executor"),
    }
}

#[test]
fn another_seed_is_refused_naming_the_seed() {
    let path = checkpoint("mismatch-seed.ckpt");
    let error = Executor::new(SphereEngine::new(DIMENSION, SEED + 1))
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(
        error.to_string().contains("seed: checkpoint 7, this run 8"),
        "{error}"
    );
    let engine = SphereEngine::new(DIMENSION, SEED + 1);
    assert_eq!(
        mismatch(Executor::new(engine).resume_from(&path)),
        ("seed".into(), "7".into(), "8".into())
    );
}

#[test]
fn another_problem_is_refused_naming_the_problem() {
    let path = checkpoint("mismatch-problem.ckpt");
    let (field, checkpoint, this_run) =
        mismatch(Executor::new(SphereEngine::new(DIMENSION + 1, SEED)).resume_from(&path));
    assert_eq!(field, "problem");
    assert!(
        checkpoint.contains("size 5") && this_run.contains("size 6"),
        "{checkpoint} / {this_run}"
    );
}

#[test]
fn another_parameter_is_refused_naming_the_key() {
    let path = checkpoint("mismatch-parameter.ckpt");
    let engine = SphereEngine::new(DIMENSION, SEED).with_lambda(4);
    let error = Executor::new(engine).resume_from(&path).err().unwrap();
    assert!(
        error
            .to_string()
            .contains("parameter `lambda`: checkpoint 10, this run 4"),
        "{error}"
    );
}

#[test]
fn an_explicit_override_lets_a_named_parameter_change() {
    let path = checkpoint("override.ckpt");
    let refused = Executor::new(SphereEngine::new(DIMENSION, SEED).with_budget(5000))
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(
        refused
            .to_string()
            .contains("parameter `budget`: checkpoint 1000, this run 5000"),
        "{refused}"
    );
    let resumed = Executor::new(SphereEngine::new(DIMENSION, SEED).with_budget(5000))
        .with_resume_overrides(ResumeOverrides::new().allow_parameter("budget"))
        .resume_from(&path)
        .unwrap();
    assert_eq!(evo_core::Engine::progress(resumed.engine()).generation, 3);
    // The override names one parameter; the seed and the others are still checked.
    let error = Executor::new(SphereEngine::new(DIMENSION, SEED + 1).with_budget(5000))
        .with_resume_overrides(ResumeOverrides::new().allow_parameter("budget"))
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(
        matches!(error, Error::RunMismatch { ref field, .. } if field == "seed"),
        "{error}"
    );
}

#[test]
fn an_override_of_an_unknown_parameter_is_refused() {
    let path = checkpoint("override-typo.ckpt");
    let error = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_resume_overrides(ResumeOverrides::new().allow_parameter("lamda"))
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(
        matches!(error, Error::InvalidParameter { ref value, ref allowed, .. }
            if value == "lamda" && allowed.contains("lambda")),
        "{error}"
    );
}

#[test]
fn a_second_executor_on_a_held_path_gets_a_lock_error() {
    let path = temp_path("locked.ckpt");
    let mut first = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(2))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap());
    first.run().unwrap();
    let second = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(4))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap());
    let error = second.resume_if_present().err().unwrap();
    assert!(
        matches!(error, Error::CheckpointLocked { path: ref locked, .. } if locked == &path),
        "{error}"
    );
    let mut third = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(4))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap());
    assert!(matches!(third.run(), Err(Error::CheckpointLocked { .. })));
    // Dropping the owner releases the path.
    drop(first);
    let resumed = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(4))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap())
        .resume_if_present()
        .unwrap();
    assert_eq!(evo_core::Engine::progress(resumed.engine()).generation, 2);
}

#[test]
fn concurrent_writers_of_one_path_leave_a_valid_checkpoint() {
    // Executors on one path exclude each other; report writes (no lock) race freely. Both must leave
    // a whole file: unique temporary names mean no writer renames another's half-written temporary file.
    let path = temp_path("concurrent.json");
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                for round in 0..20u64 {
                    let report = Executor::new(SphereEngine::new(DIMENSION, t))
                        .with_termination(Termination::new().with_max_generations(round % 3 + 1))
                        .unwrap()
                        .run()
                        .unwrap();
                    report.write_json(&path).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let _: serde_json::Value = serde_json::from_str(&text).unwrap();
    let leftovers = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .filter(|entry| {
            let name = entry.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("concurrent.json.") && name.ends_with(".tmp")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn concurrent_executors_on_one_path_one_owner_at_a_time() {
    let path = temp_path("concurrent.ckpt");
    let threads: Vec<_> = (0..6)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut outcomes = (0, 0);
                for _ in 0..10 {
                    let executor = Executor::new(SphereEngine::new(DIMENSION, SEED))
                        .with_termination(Termination::new().with_max_generations(30))
                        .unwrap()
                        .with_checkpointing(Checkpointing::new(&path, 1).unwrap());
                    match executor.resume_if_present().and_then(|mut e| e.run()) {
                        Ok(report) => {
                            assert_eq!(report.generations, 30);
                            outcomes.0 += 1;
                        }
                        Err(Error::CheckpointLocked { .. }) => outcomes.1 += 1,
                        Err(other) => panic!("unexpected error {other}"),
                    }
                }
                outcomes
            })
        })
        .collect();
    let finished: u32 = threads.into_iter().map(|t| t.join().unwrap().0).sum();
    assert!(finished > 0);
    let resumed = Executor::new(SphereEngine::new(DIMENSION, SEED))
        .resume_from(&path)
        .unwrap();
    assert_eq!(evo_core::Engine::progress(resumed.engine()).generation, 30);
}
