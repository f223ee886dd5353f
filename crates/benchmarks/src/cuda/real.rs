//! The device-evaluation contract for real vectors (ARCHITECTURE §5): what DE's and MA-SW-Chains' CUDA
//! engines ask of a problem.
//!
//! The engine owns a population of `n` individuals of `D` `f32` genes, row-major in one
//! [`DeviceBuffer<f32>`] of `n · D` values on the device, and a [`DeviceBuffer<f64>`] of `n` fitness values.
//! A [`RealEvaluator`] fills the fitness of every row on the engine's GPU, in stream order (the engine's next
//! launch sees the values; no host synchronisation is needed). Three kinds of evaluator implement it:
//!
//! | evaluator | how |
//! | --- | --- |
//! | [`CudaEvaluator`] | the built-in problems (evo-benchmarks' kernels, every [`CudaProblem`]) |
//! | [`UserProblem`](super::UserProblem)'s | user CUDA source compiled by NVRTC (way 1) |
//! | your own type | a Rust `impl RealEvaluator` that launches your kernels or library calls on the runtime's stream (way 2) |
//!
//! A problem that gives one is a [`DeviceRealProblem`]; every [`CudaProblem`] is one. Under
//! [`Profile::Exact`] an evaluator whose problem has a CPU twin must give the twin's bits, so that the CPU
//! and CUDA engines hold the same snapshots.
//!
//! Way 2, a user kernel on the population:
//!
//! ```no_run
//! use evo_benchmarks::cuda::{DeviceRealProblem, EvalSettings, RealEvaluator};
//! use evo_core::{Bounds, ContinuousProblem, Result};
//! use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy)]
//! struct RowParams { d: u64 }
//! // SAFETY: repr(C), one integer, the layout of the kernel's `unsigned long long` argument.
//! unsafe impl KernelParams for RowParams {}
//!
//! struct SumOfSquares { bounds: Bounds }
//! struct MyEvaluator { kernel: Kernel, d: usize }
//!
//! impl RealEvaluator for MyEvaluator {
//!     fn dimension(&self) -> usize { self.d }
//!     fn evaluate(&self, x: &DeviceBuffer<f32>, fitness: &mut DeviceBuffer<f64>, _: EvalSettings) -> Result<()> {
//!         let rows = fitness.len() as u32;
//!         let params = RowParams { d: self.d as u64 };
//!         // SAFETY: the kernel reads x[r·d .. (r+1)·d] and writes fitness[r] for r < rows (one thread per row).
//!         unsafe {
//!             self.kernel.launch().input(x).output(fitness).params(&params).run(LaunchConfig::linear(rows.div_ceil(64), 64, 0))
//!         }
//!     }
//! }
//!
//! impl ContinuousProblem for SumOfSquares {
//!     fn name(&self) -> &str { "sum-of-squares" }
//!     fn dimension(&self) -> usize { self.bounds.dimension() }
//!     fn bounds(&self) -> &Bounds { &self.bounds }
//!     fn evaluate(&self, x: &[f32]) -> f64 { x.iter().map(|&v| f64::from(v) * f64::from(v)).sum() }
//! }
//!
//! impl DeviceRealProblem for SumOfSquares {
//!     fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
//!         let source = r#"extern "C" __global__ void sum_of_squares(const float* x, double* f, unsigned long long d) {
//!             unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;  /* ... */ }"#;
//!         let kernel = gpu.user_kernel("sum_of_squares", source, "sum_of_squares", evo_gpu_runtime::Profile::Exact)?;
//!         Ok(Box::new(MyEvaluator { kernel, d: self.dimension() }))
//!     }
//! }
//! ```

use super::{CudaEvaluator, CudaProblem};
use evo_core::{ContinuousProblem, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};

/// What the engine asks of one evaluation: the compile profile and the engine's block size, a hint that an
/// evaluator may follow or ignore (the bits must not depend on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalSettings {
    /// The compile profile of the engine's kernels; [`Profile::Exact`] promises the CPU twin's bits.
    pub profile: Profile,
    /// The engine's threads per block (a power of two in 32..=1024).
    pub block: u32,
}

/// The device evaluation of a real-vector problem (module docs): fills `fitness[r]` with the fitness of row
/// `r` of `population` for every `r < fitness.len()`.
pub trait RealEvaluator: Send {
    /// `D`, the genes per individual this evaluator accepts.
    fn dimension(&self) -> usize;

    /// Evaluates the `fitness.len()` rows of `population` (`fitness.len() · D` genes) into `fitness`, queued on
    /// the runtime's stream of the evaluator's GPU.
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] when `population.len()` is not `fitness.len() · D`; GPU errors;
    /// evaluators that check their values return [`evo_core::Error::NonFiniteFitness`] for a NaN or an
    /// infinity.
    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()>;

    /// Tells the evaluator that the engine checks every fitness value it uses (a NaN or an infinity becomes
    /// the engine's own [`evo_core::Error::NonFiniteFitness`]), so that an evaluator which waits for the
    /// device after each evaluation to check its values may stop: its [`evaluate`](Self::evaluate) then
    /// only queues work on the stream. By default nothing changes.
    fn engine_checks_fitness(&mut self) {}
}

/// A problem with a device evaluation: what DE's and MA-SW-Chains' CUDA engines accept.
pub trait DeviceRealProblem: ContinuousProblem {
    /// Uploads what the evaluation needs to `gpu` (data, compiled modules) and returns the evaluator.
    ///
    /// # Errors
    /// Compile errors of user source ([`evo_core::Error::KernelCompile`]), GPU errors, or
    /// [`evo_core::Error::InvalidParameter`] for a problem without a device evaluation.
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>>;
}

impl RealEvaluator for CudaEvaluator {
    fn dimension(&self) -> usize {
        CudaEvaluator::dimension(self)
    }

    /// [`CudaEvaluator::evaluate`] under the engine's profile and block size.
    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        CudaEvaluator::evaluate(self, population, fitness, settings.profile, settings.block)
    }
}

impl<P: CudaProblem + ?Sized> DeviceRealProblem for P {
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        Ok(Box::new(self.cuda_evaluator(gpu)?))
    }
}
