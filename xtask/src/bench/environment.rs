//! Where and how a benchmark ran: device, driver, CPU, commit, date and command line, recorded in every output.

use std::time::{SystemTime, UNIX_EPOCH};

use evo_gpu_runtime::Gpu;
use serde::Serialize;

use super::git_output::git_output;

/// [`Environment::mode`] of a `--quick` run.
pub const QUICK_MODE: &str = "quick";

/// The facts every benchmark output records, so that a figure can be traced to a machine and a commit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Environment {
    /// The GPU's name, or "none".
    pub device: String,
    /// The CUDA driver's version, or "none".
    pub driver_version: String,
    /// The GPU's compute capability ("9.0"), or "none".
    pub compute_capability: String,
    /// The CPU's model name from `/proc/cpuinfo`, or "unknown".
    pub cpu_model: String,
    /// Threads of the rayon pool that the CPU side uses.
    pub cpu_threads: usize,
    /// `git rev-parse --short HEAD` (with `-dirty` when tracked files changed), else `$EVO_COMMIT`, else
    /// "unknown".
    pub commit: String,
    /// When the run started, UTC, ISO 8601.
    pub date_utc: String,
    /// The command line that produced the output.
    pub command: String,
    /// "quick" or "full".
    pub mode: String,
    /// "release", or "debug" for an unoptimized xtask (`cargo xtask` without `--release`), whose CPU figures are
    /// far below what the library reaches.
    pub build: String,
}

impl Environment {
    /// Collects the environment of this process, with `gpu` the device measured (if any).
    pub fn collect(gpu: Option<&Gpu>, quick: bool) -> Self {
        let none = || "none".to_string();
        Self {
            device: gpu.map_or_else(none, |g| g.info().name.clone()),
            driver_version: gpu.map_or_else(none, |g| g.info().driver_version.clone()),
            compute_capability: gpu.map_or_else(none, |g| {
                let (major, minor) = g.info().compute_capability;
                format!("{major}.{minor}")
            }),
            cpu_model: cpu_model(),
            cpu_threads: rayon::current_num_threads(),
            commit: commit(),
            date_utc: format_utc(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            ),
            command: command_line(),
            mode: if quick { QUICK_MODE } else { "full" }.to_string(),
            build: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .to_string(),
        }
    }

    /// A short description of the CPU side's device, for table rows.
    pub fn cpu_device(&self) -> String {
        format!("{} ({} threads)", self.cpu_model, self.cpu_threads)
    }

    /// The environment as a markdown bullet list.
    pub fn to_markdown(&self) -> String {
        [
            ("device", &self.device),
            ("driver", &self.driver_version),
            ("compute capability", &self.compute_capability),
            ("CPU", &self.cpu_model),
            ("CPU threads", &self.cpu_threads.to_string()),
            ("commit", &self.commit),
            ("date (UTC)", &self.date_utc),
            ("command", &format!("`{}`", self.command)),
            ("mode", &self.mode),
            ("build", &self.build),
        ]
        .iter()
        .map(|(key, value)| format!("- {key}: {value}\n"))
        .collect()
    }
}

/// The first "model name" of `/proc/cpuinfo`, or "unknown".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| parse_cpu_model(&text))
        .unwrap_or_else(|| "unknown".to_string())
}

fn parse_cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(key, _)| key.trim() == "model name")
        .map(|(_, value)| value.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|model| !model.is_empty())
}

/// The commit being measured: `$EVO_COMMIT` when set, else the checkout's (git, with `-dirty` when tracked
/// files changed) followed by the commit the binary was built from when that differs (binaries copied to
/// another machine, whose checkout may be another commit), else "unknown".
fn commit() -> String {
    if let Ok(commit) = std::env::var("EVO_COMMIT")
        && !commit.trim().is_empty()
    {
        return commit.trim().to_string();
    }
    with_build_commit(checkout_commit(), env!("EVO_BUILD_COMMIT"))
}

/// `checkout`, with ` (binary built at <build>)` when the binary's build commit is known and another.
fn with_build_commit(checkout: String, build: &str) -> String {
    if build.is_empty() || checkout.starts_with(build) {
        checkout
    } else {
        format!("{checkout} (binary built at {build})")
    }
}

/// The checkout's commit: `git rev-parse --short HEAD`, `-dirty` when tracked files changed, else "unknown".
fn checkout_commit() -> String {
    match git_output(&["rev-parse", "--short", "HEAD"]) {
        Some(hash) => {
            let dirty = git_output(&["status", "--porcelain", "--untracked-files=no"]).is_some();
            if dirty { format!("{hash}-dirty") } else { hash }
        }
        None => "unknown".to_string(),
    }
}

/// The command line, with the program written as `xtask` and arguments containing spaces quoted.
fn command_line() -> String {
    let arguments = std::env::args().skip(1).map(|arg| {
        if arg.contains(char::is_whitespace) || arg.is_empty() {
            format!("'{arg}'")
        } else {
            arg
        }
    });
    std::iter::once("xtask".to_string())
        .chain(arguments)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`, or "unknown" past the calendar's range (year 9999).
pub fn format_utc(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|seconds| jiff::Timestamp::from_second(seconds).ok())
        .map_or_else(
            || "unknown".to_string(),
            |time| time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_match_known_timestamps() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(format_utc(4_102_444_799), "2099-12-31T23:59:59Z");
        assert_eq!(format_utc(u64::MAX), "unknown");
    }

    #[test]
    fn a_build_commit_other_than_the_checkouts_is_named_beside_it() {
        assert_eq!(with_build_commit("build".into(), "build"), "build");
        assert_eq!(
            with_build_commit("build-dirty".into(), "build"),
            "build-dirty"
        );
        assert_eq!(
            with_build_commit("checkout-dirty".into(), "build"),
            "checkout-dirty (binary built at build)"
        );
        assert_eq!(with_build_commit("unknown".into(), ""), "unknown");
        assert_eq!(
            with_build_commit("unknown".into(), "build"),
            "unknown (binary built at build)"
        );
    }

    #[test]
    fn cpu_model_is_read_from_the_first_model_name_line() {
        let cpuinfo =
            "processor\t: 0\nmodel name\t: AMD EPYC  7B13 64-Core Processor\nmodel name\t: other\n";
        assert_eq!(
            parse_cpu_model(cpuinfo).as_deref(),
            Some("AMD EPYC 7B13 64-Core Processor")
        );
        assert_eq!(parse_cpu_model("processor\t: 0\n"), None);
    }
}
