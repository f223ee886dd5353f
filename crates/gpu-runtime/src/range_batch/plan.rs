//! Where a batch's ranges go in the staging and which copies move them: the arithmetic of
//! [`RangeReads`](super::RangeReads) and [`RangeWrites`](super::RangeWrites), apart from the driver.

use evo_core::{Error, Result};

/// The byte range of elements `offset .. offset + len` of a buffer of `buffer_len` elements of
/// `element_bytes` bytes, or the error that names the call and what is allowed.
pub(crate) fn byte_range(
    call: &'static str,
    offset: usize,
    len: usize,
    buffer_len: usize,
    element_bytes: usize,
) -> Result<std::ops::Range<usize>> {
    match offset.checked_add(len) {
        Some(end) if end <= buffer_len => Ok(offset * element_bytes..end * element_bytes),
        _ => Err(Error::invalid_parameter(
            call,
            "element range",
            format!("{offset} .. {offset} + {len}"),
            format!("within the buffer's {buffer_len} elements"),
        )),
    }
}

/// Ranges of one buffer at most this many bytes apart are read in one copy, the bytes between them with
/// them: each copy costs the host a driver call, worth more than a few KiB on the bus.
pub(crate) const READ_GAP_BYTES: usize = 16 << 10;

/// One range of a batch: `len` bytes from byte `start` of the buffer whose first byte is at device address
/// `buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) buffer: u64,
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// One copy of a plan: `len` bytes between byte `start` of `buffer` and byte `staging` of the staging.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Copy {
    pub(crate) buffer: u64,
    pub(crate) start: usize,
    pub(crate) staging: usize,
    pub(crate) len: usize,
}

impl Copy {
    /// The device address of the copy's first byte.
    pub(crate) fn device_address(&self) -> u64 {
        // A start inside an allocated buffer is below its size, which fits in the device's address space.
        self.buffer + self.start as u64
    }
}

/// A batch's copies, each range's first byte in the staging (0 for an empty range, which no copy moves),
/// and the staging bytes the copies use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) copies: Vec<Copy>,
    pub(crate) placements: Vec<usize>,
    pub(crate) staging_len: usize,
}

/// The plan of a batch of reads: the ranges of each buffer in address order, those that overlap or lie at
/// most `max_gap` bytes apart merged into one copy (the staging mirrors the buffer over a merged run, so a
/// range may be read twice or overlap another). Every staging byte below `staging_len` is written by a copy.
pub(crate) fn read_plan(spans: &[Span], max_gap: usize) -> Plan {
    let mut order: Vec<usize> = (0..spans.len()).filter(|&i| spans[i].len > 0).collect();
    order.sort_by_key(|&i| (spans[i].buffer, spans[i].start));
    let mut copies: Vec<Copy> = Vec::new();
    let mut placements = vec![0; spans.len()];
    let mut staging_len = 0;
    for i in order {
        let span = spans[i];
        let end = span.start + span.len;
        match copies.last_mut() {
            Some(run)
                if run.buffer == span.buffer
                    && span.start <= (run.start + run.len).saturating_add(max_gap) =>
            {
                let grown = end.max(run.start + run.len) - run.start;
                staging_len += grown - run.len;
                run.len = grown;
            }
            _ => {
                copies.push(Copy {
                    buffer: span.buffer,
                    start: span.start,
                    staging: staging_len,
                    len: span.len,
                });
                staging_len += span.len;
            }
        }
        // The run that took the span starts at or before it (address order).
        if let Some(run) = copies.last() {
            placements[i] = run.staging + (span.start - run.start);
        }
    }
    Plan {
        copies,
        placements,
        staging_len,
    }
}

/// The plan of a batch of writes: the ranges in the order given, one after another in the staging; a range
/// that starts where the one before it ended in the same buffer joins its copy. Nothing is reordered, so of
/// two writes to one byte the later one lands last.
pub(crate) fn write_plan(spans: &[Span]) -> Plan {
    let mut copies: Vec<Copy> = Vec::new();
    let mut placements = vec![0; spans.len()];
    let mut staging_len = 0;
    for (i, span) in spans.iter().enumerate().filter(|(_, span)| span.len > 0) {
        match copies.last_mut() {
            Some(run) if run.buffer == span.buffer && run.start + run.len == span.start => {
                run.len += span.len;
            }
            _ => copies.push(Copy {
                buffer: span.buffer,
                start: span.start,
                staging: staging_len,
                len: span.len,
            }),
        }
        placements[i] = staging_len;
        staging_len += span.len;
    }
    Plan {
        copies,
        placements,
        staging_len,
    }
}

#[cfg(test)]
mod tests {
    use super::{Copy, Plan, Span, byte_range, read_plan, write_plan};

    #[test]
    fn a_range_inside_the_buffer_becomes_its_bytes() {
        assert_eq!(byte_range("t", 2, 3, 5, 4).unwrap(), 8..20);
        assert_eq!(byte_range("t", 5, 0, 5, 8).unwrap(), 40..40);
    }

    #[test]
    fn a_range_past_the_end_or_overflowing_is_refused() {
        let error = byte_range("t", 4, 2, 5, 4).unwrap_err().to_string();
        assert!(error.contains("4 .. 4 + 2"), "{error}");
        assert!(error.contains("within the buffer's 5 elements"), "{error}");
        assert!(byte_range("t", usize::MAX, 1, 5, 4).is_err());
    }

    const A: u64 = 0x7000_0000;
    const B: u64 = 0x7100_0000;

    fn span(buffer: u64, start: usize, len: usize) -> Span {
        Span { buffer, start, len }
    }

    fn copy(buffer: u64, start: usize, staging: usize, len: usize) -> Copy {
        Copy {
            buffer,
            start,
            staging,
            len,
        }
    }

    /// The bytes each span reads through the plan's staging, given each buffer's byte `i` = `i` + a
    /// per-buffer offset: what the reads must deliver, checked against the spans themselves.
    fn delivered(spans: &[Span], plan: &Plan) -> Vec<Vec<u64>> {
        let mut staging = vec![None; plan.staging_len];
        for c in &plan.copies {
            for k in 0..c.len {
                staging[c.staging + k] = Some(c.buffer + (c.start + k) as u64);
            }
        }
        assert!(
            staging.iter().all(Option::is_some),
            "every staging byte is written: {plan:?}"
        );
        spans
            .iter()
            .zip(&plan.placements)
            .map(|(s, &at)| (0..s.len).map(|k| staging[at + k].unwrap()).collect())
            .collect()
    }

    fn expected(spans: &[Span]) -> Vec<Vec<u64>> {
        spans
            .iter()
            .map(|s| {
                (0..s.len)
                    .map(|k| s.buffer + (s.start + k) as u64)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn reads_of_one_buffer_close_together_share_a_copy_in_any_order() {
        let spans = [
            span(A, 100, 8),
            span(A, 0, 4),
            span(A, 4, 4),
            span(A, 40, 4),
        ];
        let plan = read_plan(&spans, 64);
        assert_eq!(plan.copies, [copy(A, 0, 0, 108)]);
        assert_eq!(plan.placements, [100, 0, 4, 40]);
        assert_eq!(plan.staging_len, 108);
        assert_eq!(delivered(&spans, &plan), expected(&spans));
    }

    #[test]
    fn reads_farther_apart_than_the_gap_or_in_other_buffers_are_copied_apart() {
        let spans = [
            span(B, 0, 8),
            span(A, 200, 4),
            span(A, 0, 8),
            span(A, 72, 4),
        ];
        let plan = read_plan(&spans, 64);
        // A's 0..8 and 72..76 are 64 bytes apart (merged); 200 is 124 bytes past 76 (not).
        assert_eq!(
            plan.copies,
            [copy(A, 0, 0, 76), copy(A, 200, 76, 4), copy(B, 0, 80, 8)]
        );
        assert_eq!(plan.placements, [80, 76, 0, 72]);
        assert_eq!(delivered(&spans, &plan), expected(&spans));
        assert_eq!(read_plan(&spans, 0).copies.len(), 4);
    }

    #[test]
    fn overlapping_and_repeated_reads_are_copied_once() {
        let spans = [
            span(A, 8, 16),
            span(A, 0, 12),
            span(A, 8, 16),
            span(A, 10, 2),
        ];
        let plan = read_plan(&spans, 0);
        assert_eq!(plan.copies, [copy(A, 0, 0, 24)]);
        assert_eq!(plan.placements, [8, 0, 8, 10]);
        assert_eq!(delivered(&spans, &plan), expected(&spans));
    }

    #[test]
    fn empty_ranges_take_no_copy_and_no_staging() {
        let spans = [span(A, 5, 0), span(B, 0, 4), span(A, 1 << 40, 0)];
        for plan in [read_plan(&spans, 64), write_plan(&spans)] {
            assert_eq!(plan.copies, [copy(B, 0, 0, 4)]);
            assert_eq!(plan.staging_len, 4);
            assert_eq!(plan.placements[1], 0);
        }
        let nothing = read_plan(&[span(A, 3, 0)], 64);
        assert!(nothing.copies.is_empty() && nothing.staging_len == 0);
    }

    #[test]
    fn a_huge_gap_does_not_overflow() {
        let spans = [span(A, 0, 4), span(A, usize::MAX - 8, 4)];
        let plan = read_plan(&spans, usize::MAX);
        assert_eq!(plan.copies.len(), 1);
        assert_eq!(plan.placements, [0, usize::MAX - 8]);
    }

    #[test]
    fn writes_stay_in_order_and_join_only_where_they_continue_each_other() {
        let spans = [
            span(A, 0, 4),
            span(A, 4, 4),
            span(B, 8, 4),
            span(A, 8, 4),
            span(A, 0, 4),
            span(A, 100, 4),
        ];
        let plan = write_plan(&spans);
        assert_eq!(
            plan.copies,
            [
                copy(A, 0, 0, 8),
                copy(B, 8, 8, 4),
                copy(A, 8, 12, 4),
                copy(A, 0, 16, 4),
                copy(A, 100, 20, 4),
            ]
        );
        assert_eq!(plan.placements, [0, 4, 8, 12, 16, 20]);
        assert_eq!(plan.staging_len, 24);
    }

    #[test]
    fn a_copy_addresses_its_first_byte() {
        assert_eq!(copy(A, 24, 0, 8).device_address(), A + 24);
    }
}
