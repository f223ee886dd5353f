//! `user:MANIFEST.toml`: a user's CUDA source problem from the command line. Everywhere: the manifest's and
//! the source's mistakes are typed errors naming what is wrong, and a CPU run is refused (a file has no CPU
//! twin); where NVRTC is installed, a source that does not compile gives NVRTC's log with the user's line
//! numbers; a resume refuses files changed since the run started. On a CUDA device (skipped without one,
//! failing under `EVO_REQUIRE_GPU=1`): the examples of `crates/cli/examples/user/` run in de and
//! ma-sw-chains (Rastrigin, a least-squares fit with data files), ga (trap-5) and dpga (pressure vessel), a
//! run killed between checkpoints resumes to the uninterrupted result, and the README's command runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{
    fails_in, gpu_or_skip, gpu_required, kill_after_first_checkpoint, ok_in, outcome, result,
    resumed_at,
};
use evo_core::GpuPresence;
use std::path::{Path, PathBuf};

/// `relative` (a path inside this crate) where this test binary was built, or, for a copy of the binary run
/// from the project root on another machine (`.gpu/run-tests`), under `crates/cli/` there.
fn in_crate(relative: &str) -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    if built.exists() {
        built
    } else {
        Path::new("crates/cli").join(relative)
    }
}

/// The example manifests and sources.
fn examples() -> PathBuf {
    in_crate("examples/user")
}

/// A copy of the examples in a fresh folder (runs write next to them).
fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(examples()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// `evo run <algorithm> --problem user:<manifest> --generations 5 <extra>` fails in `dir`; its stderr.
fn refused(dir: &Path, algorithm: &str, manifest: &str, extra: &[&str]) -> String {
    let problem = format!("user:{manifest}");
    let mut args = vec![
        "run",
        algorithm,
        "--problem",
        &problem,
        "--generations",
        "5",
    ];
    args.extend_from_slice(extra);
    fails_in(dir, &args)
}

fn assert_contains(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "`{needle}` not in:\n{text}");
    }
}

const REAL: &str = "kind = \"real\"\nsource = \"rastrigin.cu\"\nlower = -1\nupper = 1\n";

#[test]
fn manifest_mistakes_name_the_key_or_file_and_what_is_allowed() {
    let dir = folder();
    let dir = dir.path();
    let error = refused(dir, "de", "none.toml", &[]);
    assert_contains(&error, &["no such file", "none.toml"]);
    let error = refused(dir, "de", "rastrigin.cu", &[]);
    assert_contains(&error, &["`user:` takes the TOML manifest"]);
    write(dir, "zero.toml", &format!("{REAL}dimension = 0\n"));
    let error = refused(dir, "de", "zero.toml", &[]);
    assert_contains(
        &error,
        &["dimension = 0 is not allowed; expected at least 1"],
    );
    write(dir, "nodim.toml", REAL);
    let error = refused(dir, "de", "nodim.toml", &[]);
    assert_contains(&error, &["kind \"real\" needs `dimension`"]);
    write(
        dir,
        "nosource.toml",
        "kind = \"bits\"\nsource = \"gone.cu\"\nbits = 8\n",
    );
    let error = refused(dir, "ga", "nosource.toml", &[]);
    assert_contains(&error, &["source file", "gone.cu", "does not exist"]);
    write(
        dir,
        "typo.toml",
        &format!("{REAL}dimension = 4\ndimensions = 4\n"),
    );
    let error = refused(dir, "de", "typo.toml", &[]);
    assert_contains(&error, &["unknown field `dimensions`"]);
}

#[test]
fn data_of_the_wrong_length_is_refused_naming_the_array() {
    let dir = folder();
    let dir = dir.path();
    let manifest = std::fs::read_to_string(dir.join("line_fit.toml")).unwrap();
    write(
        dir,
        "short.toml",
        &manifest.replace("values.csv", "short.csv"),
    );
    write(dir, "short.csv", "1, 2, 3\n");
    let error = refused(dir, "de", "short.toml", &[]);
    assert_contains(
        &error,
        &["array `y`", "must be 8 (the number of terms), got 3"],
    );
    write(dir, "text.csv", "1, 2, three\n");
    write(
        dir,
        "text.toml",
        &manifest.replace("values.csv", "text.csv"),
    );
    let error = refused(dir, "de", "text.toml", &[]);
    assert_contains(&error, &["line 1: `three` is not a f32 number"]);
}

/// Bit-string and constrained sources read data arrays too, through the contract's form with the data;
/// where NVRTC is installed the CPU refusal comes after the source compiled, so these sources are valid.
#[test]
fn bits_and_constrained_sources_read_data_arrays() {
    let dir = folder();
    let dir = dir.path();
    write(
        dir,
        "weighted.cu",
        "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits,\n    \
         const EvoUserData& data) {\n    double total = 0.0;\n    for (unsigned long long i = 0; i < \
         n_bits; ++i) total -= evo_bit(bits, i) * (double)data.w[i];\n    return total;\n}\n",
    );
    write(dir, "w.csv", "1 2 3 4 5 6 7 8\n");
    let bits = "kind = \"bits\"\nsource = \"weighted.cu\"\n[[data]]\nname = \"w\"\nfile = \"w.csv\"\n\
                length = \"D\"\n";
    write(dir, "weighted.toml", &format!("bits = 8\n{bits}"));
    let error = refused(dir, "ga", "weighted.toml", &["--backend", "cpu"]);
    assert_contains(&error, &["has only a device evaluation"]);
    write(dir, "wrong.toml", &format!("bits = 9\n{bits}"));
    let error = refused(dir, "ga", "wrong.toml", &["--backend", "cpu"]);
    assert_contains(&error, &["array `w`", "got 8"]);
    write(
        dir,
        "limit.cu",
        "__device__ double evo_user_constrained(const double* x, double* g, double* h,\n    \
         const EvoUserData& data) {\n    g[0] = x[0] + x[1] - data.c[0];\n    return -x[0] - x[1];\n}\n",
    );
    write(dir, "c.csv", "1.5\n");
    write(
        dir,
        "limit.toml",
        "kind = \"constrained\"\nsource = \"limit.cu\"\ndimension = 2\nlower = 0\nupper = 1\n\
         inequalities = 1\n[[data]]\nname = \"c\"\nfile = \"c.csv\"\ntype = \"f64\"\nlength = \"terms\"\n",
    );
    let error = refused(dir, "dpga", "limit.toml", &["--backend", "cpu"]);
    assert_contains(&error, &["has only a device evaluation"]);
}

#[test]
fn a_source_without_its_entry_point_is_missing_entry_point() {
    let dir = folder();
    let dir = dir.path();
    write(dir, "empty.cu", "// nothing here\n");
    write(
        dir,
        "empty.toml",
        "kind = \"real\"\nsource = \"empty.cu\"\ndimension = 3\nlower = 0\nupper = 1\n",
    );
    let error = refused(dir, "de", "empty.toml", &[]);
    assert_contains(&error, &["has no entry point `evo_user_terms`"]);
    write(
        dir,
        "nocombine.toml",
        "kind = \"real\"\nsource = \"rastrigin.cu\"\ndimension = 3\nlower = 0\nupper = 1\nsums = 2\n",
    );
    let error = refused(dir, "ma-sw-chains", "nocombine.toml", &[]);
    assert_contains(&error, &["has no entry point `evo_user_combine`"]);
    write(
        dir,
        "bits.toml",
        "kind = \"bits\"\nsource = \"empty.cu\"\nbits = 8\n",
    );
    let error = refused(dir, "ga", "bits.toml", &[]);
    assert_contains(&error, &["has no entry point `evo_user_fitness`"]);
}

#[test]
fn an_algorithm_refuses_a_user_problem_of_another_kind() {
    let dir = folder();
    let error = refused(dir.path(), "ga", "rastrigin.toml", &[]);
    assert_contains(
        &error,
        &[
            "ga does not run",
            "kind \"real\"",
            "ga runs user problems of kind \"bits\"",
        ],
    );
    let error = refused(dir.path(), "qiga", "trap5.toml", &[]);
    assert_contains(&error, &["qiga does not run", "qiga accepts knapsack:FILE"]);
}

/// Every example is a valid problem: on the CPU backend each is refused only because a file has no twin
/// (after compiling, where NVRTC is installed).
#[test]
fn the_cpu_backend_is_refused_for_every_example_saying_why() {
    let dir = folder();
    for (algorithm, manifest) in [
        ("de", "rastrigin.toml"),
        ("ma-sw-chains", "rastrigin.toml"),
        ("de", "line_fit.toml"),
        ("ga", "trap5.toml"),
        ("dpga", "vessel.toml"),
    ] {
        let error = refused(dir.path(), algorithm, manifest, &["--backend", "cpu:2"]);
        assert_contains(
            &error,
            &[
                &format!("user:{}", dir.path().join(manifest).display()),
                "has only a device evaluation, so it cannot run on cpu:2, as asked",
                "gives no CPU twin",
            ],
        );
    }
}

/// `auto` without a CUDA device would take the CPU, so it is refused with the driver's reason; with a device
/// it runs there (the GPU tests below).
#[test]
fn auto_without_a_device_is_refused_not_run_on_the_cpu() {
    let GpuPresence::Absent { reason } =
        GpuPresence::from_device_count(evo_gpu_runtime::device_count()).unwrap()
    else {
        return;
    };
    assert!(
        !gpu_required(),
        "EVO_REQUIRE_GPU=1 requires a CUDA device: {reason}"
    );
    let dir = folder();
    let error = refused(dir.path(), "de", "rastrigin.toml", &[]);
    assert_contains(
        &error,
        &[
            "cannot run on the CPU, which Backend::Auto took because there is no CUDA device",
            &reason,
        ],
    );
    assert!(!dir.path().join("result.json").exists());
}

#[test]
fn a_source_that_does_not_compile_gives_nvrtcs_log_with_the_users_line_numbers() {
    if !evo_gpu_runtime::nvrtc_present() {
        assert!(!gpu_required(), "EVO_REQUIRE_GPU=1 requires NVRTC");
        eprintln!("SKIPPED (no NVRTC): a_source_that_does_not_compile_gives_nvrtcs_log");
        return;
    }
    let dir = folder();
    let dir = dir.path();
    write(
        dir,
        "broken.cu",
        "// line 1\n__device__ void evo_user_terms(unsigned long long i, const float* x,\n    \
         unsigned long long d, const EvoUserData& data, double* t) {\n    t[0] = undefined_name;\n}\n",
    );
    write(
        dir,
        "broken.toml",
        "kind = \"real\"\nsource = \"broken.cu\"\ndimension = 3\nlower = 0\nupper = 1\n",
    );
    let error = refused(dir, "de", "broken.toml", &["--backend", "cpu"]);
    assert_contains(
        &error,
        &["failed to compile", "user_broken.cu(4)", "undefined_name"],
    );
}

/// Runs `algorithm` on the example `manifest` on the GPU for `generations`; returns result.json and the
/// best fitness at the first point of history.csv.
fn on_gpu(
    test: &str,
    algorithm: &str,
    manifest: &str,
    generations: &str,
) -> Option<(serde_json::Value, f64)> {
    let device = gpu_or_skip(test)?;
    let dir = folder();
    let problem = format!("user:{manifest}");
    let backend = format!("cuda:{device}");
    ok_in(
        dir.path(),
        &[
            "run",
            algorithm,
            "--problem",
            &problem,
            "--generations",
            generations,
            "--backend",
            &backend,
            "--out",
            "o",
            "-q",
        ],
    );
    let result = result(&dir.path().join("o"));
    assert_eq!(result["backend"], backend.as_str(), "{result}");
    assert_eq!(result["generations"], generations.parse::<u64>().unwrap());
    let history = std::fs::read_to_string(dir.path().join("o/history.csv")).unwrap();
    let first = history.lines().nth(1).unwrap().split(',').nth(2).unwrap();
    Some((result, first.parse().unwrap()))
}

fn best(result: &serde_json::Value) -> f64 {
    let best = result["best_fitness"].as_f64().unwrap();
    assert!(best.is_finite(), "{result}");
    best
}

#[test]
fn gpu_de_runs_the_user_rastrigin() {
    let Some((result, first)) = on_gpu(
        "gpu_de_runs_the_user_rastrigin",
        "de",
        "rastrigin.toml",
        "200",
    ) else {
        return;
    };
    let fitness = best(&result);
    assert!(fitness >= 0.0 && fitness < first, "{first} -> {result}");
    assert_eq!(result["best"].as_array().unwrap().len(), 128);
}

#[test]
fn gpu_ma_sw_chains_runs_the_user_rastrigin() {
    let Some((result, first)) = on_gpu(
        "gpu_ma_sw_chains_runs_the_user_rastrigin",
        "ma-sw-chains",
        "rastrigin.toml",
        "50",
    ) else {
        return;
    };
    let fitness = best(&result);
    assert!(fitness >= 0.0 && fitness < first, "{first} -> {result}");
}

#[test]
fn gpu_de_fits_a_line_to_the_data_files() {
    let Some((result, _)) = on_gpu(
        "gpu_de_fits_a_line_to_the_data_files",
        "de",
        "line_fit.toml",
        "300",
    ) else {
        return;
    };
    // The points lie on y = 2x + 1.
    assert!(best(&result) < 1e-2, "{result}");
    let best = result["best"].as_array().unwrap();
    assert!((best[0].as_f64().unwrap() - 2.0).abs() < 0.05, "{result}");
    assert!((best[1].as_f64().unwrap() - 1.0).abs() < 0.2, "{result}");
}

#[test]
fn gpu_ga_runs_the_user_trap5() {
    let Some((result, _)) = on_gpu("gpu_ga_runs_the_user_trap5", "ga", "trap5.toml", "100") else {
        return;
    };
    // Each of the 20 blocks scores at least 0; a random string scores about -20 × 1.4.
    let fitness = best(&result);
    assert!((-100.0..-20.0).contains(&fitness), "{result}");
}

#[test]
fn gpu_dpga_runs_the_user_pressure_vessel() {
    let Some((result, _)) = on_gpu(
        "gpu_dpga_runs_the_user_pressure_vessel",
        "dpga",
        "vessel.toml",
        "200",
    ) else {
        return;
    };
    // The best known design costs about 6059.7; a feasible design of 200 generations is within reach.
    let fitness = best(&result);
    assert!((5000.0..50000.0).contains(&fitness), "{result}");
}

/// A user problem's run survives as a built-in's does: killed between checkpoints on CUDA and resumed, it
/// ends as the uninterrupted run.
#[test]
fn gpu_a_user_run_killed_between_checkpoints_resumes_to_the_uninterrupted_result() {
    let Some(device) = gpu_or_skip("gpu_a_user_run_killed_between_checkpoints_resumes") else {
        return;
    };
    let dir = folder();
    let dir = dir.path();
    let backend = format!("cuda:{device}");
    let run = |out: &'static str, extra: &[&'static str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "run",
            "de",
            "--problem",
            "user:rastrigin.toml",
            "--set",
            "population=64",
            "--generations",
            "20000",
            "--seed",
            "11",
            "--backend",
            &backend,
            "--out",
            out,
            "-q",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        args.extend(extra.iter().map(ToString::to_string));
        args
    };
    let whole = run("whole", &[]);
    ok_in(dir, &whole.iter().map(String::as_str).collect::<Vec<_>>());
    let parts = run("parts", &["--checkpoint", "run.ckpt", "--every", "500"]);
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    kill_after_first_checkpoint(dir, &parts, "run.ckpt", "parts");
    let output = ok_in(dir, &["resume", "run.ckpt", "-q"]);
    resumed_at(&output, 20000);
    let (whole, parts) = (result(&dir.join("whole")), result(&dir.join("parts")));
    assert_eq!(parts["backend"], whole["backend"]);
    assert_eq!(outcome(&parts), outcome(&whole));
}

/// The checkpoint's fingerprint knows a user problem by its name and bounds only, so `evo resume` compares
/// the manifest's, source's and data files' digest with the one the run file recorded.
#[test]
fn a_resume_refuses_user_files_changed_since_the_run_started() {
    let dir = folder();
    let dir = dir.path();
    // The run file is written before the run starts; the CPU run itself is refused.
    let checkpoint = ["--backend", "cpu", "--checkpoint", "c.ckpt"];
    let error = refused(dir, "de", "line_fit.toml", &checkpoint);
    assert_contains(&error, &["has only a device evaluation"]);
    let run_file = std::fs::read_to_string(dir.join("c.ckpt.run.json")).unwrap();
    assert_contains(&run_file, &["\"user_files\""]);
    let unchanged = fails_in(dir, &["resume", "c.ckpt"]);
    assert_contains(&unchanged, &["has only a device evaluation"]);
    std::fs::write(dir.join("values.csv"), "1, 3, 5, 7, 9, 11, 13, 16\n").unwrap();
    let error = fails_in(dir, &["resume", "c.ckpt"]);
    assert_contains(
        &error,
        &[
            "the manifest, its source or a data file changed since the run started",
            "start a new run",
        ],
    );
}

fn readme_section() -> String {
    let readme = std::fs::read_to_string(in_crate("../../README.md")).unwrap();
    let section = readme
        .split("\n## Command line\n")
        .nth(1)
        .expect("the README has a \"Command line\" section");
    section.split("\n## ").next().unwrap().to_string()
}

#[test]
fn the_readmes_manifest_is_the_example() {
    let manifest = std::fs::read_to_string(examples().join("rastrigin.toml")).unwrap();
    assert!(
        readme_section().contains(&format!("```toml\n{manifest}```")),
        "the README's rastrigin.toml differs from crates/cli/examples/user/rastrigin.toml"
    );
}

/// The README's user problem command, run next to the example: on a CUDA device it runs (auto takes the
/// device); without one it is refused as the README says.
#[test]
fn the_readmes_user_command_runs_on_a_device_and_is_refused_without() {
    let section = readme_section();
    let command = section
        .lines()
        .find(|line| line.starts_with("evo run de --problem user:"))
        .expect("the README shows a user problem command");
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let dir = folder();
    match GpuPresence::from_device_count(evo_gpu_runtime::device_count()).unwrap() {
        GpuPresence::Device(_) => {
            if gpu_or_skip("the_readmes_user_command_runs").is_none() {
                return;
            }
            ok_in(dir.path(), &args);
            let result = result(&dir.path().join("runs/user"));
            assert_eq!(result["generations"], 200);
            assert_eq!(result["backend"], "cuda:0");
        }
        GpuPresence::Absent { reason } => {
            assert!(
                !gpu_required(),
                "EVO_REQUIRE_GPU=1 requires a CUDA device: {reason}"
            );
            let error = fails_in(dir.path(), &args);
            assert_contains(&error, &["has only a device evaluation", "no CUDA device"]);
        }
    }
}
