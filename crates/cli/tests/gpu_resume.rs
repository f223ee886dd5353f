//! Runs survive on the GPU: a CUDA run killed between checkpoints and resumed ends as the uninterrupted CUDA
//! run, and a checkpoint written on the CPU and resumed with `evo resume --backend cuda` ends as the
//! uninterrupted CPU run.
//!
//! The contract behind the second: a checkpoint holds the engine's state, not the backend's, and the CPU
//! and CUDA engines are bit-identical (the Exact profile, the only one the command runs), so where a run
//! continues does not change how it ends. Each test first checks that the uninterrupted CPU and CUDA runs
//! agree, so that a difference there is not mistaken for a resume failure.
//!
//! Without a CUDA device (or NVRTC) each test prints `SKIPPED` and passes; under `EVO_REQUIRE_GPU=1` it
//! fails instead. Test binaries run on another machine need `EVO_BIN` (see `common::EVO_BIN`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{gpu_or_skip, kill_after_first_checkpoint, ok_in, outcome, result, resumed_at};
use serde_json::Value;
use std::path::Path;

/// One algorithm's run for these tests: long enough on either backend that a run is still going well after
/// its first checkpoint, so that the kill lands between checkpoints.
struct Case {
    /// `evo run`'s arguments after `run` (algorithm, problem, parameters, budget, seed).
    args: &'static [&'static str],
    /// Generations between checkpoints.
    every: &'static str,
}

const DE: Case = Case {
    args: &[
        "de",
        "--problem",
        "rastrigin:32",
        "--set",
        "population=64",
        "--generations",
        "20000",
        "--seed",
        "11",
    ],
    every: "500",
};

const GA: Case = Case {
    args: &[
        "ga",
        "--problem",
        "ga:f1:32",
        "--set",
        "population=64",
        "--generations",
        "10000",
        "--seed",
        "12",
    ],
    every: "500",
};

const MA: Case = Case {
    args: &[
        "ma-sw-chains",
        "--problem",
        "shifted-rastrigin:64",
        "--set",
        "population=8",
        "--set",
        "ls_intensity=100",
        "--set",
        "max_evaluations=200000",
        "--seed",
        "13",
    ],
    every: "20",
};

/// `evo run <case> --backend <backend> --out <out> -q`, plus `extra`.
fn run_args<'a>(case: &Case, backend: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run"];
    args.extend_from_slice(case.args);
    args.extend_from_slice(&["--backend", backend, "--out", out, "-q"]);
    args.extend_from_slice(extra);
    args
}

/// Runs the case uninterrupted on the CPU and on CUDA device `device`, checks that both end alike, and
/// returns the CUDA run's result.
fn uninterrupted(dir: &Path, case: &Case, device: usize) -> Value {
    let cuda = format!("cuda:{device}");
    ok_in(dir, &run_args(case, "cpu", "whole-cpu", &[]));
    ok_in(dir, &run_args(case, &cuda, "whole-cuda", &[]));
    let (cpu, cuda_result) = (
        result(&dir.join("whole-cpu")),
        result(&dir.join("whole-cuda")),
    );
    assert!(
        cuda_result["backend"].as_str().unwrap().starts_with("cuda"),
        "{cuda_result}"
    );
    assert_eq!(
        outcome(&cpu),
        outcome(&cuda_result),
        "{}: the uninterrupted CPU and CUDA runs differ (an engine equivalence failure, not a resume one)",
        case.args[0]
    );
    cuda_result
}

/// Starts the case with checkpoints on `backend`, kills it after the first checkpoint, resumes it with
/// `resume_backend` (when given) and returns the resumed run's result.
fn killed_and_resumed(
    dir: &Path,
    case: &Case,
    backend: &str,
    resume_backend: Option<&str>,
    total: u64,
) -> Value {
    let checkpointed = run_args(
        case,
        backend,
        "parts",
        &["--checkpoint", "run.ckpt", "--every", case.every],
    );
    kill_after_first_checkpoint(dir, &checkpointed, "run.ckpt", "parts");
    let mut resume = vec!["resume", "run.ckpt", "-q"];
    if let Some(backend) = resume_backend {
        resume.extend_from_slice(&["--backend", backend]);
    }
    let output = ok_in(dir, &resume);
    resumed_at(&output, total);
    result(&dir.join("parts"))
}

/// A CUDA run killed between checkpoints and resumed (on CUDA, the run file's backend) ends as the
/// uninterrupted CUDA run.
fn cuda_kill_and_resume(test: &str, case: &Case) {
    let Some(device) = gpu_or_skip(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let whole = uninterrupted(dir, case, device);
    let total = whole["generations"].as_u64().unwrap();
    let resumed = killed_and_resumed(dir, case, &format!("cuda:{device}"), None, total);
    assert_eq!(resumed["backend"], whole["backend"]);
    assert_eq!(outcome(&resumed), outcome(&whole), "{test}");
}

/// A CPU run killed between checkpoints and resumed with `--backend cuda` ends as the uninterrupted CPU run
/// (and so as the uninterrupted CUDA run), on CUDA.
fn cpu_checkpoint_resumed_on_cuda(test: &str, case: &Case) {
    let Some(device) = gpu_or_skip(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    uninterrupted(dir, case, device);
    let cpu = result(&dir.join("whole-cpu"));
    let total = cpu["generations"].as_u64().unwrap();
    let cuda = format!("cuda:{device}");
    let resumed = killed_and_resumed(dir, case, "cpu", Some(&cuda), total);
    assert_eq!(resumed["backend"], cuda.as_str(), "{resumed}");
    assert_eq!(outcome(&resumed), outcome(&cpu), "{test}");
    let run_file = std::fs::read_to_string(dir.join("run.ckpt.run.json")).unwrap();
    assert!(
        run_file.contains(&format!("\"{cuda}\"")),
        "the run file records the backend the run continued on:\n{run_file}"
    );
}

#[test]
fn de_killed_on_cuda_between_checkpoints_resumes_to_the_uninterrupted_cuda_result() {
    cuda_kill_and_resume("de_killed_on_cuda", &DE);
}

#[test]
fn ga_killed_on_cuda_between_checkpoints_resumes_to_the_uninterrupted_cuda_result() {
    cuda_kill_and_resume("ga_killed_on_cuda", &GA);
}

#[test]
fn ma_killed_on_cuda_between_checkpoints_resumes_to_the_uninterrupted_cuda_result() {
    cuda_kill_and_resume("ma_killed_on_cuda", &MA);
}

#[test]
fn de_cpu_checkpoint_resumed_on_cuda_ends_as_the_uninterrupted_cpu_run() {
    cpu_checkpoint_resumed_on_cuda("de_cpu_checkpoint_on_cuda", &DE);
}

#[test]
fn ga_cpu_checkpoint_resumed_on_cuda_ends_as_the_uninterrupted_cpu_run() {
    cpu_checkpoint_resumed_on_cuda("ga_cpu_checkpoint_on_cuda", &GA);
}

#[test]
fn ma_cpu_checkpoint_resumed_on_cuda_ends_as_the_uninterrupted_cpu_run() {
    cpu_checkpoint_resumed_on_cuda("ma_cpu_checkpoint_on_cuda", &MA);
}
