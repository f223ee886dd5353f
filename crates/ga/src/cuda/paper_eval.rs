//! The GA paper's functions as an implementation of the bit-string contract
//! ([`BitEvaluator`](evo_benchmarks::cuda::BitEvaluator)): `ga_decode_f32` turns the packed rows into `f32`
//! variables (step 2's decoding), then evo-benchmarks' evaluator of the same function and range computes the
//! fitness, the same launches [`GaCuda`](super::GaCuda) has always queued. The fused engines keep their own
//! evaluation inside the fused kernel.

use evo_benchmarks::cuda::{
    BitEvaluator, CudaEvaluator, CudaProblem, DeviceBitProblem, EvalSettings,
};
use evo_benchmarks::ga_functions::GaProblem;
use evo_core::{BinaryProblem, Bits, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::launch::{self, GaKernelParams};
use super::sizes::kernel_u32;
use crate::params::COMPONENT;
use crate::problem::PaperFunction;

/// The device evaluation of a [`PaperFunction`].
struct PaperEvaluator {
    gpu: Gpu,
    bits: usize,
    variables: usize,
    lo: f64,
    hi: f64,
    evaluator: CudaEvaluator,
    /// The decoded variables of the last population size evaluated (kept, so that a recorded generation
    /// refers to one buffer).
    decoded: Option<DeviceBuffer<f32>>,
}

impl BitEvaluator for PaperEvaluator {
    fn bit_count(&self) -> usize {
        self.bits
    }

    /// Decodes (block per individual, the engine's block) and evaluates (evo-benchmarks' kernels in a block
    /// of 128 to 256 threads, the bits independent of it).
    fn evaluate(
        &mut self,
        population: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let rows = fitness.len();
        let words = Bits::word_count(self.bits);
        if population.len() != rows * words {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "population length",
                population.len(),
                format!("{rows} individuals x {words} words"),
            ));
        }
        let p = GaKernelParams {
            lo: self.lo,
            hi: self.hi,
            population: kernel_u32("population size", rows)?,
            words: kernel_u32("words per individual", words)?,
            bits: kernel_u32("bit count L", self.bits)?,
            variables: kernel_u32("variables", self.variables)?,
            runs: 1,
            ..GaKernelParams::default()
        };
        let len = rows * self.variables;
        let decoded = match self.decoded.take() {
            Some(buffer) if buffer.len() == len => buffer,
            _ => self.gpu.alloc_zeroed(len)?,
        };
        let decoded = self.decoded.insert(decoded);
        launch::decode(&self.gpu, population, decoded, &p, settings.block)?;
        self.evaluator.evaluate(
            decoded,
            fitness,
            settings.profile,
            settings.block.clamp(128, 256),
        )
    }

    /// Decoding and evaluation are launches only.
    fn stream_ordered(&self) -> bool {
        true
    }
}

impl DeviceBitProblem for PaperFunction {
    fn bit_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn BitEvaluator>> {
        let (lo, hi) = self.range();
        let evaluator = GaProblem::with_range(self.function(), self.variables(), lo, hi)?
            .cuda_evaluator(gpu)?;
        Ok(Box::new(PaperEvaluator {
            gpu: gpu.clone(),
            bits: self.bit_count(),
            variables: self.variables(),
            lo,
            hi,
            evaluator,
            decoded: None,
        }))
    }
}
