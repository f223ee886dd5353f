//! How a suite's result is written: `<suite>.md` (the table of [`markdown`], notes, environment), `.json` and
//! `.svg` (the charts of [`plot`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::environment::{Environment, QUICK_MODE};
use super::result::SuiteResult;
use super::{markdown, plot};

/// The line under a quick run's title, so that its figures are not read as the full mode's.
const QUICK_NOTICE: &str = "**Quick run** (`--quick`): fewer samples, sizes, runs or instances than the full mode; \
                            each table shows the shape of the results, the full mode gives the figures to record.\n\n";

/// A suite's result with its context, as written to `<suite>.md` and `<suite>.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteReport {
    /// The suite's name.
    pub suite: String,
    /// The suite's description.
    pub description: String,
    /// Where and how it ran.
    pub environment: Environment,
    /// Why the GPU side was skipped ("no CUDA device"), or `None` when it was measured.
    pub gpu_skipped: Option<String>,
    /// The same in words: `"GPU side SKIPPED: no CUDA device"`, or `"GPU side measured on <device>"`.
    pub gpu_side: String,
    /// The measurements.
    pub result: SuiteResult,
}

/// The files one suite's report was written to.
#[derive(Debug)]
pub struct Written {
    /// `<out>/<suite>.md`.
    pub markdown: PathBuf,
    /// `<out>/<suite>.json`.
    pub json: PathBuf,
    /// `<out>/<suite>.svg`, when the suite has plots.
    pub svg: Option<PathBuf>,
}

impl SuiteReport {
    /// A report of suite `name`'s `result`; the GPU side was measured unless `gpu_skipped` gives the reason it
    /// was not.
    pub fn new(
        (name, description): (&str, &str),
        environment: Environment,
        gpu_skipped: Option<String>,
        result: SuiteResult,
    ) -> Self {
        let gpu_side = match &gpu_skipped {
            Some(reason) => format!("GPU side SKIPPED: {reason}"),
            None => format!("GPU side measured on {}", environment.device),
        };
        Self {
            suite: name.to_string(),
            description: description.to_string(),
            environment,
            gpu_skipped,
            gpu_side,
            result,
        }
    }

    /// The part printed to stdout: title, skip line, table, notes and failures.
    pub fn body_markdown(&self) -> String {
        let mut out = format!("## bench `{}`: {}\n\n", self.suite, self.description);
        if self.environment.mode == QUICK_MODE {
            out.push_str(QUICK_NOTICE);
        }
        if self.gpu_skipped.is_some() {
            out.push_str(&format!("**{}**\n\n", self.gpu_side));
        }
        out.push_str(&markdown::rows_table(&self.result.rows).to_markdown());
        for note in &self.result.notes {
            out.push_str(&format!("\n{note}\n"));
        }
        for failure in &self.result.failures {
            out.push_str(&format!("\n**FAILED:** {failure}\n"));
        }
        out
    }

    /// The whole markdown file: the body followed by the environment.
    pub fn to_markdown(&self) -> String {
        format!(
            "{}\n### environment\n\n{}",
            self.body_markdown(),
            self.environment.to_markdown()
        )
    }

    /// Writes `<out>/<suite>.md`, `.json` and (with plots) `.svg`.
    pub fn write(&self, out: &Path) -> anyhow::Result<Written> {
        let markdown = out.join(format!("{}.md", self.suite));
        std::fs::write(&markdown, self.to_markdown())
            .with_context(|| format!("writing {}", markdown.display()))?;
        let json = out.join(format!("{}.json", self.suite));
        let text = serde_json::to_string_pretty(self).context("serializing the report")?;
        std::fs::write(&json, text + "\n")
            .with_context(|| format!("writing {}", json.display()))?;
        let svg = if self.result.plots.iter().any(|plot| !plot.series.is_empty()) {
            let path = out.join(format!("{}.svg", self.suite));
            let environment = &self.environment;
            let caption = format!(
                "bench `{}`: GPU {}; CPU {} ({} threads); {}, {}",
                self.suite,
                environment.device,
                environment.cpu_model,
                environment.cpu_threads,
                environment.mode,
                environment.commit
            );
            plot::write_svg(&path, &caption, &self.result.plots)
                .with_context(|| format!("writing {}", path.display()))?;
            Some(path)
        } else {
            None
        };
        Ok(Written {
            markdown,
            json,
            svg,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::result::{Backend, Reference, Row};

    fn report(gpu_skipped: Option<&str>) -> SuiteReport {
        SuiteReport::new(
            ("core", "foundation kernels"),
            Environment {
                device: "none".into(),
                driver_version: "none".into(),
                compute_capability: "none".into(),
                cpu_model: "Test CPU".into(),
                cpu_threads: 2,
                commit: "test-commit".into(),
                date_utc: "2026-01-02T03:04:05Z".into(),
                command: "xtask bench --quick".into(),
                mode: "quick".into(),
                build: "release".into(),
            },
            gpu_skipped.map(String::from),
            SuiteResult {
                rows: vec![Row {
                    case: "reduce_sum_f64".into(),
                    backend: Backend::Cuda,
                    device: "GPU".into(),
                    size: 1_000_000,
                    median_ms: 0.25,
                    samples: 5,
                    throughput: 32.0,
                    unit: "GB/s".into(),
                    reference: Some(Reference::new("CPU twin", 8.0, 32.0)),
                    check: Some("bit-identical".into()),
                }],
                notes: vec!["A note.".into()],
                ..SuiteResult::default()
            },
        )
    }

    #[test]
    fn markdown_has_the_row_the_environment_and_the_skip_line() {
        let markdown = report(Some("no CUDA device")).to_markdown();
        assert!(
            markdown.starts_with("## bench `core`: foundation kernels\n"),
            "{markdown}"
        );
        assert!(
            markdown.contains("**GPU side SKIPPED: no CUDA device**"),
            "{markdown}"
        );
        let row = markdown
            .lines()
            .find(|l| l.starts_with("| reduce_sum_f64"))
            .expect("a row line");
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(
            cells[1..10],
            [
                "reduce_sum_f64",
                "cuda",
                "GPU",
                "10^6",
                "0.250",
                "32.00 GB/s",
                "8.000 GB/s (CPU twin)",
                "4.00x",
                "bit-identical"
            ]
        );
        assert!(markdown.contains("**Quick run** (`--quick`)"), "{markdown}");
        for fact in [
            "- CPU: Test CPU",
            "- commit: test-commit",
            "- date (UTC): 2026-01-02T03:04:05Z",
            "- mode: quick",
            "A note.",
        ] {
            assert!(markdown.contains(fact), "missing `{fact}` in\n{markdown}");
        }
    }

    #[test]
    fn json_records_the_skip_and_the_environment() {
        let json = serde_json::to_value(report(Some("no CUDA device"))).expect("serializable");
        assert_eq!(json["gpu_skipped"], "no CUDA device");
        assert_eq!(json["gpu_side"], "GPU side SKIPPED: no CUDA device");
        assert_eq!(json["environment"]["compute_capability"], "none");
        assert_eq!(json["result"]["rows"][0]["backend"], "cuda");
        let mut measured = report(None);
        assert_eq!(measured.gpu_side, "GPU side measured on none");
        assert!(!measured.to_markdown().contains("SKIPPED"));
        measured.environment.mode = "full".into();
        assert!(!measured.to_markdown().contains("Quick run"));
    }
}
