//! `evo run ma-sw-chains --split dimension --gpus LIST`: the dimension split from the command line.
//!
//! On every machine: the combinations the split does not take are refused with a message that says what
//! is allowed, before any GPU is opened. On a CUDA machine: two slices on one GPU end as the unsplit CUDA
//! run (result and history), and a split run stopped at a budget and resumed on another list of slices to a
//! larger one ends as the uninterrupted unsplit run. Without a CUDA device (or NVRTC) the GPU tests print
//! `SKIPPED` and pass; under `EVO_REQUIRE_GPU=1` they fail instead.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{fails_in, gpu_or_skip, ok_in, outcome, result, run_in};
use serde_json::Value;
use std::path::Path;

/// `evo run ma-sw-chains --problem PROBLEM --evaluations 100 -q` with `extra`, expected to fail; its stderr.
fn refused(problem: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "run",
        "ma-sw-chains",
        "--problem",
        problem,
        "--evaluations",
        "100",
        "-q",
    ];
    args.extend_from_slice(extra);
    let stderr = fails_in(dir.path(), &args);
    assert!(
        !dir.path().join("evo-out").exists(),
        "a refused run writes nothing"
    );
    stderr
}

#[test]
fn the_split_runs_ma_sw_chains_only() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = fails_in(
        dir.path(),
        &[
            "run",
            "de",
            "--problem",
            "rastrigin:2048",
            "--generations",
            "3",
            "--split",
            "dimension",
            "--gpus",
            "0",
        ],
    );
    assert!(
        stderr.contains("--split dimension runs ma-sw-chains only; de has no dimension split"),
        "{stderr}"
    );
}

#[test]
fn the_split_does_not_combine_with_islands() {
    for extra in [
        &["--islands", "2"][..],
        &["--set", "islands=2"],
        &["--migrants", "1"],
    ] {
        let mut args = vec!["--split", "dimension", "--gpus", "0"];
        args.extend_from_slice(extra);
        let stderr = refused("rastrigin:2048", &args);
        assert!(
            stderr.contains("it does not combine with the island model"),
            "{extra:?}: {stderr}"
        );
    }
}

#[test]
fn the_split_refuses_a_cpu_backend_and_a_device_outside_its_list() {
    let stderr = refused(
        "rastrigin:2048",
        &["--split", "dimension", "--gpus", "0", "--backend", "cpu"],
    );
    assert!(
        stderr.contains(
            "runs on CUDA GPUs only (--gpus); --backend cpu is not allowed, give auto or cuda"
        ),
        "{stderr}"
    );
    let stderr = refused(
        "rastrigin:2048",
        &[
            "--split",
            "dimension",
            "--gpus",
            "0,1",
            "--backend",
            "cuda:3",
        ],
    );
    assert!(
        stderr.contains("--backend cuda:3 names a device that --gpus 0,1 lacks"),
        "{stderr}"
    );
}

#[test]
fn the_split_needs_a_well_formed_gpu_list() {
    let stderr = refused("rastrigin:2048", &["--split", "dimension"]);
    assert!(
        stderr.contains("--split dimension needs --gpus LIST"),
        "{stderr}"
    );
    let stderr = refused("rastrigin:2048", &["--split", "dimension", "--gpus", "0,x"]);
    assert!(
        stderr.contains("--gpus 0,x: expected CUDA device numbers"),
        "{stderr}"
    );
    // Three slices of at least 1024 variables do not fit 2048: the library's layout error, passed through.
    let stderr = refused(
        "rastrigin:2048",
        &["--split", "dimension", "--gpus", "0,0,0"],
    );
    assert!(
        stderr.contains("slices must be at most 2 at D = 2048"),
        "{stderr}"
    );
}

#[test]
fn the_split_refuses_a_problem_that_is_not_trees_over_the_variables() {
    let stderr = refused("cec2010:f3:2000", &["--split", "dimension", "--gpus", "0"]);
    assert!(
        stderr.contains("--split dimension runs the fitness of trees over the variables")
            && stderr.contains("cec2010:f3:2000"),
        "{stderr}"
    );
}

#[test]
fn only_dimension_can_be_split() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_in(
        dir.path(),
        &[
            "run",
            "ma-sw-chains",
            "--problem",
            "rastrigin:2048",
            "--split",
            "rows",
            "--gpus",
            "0",
        ],
    );
    assert_eq!(output.status.code(), Some(2), "a clap usage error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("[possible values: dimension]"), "{stderr}");
}

#[test]
fn resume_takes_gpus_only_for_a_split_run() {
    let dir = tempfile::tempdir().unwrap();
    ok_in(
        dir.path(),
        &[
            "run",
            "ma-sw-chains",
            "--problem",
            "rastrigin:8",
            "--backend",
            "cpu:1",
            "--set",
            "population=8",
            "--evaluations",
            "300",
            "--checkpoint",
            "run.ckpt",
            "-q",
        ],
    );
    let stderr = fails_in(dir.path(), &["resume", "run.ckpt", "--gpus", "0", "-q"]);
    assert!(
        stderr.contains("--gpus on resume lists the slices of a --split dimension run"),
        "{stderr}"
    );
}

/// The GPU runs: a small problem with chains that grow over a few cycles.
const D: &str = "shifted-rastrigin:100000";
const SEED: &str = "7";

/// `evo run ma-sw-chains` on [`D`] to `evaluations`, into `out`, with `extra`.
fn gpu_run(dir: &Path, out: &str, evaluations: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "run",
        "ma-sw-chains",
        "--problem",
        D,
        "--set",
        "population=16",
        "--set",
        "ls_intensity=200",
        "--evaluations",
        evaluations,
        "--history-every",
        "1",
        "--seed",
        SEED,
        "--out",
        out,
        "-q",
    ];
    args.extend_from_slice(extra);
    ok_in(dir, &args);
    result(&dir.join(out))
}

/// history.csv without its wall times: generation, evaluations and best fitness of every point.
fn history(dir: &Path, out: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(out).join("history.csv")).unwrap();
    let points: Vec<String> = text
        .lines()
        .map(|line| line.rsplit_once(',').unwrap().0.to_string())
        .collect();
    assert!(points.len() > 2, "{text}");
    points
}

#[test]
fn two_slices_on_one_gpu_end_as_the_unsplit_cuda_run() {
    let Some(device) = gpu_or_skip("two_slices_on_one_gpu") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let cuda = format!("cuda:{device}");
    let gpus = format!("{device},{device}");
    let whole = gpu_run(dir, "unsplit", "3000", &["--backend", &cuda]);
    let split = gpu_run(
        dir,
        "split",
        "3000",
        &["--split", "dimension", "--gpus", &gpus],
    );
    assert_eq!(outcome(&split), outcome(&whole));
    assert_eq!(history(dir, "split"), history(dir, "unsplit"));
    assert!(whole["generations"].as_u64().unwrap() > 1, "{whole}");
    assert_eq!(
        split["split"],
        serde_json::json!({"split": "dimension", "gpus": [device, device], "slices_per_gpu": {cuda.as_str(): 2}}),
        "{split}"
    );
    assert_eq!(split["backend"], format!("cuda:{gpus}").as_str(), "{split}");
    assert!(
        split["backend_reason"]
            .as_str()
            .unwrap()
            .starts_with(&format!("--split dimension --gpus {gpus}")),
        "{split}"
    );
}

#[test]
fn a_split_run_resumed_on_another_layout_to_a_larger_budget_ends_as_the_unsplit_run() {
    let Some(device) = gpu_or_skip("split_resumed_on_another_layout") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let cuda = format!("cuda:{device}");
    let whole = gpu_run(dir, "unsplit", "3000", &["--backend", &cuda]);
    let gpus = format!("{device},{device}");
    let first = gpu_run(
        dir,
        "parts",
        "1500",
        &[
            "--split",
            "dimension",
            "--gpus",
            &gpus,
            "--checkpoint",
            "run.ckpt",
            "--every",
            "1",
        ],
    );
    assert!(
        first["generations"].as_u64().unwrap() < whole["generations"].as_u64().unwrap(),
        "the first part must stop before the whole run does: {first}"
    );
    // `evo resume` continues the run file's budget; raising it in the run file continues the run further.
    let run_file = dir.join("run.ckpt.run.json");
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(&run_file).unwrap()).unwrap();
    config["budget"]["evaluations"] = Value::from(3000);
    std::fs::write(&run_file, serde_json::to_string(&config).unwrap()).unwrap();
    let single = device.to_string();
    let output = ok_in(dir, &["resume", "run.ckpt", "--gpus", &single, "-q"]);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("resumed from"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let resumed = result(&dir.join("parts"));
    assert_eq!(outcome(&resumed), outcome(&whole));
    assert_eq!(
        resumed["split"]["slices_per_gpu"],
        serde_json::json!({cuda.as_str(): 1})
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&run_file).unwrap()).unwrap();
    assert_eq!(
        saved["split"]["gpus"],
        serde_json::json!([device]),
        "{saved}"
    );
}
