//! GPU evaluation of the GA paper's 16-bit encoded problems ([`GaBinaryProblem`]): a decoding kernel turns
//! the packed rows into `f32` coordinates (the twin of [`decode_variable`](crate::ga_functions::decode_variable)),
//! then the continuous evaluator of the same function and range evaluates them.

use super::{CudaEvaluator, CudaProblem, launch};
use crate::ga_functions::{BITS_PER_VARIABLE, GaBinaryProblem, GaProblem};
use evo_core::{Bits, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};

/// A [`GaBinaryProblem`]'s evaluation on one GPU.
pub struct CudaBinaryEvaluator {
    gpu: Gpu,
    inner: CudaEvaluator,
    variables: usize,
    lo: f64,
    hi: f64,
}

impl GaBinaryProblem {
    /// The GPU evaluator of this problem.
    ///
    /// # Errors
    /// GPU errors.
    pub fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaBinaryEvaluator> {
        let (lo, hi) = self.range();
        let continuous = GaProblem::with_range(self.function(), self.variables(), lo, hi)?;
        Ok(CudaBinaryEvaluator {
            gpu: gpu.clone(),
            inner: continuous.cuda_evaluator(gpu)?,
            variables: self.variables(),
            lo,
            hi,
        })
    }
}

impl CudaBinaryEvaluator {
    /// Evaluates `fitness.len()` packed rows of `Bits::word_count(16 n)` words each (the [`Bits`] layout).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a shape mismatch; GPU errors.
    pub fn evaluate(
        &self,
        bits: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let rows = fitness.len();
        let words = Bits::word_count(BITS_PER_VARIABLE * self.variables);
        if bits.len() != rows * words {
            return Err(Error::invalid_parameter(
                "CudaBinaryEvaluator",
                "population length",
                bits.len(),
                format!("{rows} individuals x {words} words"),
            ));
        }
        let mut x = self.gpu.alloc::<f32>(rows * self.variables)?;
        let params = launch::DecodeParams {
            variables: self.variables as u64,
            words: words as u64,
            rows: rows as u64,
            lo: self.lo,
            hi: self.hi,
        };
        launch::decode16(&self.gpu, bits, &mut x, params, profile, block)?;
        self.inner.evaluate(&x, fitness, profile, block)
    }

    /// Uploads packed rows, evaluates them and downloads the fitness.
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    pub fn evaluate_host(
        &self,
        bits: &[u32],
        fitness: &mut [f64],
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let device_bits = self.gpu.upload(bits)?;
        let mut device_fitness = self.gpu.alloc::<f64>(fitness.len())?;
        self.evaluate(&device_bits, &mut device_fitness, profile, block)?;
        device_fitness.copy_to_host(fitness)
    }
}
