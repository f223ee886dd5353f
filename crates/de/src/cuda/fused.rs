//! The one-launch generation's state (`de_generation_f32` for the paper's problems and, from a user's term
//! module, for a user's separable term; `de_generation_user_f32` of a user's DE module): the kernel, its
//! parameters and inputs, and the double-buffered population's slots.

use super::launch::{
    self, DeGenerationParams, DeKernelParams, DeUserGenerationParams, FusedProblem,
};
use crate::params::DeParams;
use crate::problem::FusedEvaluation;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, Profile};
use evo_kernels::entry::de;

/// The state of the one-launch generation: the population is `population` (buffer 0) and `trials`
/// (buffer 1), vector `i` in buffer `slots[current][i]`.
pub(super) struct Fused {
    /// `de_generation_f32` (of the `de` module or of a user's term module), or `de_generation_user_f32` of
    /// the user's DE module, looked up once.
    pub(super) kernel: Kernel,
    pub(super) kind: FusedKind,
    pub(super) block: u32,
    pub(super) slots: [DeviceBuffer<u32>; 2],
    pub(super) current: usize,
    /// Per-chunk sums and per-vector chunk tickets of split vectors.
    pub(super) partials: DeviceBuffer<f64>,
    pub(super) vector_done: DeviceBuffer<u32>,
    pub(super) done: DeviceBuffer<u32>,
}

/// What the one-launch generation evaluates, with what it needs besides the population.
pub(super) enum FusedKind {
    /// The paper's problems and a user's separable term (`de_generation_f32`).
    BuiltIn {
        params: DeGenerationParams,
        /// The ETC matrix (one element for Rastrigin).
        etc: DeviceBuffer<f32>,
    },
    /// A user's problem (`de_generation_user_f32`).
    User(Box<UserFused>),
}

/// The fused generation's state for a user's problem.
pub(super) struct UserFused {
    pub(super) problem: String,
    pub(super) params: DeUserGenerationParams,
    pub(super) data32: DeviceBuffer<f32>,
    pub(super) data64: DeviceBuffer<f64>,
    /// A non-finite trial fitness per vector, written only when one occurs.
    pub(super) nonfinite: DeviceBuffer<f64>,
    /// The lowest vector with a non-finite trial fitness since the last read-back (`u32::MAX`: none).
    pub(super) status: DeviceBuffer<u32>,
}

impl UserFused {
    /// Reports a non-finite trial fitness recorded since the last call, and clears the record so that the
    /// engine stays usable.
    pub(super) fn check_finite(&mut self) -> Result<()> {
        let first = self.status.to_vec()?.first().copied().unwrap_or(u32::MAX);
        if first == u32::MAX {
            return Ok(());
        }
        self.status.copy_from_host(&[u32::MAX])?;
        let individual = first as usize;
        let value = self
            .nonfinite
            .to_vec()?
            .get(individual)
            .copied()
            .unwrap_or(f64::NAN);
        Err(Error::NonFiniteFitness {
            problem: self.problem.clone(),
            individual,
            value,
        })
    }
}

impl Fused {
    /// The fused state for `evaluation` when the shape allows it.
    pub(super) fn new(
        gpu: &Gpu,
        evaluation: Option<FusedEvaluation>,
        kernel_params: DeKernelParams,
        params: &DeParams,
        dimension: usize,
        profile: Profile,
        uniform_bounds: bool,
    ) -> Result<Option<Self>> {
        let Some(evaluation) = evaluation else {
            return Ok(None);
        };
        let m = params.population();
        let (problem, etc, term) = match evaluation {
            FusedEvaluation::User(user) => {
                let plan = launch::user_plan(
                    m,
                    dimension,
                    user.terms,
                    params.block_size(),
                    gpu.info().multiprocessors,
                );
                let kind = FusedKind::User(Box::new(UserFused {
                    params: DeUserGenerationParams::new(
                        kernel_params,
                        user.terms,
                        plan,
                        uniform_bounds,
                    ),
                    data32: gpu.upload(&user.data32)?,
                    data64: gpu.upload(&user.data64)?,
                    nonfinite: gpu.alloc_zeroed(m)?,
                    status: gpu.upload(&[u32::MAX])?,
                    problem: user.problem,
                }));
                let kernel = gpu.user_kernel(
                    &user.module,
                    &user.source,
                    launch::USER_GENERATION_F32,
                    profile,
                )?;
                return Self::with_kind(gpu, kernel, kind, plan.block, 1, m).map(Some);
            }
            FusedEvaluation::Rastrigin => (FusedProblem::Rastrigin, vec![0.0f32], None),
            // A user's separable term takes the built-in Rastrigin's shapes and kernel body, in its own
            // module.
            FusedEvaluation::Term(term) => (FusedProblem::Rastrigin, vec![0.0f32], Some(term)),
            FusedEvaluation::Etc {
                etc,
                machines,
                lambda,
            } => match u32::try_from(machines) {
                Ok(machines) => (FusedProblem::Etc { machines, lambda }, etc, None),
                Err(_) => return Ok(None),
            },
        };
        let Some(plan) = launch::fused_plan(
            problem,
            m,
            dimension,
            params.block_size(),
            gpu.info().multiprocessors,
        ) else {
            return Ok(None);
        };
        let kind = FusedKind::BuiltIn {
            params: DeGenerationParams::new(kernel_params, problem, plan, uniform_bounds),
            etc: gpu.upload(&etc)?,
        };
        let kernel = match term {
            Some(term) => gpu.user_kernel(
                &term.module,
                &term.source,
                de::GENERATION_F32.name(),
                profile,
            )?,
            None => launch::generation_kernel(gpu, profile)?,
        };
        Self::with_kind(gpu, kernel, kind, plan.block, plan.chunks as usize, m).map(Some)
    }

    /// The state of `kind`'s generation by `kernel` in blocks of `block` threads, `chunks` per vector of `m`.
    pub(super) fn with_kind(
        gpu: &Gpu,
        kernel: Kernel,
        kind: FusedKind,
        block: u32,
        chunks: usize,
        m: usize,
    ) -> Result<Self> {
        Ok(Self {
            kernel,
            kind,
            block,
            slots: [gpu.alloc_zeroed(m)?, gpu.alloc_zeroed(m)?],
            current: 0,
            partials: gpu.alloc_zeroed(m * chunks)?,
            vector_done: gpu.alloc_zeroed(m)?,
            done: gpu.alloc_zeroed(launch::TICKET_COUNTERS)?,
        })
    }
}

/// Whether every coordinate's box is the first coordinate's, bit for bit (the fused kernel then reads the
/// box once per block).
pub(super) fn has_uniform_bounds(lower: &[f32], upper: &[f32]) -> bool {
    let same = |values: &[f32]| {
        values
            .first()
            .is_some_and(|first| values.iter().all(|v| v.to_bits() == first.to_bits()))
    };
    same(lower) && same(upper)
}
