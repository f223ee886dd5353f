//! User-written CUDA problems (ARCHITECTURE §5, way 2): a device function in a source string, compiled by
//! NVRTC and fused into the evaluation kernel.
//!
//! # The contract
//!
//! The source defines
//!
//! ```text
//! __device__ double evo_user_term(unsigned long long i, double z);
//! ```
//!
//! the term of coordinate `i` (0-based) at `z = (double)x_i` (the `f32` gene widened exactly). The fitness of an
//! individual is the canonical pairwise sum of its `D` terms (the tree of [`evo_core::reduce`]), computed by
//! the same tiles and finish kernels as the built-in problems, so any `D` up to the grid limits works and the
//! work splits across blocks the same way.
//!
//! - The source may `#include "common/math.cuh"` (already included) and use `evo_sin_f64`, `evo_cos_f64`,
//!   `evo_exp_f64`, `evo_log_f64`, `evo_pow_f64` and their `_f32` forms; with those and IEEE `+ − × ÷ sqrt`,
//!   the Exact profile gives the same bits as the Rust twin written with [`evo_core::math`] in the same order.
//!   `evo_cos_pi_f64(u)` = `cos(πu)` (twin [`crate::functions::cos_pi`]) is the fast cosine for `cos(2πz)`
//!   terms: `evo_cos_pi_f64(2.0 * z)`.
//!   CUDA's own `sin`, `exp`, … compile too but differ from the CPU in the last bits.
//! - The Rust twin (`cpu_term`) is the CPU reference and the [`ContinuousProblem`] evaluation.
//! - Names starting with `evo_` and `benchmarks_` are reserved (and `de_` in evo-de's module, below).
//!
//! Engines: MA-SW-Chains evaluates through this module's kernels; evo-de fuses the term into its one-launch
//! generation on the built-in Rastrigin's path (`evo_de::TermFusion`, a DE module of its own built with
//! [`UserFunction::module_source_with`]), the same tree and bits.
//!
//! A source that does not compile gives [`evo_core::Error::KernelCompile`] with NVRTC's log, from
//! [`UserFunction::check_compiles`] (NVRTC only, no GPU needed) or from
//! [`CudaProblem::cuda_evaluator`](super::CudaProblem::cuda_evaluator). `examples/user_function.rs` runs both
//! cases.
//!
//! ```no_run
//! use evo_benchmarks::cuda::{CudaProblem, UserFunction};
//! use evo_core::{Bounds, ContinuousProblem};
//!
//! // Σ (i + 1) z⁴, on the GPU and on the CPU.
//! let quartic = UserFunction::new(
//!     "weighted-quartic",
//!     Bounds::uniform(1000, -1.0, 1.0)?,
//!     "__device__ double evo_user_term(unsigned long long i, double z) { return (double)(i + 1) * (z * z * z * z); }",
//!     |i, z| (i + 1) as f64 * (z * z * z * z),
//! )?;
//! assert_eq!(quartic.evaluate(&[1.0; 1000]), 500_500.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

use super::{CudaEvaluator, CudaProblem, Plan, Shift};
use evo_core::reduce::pairwise_sum_by;
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use evo_gpu_runtime::{Gpu, Profile, compile_to_ptx};
use evo_kernels::ModuleId;

/// The entry point of a user module: the tiles kernel with the user's term.
pub const USER_ENTRY: &str = "benchmarks_continuous_tiles_user";

/// A problem whose term is a user-written CUDA device function with a Rust twin (module docs).
#[derive(Clone)]
pub struct UserFunction<F> {
    name: String,
    bounds: Bounds,
    cuda_source: String,
    cpu_term: F,
}

impl<F: Fn(usize, f64) -> f64 + Sync + Send> UserFunction<F> {
    /// A problem named `name` over `bounds` whose term is `cuda_source`'s `evo_user_term` on the GPU and
    /// `cpu_term(i, z)` on the CPU.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is empty or not made of ASCII letters, digits, `-` and `_`
    /// (it names the compiled module), or when the source does not mention `evo_user_term`.
    pub fn new(name: &str, bounds: Bounds, cuda_source: &str, cpu_term: F) -> Result<Self> {
        let valid_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(Error::invalid_parameter(
                "UserFunction",
                "name",
                format!("{name:?}"),
                "non-empty, ASCII letters, digits, '-' and '_'",
            ));
        }
        if !cuda_source.contains("evo_user_term") {
            return Err(Error::invalid_parameter(
                "UserFunction",
                "CUDA source",
                "a source without evo_user_term",
                "a source defining __device__ double evo_user_term(unsigned long long i, double z)",
            ));
        }
        Ok(Self {
            name: name.to_string(),
            bounds,
            cuda_source: cuda_source.to_string(),
            cpu_term,
        })
    }

    /// The full source NVRTC compiles: the user's function, then the evaluation module.
    pub fn module_source(&self) -> String {
        format!(
            "#define EVO_USER_FUNCTION 1\n{}",
            self.module_source_with(ModuleId::BenchmarksContinuous.module().source)
        )
    }

    /// `common/problems/functions.cuh` and the user's source (from its line 1, as in
    /// [`module_source`](Self::module_source)) followed by `kernels` instead of the evaluation module: how
    /// an engine that fuses the term into its own kernel (evo-de's one-launch generation) builds its module.
    pub fn module_source_with(&self, kernels: &str) -> String {
        format!(
            "#include \"common/problems/functions.cuh\"\n#line 1 \"{}\"\n{}\n{kernels}",
            self.module_name(),
            self.cuda_source,
        )
    }

    /// The name of the compiled module: `user_<name>`.
    pub fn module_name(&self) -> String {
        format!("user_{}", self.name)
    }

    /// Compiles the module with NVRTC for `arch` (`sm_80`, …) without a GPU.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log when the source does not compile; an error when NVRTC is
    /// not installed.
    pub fn check_compiles(&self, profile: Profile, arch: &str) -> Result<()> {
        compile_to_ptx(&self.module_name(), &self.module_source(), profile, arch).map(|_| ())
    }
}

impl<F: Fn(usize, f64) -> f64 + Sync + Send> ContinuousProblem for UserFunction<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        pairwise_sum_by(x.len(), |i| (self.cpu_term)(i, f64::from(x[i])))
    }
}

impl<F: Fn(usize, f64) -> f64 + Sync + Send> CudaProblem for UserFunction<F> {
    /// Compiles the user module for `gpu` (Exact profile first, so that a bad source fails here with the NVRTC
    /// log; the Fast profile compiles on first use).
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let name = self.module_name();
        let source = self.module_source();
        gpu.user_kernel(&name, &source, USER_ENTRY, Profile::Exact)?;
        let mut evaluator =
            CudaEvaluator::new(gpu, self.dimension(), Plan::User, None, Shift::None)?;
        evaluator.user = Some((name, source));
        Ok(evaluator)
    }
}
