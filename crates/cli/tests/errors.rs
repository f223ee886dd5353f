//! Wrong input is refused with a message that names what was wrong and what is allowed, and writes nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{fails_in, knapsack_file};
use std::path::Path;

fn refused(args: &[&str], needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut full = vec!["run"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--backend", "cpu", "--out", "o", "-q"]);
    let stderr = fails_in(dir.path(), &full);
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "evo {full:?}: `{needle}` not in:\n{stderr}"
        );
    }
    assert!(
        !dir.path().join("o").exists(),
        "evo {full:?} wrote an output folder"
    );
}

/// Runs `evo run de --problem rastrigin:4 --generations 2 <args> -q` in `dir`, expects it to fail and returns
/// its stderr.
fn de_fails_in(dir: &Path, args: &[&str]) -> String {
    let mut full = vec![
        "run",
        "de",
        "--problem",
        "rastrigin:4",
        "--generations",
        "2",
    ];
    full.extend_from_slice(args);
    full.push("-q");
    fails_in(dir, &full)
}

#[test]
fn an_unknown_key_is_named_with_the_known_ones() {
    refused(
        &[
            "de",
            "--problem",
            "rastrigin:4",
            "--generations",
            "2",
            "--set",
            "populaton=10",
        ],
        &[
            "unknown parameter `populaton` for de",
            "known parameters: adaptation, block",
        ],
    );
}

#[test]
fn an_unknown_key_in_the_toml_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.toml"), "population = 12\ncolour = 3\n").unwrap();
    let stderr = de_fails_in(dir.path(), &["--config", "bad.toml"]);
    assert!(stderr.contains("unknown parameter `colour`"), "{stderr}");
    assert!(stderr.contains("bad.toml"), "{stderr}");
}

#[test]
fn an_out_of_range_value_names_the_key_and_the_range() {
    refused(
        &[
            "de",
            "--problem",
            "rastrigin:4",
            "--generations",
            "2",
            "--set",
            "crossover_rate=1.5",
        ],
        &["parameter `crossover_rate`", "must be in [0, 1], got 1.5"],
    );
    refused(
        &[
            "qiga",
            "--problem",
            "knapsack:x.txt",
            "--set",
            "population=65",
        ],
        &["parameter `population`", "1 ..= 64"],
    );
    refused(
        &[
            "ma-sw-chains",
            "--problem",
            "rastrigin:4",
            "--set",
            "population=3",
        ],
        &["parameter `population`", "at least 4"],
    );
}

#[test]
fn a_value_of_the_wrong_type_names_the_key() {
    refused(
        &["ga", "--problem", "ga:f1:2", "--set", "population=many"],
        &["parameter `population` of ga", "the default is 256"],
    );
}

#[test]
fn a_bad_spec_says_what_is_allowed() {
    refused(
        &["de", "--problem", "cec2010:f21:100", "--generations", "2"],
        &["function `f21`", "f1..f20"],
    );
    refused(
        &["de", "--problem", "sphere:10", "--generations", "2"],
        &["unknown problem `sphere`", "rastrigin:D"],
    );
    refused(
        &["de", "--problem", "rastrigin", "--generations", "2"],
        &["must be written `rastrigin:D`"],
    );
    refused(
        &["de", "--problem", "cec2010:f3:150", "--generations", "2"],
        &["cec2010:f3:150", "multiple of 100"],
    );
    refused(
        &["de", "--problem", "knapsack:none.txt", "--generations", "2"],
        &["de does not run", "de accepts rastrigin:D"],
    );
    refused(
        &["qiga", "--problem", "knapsack:none.txt"],
        &["no such file", "none.txt"],
    );
    refused(
        &["dpga", "--problem", "rastrigin:4", "--generations", "2"],
        &["dpga accepts cec2006:gNN"],
    );
    refused(
        &["de", "--problem", "cuda:kernel.cu", "--generations", "2"],
        &["user CUDA source problems are not available"],
    );
}

#[test]
fn bad_stopping_rules_and_backends_are_refused() {
    refused(
        &["de", "--problem", "rastrigin:4"],
        &["de has no budget among its parameters", "--generations N"],
    );
    refused(
        &["de", "--problem", "rastrigin:4", "--seconds", "-1"],
        &["--seconds -1 is not allowed"],
    );
    let dir = tempfile::tempdir().unwrap();
    let stderr = de_fails_in(dir.path(), &["--backend", "gpu"]);
    assert!(
        stderr.contains("--backend gpu") && stderr.contains("cpu:<threads>"),
        "{stderr}"
    );
}

/// A CUDA backend for a problem the command's CUDA engine cannot evaluate is refused on every machine, before
/// any device is asked, naming the problem and what would run on the GPU; it never becomes a CPU run.
#[test]
fn cuda_for_a_problem_without_a_device_evaluation_is_refused_with_the_remedy() {
    let dir = tempfile::tempdir().unwrap();
    let knapsack = knapsack_file(dir.path());
    let problem = format!("knapsack:{}", knapsack.display());
    let stderr = fails_in(
        dir.path(),
        &[
            "run",
            "ga",
            "--problem",
            &problem,
            "--generations",
            "2",
            "--backend",
            "cuda",
            "--out",
            "o",
            "-q",
        ],
    );
    for needle in [
        "ga: problem `knapsack:",
        "has no device evaluation, so it cannot run on the CUDA backend",
        "use a `ga:fN:n` problem",
        "otherwise choose the CPU backend",
    ] {
        assert!(stderr.contains(needle), "`{needle}` not in:\n{stderr}");
    }
    assert!(
        !dir.path().join("o").exists(),
        "the refused run wrote results"
    );
}

#[test]
fn a_fresh_run_refuses_to_overwrite_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.ckpt"), b"earlier run").unwrap();
    let stderr = de_fails_in(dir.path(), &["--checkpoint", "old.ckpt"]);
    assert!(
        stderr.contains("exists already") && stderr.contains("evo resume"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("old.ckpt")).unwrap(),
        b"earlier run"
    );
}

#[test]
fn a_checkpoint_every_zero_generations_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = de_fails_in(dir.path(), &["--checkpoint", "c.ckpt", "--every", "0"]);
    assert!(
        stderr.contains("--every 0") && stderr.contains("at least 1"),
        "{stderr}"
    );
    assert!(!dir.path().join("c.ckpt.run.json").exists());
}
