//! [`UserConstrained`]: a user's constrained problem written as CUDA source with a Rust twin (ARCHITECTURE §5
//! way 1), run by [`DpgaCuda::for_problem`](crate::DpgaCuda::for_problem) on the device and by
//! [`DpgaCpu`](crate::DpgaCpu) through the twin.
//!
//! # The contract
//!
//! The CUDA source defines the objective (minimised) and the constraint values of one point:
//!
//! ```text
//! __device__ double evo_user_constrained(const double* x, double* g, double* h);
//! ```
//!
//! `x` holds the `D` variables (DPGA's `f32` values widened to `f64`); the function writes `g[0..m)`
//! (`g_j ≤ 0` holds) and `h[0..q)` (`|h_j| ≤ ε` holds) and returns the objective. `EVO_USER_DIMENSION`,
//! `EVO_USER_INEQUALITIES` and `EVO_USER_EQUALITIES` are defined for the source. A problem with read-only
//! data arrays ([`UserConstrained::with_data`]: tables, coefficients, uploaded once) defines instead
//!
//! ```text
//! __device__ double evo_user_constrained(const double* x, double* g, double* h, const EvoUserData& data);
//! ```
//!
//! reading array `<name>` as `data.<name>` (`data.<name>_len` values), while the twin captures the same
//! values. The twin is a Rust
//! `Fn(&[f64], &mut [f64], &mut [f64]) -> f64` computing the same values from the same widened `x`. With IEEE
//! `+ − × ÷ sqrt` in the same order on both sides (and `common/math.cuh`'s `evo_*_f64` functions against
//! [`evo_core::math`]), the Exact profile gives the twin's bits, so the CPU and CUDA engines hold identical
//! snapshots.
//!
//! The module NVRTC compiles is the helpers of `common/problems/user_constrained.cuh`, the user's source under
//! `#line 1 "user_<name>.cu"` (so NVRTC's log gives the user's own line numbers), and the same header's
//! kernel (one thread per point), which checks that `evo_user_constrained` has exactly the signature above.
//! Names starting with `evo_` are reserved.
//!
//! Bad input is a typed error: a source without `evo_user_constrained` is [`Error::MissingEntryPoint`];
//! source that does not compile, or defines it with other parameters or result, is [`Error::KernelCompile`]
//! with NVRTC's log (from [`UserConstrained::check_compiles`], which needs NVRTC but no GPU, or when the
//! engine is built); an objective or constraint value that is NaN or infinite on the device is
//! [`Error::NonFiniteFitness`] naming the problem, the row and the value, when the engine next reads back
//! (a user function's non-finite value is a bug to report, where CEC 2006's legitimate ones are ranked
//! last; [`DpgaCpu`](crate::DpgaCpu) ranks every non-finite value last, as for any
//! [`ConstrainedProblem`]).
//!
//! ```
//! use evo_core::{Bounds, ConstrainedProblem};
//! use evo_dpga::UserConstrained;
//!
//! // Minimise x0 + x1 subject to 1 - x0·x1 <= 0 in [0, 4]^2.
//! let problem = UserConstrained::new(
//!     "hyperbola",
//!     Bounds::uniform(2, 0.0, 4.0)?,
//!     1,
//!     0,
//!     r#"
//! __device__ double evo_user_constrained(const double* x, double* g, double* h) {
//!     g[0] = 1.0 - x[0] * x[1];
//!     return x[0] + x[1];
//! }
//! "#,
//!     |x: &[f64], g: &mut [f64], _h: &mut [f64]| {
//!         g[0] = 1.0 - x[0] * x[1];
//!         x[0] + x[1]
//!     },
//! )?;
//! let mut g = [0.0];
//! assert_eq!(problem.evaluate(&[1.0, 2.0], &mut g, &mut []), 3.0);
//! assert_eq!(g[0], -1.0);
//! # Ok::<(), evo_core::Error>(())
//! ```

use evo_benchmarks::cuda::{
    ConstrainedEvaluator, DeviceConstrainedProblem, UserData, user_data_prelude,
};
use evo_core::{Bounds, ConstrainedProblem, Error, Result};
use evo_gpu_runtime::{Gpu, Profile, compile_to_ptx};

use crate::cuda::user_eval::{UserConstrainedEvaluator, UserShape};

/// The device function the source must define.
pub const USER_CONSTRAINED_FUNCTION: &str = "evo_user_constrained";
/// The most variables, and the most constraints of each kind, a user module accepts (the kernel keeps them
/// in per-thread arrays).
pub const MAX_USER_CONSTRAINED_SIZE: usize = 1024;

const COMPONENT: &str = "UserConstrained";

/// A constrained problem written as CUDA source with a Rust twin (module docs).
#[derive(Clone)]
pub struct UserConstrained<F> {
    name: String,
    bounds: Bounds,
    inequalities: usize,
    equalities: usize,
    tolerance: f64,
    source: String,
    twin: F,
    data: UserData,
}

impl<F: Fn(&[f64], &mut [f64], &mut [f64]) -> f64 + Sync + Send> UserConstrained<F> {
    /// A problem named `name` over the box `bounds` with `inequalities` constraints `g_j ≤ 0` and
    /// `equalities` constraints `h_j = 0` (tolerance [`evo_core::problem::DEFAULT_EQUALITY_TOLERANCE`]
    /// unless [`with_equality_tolerance`](Self::with_equality_tolerance) says otherwise), evaluated by
    /// `cuda_source`'s `evo_user_constrained` on the GPU and by `twin` on the CPU.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is empty or not made of ASCII letters, digits, `-` and `_`
    /// (it names the compiled module), or the dimension or a constraint count exceeds
    /// [`MAX_USER_CONSTRAINED_SIZE`]; [`Error::MissingEntryPoint`] when the source does not define
    /// `evo_user_constrained`.
    pub fn new(
        name: &str,
        bounds: Bounds,
        inequalities: usize,
        equalities: usize,
        cuda_source: &str,
        twin: F,
    ) -> Result<Self> {
        let valid_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid_name {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "name",
                format!("{name:?}"),
                "non-empty, ASCII letters, digits, '-' and '_'",
            ));
        }
        let sizes = [
            ("dimension", bounds.dimension(), 1),
            ("inequality count", inequalities, 0),
            ("equality count", equalities, 0),
        ];
        for (what, value, least) in sizes {
            if value < least || value > MAX_USER_CONSTRAINED_SIZE {
                return Err(Error::invalid_parameter(
                    COMPONENT,
                    what,
                    format!("{value} (problem `{name}`)"),
                    format!("in {least}..={MAX_USER_CONSTRAINED_SIZE}"),
                ));
            }
        }
        let problem = Self {
            name: name.to_string(),
            bounds,
            inequalities,
            equalities,
            tolerance: evo_core::problem::DEFAULT_EQUALITY_TOLERANCE,
            source: cuda_source.to_string(),
            twin,
            data: UserData::new(),
        };
        if !cuda_source.contains(USER_CONSTRAINED_FUNCTION) {
            return Err(Error::MissingEntryPoint {
                module: problem.module_name(),
                function: USER_CONSTRAINED_FUNCTION.to_string(),
            });
        }
        Ok(problem)
    }

    /// The tolerance ε of the equality constraints.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `tolerance` is negative or not finite.
    pub fn with_equality_tolerance(mut self, tolerance: f64) -> Result<Self> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "equality tolerance",
                tolerance,
                "finite and at least 0",
            ));
        }
        self.tolerance = tolerance;
        Ok(self)
    }

    /// The read-only data arrays the source reads as `data.<name>` (module docs); the twin captures the same
    /// values itself. [`DataLength::Dimension`](evo_benchmarks::cuda::DataLength::Dimension) means `D`,
    /// [`DataLength::Terms`](evo_benchmarks::cuda::DataLength::Terms) the constraint count `m + q`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the array when its length is not the one it requires.
    pub fn with_data(mut self, data: UserData) -> Result<Self> {
        data.check_lengths(
            &self.name,
            self.bounds.dimension(),
            self.inequalities + self.equalities,
        )?;
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

    /// The full source NVRTC compiles: the sizes, the data declarations (with data only), the helpers, the
    /// user's source from its line 1, the kernel.
    pub fn module_source(&self) -> String {
        format!(
            "#line 1 \"evo_user_prelude\"\n#define EVO_USER_DIMENSION {}\n#define EVO_USER_INEQUALITIES {}\n\
             #define EVO_USER_EQUALITIES {}\n{}#include \"common/problems/user_constrained.cuh\"\n\
             #line 1 \"{}.cu\"\n{}\n\
             #line 1 \"evo_user_kernel\"\n#define EVO_USER_CONSTRAINED_KERNEL 1\n\
             #include \"common/problems/user_constrained.cuh\"\n",
            self.bounds.dimension(),
            self.inequalities,
            self.equalities,
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

impl<F: Fn(&[f64], &mut [f64], &mut [f64]) -> f64 + Sync + Send> ConstrainedProblem
    for UserConstrained<F>
{
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn inequality_count(&self) -> usize {
        self.inequalities
    }

    fn equality_count(&self) -> usize {
        self.equalities
    }

    /// The twin on `x` widened to `f64`, as the device function sees it.
    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        let wide: Vec<f64> = x.iter().copied().map(f64::from).collect();
        (self.twin)(&wide, inequality, equality)
    }

    fn equality_tolerance(&self) -> f64 {
        self.tolerance
    }
}

impl<F: Fn(&[f64], &mut [f64], &mut [f64]) -> f64 + Sync + Send> DeviceConstrainedProblem
    for UserConstrained<F>
{
    /// Compiles the module for `gpu` under the Exact profile, so that a bad source fails here.
    fn constrained_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>> {
        Ok(Box::new(UserConstrainedEvaluator::new(
            gpu,
            &self.name,
            self.module_name(),
            self.module_source(),
            UserShape {
                dimension: self.bounds.dimension(),
                inequalities: self.inequalities,
                equalities: self.equalities,
            },
            &self.data,
        )?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "__device__ double evo_user_constrained(const double* x, double* g, double* h) { return x[0]; }";

    fn twin(x: &[f64], _: &mut [f64], _: &mut [f64]) -> f64 {
        x[0]
    }

    fn unit(d: usize) -> Bounds {
        Bounds::uniform(d, 0.0, 1.0).unwrap()
    }

    #[test]
    fn a_source_without_the_entry_point_should_be_refused() {
        let result = UserConstrained::new(
            "empty",
            unit(2),
            1,
            0,
            "__device__ double f() { return 0; }",
            twin,
        );
        assert!(
            matches!(&result, Err(Error::MissingEntryPoint { module, function })
                if module == "user_empty" && function == USER_CONSTRAINED_FUNCTION),
            "{:?}",
            result.err()
        );
    }

    #[test]
    fn bad_names_sizes_and_tolerances_should_be_refused_by_name() {
        for name in ["", "a b", "é", "x/y"] {
            let result = UserConstrained::new(name, unit(2), 1, 0, SOURCE, twin);
            assert!(
                matches!(&result, Err(Error::InvalidParameter { name: "name", .. })),
                "{name:?}: {:?}",
                result.err()
            );
        }
        let too_many = MAX_USER_CONSTRAINED_SIZE + 1;
        for (bounds, m, q, what) in [
            (unit(too_many), 0, 0, "dimension"),
            (unit(2), too_many, 0, "inequality count"),
            (unit(2), 0, too_many, "equality count"),
        ] {
            let result = UserConstrained::new("big", bounds, m, q, SOURCE, twin);
            assert!(
                matches!(&result, Err(Error::InvalidParameter { name, .. }) if *name == what),
                "{what}: {:?}",
                result.err()
            );
        }
        for tolerance in [-1.0, f64::NAN, f64::INFINITY] {
            let result = UserConstrained::new("eps", unit(2), 0, 1, SOURCE, twin)
                .and_then(|p| p.with_equality_tolerance(tolerance));
            assert!(result.is_err(), "{tolerance}");
        }
    }

    #[test]
    fn the_module_should_put_the_users_source_at_its_own_line_one_after_its_sizes() {
        let problem = UserConstrained::new("lines", unit(3), 2, 1, SOURCE, twin).unwrap();
        let source = problem.module_source();
        let marker = "#line 1 \"user_lines.cu\"\n";
        let user_start = source.find(marker).map(|at| at + marker.len()).unwrap();
        assert!(source[user_start..].starts_with(SOURCE));
        let prelude = &source[..user_start];
        for define in [
            "#define EVO_USER_DIMENSION 3\n",
            "#define EVO_USER_INEQUALITIES 2\n",
            "#define EVO_USER_EQUALITIES 1\n",
        ] {
            assert!(prelude.contains(define), "{define}");
        }
        let include = "#include \"common/problems/user_constrained.cuh\"";
        assert!(prelude.contains(include));
        assert!(
            source[user_start..]
                .contains(&format!("#define EVO_USER_CONSTRAINED_KERNEL 1\n{include}"))
        );
        assert!(evo_kernels::header("common/problems/user_constrained.cuh").is_some());
    }

    #[test]
    fn the_twin_should_see_the_variables_widened_to_f64() {
        let problem = UserConstrained::new("wide", unit(1), 0, 0, SOURCE, twin).unwrap();
        assert_eq!(
            problem.evaluate(&[0.1f32], &mut [], &mut []),
            f64::from(0.1f32)
        );
    }
}
