//! The device-evaluation contract for constrained problems (ARCHITECTURE §5): what DPGA's CUDA engine asks of
//! a problem.
//!
//! The engine hands the evaluator `n` points of `D` `f32` variables, row after row in one
//! [`DeviceBuffer<f32>`] of `n · D` values on the device (DPGA decodes its bit strings into it first). A
//! [`ConstrainedEvaluator`] writes, on the engine's GPU, the objective (minimised) of row `r` to
//! `objective[r]` and its `m + q` constraint values to `constraints[r·(m+q) ..]`: the inequalities
//! `g_1..g_m` (`g_j ≤ 0` holds) first, then the equalities `h_1..h_q` (`|h_j| ≤ ε` holds), the order of
//! [`ConstrainedProblem::evaluate`]. The engine turns these values into its own ranking (violation, satisfied
//! count) with the problem's [`equality_tolerance`](ConstrainedProblem::equality_tolerance).
//!
//! | evaluator | how |
//! | --- | --- |
//! | [`Cec2006Problem`] | the CEC 2006 formulas of `kernels/common/problems/cec2006.cuh` ([`CudaCec2006`]) |
//! | evo-dpga's `UserConstrained` | user CUDA source compiled by NVRTC, a device function per point (way 1) |
//! | your own type | a Rust `impl ConstrainedEvaluator` that launches your kernels or library calls on the runtime's stream (way 2) |
//! | evo-dpga's `HostConstrained` | the points copied to the host, the problem's Rust `evaluate` there (rayon over the rows), the values copied back (way 3) |
//!
//! A problem that gives one is a [`DeviceConstrainedProblem`]. Under [`Profile::Exact`](evo_gpu_runtime::Profile)
//! an evaluator must give the bits of the problem's own [`ConstrainedProblem::evaluate`] (the `f32`
//! variables widened to `f64`), so that the CPU and CUDA engines hold the same snapshots. A non-finite value
//! is the problem's to report: CEC 2006 has legitimate ones (g14 and g20 on their box boundary), which the
//! engine ranks last; an evaluator that treats them as a bug reports [`evo_core::Error::NonFiniteFitness`].
//!
//! As for the other genome kinds, an evaluator that only queues work on the runtime's stream says so with
//! [`stream_ordered`](ConstrainedEvaluator::stream_ordered) and reports what it found on the device from
//! [`check`](ConstrainedEvaluator::check), which the engine calls after every read-back.
//!
//! Way 2, a user kernel over the points (here: minimise `x0 + x1` subject to `1 − x0·x1 ≤ 0`):
//!
//! ```no_run
//! use evo_benchmarks::cuda::{ConstrainedEvaluator, EvalSettings};
//! use evo_core::Result;
//! use evo_gpu_runtime::{DeviceBuffer, Kernel, KernelParams, LaunchConfig};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy)]
//! struct Rows { rows: u64 }
//! // SAFETY: repr(C), one integer, the layout of the kernel's `Rows` struct.
//! unsafe impl KernelParams for Rows {}
//!
//! struct Hyperbola { kernel: Kernel }
//!
//! impl ConstrainedEvaluator for Hyperbola {
//!     fn dimension(&self) -> usize { 2 }
//!     fn inequality_count(&self) -> usize { 1 }
//!     fn equality_count(&self) -> usize { 0 }
//!     fn evaluate(
//!         &mut self,
//!         points: &DeviceBuffer<f32>,
//!         objective: &mut DeviceBuffer<f64>,
//!         constraints: &mut DeviceBuffer<f64>,
//!         _: EvalSettings,
//!     ) -> Result<()> {
//!         let rows = Rows { rows: objective.len() as u64 };
//!         let grid = (objective.len() as u32).div_ceil(64);
//!         // SAFETY: thread r < rows reads points[2r..2r+2] and writes objective[r] and constraints[r].
//!         unsafe {
//!             self.kernel.launch().input(points).output(objective).output(constraints).params(&rows)
//!                 .run(LaunchConfig::linear(grid, 64, 0))
//!         }
//!     }
//!     fn stream_ordered(&self) -> bool { true }
//! }
//! ```
//!
//! with the kernel compiled by [`Gpu::user_kernel`] and returned from
//! [`DeviceConstrainedProblem::constrained_evaluator`].

use super::cec2006::{Cec2006Outputs, CudaCec2006};
use super::real::EvalSettings;
use crate::cec2006::Cec2006Problem;
use evo_core::{ConstrainedProblem, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

/// The device evaluation of a constrained problem (module docs): fills `objective[r]` and the `m + q`
/// values `constraints[r·(m+q) ..]` of row `r` of the points for every `r < objective.len()`.
pub trait ConstrainedEvaluator: Send {
    /// `D`, the variables per point this evaluator accepts.
    fn dimension(&self) -> usize;

    /// `m`, the inequality constraints it writes per point (first).
    fn inequality_count(&self) -> usize;

    /// `q`, the equality constraints it writes per point (after the inequalities).
    fn equality_count(&self) -> usize;

    /// Evaluates the `objective.len()` rows of `points` (`objective.len() · D` values) into `objective` and
    /// `constraints` (`objective.len() · (m + q)` values), queued on the runtime's stream of the evaluator's
    /// GPU (the engine's next launch sees the values).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when a buffer's length does not match; GPU errors; an evaluator that
    /// synchronises may return [`Error::NonFiniteFitness`] at once, a stream-ordered one returns it from
    /// [`check`](Self::check).
    fn evaluate(
        &mut self,
        points: &DeviceBuffer<f32>,
        objective: &mut DeviceBuffer<f64>,
        constraints: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()>;

    /// Whether [`evaluate`](Self::evaluate) only queues work on the runtime's stream; `false` (the default)
    /// for an evaluator that waits for the device or allocates per call.
    fn stream_ordered(&self) -> bool {
        false
    }

    /// Reports, after the engine has read back (so the queued evaluations have run), what the evaluations
    /// since the last check found on the device; by default nothing.
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`] naming the problem, the lowest row and its value; GPU errors.
    fn check(&mut self) -> Result<()> {
        Ok(())
    }
}

/// A constrained problem with a device evaluation: what DPGA's CUDA engine accepts.
pub trait DeviceConstrainedProblem: ConstrainedProblem {
    /// Uploads what the evaluation needs to `gpu` (data, compiled modules) and returns the evaluator.
    ///
    /// # Errors
    /// Compile errors of user source ([`Error::KernelCompile`]), a missing entry point
    /// ([`Error::MissingEntryPoint`]), GPU errors.
    fn constrained_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>>;
}

/// Checks that `evaluator` writes what `problem` declares: the same dimension and constraint counts.
///
/// # Errors
/// [`Error::InvalidParameter`] naming the problem, the count that differs and the problem's value.
pub fn check_evaluator_shape<P: ConstrainedProblem + ?Sized>(
    problem: &P,
    evaluator: &dyn ConstrainedEvaluator,
) -> Result<()> {
    let pairs = [
        ("dimension", evaluator.dimension(), problem.dimension()),
        (
            "inequality count",
            evaluator.inequality_count(),
            problem.inequality_count(),
        ),
        (
            "equality count",
            evaluator.equality_count(),
            problem.equality_count(),
        ),
    ];
    for (what, got, want) in pairs {
        if got != want {
            return Err(Error::invalid_parameter(
                "constrained evaluator",
                what,
                format!("{got} (problem `{}`)", problem.name()),
                format!("{want}, the problem's own"),
            ));
        }
    }
    Ok(())
}

/// CEC 2006 through the contract: [`CudaCec2006`]'s kernel, its violation output kept in a scratch buffer
/// (the engine computes its own from the constraint values, the same bits).
struct Cec2006Evaluator {
    gpu: Gpu,
    evaluator: CudaCec2006,
    dimension: usize,
    inequalities: usize,
    equalities: usize,
    /// The violation of the last population size evaluated, which the contract does not return.
    violation: Option<DeviceBuffer<f64>>,
}

impl ConstrainedEvaluator for Cec2006Evaluator {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn inequality_count(&self) -> usize {
        self.inequalities
    }

    fn equality_count(&self) -> usize {
        self.equalities
    }

    /// One thread per point, in a block of the engine's size clamped to 32..=1024 (the bits do not depend
    /// on it); launches only.
    fn evaluate(
        &mut self,
        points: &DeviceBuffer<f32>,
        objective: &mut DeviceBuffer<f64>,
        constraints: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let rows = objective.len();
        let violation = match self.violation.take() {
            Some(buffer) if buffer.len() == rows => buffer,
            _ => self.gpu.alloc_zeroed(rows)?,
        };
        let violation = self.violation.insert(violation);
        self.evaluator.evaluate(
            points,
            Cec2006Outputs {
                objective,
                violation,
                constraints,
            },
            settings.profile,
            settings.block.clamp(32, 1024),
        )
    }

    fn stream_ordered(&self) -> bool {
        true
    }
}

impl DeviceConstrainedProblem for Cec2006Problem {
    fn constrained_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>> {
        Ok(Box::new(Cec2006Evaluator {
            gpu: gpu.clone(),
            evaluator: self.cuda_evaluator(gpu),
            dimension: self.dimension(),
            inequalities: self.inequality_count(),
            equalities: self.equality_count(),
            violation: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An evaluator that only declares a shape (never launched).
    struct Shape(usize, usize, usize);

    impl ConstrainedEvaluator for Shape {
        fn dimension(&self) -> usize {
            self.0
        }
        fn inequality_count(&self) -> usize {
            self.1
        }
        fn equality_count(&self) -> usize {
            self.2
        }
        fn evaluate(
            &mut self,
            _: &DeviceBuffer<f32>,
            _: &mut DeviceBuffer<f64>,
            _: &mut DeviceBuffer<f64>,
            _: EvalSettings,
        ) -> Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_evaluator_of_another_shape_should_be_refused_by_name() {
        // g01: 13 variables, 9 inequalities, no equalities.
        let g01 = Cec2006Problem::new(1).unwrap();
        assert!(check_evaluator_shape(&g01, &Shape(13, 9, 0)).is_ok());
        for (shape, what) in [
            (Shape(12, 9, 0), "dimension"),
            (Shape(13, 8, 0), "inequality count"),
            (Shape(13, 9, 1), "equality count"),
        ] {
            let result = check_evaluator_shape(&g01, &shape);
            assert!(
                matches!(&result, Err(Error::InvalidParameter { name, .. }) if *name == what),
                "{what}: {result:?}"
            );
        }
    }
}
