//! SVG charts of a suite's plots with plotters: one chart per [`Plot`], stacked vertically, one line per series.
//!
//! The y axis (a throughput) is logarithmic, so that a CPU line and a GPU line a hundred times higher are both
//! readable. The x axis is linear in f64: a log-scale x is drawn as log10(x) with ticks labelled `10^k`, and a
//! categorical x at the category indices with the category names as tick labels (points only, no line, since
//! neighbouring categories are unrelated). This keeps one code path for all charts.

use std::path::Path;

use anyhow::anyhow;
use plotters::prelude::*;

use super::markdown::significant;
use super::result::Plot;

/// Pixel size of one chart.
const CHART_SIZE: (u32, u32) = (960, 440);

/// Draws `plots` into one SVG file at `path`, under `caption`.
pub fn write_svg(path: &Path, caption: &str, plots: &[Plot]) -> anyhow::Result<()> {
    let plots: Vec<&Plot> = plots.iter().filter(|p| !p.series.is_empty()).collect();
    let rows = u32::try_from(plots.len())
        .map_err(|_| anyhow!("too many plots"))?
        .max(1);
    let root = SVGBackend::new(path, (CHART_SIZE.0, CHART_SIZE.1 * rows + 40)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let root = root
        .titled(caption, ("sans-serif", 20))
        .map_err(|e| anyhow!("{e}"))?;
    let areas = root.split_evenly((plots.len().max(1), 1));
    for (plot, area) in plots.iter().zip(&areas) {
        draw(plot, area).map_err(|e| anyhow!("chart `{}`: {e}", plot.title))?;
    }
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn draw(plot: &Plot, area: &Area<'_>) -> Result<(), Box<dyn std::error::Error>> {
    let transform = |x: f64| {
        if plot.log_x {
            x.max(f64::MIN_POSITIVE).log10()
        } else {
            x
        }
    };
    let series: Vec<(&str, Vec<(f64, f64)>)> = plot
        .series
        .iter()
        .map(|s| {
            let points = s
                .points
                .iter()
                .map(|&(x, y)| (transform(x), y))
                .filter(|&(x, y)| x.is_finite() && y.is_finite() && y > 0.0)
                .collect();
            (s.name.as_str(), points)
        })
        .collect();
    let all = series.iter().flat_map(|(_, points)| points.iter());
    let (x_min, x_max, y_min, y_max) = all.fold(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(x_lo, x_hi, y_lo, y_hi), &(x, y)| (x_lo.min(x), x_hi.max(x), y_lo.min(y), y_hi.max(y)),
    );
    let (x_min, x_max) = if x_min.is_finite() {
        (x_min - 0.3, x_max + 0.3)
    } else {
        (0.0, 1.0)
    };
    // Whole decades, so that the log axis has labelled ticks even when every value lies within one decade.
    let (y_min, y_max) = if y_min.is_finite() {
        (
            10f64.powf(y_min.log10().floor()),
            10f64.powf((y_max * 1.2).log10().ceil()),
        )
    } else {
        (0.1, 10.0)
    };

    let mut chart = ChartBuilder::on(area)
        .caption(&plot.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, (y_min..y_max).log_scale())?;
    let tick_label = |x: &f64| tick_label(plot, *x);
    chart
        .configure_mesh()
        .x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .x_labels(plot.categories.as_ref().map_or(12, |c| c.len() * 4 + 1))
        .x_label_formatter(&tick_label)
        .light_line_style(TRANSPARENT)
        .draw()?;
    for (index, (name, points)) in series.into_iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        if plot.categories.is_none() {
            chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        }
        chart
            .draw_series(
                points
                    .into_iter()
                    .map(|point| Circle::new(point, 4, color.filled())),
            )?
            .label(name)
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// The label of an x tick: `10^k` on a log axis, the category name on a categorical axis, empty between them.
fn tick_label(plot: &Plot, x: f64) -> String {
    let nearest = x.round();
    let on_integer = (x - nearest).abs() < 1e-6;
    match (&plot.categories, plot.log_x) {
        (Some(names), _) if on_integer && nearest >= 0.0 => {
            names.get(nearest as usize).cloned().unwrap_or_default()
        }
        (Some(_), _) => String::new(),
        (None, true) if on_integer => format!("10^{nearest}"),
        (None, true) => String::new(),
        (None, false) => significant(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::result::Series;

    fn plot(log_x: bool, categories: Option<Vec<String>>) -> Plot {
        Plot {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x,
            categories,
            series: vec![Series {
                name: "cpu".into(),
                points: vec![(1e5, 1.0), (1e6, 2.0)],
            }],
        }
    }

    #[test]
    fn log_ticks_are_powers_of_ten() {
        let p = plot(true, None);
        assert_eq!(tick_label(&p, 5.0), "10^5");
        assert_eq!(tick_label(&p, 5.5), "");
    }

    #[test]
    fn category_ticks_are_names() {
        let p = plot(false, Some(vec!["sin".into(), "cos".into()]));
        assert_eq!(tick_label(&p, 1.0), "cos");
        assert_eq!(tick_label(&p, 0.5), "");
        assert_eq!(tick_label(&p, 7.0), "");
    }

    #[test]
    fn an_svg_is_written() {
        let path = std::env::temp_dir().join(format!("xtask-plot-{}.svg", std::process::id()));
        write_svg(&path, "caption", &[plot(true, None)]).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("written");
        std::fs::remove_file(&path).expect("cleanup");
        assert!(svg.starts_with("<svg") && svg.contains("10^5"), "{svg}");
    }
}
