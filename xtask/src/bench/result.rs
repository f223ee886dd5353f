//! What a suite measures: rows, plot series and notes. The data only; [`super::report`] writes it out.

use serde::Serialize;

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
