//! Helpers of the `evo` binary's tests: run it in a folder, read its result file, write small instances, and
//! the GPU gate of the CUDA tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The environment variable naming the `evo` binary to test instead of the one cargo built with these tests.
/// Cargo bakes the built binary's absolute path into the test binaries, so test binaries copied to another
/// machine (the GPU machine runs copies of them, see `../shared/tools/gpu-bundle`) need it pointed at a copy
/// of `target/release/evo` there, e.g. `EVO_BIN=$PWD/.gpu-lead/evo`.
pub const EVO_BIN: &str = "EVO_BIN";

/// The binary under test: `$EVO_BIN` when set and not empty, else the `evo` cargo built with the tests.
pub fn evo_path() -> PathBuf {
    match std::env::var_os(EVO_BIN) {
        Some(path) if !path.is_empty() => {
            let path = PathBuf::from(path);
            assert!(
                path.is_file(),
                "{EVO_BIN}={} is not a file; point it at an evo binary or unset it",
                path.display()
            );
            path
        }
        _ => PathBuf::from(env!("CARGO_BIN_EXE_evo")),
    }
}

/// The binary under test, without the caller's log filter.
pub fn evo() -> Command {
    let mut command = Command::new(evo_path());
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

/// The generation `evo resume` says it continued from, checked to lie strictly inside a run of `total`.
pub fn resumed_at(output: &Output, total: u64) -> u64 {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let generation: u64 = stderr
        .lines()
        .find_map(|line| {
            line.split_once(" at generation ")
                .map(|(_, g)| g.trim().parse().unwrap())
        })
        .unwrap_or_else(|| panic!("no `resumed from ... at generation` line:\n{stderr}"));
    assert!(
        generation > 0 && generation < total,
        "resumed at generation {generation} of {total}"
    );
    generation
}

/// Starts `evo args...` in `dir`, kills it with SIGKILL as soon as `checkpoint` exists (no final checkpoint,
/// no result files), and checks that it was still running: `out` has no result.json.
pub fn kill_after_first_checkpoint(dir: &Path, args: &[&str], checkpoint: &str, out: &str) {
    let mut child = spawn_in(dir, args);
    wait_for(&dir.join(checkpoint), &mut child);
    child.kill().unwrap(); // SIGKILL on Unix.
    child.wait().unwrap();
    assert!(
        !dir.join(out).join("result.json").exists(),
        "the run ended before it was killed; the test needs a longer run"
    );
}

/// Whether `EVO_REQUIRE_GPU=1` is set (the GPU machine's test runs set it).
pub fn gpu_required() -> bool {
    std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The index of the first CUDA device when this machine has one and NVRTC (the engines compile their
/// kernels with it); otherwise prints `SKIPPED (...): <test>` and gives `None`, or fails under
/// `EVO_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<usize> {
    let skip = |reason: &str| {
        assert!(
            !gpu_required(),
            "{test}: {reason}, but EVO_REQUIRE_GPU=1 requires a CUDA device with NVRTC"
        );
        // libtest captures the output of passing tests; a skip must show in a plain `cargo test` run.
        let _ = writeln!(std::io::stderr().lock(), "SKIPPED ({reason}): {test}");
        None
    };
    match evo_gpu_runtime::Gpu::first_available() {
        Ok(Some(_)) if !evo_gpu_runtime::nvrtc_present() => skip("no NVRTC"),
        Ok(Some(gpu)) => Some(gpu.index()),
        Ok(None) => skip("no CUDA device"),
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
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
