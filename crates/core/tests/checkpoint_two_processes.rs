//! Two processes on one checkpoint path: while one runs, the other is refused with a typed error naming the
//! path, and once the first dies (SIGKILL, no clean-up) the path is free again and the run resumes.
//!
//! The test re-runs its own binary as the first process (selected by an environment variable).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SphereEngine, temp_path};
use evo_core::{Checkpointing, Error, Executor, Termination};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the child: the checkpoint path.
const CHILD_ENV: &str = "EVO_CORE_TWO_PROCESSES_CHECKPOINT";
const DIMENSION: usize = 64;
const SEED: u64 = 5;
/// Far more generations than the test waits for: the child is still running when it is killed.
const CHILD_GENERATIONS: u64 = 100_000_000;

fn executor(path: &Path, generations: u64) -> Executor<SphereEngine> {
    Executor::new(SphereEngine::new(DIMENSION, SEED))
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap()
        .with_checkpointing(Checkpointing::new(path, 1).unwrap())
}

#[test]
fn a_second_process_on_a_checkpoint_path_is_refused_until_the_first_dies() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        executor(Path::new(&path), CHILD_GENERATIONS).run().unwrap();
        return;
    }
    let path = temp_path("two-processes.ckpt");
    let mut first = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_second_process_on_a_checkpoint_path_is_refused_until_the_first_dies",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &path)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // The child holds the lock from its first checkpoint on.
    let started = Instant::now();
    while !path.exists() {
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first process ended before writing a checkpoint"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no checkpoint after 60 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }

    let refused = executor(&path, 10).resume_if_present().err().unwrap();
    assert!(
        matches!(refused, Error::CheckpointLocked { path: ref locked, .. } if locked == &path),
        "{refused}"
    );

    first.kill().unwrap();
    first.wait().unwrap();
    // The kernel drops a dead process's lock: the path resumes from the child's last complete checkpoint.
    let mut resumed = executor(&path, 0).resume_if_present().unwrap();
    let report = resumed.run().unwrap();
    assert!(
        report.generations > 0,
        "the resumed run did not start from the child's checkpoint"
    );
}
