//! The CUDA routines. Every one takes the [`Gpu`](evo_gpu_runtime::Gpu), device buffers and a block size (a
//! power of two in 32..=1024); results stay on the device unless the function says it copies them back. The
//! permutation each produces equals its twin in [`crate::cpu`] exactly, for every block size.
//!
//! | routine | kernels | limits |
//! | --- | --- | --- |
//! | [`sort_population`], [`sort_segments`] | `sort_segments_bitonic_*` | segments of 1..=4096 entries |
//! | [`exchange_rows`] | `sort_exchange_rows_u32` | rows of ≥ 1 u32 words |
//! | [`argsort`], [`ranks`], [`ranks_from_order`], [`gather`] | `sort_radix_*`, `sort_scan_*`, `sort_ranks_*`, `sort_gather_*` | up to 2^32 − 1 keys |
//! | [`argmin`], [`argmax`] (and `_into`) | `sort_select_*` | 1 to 2^32 − 1 keys |
//! | [`top_k`] | `sort_topk_*` | 1 ≤ k ≤ min(n, 1024) |

mod fitness;
mod launch;
mod params;
mod permutation;
mod radix;
mod segments;
mod select;

pub use fitness::{DeviceFitness, DeviceKey};
pub use permutation::DevicePermutation;
pub use radix::{argsort, gather, ranks, ranks_from_order};
pub use segments::{exchange_rows, sort_population, sort_segments};
pub use select::{argmax, argmax_into, argmin, argmin_into, top_k};
