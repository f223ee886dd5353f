//! Helpers of the `evo` binary's tests: run it in a folder, read its result file, write small instances.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub fn evo() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_evo"));
    command.env_remove("RUST_LOG");
    command
}

/// Runs `evo args...` in `dir` and returns its output.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    evo()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("evo starts")
}

/// Runs `evo args...` in `dir` and fails the test, showing stderr, unless it succeeds.
pub fn ok_in(dir: &Path, args: &[&str]) -> Output {
    let output = run_in(dir, args);
    assert!(
        output.status.success(),
        "evo {args:?} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs `evo args...` in `dir`, expects exit status 1 and returns stderr.
pub fn fails_in(dir: &Path, args: &[&str]) -> String {
    let output = run_in(dir, args);
    assert_eq!(
        output.status.code(),
        Some(1),
        "evo {args:?} should fail with status 1:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Starts `evo args...` in `dir` in the background.
pub fn spawn_in(dir: &Path, args: &[&str]) -> Child {
    evo()
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("evo starts")
}

/// Waits until `path` exists (a checkpoint written by a running child), failing after 60 s.
pub fn wait_for(path: &Path, child: &mut Child) {
    let start = Instant::now();
    while !path.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("evo ended ({status}) before writing {}", path.display());
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no {} after 60 s",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The result.json of an output folder.
pub fn result(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("result.json")).expect("result.json written");
    serde_json::from_str(&text).expect("result.json is JSON")
}

/// The fields a resumed run must reproduce exactly.
pub fn outcome(result: &Value) -> [Value; 4] {
    ["best", "best_fitness", "generations", "evaluations"].map(|key| result[key].clone())
}

/// A small strongly correlated knapsack instance (weights 1..=10, profit = weight + 5), in the file format
/// of the data folder.
pub fn knapsack_file(dir: &Path) -> PathBuf {
    let mut text = String::from("# capacity\n20.5\n# weight profit\n");
    for item in 0..24 {
        let weight = 1 + item % 10;
        text.push_str(&format!("{weight} {}\n", weight + 5));
    }
    let path = dir.join("knapsack-24.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// A small ETC matrix, 16 tasks x 4 machines, with the header form.
pub fn etc_file(dir: &Path) -> PathBuf {
    let mut text = String::from("16 4 0\n");
    for task in 0..16 {
        for machine in 0..4 {
            text.push_str(&format!("{}\n", 10 + (task * 7 + machine * 13) % 50));
        }
    }
    let path = dir.join("etc-16x4.0");
    std::fs::write(&path, text).unwrap();
    path
}
