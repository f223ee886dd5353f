//! GPU evaluation of ETC schedules (`benchmarks_discrete_etc_schedules`, `benchmarks_discrete_etc_real`):
//! one block per individual computes every machine's load, the makespan, the flowtime and the DE paper's
//! fitness with the canonical pairwise tree (aligned tiles of `2·block` tasks reduced in the block, tile sums
//! combined by the same tree), so the bits equal [`EtcInstance::objectives`] and [`EtcProblem`]'s
//! `evaluate` for any block size. Without transcendental functions the profile only selects the module.
//!
//! The kernels take the weight λ of the formula; an [`EtcProblem`] under the makespan objective passes
//! `λ = 1`, for which the "fitness" output is the makespan bit for bit
//! ([`EtcObjective`](crate::scheduling::EtcObjective) says why).
//!
//! A schedule entry `≥ m` (which the CPU rejects with an error) makes that row's flowtime and fitness NaN.

use super::discrete::{MODULE, check_block, grid, site};
use crate::scheduling::{EtcInstance, EtcProblem};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};
use evo_kernels::EntryPoint;
use evo_kernels::entry::benchmarks_discrete as entry;

/// Scalar arguments of the ETC kernels; mirrors `EtcParams` in the `.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EtcParams {
    /// Tasks `n`.
    pub tasks: u32,
    /// Machines `m` (at most 2^24).
    pub machines: u32,
    /// Individuals.
    pub rows: u32,
    /// Padding to 8 bytes.
    pub pad: u32,
    /// λ.
    pub lambda: f64,
}
const _: () = assert!(size_of::<EtcParams>() == 24);
// SAFETY: repr(C), plain numbers, the layout of the CUDA struct (24 bytes, asserted on both sides).
unsafe impl KernelParams for EtcParams {}

/// The most machines the GPU evaluation takes (so that `m` is exact in `f32` for the real-coded mapping).
pub const MAX_MACHINES: usize = 1 << 24;

/// The three outputs, one value per individual each.
pub struct EtcOutputs<'a> {
    /// `max_j L_j`.
    pub makespan: &'a mut DeviceBuffer<f64>,
    /// `Σ_t ETC[t][s_t]`.
    pub flowtime: &'a mut DeviceBuffer<f64>,
    /// `λ·makespan + (1 − λ)·flowtime/m`.
    pub fitness: &'a mut DeviceBuffer<f64>,
}

/// An ETC matrix and λ uploaded to one GPU.
pub struct CudaEtc {
    gpu: Gpu,
    tasks: u32,
    machines: u32,
    lambda: f64,
    etc: DeviceBuffer<f32>,
}

impl EtcInstance {
    /// Uploads the matrix to `gpu`, with fitness weight `lambda`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for λ outside `[0, 1]` or more than 2^24 machines; GPU errors.
    pub fn cuda_evaluator(&self, gpu: &Gpu, lambda: f64) -> Result<CudaEtc> {
        if !(0.0..=1.0).contains(&lambda) {
            return Err(Error::invalid_parameter(
                MODULE,
                "lambda",
                lambda,
                "in [0, 1]",
            ));
        }
        if self.machines() > MAX_MACHINES {
            return Err(Error::invalid_parameter(
                MODULE,
                "machine count",
                self.machines(),
                "at most 2^24",
            ));
        }
        Ok(CudaEtc {
            gpu: gpu.clone(),
            tasks: count_u32("task count", self.tasks())?,
            machines: count_u32("machine count", self.machines())?,
            lambda,
            etc: gpu.upload(self.etc())?,
        })
    }
}

/// An instance count as the kernels' `u32` (`EtcInstance::new` keeps both below 2^32).
fn count_u32(what: &'static str, count: usize) -> Result<u32> {
    u32::try_from(count)
        .map_err(|_| Error::invalid_parameter(MODULE, what, count, "at most 2^32 - 1"))
}

impl EtcProblem {
    /// The GPU evaluator of this problem's instance and objective (its [`EtcProblem::lambda`]).
    ///
    /// # Errors
    /// As [`EtcInstance::cuda_evaluator`].
    pub fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEtc> {
        self.instance().cuda_evaluator(gpu, self.lambda())
    }
}

impl CudaEtc {
    fn launch<T: evo_gpu_runtime::DeviceCopy>(
        &self,
        entry: EntryPoint,
        rows_data: &DeviceBuffer<T>,
        out: EtcOutputs<'_>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let site = site(entry);
        check_block(block)?;
        let individuals = out.fitness.len();
        let rows = site.to_u32("individuals per launch", individuals)?;
        site.check_len(
            "population",
            rows_data.len(),
            individuals * self.tasks as usize,
        )?;
        site.check_len("makespan", out.makespan.len(), individuals)?;
        site.check_len("flowtime", out.flowtime.len(), individuals)?;
        if rows == 0 {
            return Ok(());
        }
        let params = EtcParams {
            tasks: self.tasks,
            machines: self.machines,
            rows,
            pad: 0,
            lambda: self.lambda,
        };
        let kernel = site.kernel(&self.gpu, profile)?;
        let blocks = grid(&self.gpu, rows, 1);
        // SAFETY: the arguments follow `(const float* etc, const T* rows, double* makespan, double* flowtime,
        // double* fitness, EtcParams)`; block r < rows reads row r of `rows_data` (rows·n elements, checked),
        // ETC entries t·m + j with t < n and j < m only (an entry ≥ m is never used as an index), and writes
        // element r of the three outputs (rows elements each, checked); shared memory holds `block` doubles.
        unsafe {
            kernel
                .launch()
                .input(&self.etc)
                .input(rows_data)
                .output(out.makespan)
                .output(out.flowtime)
                .output(out.fitness)
                .params(&params)
                .run(LaunchConfig::linear(blocks, block, block * 8))
        }
    }

    /// Evaluates schedules (`fitness.len()` rows of `n` machine indices), blocks of `block` threads.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a shape mismatch or a bad block size; GPU errors.
    pub fn evaluate_schedules(
        &self,
        schedules: &DeviceBuffer<u32>,
        out: EtcOutputs<'_>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        self.launch(entry::ETC_SCHEDULES, schedules, out, profile, block)
    }

    /// Evaluates real-coded vectors (`fitness.len()` rows of `n` coordinates, machine
    /// `min(⌊clamp(x, 0, m)⌋, m − 1)`).
    ///
    /// # Errors
    /// As [`evaluate_schedules`](Self::evaluate_schedules).
    pub fn evaluate_real(
        &self,
        population: &DeviceBuffer<f32>,
        out: EtcOutputs<'_>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        self.launch(entry::ETC_REAL, population, out, profile, block)
    }

    /// Host convenience: the `(makespan, flowtime, fitness)` of every schedule row of `schedules`.
    ///
    /// # Errors
    /// As [`evaluate_schedules`](Self::evaluate_schedules), and a length that is not a multiple of `n`.
    pub fn evaluate_schedules_host(
        &self,
        schedules: &[u32],
        profile: Profile,
        block: u32,
    ) -> Result<[Vec<f64>; 3]> {
        let rows = self.host_rows(schedules.len())?;
        let device = self.gpu.upload(schedules)?;
        self.host_outputs(rows, |out| {
            self.evaluate_schedules(&device, out, profile, block)
        })
    }

    /// Host convenience: the `(makespan, flowtime, fitness)` of every real-coded row of `population`.
    ///
    /// # Errors
    /// As [`evaluate_schedules_host`](Self::evaluate_schedules_host).
    pub fn evaluate_real_host(
        &self,
        population: &[f32],
        profile: Profile,
        block: u32,
    ) -> Result<[Vec<f64>; 3]> {
        let rows = self.host_rows(population.len())?;
        let device = self.gpu.upload(population)?;
        self.host_outputs(rows, |out| self.evaluate_real(&device, out, profile, block))
    }

    fn host_rows(&self, len: usize) -> Result<usize> {
        let n = self.tasks as usize;
        if len.is_multiple_of(n) {
            Ok(len / n)
        } else {
            Err(Error::invalid_parameter(
                MODULE,
                "population length",
                len,
                format!("a multiple of the task count {n}"),
            ))
        }
    }

    fn host_outputs(
        &self,
        rows: usize,
        run: impl FnOnce(EtcOutputs<'_>) -> Result<()>,
    ) -> Result<[Vec<f64>; 3]> {
        let mut makespan = self.gpu.alloc::<f64>(rows)?;
        let mut flowtime = self.gpu.alloc::<f64>(rows)?;
        let mut fitness = self.gpu.alloc::<f64>(rows)?;
        run(EtcOutputs {
            makespan: &mut makespan,
            flowtime: &mut flowtime,
            fitness: &mut fitness,
        })?;
        Ok([makespan.to_vec()?, flowtime.to_vec()?, fitness.to_vec()?])
    }
}
