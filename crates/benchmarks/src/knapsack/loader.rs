//! The instance file format (rnowotniak/qopt): lines that are empty or start with `#` are comments; the
//! first data line is the capacity `C`; every further data line is `weight profit`.

use super::Knapsack;
use crate::data::{bad_line, parse_finite, quoted, read_text};
use evo_core::Result;
use std::path::Path;

impl Knapsack {
    /// Loads an instance file, named after the file's stem ("knapsack-250").
    ///
    /// # Errors
    /// [`Error::BadInputFile`](evo_core::Error::BadInputFile) naming the file, the line and what was expected
    /// there: an unreadable file, a missing capacity, a non-numeric or negative capacity, a line without
    /// exactly two numbers, a weight that is not positive, no items at all.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = read_text(path)?;
        let name = path.file_stem().map_or_else(
            || "knapsack".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        Self::parse(path, &name, &text)
    }

    /// Parses the text of an instance file; `path` is only used in error messages.
    ///
    /// # Errors
    /// As [`from_file`](Self::from_file).
    pub fn parse(path: &Path, name: &str, text: &str) -> Result<Self> {
        let mut capacity = None;
        let mut weights = Vec::new();
        let mut profits = Vec::new();
        let mut last_line = 0;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            last_line = line;
            let content = raw.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let tokens: Vec<&str> = content.split_whitespace().collect();
            if capacity.is_none() {
                if tokens.len() != 1 {
                    return Err(bad_line(
                        path,
                        line,
                        "the capacity (one number) as the first data line",
                        quoted(content),
                    ));
                }
                let c: f64 = parse_finite(path, line, tokens[0], "capacity")?;
                if c < 0.0 {
                    return Err(bad_line(path, line, "a capacity >= 0", quoted(tokens[0])));
                }
                capacity = Some(c);
                continue;
            }
            if tokens.len() != 2 {
                return Err(bad_line(
                    path,
                    line,
                    "an item line `weight profit` (two numbers)",
                    quoted(content),
                ));
            }
            let weight: f32 = parse_finite(path, line, tokens[0], "weight")?;
            if weight <= 0.0 {
                return Err(bad_line(path, line, "a weight > 0", quoted(tokens[0])));
            }
            let profit: f32 = parse_finite(path, line, tokens[1], "profit")?;
            weights.push(weight);
            profits.push(profit);
        }
        let Some(capacity) = capacity else {
            return Err(bad_line(
                path,
                last_line,
                "a capacity line before the end of the file",
                "end of file",
            ));
        };
        if weights.is_empty() {
            return Err(bad_line(
                path,
                last_line,
                "at least one item line `weight profit`",
                "end of file",
            ));
        }
        Self::new(name, capacity, weights, profits)
    }
}
