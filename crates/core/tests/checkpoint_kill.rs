//! SIGKILL at random moments of a run that checkpoints every step: resuming from whatever is on disk ends
//! with the report of an uninterrupted run.
//!
//! The test re-runs its own binary as the child process (selected by an environment variable), so the
//! child is killed for real, mid-write included, and the parent only reads files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{SphereEngine, temp_path};
use evo_core::{Checkpointing, Executor, Report, Termination};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Set in the child: the checkpoint path; the report goes to `<path>.report.json`.
const CHILD_ENV: &str = "EVO_CORE_KILL_TEST_CHECKPOINT";
/// Large enough that writing the checkpoint is a good part of every step.
const DIMENSION: usize = 4000;
const SEED: u64 = 11;
const GENERATIONS: u64 = 120;

fn executor(engine: SphereEngine) -> Executor<SphereEngine> {
    Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(GENERATIONS))
        .unwrap()
}

/// The child's run: resume if a checkpoint exists, run to the end, write the report.
fn child(path: &Path) {
    let report = executor(SphereEngine::new(DIMENSION, SEED))
        .with_checkpointing(Checkpointing::new(path, 1).unwrap())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    let mut report_path = path.as_os_str().to_owned();
    report_path.push(".report.json");
    report.write_json(Path::new(&report_path)).unwrap();
}

/// The fields a resumed run must reproduce, floats by their bits.
fn fields(report: &Report<Vec<f32>>) -> (u64, u64, u64, Vec<u32>) {
    (
        report.best_fitness.to_bits(),
        report.generations,
        report.evaluations,
        report.best.iter().map(|v| v.to_bits()).collect(),
    )
}

/// This test binary again, as the child that runs (or resumes) the checkpointed run at `path`.
fn spawn_child(path: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sigkill_during_checkpoint_writes_then_resume_gives_the_uninterrupted_result",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, path)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn sigkill_during_checkpoint_writes_then_resume_gives_the_uninterrupted_result() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(Path::new(&path));
        return;
    }
    let path = temp_path("killed.ckpt");
    let report_path = temp_path("killed.ckpt.report.json");
    let expected = executor(SphereEngine::new(DIMENSION, SEED)).run().unwrap();
    // Kill moments are fractions of an uninterrupted child's wall time (the fastest of three, since the first
    // start of a freshly copied binary is slow), so the test kills mid-run on a fast machine as on a slow one.
    let full_run = (0..3)
        .map(|run| {
            let started = Instant::now();
            let status = spawn_child(&temp_path(&format!("timing-{run}.ckpt")))
                .wait()
                .unwrap();
            assert!(status.success(), "the timing child failed: {status}");
            started.elapsed()
        })
        .min()
        .unwrap();
    // A fixed sequence of kill delays (SplitMix-like), so a failure reproduces.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut kills = 0;
    for attempt in 0..200 {
        let mut process = spawn_child(&path);
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        // The first attempt dies as soon as its first checkpoint lands (so at least one kill happens mid-run
        // whatever the machine's speed); the next ones at random moments; later ones run to the end.
        if attempt == 0 {
            let deadline = Instant::now() + Duration::from_secs(30);
            while !path.exists()
                && process.try_wait().unwrap().is_none()
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        if attempt < 12 {
            if attempt > 0 {
                let fraction = 0.05 + 0.9 * ((state >> 33) % 1000) as f64 / 1000.0;
                std::thread::sleep(Duration::from_secs_f64(full_run.as_secs_f64() * fraction));
            }
            if process.try_wait().unwrap().is_none() {
                process.kill().unwrap();
                kills += 1;
            }
            process.wait().unwrap();
            continue;
        }
        let status = process.wait().unwrap();
        assert!(status.success(), "the resumed child failed: {status}");
        break;
    }
    assert!(
        kills > 0,
        "no child was killed; the run is too short for this test"
    );
    let resumed: Report<Vec<f32>> =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(fields(&resumed), fields(&expected));
}
