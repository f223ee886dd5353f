//! The device-evaluation contract for bit strings (ARCHITECTURE §5): what the CUDA engines of GA and QIGA
//! ask of a problem.
//!
//! The engine owns a population of `n` individuals of `L` bits, each packed into `W = ⌈L/32⌉` `u32` words in
//! the [`Bits`](evo_core::Bits) layout (bit `i` at bit `i % 32` of word `i / 32`, padding bits zero), row after
//! row in one [`DeviceBuffer<u32>`] of `n · W` words on the device, and a [`DeviceBuffer<f64>`] of `n`
//! fitness values (minimised). A [`BitEvaluator`] fills the fitness of every row on the engine's GPU:
//!
//! | evaluator | how |
//! | --- | --- |
//! | evo-ga's `PaperFunction` | the GA paper's functions: 16-bit decoding, then evo-benchmarks' kernels |
//! | evo-ga's `UserBits` | user CUDA source compiled by NVRTC, a device function per individual (way 1) |
//! | your own type | a Rust `impl BitEvaluator` that launches your kernels or library calls on the runtime's stream (way 2) |
//! | evo-ga's `HostEvaluated` | the population copied to the host, a Rust batch evaluation there, the fitness copied back (way 3) |
//!
//! A problem that gives one is a [`DeviceBitProblem`]. Under [`Profile::Exact`](evo_gpu_runtime::Profile)
//! an evaluator must give the bits of the problem's own [`BinaryProblem::evaluate`], so that the CPU and
//! CUDA engines hold the same snapshots; it must also be deterministic, since the engine evaluates its elite
//! rows again with the offspring and expects their kept fitness back.
//!
//! Two promises let the engine go faster: an evaluator that only queues work on the runtime's stream (no
//! host synchronisation, no allocation that outlives the call) says so with
//! [`stream_ordered`](BitEvaluator::stream_ordered), and the engine then records its generations, the
//! evaluation included, into a CUDA graph; such an evaluator reports what it found on the device (a
//! non-finite fitness) from [`check`](BitEvaluator::check), which the engine calls after every read-back.
//!
//! Way 2, a user kernel on the population (minus the ones of each row):
//!
//! ```no_run
//! use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
//! use evo_core::{BinaryProblem, Bits, Result};
//! use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy)]
//! struct RowParams { rows: u64, words: u64 }
//! // SAFETY: repr(C), two integers, the layout of the kernel's `RowParams` struct.
//! unsafe impl KernelParams for RowParams {}
//!
//! struct MinusOnes { bits: usize }
//! struct MyEvaluator { kernel: Kernel, bits: usize }
//!
//! impl BitEvaluator for MyEvaluator {
//!     fn bit_count(&self) -> usize { self.bits }
//!     fn evaluate(&mut self, rows: &DeviceBuffer<u32>, fitness: &mut DeviceBuffer<f64>, _: EvalSettings) -> Result<()> {
//!         let params = RowParams { rows: fitness.len() as u64, words: Bits::word_count(self.bits) as u64 };
//!         let grid = (fitness.len() as u32).div_ceil(64);
//!         // SAFETY: thread r < rows reads row r's words and writes fitness[r].
//!         unsafe { self.kernel.launch().input(rows).output(fitness).params(&params).run(LaunchConfig::linear(grid, 64, 0)) }
//!     }
//!     fn stream_ordered(&self) -> bool { true }
//! }
//!
//! impl BinaryProblem for MinusOnes {
//!     fn name(&self) -> &str { "minus-ones" }
//!     fn bit_count(&self) -> usize { self.bits }
//!     fn evaluate(&self, bits: &Bits) -> f64 { -(bits.count_ones() as f64) }
//! }
//!
//! impl DeviceBitProblem for MinusOnes {
//!     fn bit_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn BitEvaluator>> {
//!         let source = r#"struct RowParams { unsigned long long rows, words; };
//!             extern "C" __global__ void minus_ones(const unsigned int* x, double* f, RowParams p) {
//!                 unsigned long long r = blockIdx.x * blockDim.x + threadIdx.x;  /* ... */ }"#;
//!         let kernel = gpu.user_kernel("minus_ones", source, "minus_ones", Profile::Exact)?;
//!         Ok(Box::new(MyEvaluator { kernel, bits: self.bits }))
//!     }
//! }
//! ```

use super::real::EvalSettings;
use evo_core::{BinaryProblem, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

/// The device evaluation of a bit-string problem (module docs): fills `fitness[r]` with the fitness of row
/// `r` of `population` for every `r < fitness.len()`.
pub trait BitEvaluator: Send {
    /// `L`, the bits per individual this evaluator accepts.
    fn bit_count(&self) -> usize;

    /// Evaluates the `fitness.len()` rows of `population` (`fitness.len() · ⌈L/32⌉` words) into `fitness`,
    /// queued on the runtime's stream of the evaluator's GPU (the engine's next launch sees the values).
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `population.len()` is not `fitness.len() · ⌈L/32⌉`; GPU
    /// errors; an evaluator that synchronises may return [`evo_core::Error::NonFiniteFitness`] at once, a
    /// stream-ordered one returns it from [`check`](Self::check).
    fn evaluate(
        &mut self,
        population: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()>;

    /// Whether [`evaluate`](Self::evaluate) only queues work on the runtime's stream, so that the engine may
    /// record it into a CUDA graph and replay it; `false` (the default) for an evaluator that waits for the
    /// device or allocates per call.
    fn stream_ordered(&self) -> bool {
        false
    }

    /// Reports, after the engine has read back (so the queued evaluations have run), what the evaluations
    /// since the last check found on the device; by default nothing.
    ///
    /// # Errors
    /// [`evo_core::Error::NonFiniteFitness`] naming the problem, the lowest row and its value; GPU errors.
    fn check(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A bit-string problem with a device evaluation: what the CUDA engines of GA (`GaCuda`) and QIGA
/// (`QigaBitsCuda`, which also passes its rows through an optional repair first) accept.
pub trait DeviceBitProblem: BinaryProblem {
    /// Uploads what the evaluation needs to `gpu` (data, compiled modules) and returns the evaluator.
    ///
    /// # Errors
    /// Compile errors of user source ([`evo_core::Error::KernelCompile`]), a missing entry point
    /// ([`evo_core::Error::MissingEntryPoint`]), GPU errors.
    fn bit_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn BitEvaluator>>;
}
