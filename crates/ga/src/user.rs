//! [`UserBits`]: a user's bit-string problem written as CUDA source with a Rust twin (ARCHITECTURE §5 way 1),
//! run by [`GaCuda`](crate::GaCuda) on the device and by [`GaCpu`](crate::GaCpu) through the twin.
//!
//! # The contract
//!
//! The CUDA source defines the fitness (minimised) of one individual:
//!
//! ```text
//! __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits);
//! ```
//!
//! `bits` holds the individual's `⌈n_bits/32⌉` words in the [`Bits`] layout (bit `i` is
//! `(bits[i / 32] >> (i % 32)) & 1`, padding bits zero); `evo_bit(bits, i)` reads bit `i`. A problem with
//! read-only data arrays ([`UserBits::with_data`]: weights, a graph's edges, a data set, uploaded once)
//! defines instead
//!
//! ```text
//! __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits,
//!                                    const EvoUserData& data);
//! ```
//!
//! reading array `<name>` as `data.<name>` (`data.<name>_len` values), while the twin captures the same
//! values. The twin is a
//! Rust `Fn(&Bits) -> f64` computing the same value. With integer arithmetic, or IEEE `+ − × ÷ sqrt` in the
//! same order on both sides (and `common/math.cuh`'s `evo_*_f64` functions against [`evo_core::math`]), the
//! Exact profile gives the twin's bits, so the CPU and CUDA engines hold identical snapshots.
//!
//! The module NVRTC compiles is the helpers of `common/problems/user_bits.cuh`, the user's source under
//! `#line 1 "user_<name>.cu"` (so NVRTC's log gives the user's own line numbers), and the same header's
//! kernel (one thread per individual), which checks that `evo_user_fitness` has exactly the signature above.
//! Names starting with `evo_` are reserved.
//!
//! Bad input is a typed error: a source without `evo_user_fitness` is [`Error::MissingEntryPoint`]; source
//! that does not compile, or defines `evo_user_fitness` with other parameters or another result type, is [`Error::KernelCompile`] with NVRTC's log (from [`UserBits::check_compiles`],
//! which needs NVRTC but no GPU, or when the engine is built); a NaN or infinite fitness on the device is
//! [`Error::NonFiniteFitness`] naming the problem and the row, when the engine next reads back.
//!
//! ```
//! use evo_core::{BinaryProblem, Bits};
//! use evo_ga::UserBits;
//!
//! // OneMax as a minimisation: minus the number of ones.
//! let onemax = UserBits::new(
//!     "onemax",
//!     100,
//!     r#"
//! __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {
//!     int ones = 0;
//!     for (unsigned long long w = 0; w < (n_bits + 31) / 32; ++w) ones += __popc(bits[w]);
//!     return -(double)ones;
//! }
//! "#,
//!     |bits: &Bits| -(bits.count_ones() as f64),
//! )?;
//! assert_eq!(onemax.evaluate(&Bits::zeros(100)), 0.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, UserData, user_data_prelude};
use evo_core::{BinaryProblem, Bits, Error, Result};
use evo_gpu_runtime::{Gpu, Profile, compile_to_ptx};

use crate::cuda::user_eval::UserBitsEvaluator;

/// The device function the source must define.
pub const USER_BITS_FUNCTION: &str = "evo_user_fitness";

/// A bit-string problem written as CUDA source with a Rust twin (module docs).
#[derive(Clone)]
pub struct UserBits<F> {
    name: String,
    bits: usize,
    source: String,
    twin: F,
    optimum: Option<f64>,
    data: UserData,
}

impl<F: Fn(&Bits) -> f64 + Sync + Send> UserBits<F> {
    /// A problem named `name` over strings of `bit_count` bits whose fitness is `cuda_source`'s
    /// `evo_user_fitness` on the GPU and `twin` on the CPU.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is empty or not made of ASCII letters, digits, `-` and `_`
    /// (it names the compiled module) or `bit_count` is 0; [`Error::MissingEntryPoint`] when the source does
    /// not define `evo_user_fitness`.
    pub fn new(name: &str, bit_count: usize, cuda_source: &str, twin: F) -> Result<Self> {
        let valid_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(Error::invalid_parameter(
                "UserBits",
                "name",
                format!("{name:?}"),
                "non-empty, ASCII letters, digits, '-' and '_'",
            ));
        }
        if bit_count == 0 {
            return Err(Error::invalid_parameter(
                "UserBits",
                "bit count",
                format!("0 (problem `{name}`)"),
                "at least 1",
            ));
        }
        let problem = Self {
            name: name.to_string(),
            bits: bit_count,
            source: cuda_source.to_string(),
            twin,
            optimum: None,
            data: UserData::new(),
        };
        if !cuda_source.contains(USER_BITS_FUNCTION) {
            return Err(Error::MissingEntryPoint {
                module: problem.module_name(),
                function: USER_BITS_FUNCTION.to_string(),
            });
        }
        Ok(problem)
    }

    /// The known optimal fitness ([`BinaryProblem::optimum`]), for reports and target terminations.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `optimum` is not finite.
    pub fn with_optimum(mut self, optimum: f64) -> Result<Self> {
        if !optimum.is_finite() {
            return Err(Error::invalid_parameter(
                "UserBits",
                "optimum",
                optimum,
                "a finite value",
            ));
        }
        self.optimum = Some(optimum);
        Ok(self)
    }

    /// The read-only data arrays the source reads as `data.<name>` (module docs); the twin captures the same
    /// values itself. [`DataLength::Dimension`](evo_benchmarks::cuda::DataLength::Dimension) and
    /// [`DataLength::Terms`](evo_benchmarks::cuda::DataLength::Terms) both mean the bit count.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the array when its length is not the one it requires.
    pub fn with_data(mut self, data: UserData) -> Result<Self> {
        data.check_lengths(&self.name, self.bits, self.bits)?;
        self.data = data;
        Ok(self)
    }

    /// The data arrays.
    pub fn data(&self) -> &UserData {
        &self.data
    }

    /// The name of the compiled module (and of the user's file in NVRTC's log): `user_<name>`.
    pub fn module_name(&self) -> String {
        format!("user_{}", self.name)
    }

    /// The full source NVRTC compiles: the data declarations (with data only), the helpers, the user's
    /// source from its line 1, the kernel.
    pub fn module_source(&self) -> String {
        format!(
            "#line 1 \"evo_user_prelude\"\n{}#include \"common/problems/user_bits.cuh\"\n\
             #line 1 \"{}.cu\"\n{}\n\
             #line 1 \"evo_user_kernel\"\n#define EVO_USER_BITS_KERNEL 1\n\
             #include \"common/problems/user_bits.cuh\"\n",
            user_data_prelude(&self.data),
            self.module_name(),
            self.source,
        )
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

impl<F: Fn(&Bits) -> f64 + Sync + Send> BinaryProblem for UserBits<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn bit_count(&self) -> usize {
        self.bits
    }

    fn evaluate(&self, bits: &Bits) -> f64 {
        (self.twin)(bits)
    }

    fn optimum(&self) -> Option<f64> {
        self.optimum
    }
}

impl<F: Fn(&Bits) -> f64 + Sync + Send> DeviceBitProblem for UserBits<F> {
    /// Compiles the module for `gpu` under the Exact profile, so that a bad source fails here.
    fn bit_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn BitEvaluator>> {
        Ok(Box::new(UserBitsEvaluator::new(
            gpu,
            &self.name,
            self.module_name(),
            self.module_source(),
            self.bits,
            &self.data,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONEMAX: &str = "__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n) { return 0.0; }";

    fn zero(_: &Bits) -> f64 {
        0.0
    }

    #[test]
    fn a_source_without_the_entry_point_should_be_refused() {
        let result = UserBits::new("empty", 8, "__device__ double f() { return 0.0; }", zero);
        assert!(
            matches!(&result, Err(Error::MissingEntryPoint { module, function })
                if module == "user_empty" && function == USER_BITS_FUNCTION),
            "{:?}",
            result.err()
        );
    }

    #[test]
    fn bad_names_sizes_and_optima_should_be_refused() {
        for name in ["", "a b", "é", "x/y"] {
            let result = UserBits::new(name, 8, ONEMAX, zero);
            assert!(
                matches!(&result, Err(Error::InvalidParameter { name: "name", .. })),
                "{name:?}: {:?}",
                result.err()
            );
        }
        let result = UserBits::new("none", 0, ONEMAX, zero);
        assert!(
            matches!(
                &result,
                Err(Error::InvalidParameter {
                    name: "bit count",
                    ..
                })
            ),
            "{:?}",
            result.err()
        );
        let result = UserBits::new("nan", 8, ONEMAX, zero).and_then(|p| p.with_optimum(f64::NAN));
        assert!(result.is_err());
    }

    #[test]
    fn the_module_should_put_the_users_source_at_its_own_line_one() {
        let problem = UserBits::new("lines", 8, ONEMAX, zero).unwrap();
        let source = problem.module_source();
        let user_start = source
            .find("#line 1 \"user_lines.cu\"\n")
            .map(|at| at + "#line 1 \"user_lines.cu\"\n".len())
            .unwrap();
        assert!(source[user_start..].starts_with(ONEMAX));
        // The helpers before the user's source, the kernel after it.
        let include = "#include \"common/problems/user_bits.cuh\"";
        assert!(source[..user_start].contains(include));
        assert!(
            source[user_start..].contains(&format!("#define EVO_USER_BITS_KERNEL 1\n{include}"))
        );
        assert!(evo_kernels::header("common/problems/user_bits.cuh").is_some());
    }
}
