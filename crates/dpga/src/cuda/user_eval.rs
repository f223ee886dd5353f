//! The device evaluation of a [`UserConstrained`](crate::UserConstrained): the typed launch of
//! `evo_user_constrained_evaluate` (kernels/common/problems/user_constrained.cuh) in the user's module, and the
//! deferred report of a non-finite value.

use evo_benchmarks::cuda::{ConstrainedEvaluator, EvalSettings};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};

/// Entry point of the evaluation kernel of a user constrained module.
pub const USER_CONSTRAINED_ENTRY: &str = "evo_user_constrained_evaluate";
/// Threads per block: one point per thread, few per block, since a whole-point function may keep much state.
const THREADS: u32 = 128;
/// The status word when no row was bad.
const NO_ROW: u32 = u32::MAX;

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
    gpu: Gpu,
    problem: String,
    module: String,
    source: String,
    shape: UserShape,
    /// The kernel of each profile used so far (the Exact one compiled when the evaluator is built).
    kernels: Vec<(Profile, Kernel)>,
    /// The lowest row with a non-finite value since the last check, or [`NO_ROW`].
    status: DeviceBuffer<u32>,
    /// The first non-finite value of each bad row (sized to the last population evaluated).
    bad: DeviceBuffer<f64>,
}

impl UserConstrainedEvaluator {
    /// Compiles the module for `gpu` under the Exact profile, so that a bad source fails here with NVRTC's log.
    pub(crate) fn new(
        gpu: &Gpu,
        problem: &str,
        module: String,
        source: String,
        shape: UserShape,
    ) -> Result<Self> {
        let exact = gpu.user_kernel(&module, &source, USER_CONSTRAINED_ENTRY, Profile::Exact)?;
        Ok(Self {
            gpu: gpu.clone(),
            problem: problem.to_string(),
            module,
            source,
            shape,
            kernels: vec![(Profile::Exact, exact)],
            status: gpu.upload(&[NO_ROW])?,
            bad: gpu.alloc_zeroed(1)?,
        })
    }

    fn kernel(&mut self, profile: Profile) -> Result<Kernel> {
        if let Some((_, kernel)) = self.kernels.iter().find(|(p, _)| *p == profile) {
            return Ok(kernel.clone());
        }
        let kernel =
            self.gpu
                .user_kernel(&self.module, &self.source, USER_CONSTRAINED_ENTRY, profile)?;
        self.kernels.push((profile, kernel.clone()));
        Ok(kernel)
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
        let grid = u32::try_from(rows.div_ceil(THREADS as usize))
            .ok()
            .filter(|&g| g <= i32::MAX as u32)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "UserConstrained",
                    "points per evaluation",
                    format!("{rows} (problem `{}`)", self.problem),
                    format!("below {}", (i32::MAX as u64) * u64::from(THREADS)),
                )
            })?;
        if self.bad.len() != rows {
            self.bad = self.gpu.alloc_zeroed(rows)?;
        }
        let kernel = self.kernel(settings.profile)?;
        let params = UserConstrainedParams { rows: rows as u64 };
        // SAFETY: the arguments follow `(const float* variables, double* objective, double* constraints,
        // double* bad, unsigned int* status, EvoUserConstrainedParams)`; thread r < rows reads the D values of
        // row r (rows · D, checked), writes objective[r], constraints[r·(m+q) ..][..m+q] (checked), bad[r]
        // (rows long) and atomically status[0]; D, m and q are the module's compile-time sizes, the same as
        // the shape checked here; the kernel touches no global memory before evo_wait_previous_grid().
        unsafe {
            kernel
                .launch()
                .overlapping_previous()
                .input(points)
                .output(objective)
                .output(constraints)
                .output(&mut self.bad)
                .output(&mut self.status)
                .params(&params)
                .run(LaunchConfig::linear(grid, THREADS, 0))
        }
    }

    fn stream_ordered(&self) -> bool {
        true
    }

    /// Reads the status word (and, after a bad row, its value) and clears it.
    fn check(&mut self) -> Result<()> {
        let row = self.status.to_vec()?.first().copied().unwrap_or(NO_ROW);
        if row == NO_ROW {
            return Ok(());
        }
        let values = self.bad.to_vec()?;
        self.status.copy_from_host(&[NO_ROW])?;
        let individual = row as usize;
        Err(Error::NonFiniteFitness {
            problem: self.problem.clone(),
            individual,
            value: values.get(individual).copied().unwrap_or(f64::NAN),
        })
    }
}
