//! The `#[repr(C)]` mirrors of the parameter structs of `kernels/cuda/sort.cu`, sizes asserted on both sides.

use evo_gpu_runtime::KernelParams;

/// Mirrors `SortSegmentsParams` in `kernels/cuda/sort.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortSegmentsParams {
    /// Number of segments.
    pub segments: u32,
    /// Entries per segment.
    pub segment_len: u32,
    /// `segment_len` rounded up to a power of two.
    pub padded_len: u32,
}
const _: () = assert!(size_of::<SortSegmentsParams>() == 12);
// SAFETY: repr(C), three u32, the layout of the CUDA struct (12 bytes, asserted on both sides).
unsafe impl KernelParams for SortSegmentsParams {}

/// Mirrors `SortExchangeParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortExchangeParams {
    /// Rows of the source and of the destination.
    pub rows: u32,
    /// u32 words per row.
    pub words_per_row: u32,
    /// Rows per segment.
    pub segment_len: u32,
}
const _: () = assert!(size_of::<SortExchangeParams>() == 12);
// SAFETY: repr(C), three u32, the layout of the CUDA struct (12 bytes, asserted on both sides).
unsafe impl KernelParams for SortExchangeParams {}

/// Mirrors `SortLengthParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortLengthParams {
    /// Number of elements.
    pub n: u32,
}
const _: () = assert!(size_of::<SortLengthParams>() == 4);
// SAFETY: repr(C), one u32, the layout of the CUDA struct (4 bytes, asserted on both sides).
unsafe impl KernelParams for SortLengthParams {}

/// Mirrors `SortRadixParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortRadixParams {
    /// Number of pairs.
    pub n: u32,
    /// The pass's digit is `(key >> shift) & 255`.
    pub shift: u32,
    /// `ceil(n / (block · items_per_thread))`.
    pub tiles: u32,
    /// Pairs per thread and tile.
    pub items_per_thread: u32,
}
const _: () = assert!(size_of::<SortRadixParams>() == 16);
// SAFETY: repr(C), four u32, the layout of the CUDA struct (16 bytes, asserted on both sides).
unsafe impl KernelParams for SortRadixParams {}

/// Mirrors `SortScanParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortScanParams {
    /// Number of counts.
    pub n: u32,
    /// Counts per thread.
    pub items_per_thread: u32,
}
const _: () = assert!(size_of::<SortScanParams>() == 8);
// SAFETY: repr(C), two u32, the layout of the CUDA struct (8 bytes, asserted on both sides).
unsafe impl KernelParams for SortScanParams {}

/// Mirrors `SortSelectParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortSelectParams {
    /// Number of values or pairs.
    pub n: u32,
    /// 1 for argmax, 0 for argmin.
    pub largest: u32,
    /// Inputs per thread.
    pub items_per_thread: u32,
}
const _: () = assert!(size_of::<SortSelectParams>() == 12);
// SAFETY: repr(C), three u32, the layout of the CUDA struct (12 bytes, asserted on both sides).
unsafe impl KernelParams for SortSelectParams {}

/// Mirrors `SortTopkParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SortTopkParams {
    /// Number of values or pairs.
    pub n: u32,
    /// Pairs kept per tile.
    pub k: u32,
    /// Pairs per tile (a power of two, at least 2k).
    pub tile: u32,
}
const _: () = assert!(size_of::<SortTopkParams>() == 12);
// SAFETY: repr(C), three u32, the layout of the CUDA struct (12 bytes, asserted on both sides).
unsafe impl KernelParams for SortTopkParams {}
