//! A short run of every algorithm on a built-in problem on the CPU writes the three result files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{etc_file, knapsack_file, ok_in, result};
use std::path::Path;

/// Runs `algorithm` on `problem` into `dir/<out>` and checks result.json, history.csv and convergence.svg.
fn check_run(dir: &Path, out: &str, args: &[&str], algorithm: &str, problem: &str) {
    let mut full = vec![
        "run",
        algorithm,
        "--problem",
        problem,
        "--backend",
        "cpu",
        "--out",
        out,
        "-q",
    ];
    full.extend_from_slice(args);
    let output = ok_in(dir, &full);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("best fitness"), "{stdout}");

    let out = dir.join(out);
    let result = result(&out);
    for key in [
        "algorithm",
        "best",
        "best_fitness",
        "evaluations",
        "generations",
        "wall_time_s",
        "termination",
        "backend",
        "backend_reason",
        "seed",
        "problem",
        "params",
        "evo_version",
    ] {
        assert!(
            result.get(key).is_some(),
            "{algorithm}: result.json lacks {key}: {result}"
        );
    }
    assert_eq!(result["backend"], "cpu", "{algorithm}");
    assert_eq!(result["backend_reason"], "cpu was asked for", "{algorithm}");
    assert!(
        stdout.contains("; backend cpu: cpu was asked for"),
        "{algorithm}: {stdout}"
    );
    assert!(
        result["generations"].as_u64().unwrap() > 0,
        "{algorithm}: {result}"
    );
    assert!(
        result["best_fitness"].as_f64().unwrap().is_finite(),
        "{algorithm}: {result}"
    );
    assert!(result["params"].is_object(), "{algorithm}");

    let csv = std::fs::read_to_string(out.join("history.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("generation,evaluations,best_fitness,elapsed_s")
    );
    let last = lines.last().expect("history has points");
    let generation: u64 = last.split(',').next().unwrap().parse().unwrap();
    assert_eq!(
        generation,
        result["generations"].as_u64().unwrap(),
        "{algorithm}"
    );
    let svg = std::fs::read_to_string(out.join("convergence.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("polyline"),
        "{algorithm}: {svg:.200}"
    );
}

#[test]
fn every_algorithm_runs_a_built_in_problem_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let knapsack = format!("knapsack:{}", knapsack_file(dir).display());
    let etc = format!("etc:{}", etc_file(dir).display());

    check_run(
        dir,
        "de",
        &["--generations", "30", "--set", "population=16"],
        "de",
        "rastrigin:8",
    );
    check_run(
        dir,
        "de-etc",
        &["--generations", "5", "--set", "population=8"],
        "de",
        &etc,
    );
    check_run(
        dir,
        "de-cec",
        &["--generations", "5", "--set", "population=8"],
        "de",
        "cec2010:f3:100",
    );
    check_run(
        dir,
        "ga",
        &["--set", "generations=20", "--set", "population=32"],
        "ga",
        "ga:f1:4",
    );
    check_run(
        dir,
        "ga-knapsack",
        &["--generations", "10", "--set", "population=16"],
        "ga",
        &knapsack,
    );
    check_run(dir, "qiga", &["--generations", "10"], "qiga", &knapsack);
    check_run(
        dir,
        "sga",
        &["--set", "generations=10", "--set", "population=16"],
        "sga",
        &knapsack,
    );
    check_run(
        dir,
        "dpga",
        &[
            "--generations",
            "5",
            "--set",
            "main_size=16",
            "--set",
            "reserve_size=16",
        ],
        "dpga",
        "cec2006:g01",
    );
    check_run(
        dir,
        "ma",
        &[
            "--set",
            "max_evaluations=2000",
            "--set",
            "population=12",
            "--set",
            "ls_intensity=100",
        ],
        "ma-sw-chains",
        "shifted-rastrigin:20",
    );
}

#[test]
fn the_budget_in_the_parameters_is_the_default_stopping_rule() {
    let dir = tempfile::tempdir().unwrap();
    ok_in(
        dir.path(),
        &[
            "run",
            "ga",
            "--problem",
            "ga:f2:2",
            "--backend",
            "cpu",
            "--set",
            "generations=7",
            "--set",
            "population=8",
            "--out",
            "o",
            "-q",
        ],
    );
    let result = result(&dir.path().join("o"));
    assert_eq!(result["generations"], 7);
    assert_eq!(result["termination"], "max_generations");
}

#[test]
fn a_toml_file_and_set_use_the_rust_names() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("de.toml"),
        "population = 12\nstrategy = \"Best1\"\ncrossover_rate = 0.5\n",
    )
    .unwrap();
    ok_in(
        dir.path(),
        &[
            "run",
            "de",
            "--problem",
            "rastrigin:4",
            "--backend",
            "cpu:1",
            "--generations",
            "3",
            "--config",
            "de.toml",
            "--set",
            "population=20",
            "--out",
            "o",
            "-q",
        ],
    );
    let result = result(&dir.path().join("o"));
    assert_eq!(result["params"]["population"], 20);
    assert_eq!(result["params"]["strategy"], "Best1");
    assert_eq!(result["params"]["crossover_rate"], 0.5);
    assert_eq!(result["evaluations"], 20 * 4);
}

#[test]
fn list_shows_algorithms_problems_and_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let output = ok_in(dir.path(), &["list"]);
    let text = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "ma-sw-chains",
        "cec2010:fN:D",
        "knapsack:FILE",
        "crossover_rate",
        "1 ..= 64",
        "User CUDA source problems are not available",
    ] {
        assert!(text.contains(needle), "`evo list` lacks {needle}:\n{text}");
    }
}

#[test]
fn devices_reports_gpus_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let output = ok_in(dir.path(), &["devices"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("no CUDA device found") || text.contains("compute capability"),
        "{text}"
    );
}

/// The generations of history.csv's points.
fn history_generations(out: &Path) -> Vec<u64> {
    let csv = std::fs::read_to_string(out.join("history.csv")).unwrap();
    csv.lines()
        .skip(1)
        .map(|line| line.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn the_default_history_is_at_most_100_generations_apart_and_a_flag_overrides_it() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let de = |generations: &'static str, out: &'static str, extra: &[&'static str]| {
        let mut args = vec![
            "run",
            "de",
            "--problem",
            "rastrigin:4",
            "--backend",
            "cpu:1",
            "--set",
            "population=8",
            "--generations",
            generations,
            "--out",
            out,
            "-q",
        ];
        args.extend_from_slice(extra);
        ok_in(dir, &args);
        history_generations(&dir.join(out))
    };
    // A long run: a point every 100 generations, and the final one.
    let long = de("20050", "long", &[]);
    assert_eq!(long.len(), 202, "{long:?}");
    assert!(
        long.windows(2).all(|pair| pair[1] - pair[0] <= 100),
        "{long:?}"
    );
    assert_eq!(long[..3], [0, 100, 200]);
    assert_eq!(long.last(), Some(&20050));
    // A short run still draws a curve: a hundredth of its generations apart.
    assert_eq!(
        de("500", "short", &[]),
        (0..=500).step_by(5).collect::<Vec<_>>()
    );
    // The flag wins.
    assert_eq!(
        de("40", "every", &["--history-every", "1"]),
        (0..=40).collect::<Vec<_>>()
    );
    let stderr = common::fails_in(
        dir,
        &[
            "run",
            "de",
            "--problem",
            "rastrigin:4",
            "--generations",
            "5",
            "--history-every",
            "0",
        ],
    );
    assert!(stderr.contains("--history-every 0"), "{stderr}");
}
