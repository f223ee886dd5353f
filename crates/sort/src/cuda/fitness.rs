//! The fitness and key types with kernels, and the names of their entry points in `kernels/cuda/sort.cu`.

use evo_gpu_runtime::DeviceCopy;

use crate::order::SortKey;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An order key on the device (`u32`, `u64`): the entry points that work on key pairs.
pub trait DeviceKey: DeviceCopy + Ord + sealed::Sealed {
    /// Bits of the key; the radix sort makes `BITS / 8` passes.
    const BITS: u32;
    /// `sort_radix_histogram_*`.
    const HISTOGRAM: &'static str;
    /// `sort_radix_scatter_*`.
    const SCATTER: &'static str;
    /// `sort_select_pairs_*`.
    const SELECT_PAIRS: &'static str;
    /// `sort_topk_pairs_*`.
    const TOPK_PAIRS: &'static str;
}

impl DeviceKey for u32 {
    const BITS: u32 = 32;
    const HISTOGRAM: &'static str = "sort_radix_histogram_u32";
    const SCATTER: &'static str = "sort_radix_scatter_u32";
    const SELECT_PAIRS: &'static str = "sort_select_pairs_u32";
    const TOPK_PAIRS: &'static str = "sort_topk_pairs_u32";
}

impl DeviceKey for u64 {
    const BITS: u32 = 64;
    const HISTOGRAM: &'static str = "sort_radix_histogram_u64";
    const SCATTER: &'static str = "sort_radix_scatter_u64";
    const SELECT_PAIRS: &'static str = "sort_select_pairs_u64";
    const TOPK_PAIRS: &'static str = "sort_topk_pairs_u64";
}

/// A fitness type with kernels (`f32`, `f64`): the entry points that read fitness values.
pub trait DeviceFitness: SortKey<Key: DeviceKey> + DeviceCopy + sealed::Sealed {
    /// `sort_segments_bitonic_*`.
    const SEGMENTS: &'static str;
    /// `sort_radix_prepare_*`.
    const PREPARE: &'static str;
    /// `sort_gather_*`.
    const GATHER: &'static str;
    /// `sort_select_first_*`.
    const SELECT_FIRST: &'static str;
    /// `sort_topk_tiles_*`.
    const TOPK_TILES: &'static str;
}

impl DeviceFitness for f32 {
    const SEGMENTS: &'static str = "sort_segments_bitonic_f32";
    const PREPARE: &'static str = "sort_radix_prepare_f32";
    const GATHER: &'static str = "sort_gather_f32";
    const SELECT_FIRST: &'static str = "sort_select_first_f32";
    const TOPK_TILES: &'static str = "sort_topk_tiles_f32";
}

impl DeviceFitness for f64 {
    const SEGMENTS: &'static str = "sort_segments_bitonic_f64";
    const PREPARE: &'static str = "sort_radix_prepare_f64";
    const GATHER: &'static str = "sort_gather_f64";
    const SELECT_FIRST: &'static str = "sort_select_first_f64";
    const TOPK_TILES: &'static str = "sort_topk_tiles_f64";
}
