//! Way 3 of ARCHITECTURE §5 for constrained problems: any [`ConstrainedProblem`] evaluated on the host by
//! [`DpgaCuda::for_problem`](crate::DpgaCuda::for_problem), with every other step of the DPGA on the GPU. Each
//! evaluation the engine's decoded points (`n · D` `f32` values) are copied to the host, the problem's
//! [`evaluate`](ConstrainedProblem::evaluate) fills the objective and the `m + q` constraint values of every
//! point there (rayon over the points, so your closure may be as slow as it likes), and the values are
//! copied back; the engine then ranks them on the device exactly as [`DpgaCpu`](crate::DpgaCpu) ranks the
//! same values, so the two engines hold identical snapshots (non-finite values included: ranked last on
//! both).
//!
//! ```
//! use evo_core::{Bounds, ConstrainedProblem};
//! use evo_dpga::HostConstrained;
//!
//! struct Hyperbola(Bounds);
//!
//! impl ConstrainedProblem for Hyperbola {
//!     fn name(&self) -> &str { "hyperbola" }
//!     fn dimension(&self) -> usize { 2 }
//!     fn bounds(&self) -> &Bounds { &self.0 }
//!     fn inequality_count(&self) -> usize { 1 }
//!     fn equality_count(&self) -> usize { 0 }
//!     fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
//!         let (a, b) = (f64::from(x[0]), f64::from(x[1]));
//!         g[0] = 1.0 - a * b;
//!         a + b
//!     }
//! }
//!
//! // Evaluated on the host by DpgaCuda::for_problem, on the CPU by DpgaCpu.
//! let problem = HostConstrained::new(Hyperbola(Bounds::uniform(2, 0.0, 4.0)?));
//! assert_eq!(problem.evaluate(&[1.0, 1.0], &mut [0.0], &mut []), 2.0);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! The copies and the host evaluation are not overlapped: the selections that follow need every value.

use std::sync::Arc;

use evo_benchmarks::cuda::{ConstrainedEvaluator, DeviceConstrainedProblem, EvalSettings};
use evo_core::{Bounds, ConstrainedProblem, Error, Result, catch_problem_panic};
use evo_gpu_runtime::{DeviceBuffer, Gpu};
use rayon::prelude::*;

/// A [`ConstrainedProblem`] that the CUDA engine evaluates on the host (module docs).
pub struct HostConstrained<P> {
    problem: Arc<P>,
}

impl<P: ConstrainedProblem + Send + 'static> HostConstrained<P> {
    /// `problem`, evaluated on the host by the CUDA engine.
    pub fn new(problem: P) -> Self {
        Self {
            problem: Arc::new(problem),
        }
    }

    /// The wrapped problem.
    pub fn inner(&self) -> &P {
        &self.problem
    }
}

impl<P: ConstrainedProblem + Send + 'static> ConstrainedProblem for HostConstrained<P> {
    fn name(&self) -> &str {
        self.problem.name()
    }

    fn dimension(&self) -> usize {
        self.problem.dimension()
    }

    fn bounds(&self) -> &Bounds {
        self.problem.bounds()
    }

    fn inequality_count(&self) -> usize {
        self.problem.inequality_count()
    }

    fn equality_count(&self) -> usize {
        self.problem.equality_count()
    }

    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        self.problem.evaluate(x, inequality, equality)
    }

    fn equality_tolerance(&self) -> f64 {
        self.problem.equality_tolerance()
    }

    fn optimum(&self) -> Option<f64> {
        self.problem.optimum()
    }
}

impl<P: ConstrainedProblem + Send + 'static> DeviceConstrainedProblem for HostConstrained<P> {
    fn constrained_evaluator(&self, _gpu: &Gpu) -> Result<Box<dyn ConstrainedEvaluator>> {
        Ok(Box::new(HostEvaluator {
            problem: Arc::clone(&self.problem),
            points: Vec::new(),
            objective: Vec::new(),
            constraints: Vec::new(),
        }))
    }
}

/// The host evaluation: copy down, [`ConstrainedProblem::evaluate`] per point, copy up.
struct HostEvaluator<P> {
    problem: Arc<P>,
    points: Vec<f32>,
    objective: Vec<f64>,
    constraints: Vec<f64>,
}

impl<P: ConstrainedProblem + Send + 'static> ConstrainedEvaluator for HostEvaluator<P> {
    fn dimension(&self) -> usize {
        self.problem.dimension()
    }

    fn inequality_count(&self) -> usize {
        self.problem.inequality_count()
    }

    fn equality_count(&self) -> usize {
        self.problem.equality_count()
    }

    /// Waits for the points, evaluates them on the current rayon pool and uploads the values.
    ///
    /// # Errors
    /// As [`ConstrainedEvaluator::evaluate`]; [`Error::ProblemPanicked`] when the problem panics, before
    /// anything is uploaded.
    fn evaluate(
        &mut self,
        points: &DeviceBuffer<f32>,
        objective: &mut DeviceBuffer<f64>,
        constraints: &mut DeviceBuffer<f64>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let problem = &*self.problem;
        let (d, m) = (problem.dimension(), problem.inequality_count());
        let per_point = m + problem.equality_count();
        let rows = objective.len();
        for (what, got, want) in [
            ("points length", points.len(), rows.saturating_mul(d)),
            (
                "constraints length",
                constraints.len(),
                rows.saturating_mul(per_point),
            ),
        ] {
            if got != want {
                return Err(Error::invalid_parameter(
                    "HostConstrained",
                    what,
                    format!("{got} (problem `{}`)", problem.name()),
                    format!("{want}"),
                ));
            }
        }
        self.points.resize(points.len(), 0.0);
        self.objective.resize(rows, 0.0);
        self.constraints.resize(constraints.len(), 0.0);
        points.copy_to_host(&mut self.points)?;
        let (xs, fs, cs) = (&self.points, &mut self.objective, &mut self.constraints);
        let point = |r: usize| &xs[r * d..(r + 1) * d];
        catch_problem_panic(problem.name(), || {
            if per_point == 0 {
                // No constraint values: chunks of an empty buffer would pair with no point.
                fs.par_iter_mut()
                    .enumerate()
                    .for_each(|(r, f)| *f = problem.evaluate(point(r), &mut [], &mut []));
            } else {
                fs.par_iter_mut()
                    .zip(cs.par_chunks_mut(per_point))
                    .enumerate()
                    .for_each(|(r, (f, c))| {
                        let (g, h) = c.split_at_mut(m);
                        *f = problem.evaluate(point(r), g, h);
                    });
            }
            Ok(())
        })?;
        objective.copy_from_host(&self.objective)?;
        if self.constraints.is_empty() {
            // An unconstrained problem: nothing to upload.
            return Ok(());
        }
        constraints.copy_from_host(&self.constraints)
    }
}
