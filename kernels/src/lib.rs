//! # evo-kernels
//!
//! Every CUDA source of evo-gpu, embedded as strings, and the registry that names them. This crate has no
//! build script and no dependencies: it is data. `evo-gpu-runtime` compiles the sources with NVRTC at run
//! time (see its module cache), resolving `#include "common/..."` from [`HEADERS`].
//!
//! | item | what it is |
//! | --- | --- |
//! | [`ModuleId`] | one variant per `.cu` file under `kernels/cuda/` |
//! | [`KernelModule`] | a module's id, file, source and `extern "C"` entry points |
//! | [`MODULES`] | every module, in [`ModuleId`] order |
//! | [`HEADERS`] | every `.cuh` under `kernels/common/` (and each part of a module split out of its `.cu`), by its include name |
//! | [`entry`] | an [`EntryPoint`] constant per entry point, per module (`entry::ga::INIT_U32`), from which the registry's lists are built |
//!
//! Entry points are named `component_op[_dtype]` (`reduce_sum_f64`). How to add a kernel, step by step:
//! `docs/KERNELS.md`.

pub mod entry;
mod headers;
mod registry;

pub use entry::EntryPoint;
pub use headers::{HEADERS, Header, header};
pub use registry::{KernelModule, MODULES, ModuleId};
