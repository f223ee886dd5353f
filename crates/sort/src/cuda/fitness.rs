//! The fitness and key types with kernels, and their entry points in `kernels/cuda/sort.cu` (the registry's
//! constants, [`evo_kernels::entry::sort`]).

use evo_gpu_runtime::DeviceCopy;
use evo_kernels::EntryPoint;
use evo_kernels::entry::sort;

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
    const HISTOGRAM_ENTRY: EntryPoint;
    /// The name of [`Self::HISTOGRAM_ENTRY`], as reports print it.
    const HISTOGRAM: &'static str = Self::HISTOGRAM_ENTRY.name();
    /// `sort_radix_scatter_*`.
    const SCATTER_ENTRY: EntryPoint;
    /// The name of [`Self::SCATTER_ENTRY`], as reports print it.
    const SCATTER: &'static str = Self::SCATTER_ENTRY.name();
    /// `sort_select_pairs_*`.
    const SELECT_PAIRS_ENTRY: EntryPoint;
    /// The name of [`Self::SELECT_PAIRS_ENTRY`], as reports print it.
    const SELECT_PAIRS: &'static str = Self::SELECT_PAIRS_ENTRY.name();
    /// `sort_topk_pairs_*`.
    const TOPK_PAIRS_ENTRY: EntryPoint;
    /// The name of [`Self::TOPK_PAIRS_ENTRY`], as reports print it.
    const TOPK_PAIRS: &'static str = Self::TOPK_PAIRS_ENTRY.name();
}

impl DeviceKey for u32 {
    const BITS: u32 = 32;
    const HISTOGRAM_ENTRY: EntryPoint = sort::RADIX_HISTOGRAM_U32;
    const SCATTER_ENTRY: EntryPoint = sort::RADIX_SCATTER_U32;
    const SELECT_PAIRS_ENTRY: EntryPoint = sort::SELECT_PAIRS_U32;
    const TOPK_PAIRS_ENTRY: EntryPoint = sort::TOPK_PAIRS_U32;
}

impl DeviceKey for u64 {
    const BITS: u32 = 64;
    const HISTOGRAM_ENTRY: EntryPoint = sort::RADIX_HISTOGRAM_U64;
    const SCATTER_ENTRY: EntryPoint = sort::RADIX_SCATTER_U64;
    const SELECT_PAIRS_ENTRY: EntryPoint = sort::SELECT_PAIRS_U64;
    const TOPK_PAIRS_ENTRY: EntryPoint = sort::TOPK_PAIRS_U64;
}

/// A fitness type with kernels (`f32`, `f64`): the entry points that read fitness values.
pub trait DeviceFitness: SortKey<Key: DeviceKey> + DeviceCopy + sealed::Sealed {
    /// `sort_segments_bitonic_*`.
    const SEGMENTS_ENTRY: EntryPoint;
    /// The name of [`Self::SEGMENTS_ENTRY`], as reports print it.
    const SEGMENTS: &'static str = Self::SEGMENTS_ENTRY.name();
    /// `sort_radix_prepare_*`.
    const PREPARE_ENTRY: EntryPoint;
    /// The name of [`Self::PREPARE_ENTRY`], as reports print it.
    const PREPARE: &'static str = Self::PREPARE_ENTRY.name();
    /// `sort_gather_*`.
    const GATHER_ENTRY: EntryPoint;
    /// The name of [`Self::GATHER_ENTRY`], as reports print it.
    const GATHER: &'static str = Self::GATHER_ENTRY.name();
    /// `sort_select_first_*`.
    const SELECT_FIRST_ENTRY: EntryPoint;
    /// The name of [`Self::SELECT_FIRST_ENTRY`], as reports print it.
    const SELECT_FIRST: &'static str = Self::SELECT_FIRST_ENTRY.name();
    /// `sort_topk_tiles_*`.
    const TOPK_TILES_ENTRY: EntryPoint;
    /// The name of [`Self::TOPK_TILES_ENTRY`], as reports print it.
    const TOPK_TILES: &'static str = Self::TOPK_TILES_ENTRY.name();
}

impl DeviceFitness for f32 {
    const SEGMENTS_ENTRY: EntryPoint = sort::SEGMENTS_BITONIC_F32;
    const PREPARE_ENTRY: EntryPoint = sort::RADIX_PREPARE_F32;
    const GATHER_ENTRY: EntryPoint = sort::GATHER_F32;
    const SELECT_FIRST_ENTRY: EntryPoint = sort::SELECT_FIRST_F32;
    const TOPK_TILES_ENTRY: EntryPoint = sort::TOPK_TILES_F32;
}

impl DeviceFitness for f64 {
    const SEGMENTS_ENTRY: EntryPoint = sort::SEGMENTS_BITONIC_F64;
    const PREPARE_ENTRY: EntryPoint = sort::RADIX_PREPARE_F64;
    const GATHER_ENTRY: EntryPoint = sort::GATHER_F64;
    const SELECT_FIRST_ENTRY: EntryPoint = sort::SELECT_FIRST_F64;
    const TOPK_TILES_ENTRY: EntryPoint = sort::TOPK_TILES_F64;
}
