//! The evaluation of rows through the constrained contract ([`ConstrainedEvaluator`]): `evo_dpga_contract_decode`
//! turns every row's bits into `f32` variables, the problem's evaluator writes objective and constraint values,
//! and `evo_dpga_contract_summarise` turns them into the engine's (objective, violation, satisfied count), the
//! same values `dpga_evaluate` gives with CEC 2006's formulas fused in. The two kernels come from
//! `kernels/common/problems/user_constrained.cuh`, compiled once per GPU by NVRTC (module `dpga_contract`).

use evo_benchmarks::cuda::{ConstrainedEvaluator, EvalSettings};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, Profile};

use super::{DeviceBounds, DeviceValues, DpgaKernelParams, ValueArgs, linear_grid};
use crate::params::ALGORITHM;

/// The module of the contract kernels.
const MODULE: &str = "dpga_contract";
/// Its source: the header with DPGA's kernels switched on.
const SOURCE: &str =
    "#define EVO_CONSTRAINED_DPGA_KERNELS 1\n#include \"common/problems/user_constrained.cuh\"\n";
/// The decoding kernel.
pub const DECODE_ENTRY: &str = "evo_dpga_contract_decode";
/// The summary kernel.
pub const SUMMARISE_ENTRY: &str = "evo_dpga_contract_summarise";

/// Scalar arguments of the contract kernels; mirrors `EvoDpgaContractParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContractParams {
    /// ε of the equalities.
    pub tolerance: f64,
    /// Runs K.
    pub runs: u32,
    /// Rows per run.
    pub rows: u32,
    /// D.
    pub dimension: u32,
    /// b.
    pub bits: u32,
    /// L = D·b.
    pub length: u32,
    /// 0 binary, 1 reflected Gray code.
    pub encoding: u32,
    /// m.
    pub inequalities: u32,
    /// q.
    pub equalities: u32,
}
const _: () = assert!(size_of::<ContractParams>() == 40);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (40 bytes, asserted on both sides).
unsafe impl KernelParams for ContractParams {}

impl ContractParams {
    /// The fields the contract kernels read, from the engine's parameters.
    pub fn of(p: &DpgaKernelParams) -> Self {
        Self {
            tolerance: p.tolerance,
            runs: p.runs,
            rows: p.rows,
            dimension: p.dimension,
            bits: p.bits,
            length: p.length,
            encoding: p.encoding,
            inequalities: p.inequalities,
            equalities: p.equalities,
        }
    }
}

/// The buffers of one evaluated row count: variables, objective and constraint values.
struct Staging {
    points: DeviceBuffer<f32>,
    objective: DeviceBuffer<f64>,
    constraints: DeviceBuffer<f64>,
}

/// A problem's evaluator and the kernels around it.
pub struct ContractEvaluation {
    gpu: Gpu,
    problem: String,
    decode: Kernel,
    summarise: Kernel,
    evaluator: Box<dyn ConstrainedEvaluator>,
    /// Staging buffers per total row count (the engine evaluates `m`, `|C|` and, at the start, `m` rows per
    /// run; keeping each lets a recorded generation refer to fixed buffers).
    staging: Vec<(usize, Staging)>,
}

fn check_len(what: &'static str, got: usize, want: usize) -> Result<()> {
    if got == want {
        return Ok(());
    }
    Err(Error::invalid_parameter(
        ALGORITHM,
        what,
        format!("{got} entries"),
        format!("{want} (the contract evaluation's shape)"),
    ))
}

impl ContractEvaluation {
    /// Compiles the contract kernels for `gpu` (Exact profile) around `evaluator`.
    ///
    /// # Errors
    /// NVRTC or GPU errors.
    pub fn new(gpu: &Gpu, problem: &str, evaluator: Box<dyn ConstrainedEvaluator>) -> Result<Self> {
        Ok(Self {
            gpu: gpu.clone(),
            problem: problem.to_string(),
            decode: gpu.user_kernel(MODULE, SOURCE, DECODE_ENTRY, Profile::Exact)?,
            summarise: gpu.user_kernel(MODULE, SOURCE, SUMMARISE_ENTRY, Profile::Exact)?,
            evaluator,
            staging: Vec::new(),
        })
    }

    /// The problem's name.
    pub fn problem(&self) -> &str {
        &self.problem
    }

    /// Reports what the evaluator found since the last check ([`ConstrainedEvaluator::check`]).
    ///
    /// # Errors
    /// As [`ConstrainedEvaluator::check`].
    pub fn check(&mut self) -> Result<()> {
        self.evaluator.check()
    }

    fn staging(&mut self, total: usize, dimension: usize, constraints: usize) -> Result<usize> {
        if let Some(at) = self.staging.iter().position(|(rows, _)| *rows == total) {
            return Ok(at);
        }
        self.staging.push((
            total,
            Staging {
                points: self.gpu.alloc_zeroed(total * dimension)?,
                objective: self.gpu.alloc_zeroed(total)?,
                constraints: self.gpu.alloc_zeroed(total * constraints)?,
            },
        ));
        Ok(self.staging.len() - 1)
    }

    /// Evaluates rows `i < count[r]` of `p.rows` per run into `values` as `dpga_evaluate` does (every row is
    /// decoded and handed to the evaluator; rows past the count keep their values).
    ///
    /// # Errors
    /// Shape mismatches; the evaluator's errors; GPU errors.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        rows: &DeviceBuffer<u8>,
        bounds: &DeviceBounds,
        values: &mut DeviceValues,
        status: &mut DeviceBuffer<u32>,
        count: &DeviceBuffer<u32>,
        p: &DpgaKernelParams,
        block: u32,
    ) -> Result<()> {
        let c = ContractParams::of(p);
        let (runs, dimension) = (c.runs as usize, c.dimension as usize);
        let total = runs * c.rows as usize;
        let constraint_count = (c.inequalities + c.equalities) as usize;
        check_len("rows", rows.len(), total * c.length as usize)?;
        check_len("bounds", bounds.lower.len(), dimension)?;
        check_len("bounds", bounds.upper.len(), dimension)?;
        check_len("bits", c.length as usize, dimension * c.bits as usize)?;
        check_len("values", values.objective.len(), total)?;
        check_len("values", values.violation.len(), total)?;
        check_len("values", values.satisfied.len(), total)?;
        check_len("status", status.len(), runs)?;
        check_len("row counts", count.len(), runs)?;
        if total == 0 {
            return Ok(());
        }
        let at = self.staging(total, dimension, constraint_count)?;
        let staging = &mut self.staging[at].1;
        let grid = linear_grid(total, block);
        // SAFETY: `evo_dpga_contract_decode(const unsigned char* rows, const float* lower, const float* upper,
        // float* variables, EvoDpgaContractParams)`; thread t < runs · rows reads row t (L bytes) and the D
        // bounds and writes variables[t·D ..][..D] (all lengths checked above or allocated to them).
        unsafe {
            self.decode
                .launch()
                .input(rows)
                .input(&bounds.lower)
                .input(&bounds.upper)
                .output(&mut staging.points)
                .params(&c)
                .run(grid)?;
        }
        self.evaluator.evaluate(
            &staging.points,
            &mut staging.objective,
            &mut staging.constraints,
            EvalSettings {
                profile: Profile::Exact,
                block,
            },
        )?;
        // SAFETY: `evo_dpga_contract_summarise(const double* objective_in, const double* constraints, double*
        // objective, double* violation, unsigned* satisfied, unsigned* status, const unsigned* count,
        // EvoDpgaContractParams)`; thread t reads objective_in[t] and constraints[t·(m+q) ..][..m+q], count[run]
        // and writes entry t of the three value arrays and status[run] (lengths checked or allocated).
        unsafe {
            self.summarise
                .launch()
                .input(&staging.objective)
                .input(&staging.constraints)
                .values_mut(values)
                .output(status)
                .input(count)
                .params(&c)
                .run(grid)
        }
    }
}
