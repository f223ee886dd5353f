//! The files a run leaves in its output folder: result.json, history.csv, convergence.svg.

use anyhow::{Context, Result};
use evo_core::{BACKEND_REASON, HistoryPoint, Report, TerminationReason};
use plotters::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

use crate::island_run::ISLAND_BESTS;
use crate::islands::IslandConfig;
use crate::runfile::RunConfig;
use crate::split::SplitResult;

/// The contents of result.json.
#[derive(Debug, Serialize)]
pub struct ResultFile<'a> {
    /// The algorithm's own name ("DE").
    pub algorithm: &'a str,
    /// The best solution (the engine's solution type: genes, or bit words).
    pub best: &'a Value,
    /// Its fitness (minimised).
    #[serde(with = "evo_core::serde_f64")]
    pub best_fitness: f64,
    /// Objective evaluations, initialisation included.
    pub evaluations: u64,
    /// Generations.
    pub generations: u64,
    /// Wall time across resumes, in seconds.
    pub wall_time_s: f64,
    /// Why the run stopped.
    pub termination: TerminationReason,
    /// The backend the run ended on, resolved (`cpu:0`, `cuda:1`).
    pub backend: String,
    /// Why the run took that backend (`Backend::Auto`'s finding, or "cpu was asked for"), from the report's
    /// metadata key [`BACKEND_REASON`]; every `evo run` and `evo resume` records it.
    pub backend_reason: Option<&'a str>,
    /// The GPU's name on a CUDA backend.
    pub device: Option<&'a str>,
    /// The seed.
    pub seed: u64,
    /// The problem spec.
    pub problem: &'a str,
    /// The parameters.
    pub params: &'a Value,
    /// The island model (`--islands`): `K`, the migration interval, the migrant count, the placement and
    /// each island's best fitness in its final population; the best above is the best of every island.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub islands: Option<IslandsResult<'a>>,
    /// The dimension split (`--split dimension`): the list of slices' devices and the slices on each GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitResult<'a>>,
    /// The evo version that wrote this file.
    pub evo_version: &'static str,
}

/// The island model's part of result.json.
#[derive(Debug, Serialize)]
pub struct IslandsResult<'a> {
    /// The model as configured.
    #[serde(flatten)]
    pub config: &'a IslandConfig,
    /// Island `i`'s best fitness in its population when the run ended.
    pub best_fitness: Value,
}

/// The islands' best fitness from the report's metadata ([`ISLAND_BESTS`]).
fn island_bests(report: &Report<Value>) -> Result<Value> {
    let text = report
        .metadata
        .get(ISLAND_BESTS)
        .context("the island run's report lacks the islands' best fitness")?;
    serde_json::from_str(text).context("the islands' best fitness")
}

/// Writes result.json, history.csv and convergence.svg into `config.out`.
pub fn write_all(config: &RunConfig, report: &Report<Value>) -> Result<()> {
    let out = &config.out;
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let result = ResultFile {
        algorithm: &report.algorithm,
        best: &report.best,
        best_fitness: report.best_fitness,
        evaluations: report.evaluations,
        generations: report.generations,
        wall_time_s: report.wall_time_s,
        termination: report.termination,
        backend: report
            .metadata
            .get("backend")
            .cloned()
            .unwrap_or_else(|| config.backend.to_string()),
        backend_reason: report.metadata.get(BACKEND_REASON).map(String::as_str),
        device: report.metadata.get("device").map(String::as_str),
        seed: config.seed,
        problem: &config.problem,
        params: &config.params,
        islands: match &config.islands {
            Some(islands) => Some(IslandsResult {
                config: islands,
                best_fitness: island_bests(report)?,
            }),
            None => None,
        },
        split: config.split.as_ref().map(SplitResult::new),
        evo_version: env!("CARGO_PKG_VERSION"),
    };
    let mut json = serde_json::to_string_pretty(&result)?;
    json.push('\n');
    write(&out.join("result.json"), json.as_bytes())?;
    write(
        &out.join("history.csv"),
        history_csv(&report.history).as_bytes(),
    )?;
    plot(
        &out.join("convergence.svg"),
        &format!("{} on {}", report.algorithm, config.problem),
        report,
    )?;
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// One line per history point; floats in Rust's shortest round-trip form.
fn history_csv(history: &[HistoryPoint]) -> String {
    let mut csv = String::from("generation,evaluations,best_fitness,elapsed_s\n");
    for point in history {
        // Writing to a String cannot fail.
        let _ = writeln!(
            csv,
            "{},{},{},{}",
            point.generation, point.evaluations, point.best_fitness, point.elapsed_s
        );
    }
    csv
}

/// Best fitness against evaluations, on a linear scale (fitness may be negative).
fn plot(path: &Path, title: &str, report: &Report<Value>) -> Result<()> {
    let points: Vec<(f64, f64)> = report
        .history
        .iter()
        .filter(|point| point.best_fitness.is_finite())
        .map(|point| (point.evaluations as f64, point.best_fitness))
        .collect();
    let (x_max, (y_min, y_max)) = ranges(&points);
    let drawing_error = |error: String| anyhow::anyhow!("cannot draw {}: {error}", path.display());
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| drawing_error(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_max, y_min..y_max)
        .map_err(|e| drawing_error(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("evaluations")
        .y_desc("best fitness")
        .draw()
        .map_err(|e| drawing_error(e.to_string()))?;
    chart
        .draw_series(LineSeries::new(points, &BLUE))
        .map_err(|e| drawing_error(e.to_string()))?;
    root.present().map_err(|e| drawing_error(e.to_string()))?;
    Ok(())
}

/// The plot's axes: evaluations from 0, fitness with a margin (a flat line gets a unit band).
fn ranges(points: &[(f64, f64)]) -> (f64, (f64, f64)) {
    let x_max = points.iter().map(|p| p.0).fold(1.0, f64::max);
    let lo = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return (x_max, (0.0, 1.0));
    }
    let margin = if hi > lo { (hi - lo) * 0.05 } else { 0.5 };
    (x_max, (lo - margin, hi + margin))
}
