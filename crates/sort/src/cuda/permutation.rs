//! [`DevicePermutation`]: a device buffer that always holds a permutation of each of its segments.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use crate::limits::{COMPONENT, check_len};

/// `len` indices on the device, split into segments of `segment_len`, each segment a permutation of
/// `0..segment_len`: `order[s·segment_len + r]` is the index, within segment s, of the entry of rank r.
///
/// Only this crate's sorts write it, so it holds a permutation from construction (the identity) to drop; the
/// routines that read it ([`crate::cuda::exchange_rows`], [`crate::cuda::gather`],
/// [`crate::cuda::ranks_from_order`]) rely on that instead of checking on the device.
#[derive(Debug)]
pub struct DevicePermutation {
    indices: DeviceBuffer<u32>,
    segment_len: usize,
}

impl DevicePermutation {
    /// The identity permutation of `segments` segments of `segment_len` entries each (`segment_len ≥ 1`).
    pub fn identity(gpu: &Gpu, segments: usize, segment_len: usize) -> Result<Self> {
        if segment_len == 0 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "segment length",
                0,
                "at least 1",
            ));
        }
        let len = segments.checked_mul(segment_len).ok_or_else(|| {
            Error::invalid_parameter(
                COMPONENT,
                "number of entries",
                format!("{segments} segments of {segment_len}"),
                "a product that fits in usize",
            )
        })?;
        check_len("DevicePermutation::identity", len)?;
        let host: Vec<u32> = if len == 0 {
            Vec::new()
        } else {
            // With at least one segment, segment_len ≤ len, which check_len bounds by u32::MAX.
            let segment_len = u32::try_from(segment_len).map_err(|_| {
                Error::invalid_parameter(
                    COMPONENT,
                    "segment length",
                    segment_len,
                    format!("at most {}", u32::MAX),
                )
            })?;
            (0..segments).flat_map(|_| 0..segment_len).collect()
        };
        Ok(Self {
            indices: gpu.upload(&host)?,
            segment_len,
        })
    }

    /// The identity permutation of one segment of `len` entries (an empty one for `len == 0`).
    pub fn for_array(gpu: &Gpu, len: usize) -> Result<Self> {
        if len == 0 {
            return Ok(Self {
                indices: gpu.alloc(0)?,
                segment_len: 1,
            });
        }
        Self::identity(gpu, 1, len)
    }

    /// Number of entries over all segments.
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// Entries per segment.
    pub fn segment_len(&self) -> usize {
        self.segment_len
    }

    /// Number of segments.
    pub fn segments(&self) -> usize {
        self.len() / self.segment_len
    }

    /// The indices, for kernels of other crates that read them.
    pub fn indices(&self) -> &DeviceBuffer<u32> {
        &self.indices
    }

    /// The indices, copied to the host.
    pub fn to_vec(&self) -> Result<Vec<u32>> {
        self.indices.to_vec()
    }

    /// Mutable access for this crate's sorts, which leave a permutation behind.
    pub(crate) fn indices_mut(&mut self) -> &mut DeviceBuffer<u32> {
        &mut self.indices
    }
}
