//! Copies of part of a [`DeviceBuffer`]: elements `offset .. offset + n` to or from a host slice of length
//! `n`, so that a few rows of a large buffer move without the rest (an island's migrants, one slot).

use evo_core::{Error, Result};

use crate::buffer::{DeviceBuffer, DeviceCopy, as_bytes, as_bytes_mut};

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

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Copies elements `offset .. offset + host.len()` into `host` and waits for the copy.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the range does not lie within the buffer; the driver's error of the
    /// copy.
    pub fn copy_range_to_host(&self, offset: usize, host: &mut [T]) -> Result<()> {
        let range = byte_range(
            "DeviceBuffer::copy_range_to_host",
            offset,
            host.len(),
            self.len(),
            size_of::<T>(),
        )?;
        if range.is_empty() {
            return Ok(());
        }
        let gpu = self.gpu().clone();
        gpu.usable()?;
        let stream = gpu.main_stream().clone();
        stream
            .memcpy_dtoh(&self.raw().slice(range), as_bytes_mut(host))
            .map_err(|e| gpu.driver_failed("cuMemcpyDtoH", e, Some(&stream)))?;
        gpu.synchronize_stream(&stream)
    }

    /// Copies `host` into elements `offset .. offset + host.len()`, queued on the main stream after the work
    /// already there (kernels queued later see it).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the range does not lie within the buffer; the driver's error of the
    /// copy.
    pub fn copy_range_from_host(&mut self, offset: usize, host: &[T]) -> Result<()> {
        let range = byte_range(
            "DeviceBuffer::copy_range_from_host",
            offset,
            host.len(),
            self.len(),
            size_of::<T>(),
        )?;
        if range.is_empty() {
            return Ok(());
        }
        let gpu = self.gpu().clone();
        gpu.usable()?;
        let stream = gpu.main_stream().clone();
        let mut view = self.raw_mut().slice_mut(range);
        stream
            .memcpy_htod(as_bytes(host), &mut view)
            .map_err(|e| gpu.driver_failed("cuMemcpyHtoD", e, Some(&stream)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::byte_range;

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
}
