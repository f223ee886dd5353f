//! The device evaluation of a [`UserConstrained`](crate::UserConstrained): the typed launch of
//! `evo_user_constrained_evaluate` (kernels/common/problems/user_constrained.cuh) in the user's module, and the
//! deferred report of a non-finite value.

use evo_benchmarks::cuda::{
    ConstrainedEvaluator, EvalSettings, NonFiniteWatch, UserData, UserDataBuffers,
    UserModuleKernels, row_grid,
};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig};

/// Entry point of the evaluation kernel of a user constrained module.
pub const USER_CONSTRAINED_ENTRY: &str = "evo_user_constrained_evaluate";
/// Threads per block: one point per thread, few per block, since a whole-point function may keep much state.
const THREADS: u32 = 128;

/// Scalar arguments of `evo_user_constrained_evaluate`; mirrors `EvoUserConstrainedParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserConstrainedParams {
    /// Points.
    pub rows: u64,
}
const _: () = assert!(size_of::<UserConstrainedParams>() == 8);
// SAFETY: repr(C), one integer, the layout of the CUDA struct (8 bytes, asserted on both sides).
unsafe impl KernelParams for UserConstrainedParams {}

/// The shape of a user problem: `D`, `m`, `q`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UserShape {
    pub dimension: usize,
    pub inequalities: usize,
    pub equalities: usize,
}

/// The evaluator of a user module (see [`ConstrainedEvaluator`]).
pub(crate) struct UserConstrainedEvaluator {
    problem: String,
    shape: UserShape,
    kernels: UserModuleKernels,
    data: UserDataBuffers,
    watch: NonFiniteWatch,
}

impl UserConstrainedEvaluator {
    /// Compiles the module for `gpu` under the Exact profile, so that a bad source fails here with NVRTC's log.
    pub(crate) fn new(
        gpu: &Gpu,
        problem: &str,
        module: String,
        source: String,
        shape: UserShape,
        data: &UserData,
    ) -> Result<Self> {
        Ok(Self {
            problem: problem.to_string(),
            shape,
            kernels: UserModuleKernels::new(gpu, module, source, USER_CONSTRAINED_ENTRY)?,
            data: UserDataBuffers::upload(gpu, data)?,
            watch: NonFiniteWatch::new(gpu)?,
        })
    }

    fn check_len(&self, what: &'static str, got: usize, want: usize) -> Result<()> {
        if got == want {
            return Ok(());
        }
        Err(Error::invalid_parameter(
            "UserConstrained",
            what,
            format!("{got} (problem `{}`)", self.problem),
            format!("{want}"),
        ))
    }
}

impl ConstrainedEvaluator for UserConstrainedEvaluator {
    fn dimension(&self) -> usize {
        self.shape.dimension
    }

    fn inequality_count(&self) -> usize {
        self.shape.inequalities
    }

    fn equality_count(&self) -> usize {
        self.shape.equalities
    }

    /// One thread per point; queues the launch only.
    fn evaluate(
        &mut self,
        points: &DeviceBuffer<f32>,
        objective: &mut DeviceBuffer<f64>,
        constraints: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let rows = objective.len();
        let shape = self.shape;
        self.check_len(
            "points length",
            points.len(),
            rows.saturating_mul(shape.dimension),
        )?;
        self.check_len(
            "constraints length",
            constraints.len(),
            rows.saturating_mul(shape.inequalities + shape.equalities),
        )?;
        if rows == 0 {
            return Ok(());
        }
        let grid = row_grid(
            "UserConstrained",
            "points per evaluation",
            &self.problem,
            rows,
            THREADS,
        )?;
        let kernel = self.kernels.kernel(settings.profile)?;
        let (bad, status) = self.watch.buffers(self.kernels.gpu(), rows)?;
        let params = UserConstrainedParams { rows: rows as u64 };
        // SAFETY: the arguments follow `(const float* variables, const float* data32, const double* data64,
        // double* objective, double* constraints, double* bad, unsigned int* status,
        // EvoUserConstrainedParams)`; thread r < rows reads the D values of row r (rows · D, checked) and the
        // data arrays at the offsets and lengths the module's prelude was generated from (the buffers
        // uploaded from the same arrays), writes objective[r], constraints[r·(m+q) ..][..m+q] (checked), bad[r]
        // (rows long) and atomically status[0]; D, m and q are the module's compile-time sizes, the same as
        // the shape checked here; the kernel touches no global memory before evo_wait_previous_grid().
        unsafe {
            kernel
                .launch()
                .overlapping_previous()
                .input(points)
                .input(&self.data.data32)
                .input(&self.data.data64)
                .output(objective)
                .output(constraints)
                .output(bad)
                .output(status)
                .params(&params)
                .run(LaunchConfig::linear(grid, THREADS, 0))
        }
    }

    fn stream_ordered(&self) -> bool {
        true
    }

    /// Reads the status word (and, after a bad row, its value) and clears it.
    fn check(&mut self) -> Result<()> {
        self.watch.check(&self.problem)
    }
}
