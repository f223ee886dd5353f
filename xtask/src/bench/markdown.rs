//! How a suite's rows read in markdown: one table line per measurement, sizes as `10^k`, figures with about
//! four significant digits, and `-` in a cell that has no value (a NaN or infinite figure never reaches a
//! table).

use super::result::Row;
use crate::table::Table;

/// The rows as a table: one line per measurement.
pub fn rows_table(rows: &[Row]) -> Table {
    let mut table = Table::new([
        "case",
        "backend",
        "device",
        "size",
        "median ms",
        "throughput",
        "reference",
        "ratio",
        "check",
    ]);
    for row in rows {
        let (reference, ratio) = match &row.reference {
            Some(r) => (
                format!("{} ({})", with_unit(r.value, &row.unit), r.source),
                times(r.ratio),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        table.push([
            row.case.clone(),
            row.backend.name().to_string(),
            row.device.clone(),
            format_size(row.size),
            fixed(row.median_ms, 3),
            with_unit(row.throughput, &row.unit),
            reference,
            ratio,
            row.check.clone().unwrap_or_else(|| "-".to_string()),
        ]);
    }
    table
}

/// What a cell shows when it has no value: a backend that did not run, a figure the paper does not give.
pub const NO_VALUE: &str = "-";

/// `value` with `decimals` decimals, or [`NO_VALUE`] when it is NaN or infinite.
pub fn fixed(value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("{value:.decimals$}")
    } else {
        NO_VALUE.to_string()
    }
}

/// A ratio as `2.00x`, or [`NO_VALUE`] when it is NaN or infinite.
pub fn times(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{ratio:.2}x")
    } else {
        NO_VALUE.to_string()
    }
}

/// A figure with about four significant digits and its unit, or [`NO_VALUE`] alone.
fn with_unit(value: f64, unit: &str) -> String {
    if value.is_finite() {
        format!("{} {unit}", significant(value))
    } else {
        NO_VALUE.to_string()
    }
}

/// A size as `10^k` when it is a power of ten, otherwise in full.
pub fn format_size(size: u64) -> String {
    let mut k = 0;
    let mut rest = size;
    while rest >= 10 && rest.is_multiple_of(10) {
        rest /= 10;
        k += 1;
    }
    if rest == 1 && k > 0 {
        format!("10^{k}")
    } else {
        size.to_string()
    }
}

/// A value with about four significant digits, without exponent for everyday magnitudes; `-` for no value.
pub fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if !value.is_finite() {
        NO_VALUE.to_string()
    } else if magnitude == 0.0 {
        format!("{value}")
    } else if !(1e-3..1e6).contains(&magnitude) {
        format!("{value:.3e}")
    } else {
        let decimals = (3 - magnitude.log10().floor() as i32).max(0) as usize;
        format!("{value:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_figures_are_formatted_for_reading() {
        assert_eq!(format_size(100_000_000), "10^8");
        assert_eq!(format_size(1), "1");
        assert_eq!(format_size(1_500), "1500");
        assert_eq!(significant(1234.5678), "1235");
        assert_eq!(significant(0.012345), "0.01235");
        assert_eq!(significant(2.5e9), "2.500e9");
        assert_eq!(significant(0.0), "0");
    }

    #[test]
    fn cells_without_a_value_print_a_dash() {
        for missing in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(significant(missing), "-");
            assert_eq!(fixed(missing, 3), "-");
            assert_eq!(times(missing), "-");
            assert_eq!(with_unit(missing, "GB/s"), "-");
        }
        assert_eq!(fixed(1.23456, 2), "1.23");
        assert_eq!(times(4.0), "4.00x");
        assert_eq!(with_unit(32.0, "GB/s"), "32.00 GB/s");
    }

    #[test]
    fn a_row_without_a_gpu_figure_has_no_nan() {
        let row = Row {
            case: "ga".into(),
            backend: crate::bench::result::Backend::Cuda,
            device: "none".into(),
            size: 128,
            median_ms: f64::NAN,
            samples: 0,
            throughput: f64::NAN,
            unit: "generations/s".into(),
            reference: Some(crate::bench::result::Reference::new("paper", 2.0, f64::NAN)),
            check: None,
        };
        let markdown = rows_table(&[row]).to_markdown();
        assert!(
            !markdown.contains("NaN") && !markdown.contains("inf"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| 2.000 generations/s (paper) | -"),
            "{markdown}"
        );
    }
}
