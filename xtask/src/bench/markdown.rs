//! How a suite's rows read in markdown: one table line per measurement, sizes as `10^k`, figures with about
//! four significant digits.

use super::report::Row;
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
                format!("{} {} ({})", significant(r.value), row.unit, r.source),
                format!("{:.2}x", r.ratio),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        table.push([
            row.case.clone(),
            row.backend.name().to_string(),
            row.device.clone(),
            format_size(row.size),
            format!("{:.3}", row.median_ms),
            format!("{} {}", significant(row.throughput), row.unit),
            reference,
            ratio,
            row.check.clone().unwrap_or_else(|| "-".to_string()),
        ]);
    }
    table
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

/// A value with about four significant digits, without exponent for everyday magnitudes.
pub fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if !value.is_finite() || magnitude == 0.0 {
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
    }
}
