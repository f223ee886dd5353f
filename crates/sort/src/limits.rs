//! The limits of each routine and the checks that enforce them, shared by the CPU twins and the CUDA launchers
//! so that both reject the same inputs with the same message.

use evo_core::{Error, Result};

/// The name errors of this crate carry.
pub(crate) const COMPONENT: &str = "evo-sort";

/// The most entries of one bitonic segment (one population): 4096, the padded length whose keys and
/// 16-bit indices fit one block's shared memory (4096 × (8 + 2) bytes = 40 KiB for f64).
pub const MAX_SEGMENT_LEN: usize = 4096;

/// The most keys of the radix argsort, ranks, gather, argmin / argmax and top-k: indices are `u32`.
pub const MAX_LEN: usize = u32::MAX as usize;

/// The largest k of [`crate::cuda::top_k`] and [`crate::cpu::top_k`]: a tile of 2k pairs (at most 2048,
/// 24 KiB for f64) is sorted per block. Larger selections take the full argsort.
pub const MAX_TOP_K: usize = 1024;

/// Checks that a block size is a power of two in 32..=1024.
pub fn check_block(routine: &'static str, block: u32) -> Result<()> {
    if block.is_power_of_two() && (32..=1024).contains(&block) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            "block size",
            format!("{block} (in {routine})"),
            "a power of two in 32..=1024",
        ))
    }
}

/// Checks a segmented layout: `len` entries split into segments of `segment_len` (1..=4096) entries;
/// returns the number of segments.
pub fn check_segments(routine: &'static str, len: usize, segment_len: usize) -> Result<usize> {
    if !(1..=MAX_SEGMENT_LEN).contains(&segment_len) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "segment length",
            format!("{segment_len} (in {routine})"),
            format!("in 1..={MAX_SEGMENT_LEN}"),
        ));
    }
    if !len.is_multiple_of(segment_len) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "number of entries",
            format!("{len} (in {routine}, segments of {segment_len})"),
            "a multiple of the segment length",
        ));
    }
    let segments = len / segment_len;
    if segments > u32::MAX as usize {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "number of segments",
            format!("{segments} (in {routine})"),
            format!("at most {}", u32::MAX),
        ));
    }
    Ok(segments)
}

/// Checks that `len` keys fit the `u32` indices.
pub fn check_len(routine: &'static str, len: usize) -> Result<()> {
    if len <= MAX_LEN {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            COMPONENT,
            "number of keys",
            format!("{len} (in {routine})"),
            format!("at most {MAX_LEN} (indices are u32)"),
        ))
    }
}

/// Checks `k` of a top-k selection of `len` keys: 1..=min(len, 1024).
pub fn check_top_k(len: usize, k: usize) -> Result<()> {
    check_len("top_k", len)?;
    if k == 0 || k > len.min(MAX_TOP_K) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "k",
            format!("{k} (in top_k of {len} keys)"),
            format!(
                "in 1..={} (at most the number of keys and at most {MAX_TOP_K}; use argsort for more)",
                len.min(MAX_TOP_K)
            ),
        ));
    }
    Ok(())
}

/// Checks a row layout for the exchange: `words` words in rows of `words_per_row` (at least 1), and `rows`
/// rows in all (the length of the order).
pub fn check_rows(words: usize, words_per_row: usize, rows: usize) -> Result<()> {
    if words_per_row == 0 || words_per_row > u32::MAX as usize {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "words per row",
            format!("{words_per_row} (in exchange_rows)"),
            format!("in 1..={}", u32::MAX),
        ));
    }
    if rows.checked_mul(words_per_row) != Some(words) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "population length in words",
            format!("{words} (in exchange_rows, {rows} rows of {words_per_row} words)"),
            format!(
                "rows × words per row = {}",
                rows.saturating_mul(words_per_row)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_inputs_are_named_errors() {
        let message = check_block("sort_segments", 100).unwrap_err().to_string();
        assert!(
            message.contains("block size") && message.contains("power of two"),
            "{message}"
        );
        let message = check_segments("sort_segments", 10, 4)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("multiple of the segment length"),
            "{message}"
        );
        let message = check_segments("sort_segments", 8192, 8192)
            .unwrap_err()
            .to_string();
        assert!(message.contains("1..=4096"), "{message}");
        assert!(check_top_k(10, 11).is_err());
        assert!(check_top_k(5000, 1025).is_err());
        assert!(check_top_k(10, 0).is_err());
        assert!(check_rows(10, 3, 3).is_err());
    }

    #[test]
    fn good_inputs_pass() {
        assert_eq!(check_segments("s", 0, 7).ok(), Some(0));
        assert_eq!(check_segments("s", 4096, 4096).ok(), Some(1));
        assert!(check_block("s", 32).is_ok() && check_block("s", 1024).is_ok());
        assert!(check_top_k(5000, 1024).is_ok());
        assert!(check_rows(12, 4, 3).is_ok());
    }
}
