//! `evo run --islands K`: the command's island run is evo-distributed's island model (the same result as
//! the library's for the same seed), refuses bad values and missing GPUs, resumes after a kill to the
//! uninterrupted result, and gives the CPU's result on a GPU.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{
    fails_in, gpu_or_skip, kill_after_first_checkpoint, ok_in, outcome, result, resumed_at,
};
use evo_core::{Executor, Termination};
use evo_distributed::{IslandParams, de};
use serde_json::Value;

/// A DE island run: K = 3 islands of 16 on Rastrigin in 8 dimensions, a migration of 2 every 5
/// generations.
fn de_islands<'a>(generations: &'a str, out: &'a str, placement: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "de",
        "--problem",
        "rastrigin:8",
        "--generations",
        generations,
        "--set",
        "population=16",
        "--seed",
        "7",
        "--islands",
        "3",
        "--migration-interval",
        "5",
        "--migrants",
        "2",
        "--out",
        out,
        "-q",
    ];
    args.extend_from_slice(placement);
    args
}

/// The same model through the library, for `generations`: its report and each island's best fitness.
fn library_run(generations: u64) -> (evo_core::Report<Vec<f32>>, Vec<f64>) {
    let params = evo_de::DeParams::default().with_population(16).unwrap();
    let problem = evo_benchmarks::DeRastrigin::new(8).unwrap();
    let islands = IslandParams::default()
        .with_islands(3)
        .unwrap()
        .with_migration_interval(5)
        .unwrap()
        .with_migrants(2)
        .unwrap();
    let model = de::islands(&params, &problem, 7, islands, "cpu:1".parse().unwrap()).unwrap();
    let mut executor = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap();
    let report = executor.run().unwrap();
    let model = executor.into_engine();
    let bests = model
        .islands()
        .iter()
        .map(|island| island.progress().best_fitness)
        .collect();
    (report, bests)
}

#[test]
fn a_cpu_island_run_is_the_library_island_model() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_in(
        dir,
        &de_islands("60", "islands", &["--placement", "cpu:1,cpu:1"]),
    );
    let written = result(&dir.join("islands"));
    let (library, island_bests) = library_run(60);
    let best: Vec<f32> = serde_json::from_value(written["best"].clone()).unwrap();
    assert_eq!(best, library.best);
    assert_eq!(
        written["best_fitness"].as_f64().unwrap().to_bits(),
        library.best_fitness.to_bits()
    );
    assert_eq!(written["evaluations"], library.evaluations);
    assert_eq!(written["evaluations"], 3 * 16 * 61);
    assert_eq!(written["generations"], 60);
    assert_eq!(written["backend"], "cpu:1,cpu:1");
    let islands = &written["islands"];
    assert_eq!(
        [
            &islands["islands"],
            &islands["migration_interval"],
            &islands["migrants"]
        ],
        [&Value::from(3), &Value::from(5), &Value::from(2)]
    );
    // DE keeps each island's best in its population, so the final populations' bests are the islands'.
    let written_bests: Vec<f64> = serde_json::from_value(islands["best_fitness"].clone()).unwrap();
    assert_eq!(written_bests, island_bests);
    assert!(written_bests.contains(&library.best_fitness));
    // The keys of --set give the same run as the flags.
    ok_in(
        dir,
        &[
            "run",
            "de",
            "--problem",
            "rastrigin:8",
            "--generations",
            "60",
            "--set",
            "population=16",
            "--set",
            "islands=3",
            "--set",
            "migration_interval=5",
            "--set",
            "migrants=2",
            "--seed",
            "7",
            "--backend",
            "cpu:1",
            "--out",
            "keys",
            "-q",
        ],
    );
    assert_eq!(outcome(&result(&dir.join("keys"))), outcome(&written));
}

#[test]
fn bad_island_values_are_refused_naming_the_key_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let with = |extra: &[&'static str]| {
        let mut args = vec![
            "run",
            "de",
            "--problem",
            "rastrigin:8",
            "--generations",
            "10",
            "--set",
            "population=16",
        ];
        args.extend_from_slice(extra);
        fails_in(dir, &args)
    };
    let text = with(&["--islands", "0"]);
    assert!(text.contains("parameter `islands` (--islands)"), "{text}");
    assert!(text.contains("at least 1, got 0"), "{text}");
    let text = with(&["--islands", "2", "--migrants", "9"]);
    assert!(text.contains("parameter `migrants` (--migrants)"), "{text}");
    assert!(text.contains("at most 8, got 9"), "{text}");
    let text = with(&["--islands", "2", "--migration-every", "0"]);
    assert!(text.contains("parameter `migration_interval`"), "{text}");
    let text = with(&["--set", "islands=many"]);
    assert!(
        text.contains("parameter `islands`: expected a whole number"),
        "{text}"
    );
    let text = with(&["--migrants", "2"]);
    assert!(text.contains("give --islands K"), "{text}");
    let text = with(&["--islands", "2", "--placement", "cpu:1,cpu:1,cpu:1"]);
    assert!(text.contains("3 entries for 2 islands"), "{text}");
    let text = with(&["--islands", "2", "--gpus", "0,zero"]);
    assert!(
        text.contains("--gpus 0,zero: expected CUDA device numbers"),
        "{text}"
    );
    let text = fails_in(
        dir,
        &[
            "run",
            "dpga",
            "--problem",
            "cec2006:g01",
            "--generations",
            "5",
            "--islands",
            "2",
        ],
    );
    assert!(text.contains("dpga has no island model"), "{text}");
    assert!(!dir.join("evo-out").exists());
}

#[test]
fn gpus_without_the_device_are_an_error_not_a_cpu_run() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let text = fails_in(dir, &de_islands("10", "far", &["--gpus", "0,99"]));
    assert!(text.contains("CUDA device 99"), "{text}");
    assert!(text.contains("do not fall back to the CPU"), "{text}");
    let no_gpu = evo_gpu_runtime::device_count().map_or(true, |count| count == 0);
    if no_gpu {
        let text = fails_in(dir, &de_islands("10", "none", &["--gpus", "0"]));
        assert!(text.contains("CUDA device 0"), "{text}");
        assert!(text.contains("do not fall back to the CPU"), "{text}");
    }
    assert!(!dir.join("far").exists() && !dir.join("none").exists());
}

#[test]
fn a_killed_island_run_resumes_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    ok_in(dir, &de_islands("1500", "whole", &[]));
    let mut checkpointed = de_islands("1500", "parts", &[]);
    checkpointed.extend_from_slice(&["--checkpoint", "islands.ckpt", "--every", "100"]);
    kill_after_first_checkpoint(dir, &checkpointed, "islands.ckpt", "parts");
    // The islands move to another placement on resume; the result does not change.
    let resumed = ok_in(dir, &["resume", "islands.ckpt", "--backend", "cpu:2", "-q"]);
    resumed_at(&resumed, 1500);
    let (whole, parts) = (result(&dir.join("whole")), result(&dir.join("parts")));
    assert_eq!(outcome(&parts), outcome(&whole));
    assert_eq!(parts["backend"], "cpu:2");
    assert_eq!(parts["islands"]["placement"], "cpu:2");
    assert_eq!(
        parts["islands"]["best_fitness"],
        whole["islands"]["best_fitness"]
    );
    let history = |out: &str| std::fs::read_to_string(dir.join(out).join("history.csv")).unwrap();
    let points = |text: String| -> Vec<String> {
        // Generation, evaluations and best fitness of each point; wall times differ.
        text.lines()
            .map(|line| line.split(',').take(3).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(points(history("parts")), points(history("whole")));
}

/// `--islands 4 --gpus 0` gives the CPU island run's result bit for bit (the Exact profile).
#[test]
fn gpu_islands_equal_the_cpu_islands() {
    let Some(device) = gpu_or_skip("gpu_islands_equal_the_cpu_islands") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let device = device.to_string();
    for (algorithm, problem, budget) in [
        ("de", "rastrigin:16", ["--generations", "60"]),
        ("ga", "ga:f1:16", ["--generations", "40"]),
        (
            "ma-sw-chains",
            "shifted-rastrigin:10",
            ["--generations", "6"],
        ),
    ] {
        let run = |out: &str, placement: &[&str]| {
            let mut args = vec![
                "run",
                algorithm,
                "--problem",
                problem,
                budget[0],
                budget[1],
                "--set",
                "population=32",
                "--islands",
                "4",
                "--migration-interval",
                "3",
                "--migrants",
                "2",
                "--out",
                out,
                "-q",
            ];
            args.extend_from_slice(placement);
            ok_in(dir, &args);
            result(&dir.join(out))
        };
        let cpu = run(&format!("{algorithm}-cpu"), &["--backend", "cpu"]);
        let gpu = run(&format!("{algorithm}-gpu"), &["--gpus", &device]);
        assert_eq!(gpu["backend"], format!("cuda:{device}"), "{gpu}");
        assert_eq!(outcome(&gpu), outcome(&cpu), "{algorithm}");
    }
}
