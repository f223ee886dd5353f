//! GPU evaluation of CEC 2006 g01–g24 (`benchmarks_discrete_cec2006`): one thread per individual widens its
//! `f32` genes to `f64` and evaluates the formula of `kernels/common/problems/cec2006.cuh`, the line-by-line
//! twin of the CPU's, then the total violation in the order of [`evo_core::problem::total_violation`]. Under
//! [`Profile::Exact`] objective, violation and every constraint value equal the CPU's bit for bit; under
//! [`Profile::Fast`] sin/cos/exp/log/pow are libdevice's and the values differ in the last bits.

use super::discrete::{check_block, grid, site};
use crate::cec2006::Cec2006Problem;
use evo_core::{ConstrainedProblem, ConstrainedValue, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};
use evo_kernels::entry::benchmarks_discrete as entry;

/// Scalar arguments of `benchmarks_discrete_cec2006`; mirrors `Cec2006Params` in the `.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Cec2006Params {
    /// Problem number 1..=24.
    pub number: u32,
    /// D.
    pub dimension: u32,
    /// m, inequalities.
    pub inequalities: u32,
    /// p, equalities.
    pub equalities: u32,
    /// Individuals.
    pub rows: u32,
    /// Padding to 8 bytes.
    pub pad: u32,
    /// ε of the equalities.
    pub tolerance: f64,
}
const _: () = assert!(size_of::<Cec2006Params>() == 32);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (32 bytes, asserted on both sides).
unsafe impl KernelParams for Cec2006Params {}

/// The outputs, per individual.
pub struct Cec2006Outputs<'a> {
    /// `f(x)`.
    pub objective: &'a mut DeviceBuffer<f64>,
    /// The total violation.
    pub violation: &'a mut DeviceBuffer<f64>,
    /// `m + p` values per individual: `g_1..g_m`, then `h_1..h_p`.
    pub constraints: &'a mut DeviceBuffer<f64>,
}

/// One CEC 2006 problem on one GPU.
pub struct CudaCec2006 {
    gpu: Gpu,
    params: Cec2006Params,
}

impl Cec2006Problem {
    /// The problem's GPU evaluator (no data to upload: the constants are in the kernel).
    pub fn cuda_evaluator(&self, gpu: &Gpu) -> CudaCec2006 {
        CudaCec2006 {
            gpu: gpu.clone(),
            params: Cec2006Params {
                number: self.number(),
                dimension: table_count(self.dimension()),
                inequalities: table_count(self.inequality_count()),
                equalities: table_count(self.equality_count()),
                rows: 0,
                pad: 0,
                tolerance: self.equality_tolerance(),
            },
        }
    }
}

/// A count of the CEC 2006 table (variables, inequalities, equalities) as the kernel's `u32`.
// The table's 24 problems have at most 24 variables and 38 constraints, so the cast keeps the value.
#[allow(clippy::cast_possible_truncation)]
fn table_count(count: usize) -> u32 {
    count as u32
}

impl CudaCec2006 {
    /// Constraint values per individual, `m + p`.
    pub fn constraint_count(&self) -> usize {
        (self.params.inequalities + self.params.equalities) as usize
    }

    /// Evaluates `out.objective.len()` individuals, row-major in `population` (`D` genes each).
    ///
    /// # Errors
    /// [`evo_core::Error::InvalidParameter`] on a shape mismatch or a bad block size; GPU errors.
    pub fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        out: Cec2006Outputs<'_>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let site = site(entry::CEC2006);
        check_block(block)?;
        let individuals = out.objective.len();
        let rows = site.to_u32("individuals per launch", individuals)?;
        site.check_len(
            "population",
            population.len(),
            individuals * self.params.dimension as usize,
        )?;
        site.check_len("violation", out.violation.len(), individuals)?;
        site.check_len(
            "constraints",
            out.constraints.len(),
            individuals * self.constraint_count(),
        )?;
        if rows == 0 {
            return Ok(());
        }
        let params = Cec2006Params {
            rows,
            ..self.params
        };
        let kernel = site.kernel(&self.gpu, profile)?;
        let blocks = grid(&self.gpu, rows, block);
        // SAFETY: the arguments follow `(const float* population, double* objective, double* violation,
        // double* constraints, Cec2006Params)`; thread r < rows reads row r (D genes; rows·D elements, checked)
        // and writes objective[r], violation[r] and constraints[r·(m+p) ..][..m+p] (checked); the number,
        // D, m and p come from a valid `Cec2006Problem`, within the kernel's local arrays (24, 38, 19).
        unsafe {
            kernel
                .launch()
                .input(population)
                .output(out.objective)
                .output(out.violation)
                .output(out.constraints)
                .params(&params)
                .run(LaunchConfig::linear(blocks, block, 0))
        }
    }

    /// Host convenience: evaluates `values.len()` rows of `population` into `values` and returns the
    /// constraint values (`m + p` per row).
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    pub fn evaluate_host(
        &self,
        population: &[f32],
        values: &mut [ConstrainedValue],
        profile: Profile,
        block: u32,
    ) -> Result<Vec<f64>> {
        let rows = values.len();
        let device = self.gpu.upload(population)?;
        let mut objective = self.gpu.alloc::<f64>(rows)?;
        let mut violation = self.gpu.alloc::<f64>(rows)?;
        let mut constraints = self.gpu.alloc::<f64>(rows * self.constraint_count())?;
        self.evaluate(
            &device,
            Cec2006Outputs {
                objective: &mut objective,
                violation: &mut violation,
                constraints: &mut constraints,
            },
            profile,
            block,
        )?;
        let objective = objective.to_vec()?;
        let violation = violation.to_vec()?;
        for (value, (f, v)) in values.iter_mut().zip(objective.into_iter().zip(violation)) {
            *value = ConstrainedValue {
                objective: f,
                violation: v,
            };
        }
        constraints.to_vec()
    }
}
