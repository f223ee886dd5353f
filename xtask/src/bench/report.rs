//! What a suite measures (rows and plot series) and how it is written: markdown, JSON and SVG.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::environment::Environment;

/// Which engine a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The CPU twin (rayon).
    Cpu,
    /// The CUDA kernel.
    Cuda,
}

impl Backend {
    /// The backend's name as written in tables and legends.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

/// A figure to compare a row with: a paper's table, a peer implementation, or the other backend.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    /// Where the figure comes from ("CPU twin", "GA paper, table 3").
    pub source: String,
    /// The figure, in the row's unit.
    pub value: f64,
    /// The row's throughput divided by the figure (above 1: we are faster).
    pub ratio: f64,
}

impl Reference {
    /// A reference to `value` from `source`, for a row whose throughput is `ours`.
    pub fn new(source: impl Into<String>, value: f64, ours: f64) -> Self {
        Self {
            source: source.into(),
            value,
            ratio: ours / value,
        }
    }
}

/// One measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// What was measured ("reduce_sum_f64", "sin_f32").
    pub case: String,
    /// The engine.
    pub backend: Backend,
    /// The device it ran on.
    pub device: String,
    /// The problem size (terms, inputs, dimensions).
    pub size: u64,
    /// The median of the timed samples, in milliseconds.
    pub median_ms: f64,
    /// How many samples were timed (after the warm-up).
    pub samples: usize,
    /// The throughput at the median time.
    pub throughput: f64,
    /// The throughput's unit ("GB/s", "Gevals/s").
    pub unit: String,
    /// A figure to compare with, if any.
    pub reference: Option<Reference>,
    /// The outcome of a correctness check made alongside ("bit-identical"), if any.
    pub check: Option<String>,
}

/// One line of a plot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// (x, y) points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a suite's SVG.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plot {
    /// The chart's caption.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// The y axis label.
    pub y_label: String,
    /// Whether x is drawn on a log10 scale (sizes spanning decades).
    pub log_x: bool,
    /// When set, x is the index of a category and these are the tick labels.
    pub categories: Option<Vec<String>>,
    /// The lines, one per backend (or per variant).
    pub series: Vec<Series>,
}

/// What a suite returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SuiteResult {
    /// The measurements.
    pub rows: Vec<Row>,
    /// Charts for the SVG.
    pub plots: Vec<Plot>,
    /// Remarks printed below the table.
    pub notes: Vec<String>,
    /// Correctness failures found while measuring; the command exits non-zero after writing the outputs.
    pub failures: Vec<String>,
}

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
    /// A report of `result`; the GPU side was measured unless `gpu_skipped` gives the reason it was not.
    pub fn new(
        suite: &dyn super::Suite,
        environment: Environment,
        gpu_skipped: Option<String>,
        result: SuiteResult,
    ) -> Self {
        let gpu_side = match &gpu_skipped {
            Some(reason) => format!("GPU side SKIPPED: {reason}"),
            None => format!("GPU side measured on {}", environment.device),
        };
        Self {
            suite: suite.name().to_string(),
            description: suite.description().to_string(),
            environment,
            gpu_skipped,
            gpu_side,
            result,
        }
    }

    /// The part printed to stdout: title, skip line, table, notes and failures.
    pub fn body_markdown(&self) -> String {
        let mut out = format!("## bench `{}`: {}\n\n", self.suite, self.description);
        if self.gpu_skipped.is_some() {
            out.push_str(&format!("**{}**\n\n", self.gpu_side));
        }
        out.push_str(&super::markdown::rows_table(&self.result.rows).to_markdown());
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
            super::plot::write_svg(&path, &caption, &self.result.plots)
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

    struct Named;

    impl crate::bench::Suite for Named {
        fn name(&self) -> &'static str {
            "core"
        }
        fn description(&self) -> &'static str {
            "foundation kernels"
        }
        fn run(&self, _: &mut crate::bench::BenchContext) -> anyhow::Result<SuiteResult> {
            Ok(SuiteResult::default())
        }
    }

    fn report(gpu_skipped: Option<&str>) -> SuiteReport {
        SuiteReport::new(
            &Named,
            Environment {
                device: "none".into(),
                driver_version: "none".into(),
                compute_capability: "none".into(),
                cpu_model: "Test CPU".into(),
                cpu_threads: 2,
                commit: "abc1234".into(),
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
        for fact in [
            "- CPU: Test CPU",
            "- commit: abc1234",
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
        let measured = report(None);
        assert_eq!(measured.gpu_side, "GPU side measured on none");
        assert!(!measured.to_markdown().contains("SKIPPED"));
    }
}
