//! `--backend auto` (the default) never falls back silently: the summary line and result.json say which
//! backend ran and why, by the rule of evo-core's `Run` builders. Without a CUDA device (the CPU machines)
//! the reason is the driver's; with one (the GPU machine, `EVO_REQUIRE_GPU=1`) the run takes device 0.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{gpu_required, knapsack_file, ok_in, result};
use evo_core::GpuPresence;
use std::path::Path;

/// Runs `evo run <args> --out o -q` in `dir` and returns result.json's backend and reason, checking that the
/// summary line prints them.
fn run_auto(dir: &Path, args: &[&str]) -> (String, String) {
    let mut full = vec!["run"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--out", "o", "-q"]);
    let output = ok_in(dir, &full);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let result = result(&dir.join("o"));
    let backend = result["backend"].as_str().unwrap().to_string();
    let reason = result["backend_reason"].as_str().unwrap().to_string();
    assert!(
        stdout.contains(&format!("; backend {backend}: {reason}\n")),
        "the summary does not give result.json's backend and reason:\n{stdout}"
    );
    (backend, reason)
}

#[test]
fn auto_prints_and_records_which_backend_ran_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let (backend, reason) = run_auto(
        dir.path(),
        &["de", "--problem", "rastrigin:4", "--generations", "2"],
    );
    match GpuPresence::from_device_count(evo_gpu_runtime::device_count()).unwrap() {
        GpuPresence::Device(_) => {
            assert_eq!(backend, "cuda:0");
            assert_eq!(
                reason,
                "Backend::Auto: CUDA device 0 is present and the CUDA engine evaluates the problem"
            );
        }
        GpuPresence::Absent { reason: absent } => {
            assert!(
                !gpu_required(),
                "EVO_REQUIRE_GPU=1 requires a CUDA device: {absent}"
            );
            assert_eq!(backend, "cpu");
            assert_eq!(reason, format!("Backend::Auto: no CUDA device ({absent})"));
        }
    }
}

/// The command's GA evaluates only the paper's functions on the device, so `auto` takes the CPU for a
/// knapsack on every machine, and says so with the remedy.
#[test]
fn auto_for_a_problem_without_a_device_evaluation_says_so_and_runs_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let knapsack = knapsack_file(dir.path());
    let problem = format!("knapsack:{}", knapsack.display());
    let (backend, reason) = run_auto(
        dir.path(),
        &["ga", "--problem", &problem, "--generations", "2"],
    );
    assert_eq!(backend, "cpu");
    assert!(
        reason.starts_with("Backend::Auto: the problem `knapsack:")
            && reason.contains(
                "has no device evaluation for ga (to run it on the GPU, use a `ga:fN:n` problem"
            ),
        "{reason}"
    );
}

#[test]
fn an_explicit_backend_is_recorded_as_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let (backend, reason) = run_auto(
        dir.path(),
        &[
            "de",
            "--problem",
            "rastrigin:4",
            "--generations",
            "2",
            "--backend",
            "cpu:2",
        ],
    );
    assert_eq!(backend, "cpu:2");
    assert_eq!(reason, "cpu:2 was asked for");
}
