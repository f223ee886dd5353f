//! `cargo xtask verify-kernels`: NVRTC-compiles every module of `evo_kernels::MODULES` for every requested
//! architecture and profile, checks that each registered entry point is in the PTX, and then, on a machine with
//! a GPU, runs the equivalence suite of `evo-equivalence` and prints it as one table.
//!
//! Compilation goes through `evo_gpu_runtime::compile_to_ptx`, which bypasses the on-disk PTX cache, so every
//! run really compiles. The exit code is non-zero when any compile, entry point or equivalence check fails.

use std::process::ExitCode;

use anyhow::{Context, bail};
use evo_gpu_runtime::{Gpu, Profile};
use evo_kernels::{KernelModule, MODULES};
use rayon::prelude::*;

use crate::flags::VerifyKernelsArgs;
use crate::table::Table;

/// The architectures compiled for when no `--arch` is given and no GPU is present.
pub const DEFAULT_ARCHS: [&str; 3] = ["sm_70", "sm_80", "sm_90"];

/// The outcome of compiling one module for one (arch, profile).
struct CompileCheck {
    module: &'static KernelModule,
    arch: String,
    profile: Profile,
    found: usize,
    /// Why it failed: the compile error (with NVRTC's log) or the missing entry points; `None` when it passed.
    failure: Option<String>,
}

/// Runs the command; the exit code says whether everything passed.
pub fn run(args: &VerifyKernelsArgs) -> anyhow::Result<ExitCode> {
    if !args.compile_only {
        // The equivalence suite reads this to turn a missing GPU into a failure instead of a skip. Setting it
        // changes nothing when there is no GPU, because the suite is then not run at all.
        // SAFETY: `main` calls `run` right after parsing the arguments, before this process has started any
        // thread (no rayon pool, no CUDA driver yet), so no other thread can read the environment concurrently.
        unsafe { std::env::set_var(evo_equivalence::gate::REQUIRE_GPU, "1") };
    }
    if !evo_gpu_runtime::nvrtc_present() {
        bail!(
            "libnvrtc was not found, so no kernel can be compiled. Install the CUDA toolkit, or run \
             `pip install nvidia-cuda-nvrtc-cu12` and set \
             LD_LIBRARY_PATH=<site-packages>/nvidia/cuda_nvrtc/lib (for this repository's CI venv: \
             LD_LIBRARY_PATH=$PWD/.ci/venv/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib)"
        );
    }
    let (major, minor) = evo_gpu_runtime::nvrtc_version().context("reading NVRTC's version")?;
    let archs = if args.archs.is_empty() {
        default_archs()
    } else {
        dedup(args.archs.clone())
    };
    let profiles = args.profile.profiles();
    let profile_names: Vec<&str> = profiles.iter().map(|p| p.name()).collect();
    println!(
        "verify-kernels: NVRTC {major}.{minor}; {} module(s); archs {}; profile(s) {}",
        MODULES.len(),
        archs.join(", "),
        profile_names.join(", ")
    );

    let mut jobs: Vec<(&'static KernelModule, &str, Profile)> = Vec::new();
    for module in MODULES {
        for arch in &archs {
            jobs.extend(
                profiles
                    .iter()
                    .map(|&profile| (module, arch.as_str(), profile)),
            );
        }
    }
    let checks: Vec<CompileCheck> = jobs
        .par_iter()
        .map(|&(module, arch, profile)| compile(module, arch, profile, args.ptx_dir.as_deref()))
        .collect();
    let compile_failures = print_compile_table(&checks);

    if args.compile_only {
        println!("equivalence suite not run (--compile-only)");
        return Ok(exit_code(compile_failures == 0));
    }
    let Some(gpu) = Gpu::first_available().context("opening the first CUDA device")? else {
        println!("no CUDA device: equivalence suite SKIPPED");
        return Ok(exit_code(compile_failures == 0));
    };
    let info = gpu.info();
    println!(
        "\nequivalence suite on device {} ({}, {}, driver {}), Exact profile:",
        info.index,
        info.name,
        info.arch(),
        info.driver_version
    );
    let reports = evo_equivalence::suite::run_all(&gpu);
    let equivalence_failures = print_equivalence_table(&reports);
    Ok(exit_code(
        compile_failures == 0 && equivalence_failures == 0,
    ))
}

/// The architectures of the GPUs present, else [`DEFAULT_ARCHS`].
fn default_archs() -> Vec<String> {
    match Gpu::all() {
        Ok(gpus) if !gpus.is_empty() => dedup(gpus.iter().map(|gpu| gpu.info().arch()).collect()),
        Ok(_) => DEFAULT_ARCHS.map(String::from).to_vec(),
        Err(error) => {
            eprintln!(
                "warning: could not list the CUDA devices ({error}); compiling for the default archs"
            );
            DEFAULT_ARCHS.map(String::from).to_vec()
        }
    }
}

/// Removes repeated entries, keeping the first occurrence's position.
fn dedup(mut items: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.retain(|item| seen.insert(item.clone()));
    items
}

fn compile(
    module: &'static KernelModule,
    arch: &str,
    profile: Profile,
    ptx_dir: Option<&std::path::Path>,
) -> CompileCheck {
    let (found, failure) =
        match evo_gpu_runtime::compile_to_ptx(module.name, module.source, profile, arch) {
            Ok(ptx) => {
                let missing = missing_entry_points(&ptx, module.entry_points);
                let mut failure = (!missing.is_empty()).then(|| {
                    format!(
                        "entry point(s) missing from the PTX: {}",
                        missing.join(", ")
                    )
                });
                if let Some(dir) = ptx_dir {
                    let path = dir.join(format!("{}.{arch}.{profile:?}.ptx", module.name));
                    if let Err(error) =
                        std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &ptx))
                    {
                        failure = Some(format!("writing {}: {error}", path.display()));
                    }
                }
                (module.entry_points.len() - missing.len(), failure)
            }
            Err(error) => (0, Some(error.to_string())),
        };
    CompileCheck {
        module,
        arch: arch.to_string(),
        profile,
        found,
        failure,
    }
}

/// The entry points that do not appear in `ptx` as `.entry <name>(` (PTX writes `.visible .entry <name>(`).
fn missing_entry_points<'a>(ptx: &str, entry_points: &[&'a str]) -> Vec<&'a str> {
    entry_points
        .iter()
        .copied()
        .filter(|entry| !ptx.contains(&format!(".entry {entry}(")))
        .collect()
}

/// Prints the compile table and every failure's error below it; returns the number of failures.
fn print_compile_table(checks: &[CompileCheck]) -> usize {
    let mut table = Table::new([
        "module",
        "file",
        "arch",
        "profile",
        "entry points",
        "verdict",
    ]);
    for check in checks {
        table.push([
            check.module.name.to_string(),
            check.module.file.to_string(),
            check.arch.clone(),
            check.profile.name().to_string(),
            format!("{}/{}", check.found, check.module.entry_points.len()),
            verdict(check.failure.is_none()).to_string(),
        ]);
    }
    print!("\n{}", table.to_markdown());
    let failures: Vec<&CompileCheck> = checks.iter().filter(|c| c.failure.is_some()).collect();
    for check in &failures {
        let reason = check.failure.as_deref().unwrap_or_default();
        println!(
            "\nFAIL {} ({}, {}, {}):\n{reason}",
            check.module.name, check.module.file, check.arch, check.profile
        );
    }
    println!(
        "\n{} of {} compile checks passed",
        checks.len() - failures.len(),
        checks.len()
    );
    failures.len()
}

/// Prints the equivalence table and every failure's detail below it; returns the number of failures.
fn print_equivalence_table(reports: &[evo_equivalence::suite::CheckReport]) -> usize {
    let mut table = Table::new(["kernel", "check", "cases", "max difference", "verdict"]);
    for report in reports {
        table.push([
            report.kernel.clone(),
            report.check.clone(),
            report.cases.to_string(),
            report.max_difference.clone(),
            verdict(report.passed).to_string(),
        ]);
    }
    print!("\n{}", table.to_markdown());
    let failures: Vec<_> = reports.iter().filter(|r| !r.passed).collect();
    for report in &failures {
        println!(
            "\nFAIL {} ({}): {}",
            report.check, report.kernel, report.detail
        );
    }
    println!(
        "\n{} of {} equivalence checks passed",
        reports.len() - failures.len(),
        reports.len()
    );
    if reports.is_empty() {
        println!("warning: the equivalence suite registered no checks");
    }
    failures.len()
}

fn verdict(passed: bool) -> &'static str {
    if passed { "PASS" } else { "FAIL" }
}

fn exit_code(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_are_found_with_or_without_visible() {
        let ptx =
            ".visible .entry reduce_sum_f64(\n.param .u64 p\n)\n.entry reduce_sum_f32_to_f64(";
        assert!(missing_entry_points(ptx, &["reduce_sum_f64", "reduce_sum_f32_to_f64"]).is_empty());
    }

    #[test]
    fn a_prefix_of_another_entry_point_does_not_count() {
        let ptx = ".visible .entry reduce_sum_f64_wide(";
        assert_eq!(
            missing_entry_points(ptx, &["reduce_sum_f64"]),
            ["reduce_sum_f64"]
        );
    }

    #[test]
    fn dedup_keeps_first_occurrences_in_order() {
        let archs = dedup(["sm_90", "sm_70", "sm_90"].map(String::from).to_vec());
        assert_eq!(archs, ["sm_90", "sm_70"]);
    }
}
