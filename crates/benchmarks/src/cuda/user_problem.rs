//! A user's real-vector problem written as CUDA source (ARCHITECTURE §5 way 1), with a Rust twin: terms that
//! see the whole vector, several sums combined at the end, read-only data arrays.
//!
//! # The contract
//!
//! The fitness of a row `x` of `D` genes is built from `n` terms (`n` is [`Terms`]: `D`, `D − k` for terms
//! that read neighbours, or a fixed count such as the points of a data set). Term `i` gives
//! `K` values (`K` = 1 to 4, [`UserProblem::with_combined_sums`]); sum `k` is the canonical pairwise tree of
//! [`evo_core::reduce`] over the terms' `k`-th values, and the fitness is `evo_user_combine(sums)`, or the
//! single sum when there is no combine. The CUDA source defines
//!
//! ```text
//! __device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
//!                                const EvoUserData& data, double* t);   // writes t[0 .. K)
//! __device__ double evo_user_combine(const double* sums, unsigned long long d,
//!                                    const EvoUserData& data);          // only with with_combined_sums
//! ```
//!
//! and the Rust twin ([`UserTwin`]) the same two functions. `data.<name>` and `data.<name>_len` are the
//! arrays of [`UserData`], uploaded once. With `common/math.cuh`'s `evo_sin_f64`, `evo_cos_f64`,
//! `evo_exp_f64`, `evo_log_f64`, `evo_pow_f64` (and `_f32` forms) on the device, [`evo_core::math`]'s
//! functions in the twin, IEEE `+ − × ÷ sqrt` in the same order on both sides, the Exact profile gives the
//! twin's bits, so the CPU and CUDA engines hold identical snapshots. For `cos(2πz)`-like terms
//! (Rastrigin, Ackley), `evo_cos_pi_f64(u)` = `cos(πu)` (twin [`crate::functions::cos_pi`]: 2.63e-16 absolute,
//! one polynomial, no branch on the quadrant) is the cheaper choice:
//! `evo_cos_pi_f64(2.0 * z)`.
//!
//! The module NVRTC compiles is a short prelude (`common/math.cuh`, `common/problems/functions.cuh` for
//! `evo_cos_pi_f64`, `EVO_USER_SUMS`, the data struct), the
//! user's source under `#line 1 "<module>.cu"` (so NVRTC's log gives the user's own line numbers) and the two
//! kernels of `kernels/common/problems/user_real.cuh`; nothing else. Its PTX is cached like every module.
//!
//! Bad input is a typed error: a source without `evo_user_terms` (or without `evo_user_combine` when sums
//! are combined) is [`Error::MissingEntryPoint`]; source that does not compile is [`Error::KernelCompile`]
//! with NVRTC's log; a data array of the wrong length, or a dimension that leaves no terms, is
//! [`Error::InvalidParameter`]; a NaN or infinite fitness on the device is [`Error::NonFiniteFitness`].
//!
//! ```no_run
//! use evo_benchmarks::cuda::{Terms, UserData, UserProblem, UserTwin};
//! use evo_core::{Bounds, ContinuousProblem};
//!
//! // Rosenbrock: term i reads x_i and x_{i+1}.
//! struct Rosenbrock;
//! impl UserTwin for Rosenbrock {
//!     fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
//!         let (a, b) = (f64::from(x[i]), f64::from(x[i + 1]));
//!         t[0] = 100.0 * ((b - a * a) * (b - a * a)) + (1.0 - a) * (1.0 - a);
//!     }
//! }
//! const SOURCE: &str = r#"
//! __device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
//!                                const EvoUserData& data, double* t) {
//!     const double a = (double)x[i], b = (double)x[i + 1];
//!     t[0] = 100.0 * ((b - a * a) * (b - a * a)) + (1.0 - a) * (1.0 - a);
//! }
//! "#;
//! let problem = UserProblem::new("rosenbrock", Bounds::uniform(30, -5.0, 10.0)?, SOURCE, Rosenbrock)?
//!     .with_terms(Terms::DimensionMinus(1))?;
//! assert_eq!(problem.evaluate(&[1.0; 30]), 0.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

use super::real::{DeviceRealProblem, RealEvaluator};
use super::user_data::UserData;
use super::user_launch::UserEvaluator;
use evo_core::reduce::pairwise_sum_by;
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use evo_gpu_runtime::{Gpu, Profile, compile_to_ptx};

/// The most sums a problem may combine.
pub const MAX_USER_SUMS: usize = 4;

/// How many terms a row of `D` genes has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terms {
    /// One per coordinate: `n = D`.
    Dimension,
    /// `n = D − k`: term `i` may read coordinates `i ..= i + k` (Rosenbrock: `k = 1`). Needs `D > k`.
    DimensionMinus(usize),
    /// A fixed count, whatever `D` (a data set of `n` points).
    Count(usize),
}

impl Terms {
    /// The number of terms of a row of `dimension` genes, when there is at least one.
    pub fn count(self, dimension: usize) -> Option<usize> {
        let n = match self {
            Self::Dimension => dimension,
            Self::DimensionMinus(k) => dimension.checked_sub(k)?,
            Self::Count(n) => n,
        };
        (n > 0).then_some(n)
    }
}

/// The CPU twin of a [`UserProblem`]'s CUDA source: the same terms and combine, in the same order of
/// operations.
pub trait UserTwin: Send + Sync {
    /// Writes the values of term `i` of row `x` (the `K` values of `evo_user_terms`) to `t` (`t.len()` = K).
    fn terms(&self, i: usize, x: &[f32], data: &UserData, t: &mut [f64]);

    /// The fitness from the `K` sums (`evo_user_combine`); by default the single sum.
    fn combine(&self, sums: &[f64], dimension: usize, data: &UserData) -> f64 {
        let _ = (dimension, data);
        sums.first().copied().unwrap_or(0.0)
    }
}

/// A problem written as CUDA source with a Rust twin (module docs).
#[derive(Clone)]
pub struct UserProblem<T> {
    name: String,
    bounds: Bounds,
    source: String,
    terms: Terms,
    sums: usize,
    combine: bool,
    data: UserData,
    twin: T,
}

impl<T: UserTwin> UserProblem<T> {
    /// A problem named `name` over `bounds` whose fitness is the sum of `D` terms `evo_user_terms` of
    /// `cuda_source` on the GPU and `twin` on the CPU (change with the `with_*` setters).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is empty or not made of ASCII letters, digits, `-` and `_`
    /// (it names the compiled module) or the dimension is 0; [`Error::MissingEntryPoint`] when the source
    /// does not define `evo_user_terms`.
    pub fn new(name: &str, bounds: Bounds, cuda_source: &str, twin: T) -> Result<Self> {
        let valid_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(Error::invalid_parameter(
                "UserProblem",
                "name",
                format!("{name:?}"),
                "non-empty, ASCII letters, digits, '-' and '_'",
            ));
        }
        let problem = Self {
            name: name.to_string(),
            bounds,
            source: cuda_source.to_string(),
            terms: Terms::Dimension,
            sums: 1,
            combine: false,
            data: UserData::new(),
            twin,
        };
        problem.validate()?;
        Ok(problem)
    }

    /// The number of terms per row.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the problem's dimension leaves no terms (`D ≤ k` for
    /// [`Terms::DimensionMinus`], a count of 0) or a data array's length no longer fits.
    pub fn with_terms(mut self, terms: Terms) -> Result<Self> {
        self.terms = terms;
        self.validate()?;
        Ok(self)
    }

    /// `sums` sums per row (1 to [`MAX_USER_SUMS`]) combined by `evo_user_combine` and
    /// [`UserTwin::combine`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a count outside 1..=4; [`Error::MissingEntryPoint`] when the source
    /// does not define `evo_user_combine`.
    pub fn with_combined_sums(mut self, sums: usize) -> Result<Self> {
        if !(1..=MAX_USER_SUMS).contains(&sums) {
            return Err(Error::invalid_parameter(
                "UserProblem",
                "sums",
                sums,
                format!("1..={MAX_USER_SUMS}"),
            ));
        }
        self.sums = sums;
        self.combine = true;
        self.validate()?;
        Ok(self)
    }

    /// The read-only data arrays.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when an array's length is not the one it requires.
    pub fn with_data(mut self, data: UserData) -> Result<Self> {
        self.data = data;
        self.validate()?;
        Ok(self)
    }

    /// The data arrays.
    pub fn data(&self) -> &UserData {
        &self.data
    }

    /// The terms per row.
    pub fn term_count(&self) -> usize {
        self.terms.count(self.dimension()).unwrap_or(0)
    }

    fn validate(&self) -> Result<()> {
        let d = self.dimension();
        if d == 0 {
            return Err(Error::invalid_parameter(
                "UserProblem",
                "dimension",
                format!("0 (problem `{}`)", self.name),
                "at least 1",
            ));
        }
        let Some(n) = self.terms.count(d) else {
            return Err(Error::invalid_parameter(
                "UserProblem",
                "dimension",
                format!("{d} (problem `{}`)", self.name),
                format!(
                    "a dimension that leaves at least one term under {:?}",
                    self.terms
                ),
            ));
        };
        for (needed, function) in [(true, "evo_user_terms"), (self.combine, "evo_user_combine")] {
            if needed && !self.source.contains(function) {
                return Err(Error::MissingEntryPoint {
                    module: self.module_name(),
                    function: function.to_string(),
                });
            }
        }
        self.data.check_lengths(&self.name, d, n)
    }

    /// The name of the compiled module (and of the user's file in NVRTC's log): `user_<name>`.
    pub fn module_name(&self) -> String {
        format!("user_{}", self.name)
    }

    /// The full source NVRTC compiles: the prelude, the user's source from its line 1, the kernels.
    pub fn module_source(&self) -> String {
        self.module_source_with("#include \"common/problems/user_real.cuh\"\n")
    }

    /// The prelude and the user's source (from its line 1, as in [`module_source`](Self::module_source))
    /// followed by `kernels` instead of this module's two kernels: how an engine that fuses the terms into
    /// its own kernel (evo-de's one-launch generation) builds its module.
    pub fn module_source_with(&self, kernels: &str) -> String {
        format!(
            "#line 1 \"evo_user_prelude\"\n#include \"common/math.cuh\"\n\
             #include \"common/problems/functions.cuh\"\n#define EVO_USER_SUMS {}\n\
             #define EVO_USER_HAS_COMBINE {}\n{}#line 1 \"{}.cu\"\n{}\n{kernels}",
            self.sums,
            u8::from(self.combine),
            self.data.cuda_declarations(),
            self.module_name(),
            self.source,
        )
    }

    /// The data arrays as the device takes them: the `f32` arrays concatenated, then the `f64` arrays (the
    /// `data32` and `data64` of `evo_user_data`).
    pub fn data_buffers(&self) -> (Vec<f32>, Vec<f64>) {
        self.data.concatenated()
    }

    /// Compiles the module with NVRTC for `arch` (`sm_80`, …) without a GPU.
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log when the source does not compile; an error when NVRTC is
    /// not installed.
    pub fn check_compiles(&self, profile: Profile, arch: &str) -> Result<()> {
        compile_to_ptx(&self.module_name(), &self.module_source(), profile, arch).map(|_| ())
    }

    /// The `K` canonical sums of row `x` on the CPU.
    fn sums_of(&self, x: &[f32]) -> Vec<f64> {
        let n = self.terms.count(x.len()).unwrap_or(0);
        let k = self.sums;
        if k == 1 {
            let sum = pairwise_sum_by(n, |i| {
                let mut t = [0.0f64; 1];
                self.twin.terms(i, x, &self.data, &mut t);
                t[0]
            });
            return vec![sum];
        }
        let mut values = vec![0.0f64; n * k];
        for (i, t) in values.chunks_exact_mut(k).enumerate() {
            self.twin.terms(i, x, &self.data, t);
        }
        (0..k)
            .map(|s| pairwise_sum_by(n, |i| values[i * k + s]))
            .collect()
    }
}

impl<T: UserTwin> ContinuousProblem for UserProblem<T> {
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
        let sums = self.sums_of(x);
        if self.combine {
            self.twin.combine(&sums, x.len(), &self.data)
        } else {
            sums[0]
        }
    }
}

impl<T: UserTwin> DeviceRealProblem for UserProblem<T> {
    /// Uploads the data and compiles the module for `gpu` under the Exact profile, so that a bad source
    /// fails here with NVRTC's log (the Fast profile compiles on first use).
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        let evaluator = UserEvaluator::new(
            gpu,
            &self.name,
            self.module_name(),
            self.module_source(),
            self.dimension(),
            self.term_count(),
            self.sums,
            &self.data,
        )?;
        Ok(Box::new(evaluator))
    }
}
