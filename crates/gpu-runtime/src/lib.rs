//! # evo-gpu-runtime
//!
//! The one door to the CUDA driver: no other crate of evo-gpu imports `cudarc`. It owns device discovery,
//! one context per device, a stream pool, a buffer pool, the NVRTC module cache with its on-disk PTX cache,
//! the launch helper, event timing, and [`DevicePool`] for independent jobs on every GPU.
//!
//! cudarc is used with dynamic loading: everything builds and every CPU path runs on a machine without CUDA,
//! and the absence of a GPU is a value ([`Gpu::first_available`] returns `Ok(None)`), never a crash.
//!
//! | CPU concept | CUDA concept here |
//! | --- | --- |
//! | a thread pool (`Backend::Cpu`) | a [`Gpu`] (`Backend::Cuda { device }`): context, streams, pools |
//! | `Vec<T>` | [`DeviceBuffer<T>`] from [`Gpu::alloc`], returned to the pool on drop |
//! | a function in `ops.rs` | a [`Kernel`] from [`Gpu::kernel`], compiled from `evo-kernels` by NVRTC |
//! | calling it | [`Kernel::launch`] … [`Launch::run`], the only launch path, errors name the kernel; [`Launch::overlapping_previous`] lets a launch overlap the previous kernel's tail (Hopper's Programmatic Dependent Launch) |
//! | `Instant::now()` | [`GpuTimer`] (events on the stream) |
//! | a few scattered slices of `Vec`s read or written at once | [`RangeReads`] (one wait) and [`RangeWrites`] (no wait) of element ranges, through page-locked staging the device keeps |
//! | a `Vec` the host reads while the device fills it | [`HostStaging`]: page-locked rows copied in chunks, each [`RowChunk`] lent once it has landed |
//! | a loop body run many times | a [`Graph`] from [`Gpu::record_graph`], replayed with one call |
//! | a slice handed to another library | [`DeviceBuffer::device_address`], ordered by [`Gpu::order_after_main`], or both ways by one reused event, [`StreamOrder`] (DLPack) |
//! | `rayon::scope` over jobs | [`DevicePool::run`] over GPUs |
//! | IEEE `f32`/`f64` + `evo_core::math` | [`Profile::Exact`] + `common/math.cuh` (bit-identical) |
//!
//! ```no_run
//! use evo_gpu_runtime::{Gpu, Profile, core_kernels};
//!
//! # fn main() -> evo_core::Result<()> {
//! let Some(gpu) = Gpu::first_available()? else {
//!     println!("no CUDA device: use the CPU backend");
//!     return Ok(());
//! };
//! let terms: Vec<f64> = (0..1_000_000).map(|i| 1.0 / (1.0 + i as f64)).collect();
//! let on_device = gpu.upload(&terms)?;
//! let sum = core_kernels::reduce_sum_f64(&gpu, &on_device, 256)?;
//! assert_eq!(sum.to_bits(), evo_core::reduce::pairwise_sum_f64(&terms).to_bits());
//! # Ok(())
//! # }
//! ```
//!
//! Errors are [`evo_core::Error`] values: [`evo_core::Error::NoSuchDevice`] for an index that does not
//! exist, [`evo_core::Error::GpuOutOfMemory`] with the bytes asked for and free,
//! [`evo_core::Error::InvalidParameter`] for a buffer length whose byte size does not fit in `usize`,
//! [`evo_core::Error::KernelCompile`] with NVRTC's log, [`evo_core::Error::KernelLaunch`] naming the kernel,
//! [`evo_core::Error::KernelArguments`] for a launch whose arguments do not match the kernel's parameter list
//! (checked before the driver sees it; see [`Launch::run`]),
//! [`evo_core::Error::DevicePoisoned`] after a sticky fault.
//!
//! ## Cache integrity
//!
//! Compiled modules are cached on disk ([`ptx_cache_dir`]): the PTX from NVRTC and the device binary the
//! driver's JIT made of it. Every entry starts with a header (magic, format version, kind, payload length, a
//! 128-bit hash of the payload) that is checked before the payload is used, so a truncated file, a flipped
//! byte, garbage or an entry of the older header-less format never reaches the driver: it is a miss, the file
//! is removed (with a `tracing` warning) and the entry is rebuilt. An intact entry the driver still refuses to
//! load is evicted and rebuilt the same way. Writes go to a temporary file unique to the process, thread and
//! write, are flushed to the disk and then renamed into place, so readers see a whole entry or none and
//! concurrent writers of one key (two devices of one process, two processes) never mix their bytes.
//!
//! ## Poisoned devices and how to reopen them
//!
//! A kernel that touches an illegal address (or traps, or misaligns an access) does not fail its launch; the
//! fault surfaces at the next driver call and leaves the device's context unusable for the whole process.
//! The runtime records the last kernel launched on each stream; the first call that sees such a sticky fault
//! marks the [`Gpu`] poisoned and returns [`evo_core::Error::DevicePoisoned`] naming that kernel, and every
//! later call on the device fails fast with that same error ([`Gpu::is_poisoned`] tells). To recover, drop
//! every handle of the device (`Gpu` clones, buffers, kernels, graphs, streams, timers, generators, pools)
//! and call [`Gpu::reopen`]: it releases the old context, resets the device's primary context and opens a
//! fresh one (modules reload from the disk caches; data on the device is lost). `Gpu::reopen` refuses, with
//! the number of live handles, while any remain. Where the driver refuses any new context after the fault
//! (NVIDIA documents that the process must restart, and current drivers do refuse), `Gpu::reopen` and every
//! later `Gpu::open` of the device return [`evo_core::Error::DeviceLost`]: run the work again in a new
//! process, resuming from a checkpoint.
//!
//! ## Pool trimming
//!
//! Dropped buffers go back to a per-device pool for reuse, within a cap on idle bytes: a quarter of the
//! device's memory by default ([`DEFAULT_IDLE_CAP_DIVISOR`]), set with [`Gpu::set_buffer_pool_cap`]; when a
//! returned buffer would exceed it, the oldest idle buffers are freed. [`Gpu::trim_buffer_pool`] frees every
//! idle buffer and waits for the main stream, so that the memory is back on the device for other processes.
//! An allocation the driver refuses is retried once after a trim before it becomes
//! [`evo_core::Error::GpuOutOfMemory`]. [`Gpu::buffer_pool_stats`] reports the counters.

// A value narrowed by `as` would be wrong without a word; every narrowing here is checked or says why it
// cannot lose anything.
#![warn(clippy::cast_possible_truncation)]

mod arguments;
mod backend;
mod binary_cache;
mod buffer;
mod cache_entry;
pub mod core_kernels;
mod curand;
mod device;
mod device_pool;
mod driver_error;
mod fault;
mod graph;
mod host_staging;
mod interop;
mod launch;
mod launch_site;
mod modules;
#[cfg(feature = "nccl")]
pub mod nccl;
mod nvrtc;
mod pinned;
mod pool;
mod ptx_cache;
mod range_batch;
mod stream;
mod timing;

pub use backend::resolve_backend;
pub use buffer::{BufferPoolStats, DeviceBuffer, DeviceCopy};
pub use curand::{CurandGenerator, CurandKind, curand_present};
pub use device::{DeviceInfo, Gpu, device_count, driver_present, driver_version};
pub use device_pool::DevicePool;
pub use graph::Graph;
pub use host_staging::{HostStaging, RowChunk};
pub use interop::{LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, StreamOrder};
pub use launch::{KernelParams, Launch, LaunchConfig, MAX_PARAMS_BYTES, check_block_size};
pub use launch_site::{LaunchSite, check_len, check_len_at_least};
pub use modules::{Kernel, ModuleOrigin};
pub use nvrtc::{
    Profile, compile_options, compile_to_ptx, nvrtc_present, nvrtc_version, virtual_arch,
};
pub use pool::DEFAULT_IDLE_CAP_DIVISOR;
pub use ptx_cache::{
    CACHE_DIR_VARIABLE, CompiledPtx, cached_ptx, cached_ptx_in, clear_ptx_cache, ptx_cache_dir,
};
pub use range_batch::{RangeReads, RangeStagingStats, RangeWrites};
pub use stream::{SIDE_STREAMS, Stream};
pub use timing::GpuTimer;
