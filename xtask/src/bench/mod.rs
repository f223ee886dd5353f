//! `cargo xtask bench`: runs benchmark suites on this machine and writes what they measured.
//!
//! A suite is a type implementing [`Suite`], in its own file under `bench/suites/`, listed once in
//! [`suites::suites`]. The framework gives it a [`BenchContext`] (options, the GPU, progress bars, timing
//! helpers) and turns the [`SuiteResult`] it returns into a markdown table on stdout and
//! `<out>/<suite>.{md,json,svg}`, each recording device, driver, CPU, commit, date and command line.
//!
//! Without a GPU (or with `--backend cpu`) the CUDA side is skipped and every output says so. Benchmarks are
//! not tests: nothing here asserts a duration; only correctness checks made alongside (CPU and GPU results
//! bit-identical) fail the command.

mod context;
mod environment;
mod git_output;
mod markdown;
mod plot;
mod report;
mod result;
pub mod suites;

use std::process::ExitCode;

use anyhow::{Context, bail};
use evo_gpu_runtime::Gpu;

pub use context::{BenchContext, Timing, median};
pub use result::{Backend, Plot, Reference, Row, Series, SuiteResult};

use crate::flags::{BackendChoice, BenchArgs};
use environment::Environment;
use report::SuiteReport;

/// One benchmark suite.
pub trait Suite {
    /// The name given to `--suite` and used for the output files.
    fn name(&self) -> &'static str;
    /// One line saying what it measures.
    fn description(&self) -> &'static str;
    /// Measures, on the backends the context selects.
    fn run(&self, ctx: &mut BenchContext) -> anyhow::Result<SuiteResult>;
}

/// Runs the command.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let registry = suites::suites();
    if args.list {
        for suite in &registry {
            println!("{:<8} {}", suite.name(), suite.description());
        }
        return Ok(ExitCode::SUCCESS);
    }
    crate::flags::check_replaced_variables(|variable| std::env::var_os(variable).is_some())?;
    let selected = select(&registry, &args.suites)?;
    let names: Vec<&str> = selected.iter().map(|suite| suite.name()).collect();
    args.suite_flags.check(&names)?;
    let gpu = match args.backend {
        BackendChoice::Cpu => None,
        BackendChoice::Cuda | BackendChoice::Both => {
            Gpu::first_available().context("opening the first CUDA device")?
        }
    };
    let gpu_skipped = match (args.backend, &gpu) {
        (BackendChoice::Cuda, None) => bail!(
            "--backend cuda needs a CUDA device, and this machine has none (no driver or no device); \
             use --backend cpu or --backend both"
        ),
        (BackendChoice::Cpu, _) => Some("--backend cpu".to_string()),
        (_, None) => Some("no CUDA device".to_string()),
        (_, Some(_)) => None,
    };
    let environment = Environment::collect(gpu.as_ref(), args.quick);
    println!("# cargo xtask bench\n\n{}", environment.to_markdown());
    if cfg!(debug_assertions) {
        println!(
            "note: this xtask is an unoptimized build, so CPU figures are far too low; \
             for real figures run `cargo run --release -p xtask -- bench ...`\n"
        );
    }
    if let Some(reason) = &gpu_skipped {
        println!("GPU side SKIPPED: {reason}\n");
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;

    let cpu = args.backend != BackendChoice::Cuda;
    let mut ctx = BenchContext::new(
        args.quick,
        cpu,
        gpu,
        environment.cpu_device(),
        args.suite_flags.clone(),
    );
    let mut failures = Vec::new();
    for suite in selected {
        let result = match suite.run(&mut ctx) {
            Ok(result) => result,
            Err(error) => {
                let message = format!("suite `{}` failed: {error:#}", suite.name());
                eprintln!("error: {message}");
                failures.push(message);
                continue;
            }
        };
        failures.extend(
            result
                .failures
                .iter()
                .map(|f| format!("suite `{}`: {f}", suite.name())),
        );
        let report = SuiteReport::new(
            (suite.name(), suite.description()),
            environment.clone(),
            gpu_skipped.clone(),
            result,
        );
        print!("{}", report.body_markdown());
        let written = report.write(&args.out)?;
        let svg = written
            .svg
            .map(|p| format!(", {}", p.display()))
            .unwrap_or_default();
        println!(
            "\nwrote {}, {}{svg}\n",
            written.markdown.display(),
            written.json.display()
        );
    }
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("bench finished with {} failure(s):", failures.len());
        for failure in &failures {
            eprintln!("  {failure}");
        }
        Ok(ExitCode::FAILURE)
    }
}

/// The suites named by `--suite`, in registry order without repeats; every suite when none is named.
fn select<'a>(
    registry: &'a [Box<dyn Suite>],
    names: &[String],
) -> anyhow::Result<Vec<&'a dyn Suite>> {
    let valid: Vec<&str> = registry.iter().map(|s| s.name()).collect();
    let unknown: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !valid.contains(n))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "unknown suite{} {}; valid suites: {} (`cargo xtask bench --list` describes them)",
            if unknown.len() > 1 { "s" } else { "" },
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            valid.join(", ")
        );
    }
    Ok(registry
        .iter()
        .filter(|suite| names.is_empty() || names.iter().any(|n| n == suite.name()))
        .map(|suite| suite.as_ref())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_names_are_unique_and_nonempty() {
        let registry = suites::suites();
        let mut names: Vec<&str> = registry.iter().map(|s| s.name()).collect();
        assert!(
            names
                .iter()
                .all(|n| !n.is_empty() && !n.contains(char::is_whitespace))
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), registry.len(), "duplicate suite names");
        assert!(names.contains(&"core"));
    }

    #[test]
    fn no_names_selects_every_suite() {
        let registry = suites::suites();
        assert_eq!(select(&registry, &[]).expect("valid").len(), registry.len());
    }

    #[test]
    fn repeated_names_select_once() {
        let registry = suites::suites();
        let selected = select(&registry, &["core".into(), "core".into()]).expect("valid");
        assert_eq!(
            selected.iter().map(|s| s.name()).collect::<Vec<_>>(),
            ["core"]
        );
    }

    #[test]
    fn an_unknown_suite_is_an_error_listing_the_valid_ones() {
        let registry = suites::suites();
        let error = select(&registry, &["core".into(), "warp".into()])
            .err()
            .expect("unknown suite");
        let message = error.to_string();
        assert!(
            message.contains("`warp`") && message.contains("valid suites: core"),
            "{message}"
        );
    }
}
