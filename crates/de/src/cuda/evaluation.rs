//! The evaluation step of [`DeCuda`](super::DeCuda)'s four-launch generation and of its initial
//! population: the problem's [`DeviceEvaluation`], with the host one's page-locked staging.

use evo_benchmarks::cuda::scheduling::{CudaEtc, EtcOutputs};
use evo_benchmarks::cuda::{EvalSettings, RealEvaluator};
use evo_core::{ContinuousProblem, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::host::HostEvaluation;
use super::launch::Settings;
use crate::problem::DeviceEvaluation;

/// How the engine evaluates a population of vectors.
pub(super) enum Evaluation {
    /// The real-vector contract on the device.
    Continuous(Box<dyn RealEvaluator>),
    /// The ETC kernels on real-coded rows.
    Scheduling(Box<CudaEtc>),
    /// The problem's Rust function on the host ([`HostEvaluation`]).
    Host(HostEvaluation),
}

impl Evaluation {
    /// The evaluation of `device` for `population` vectors of `dimension` coordinates on `gpu`.
    ///
    /// # Errors
    /// The host evaluation's staging ([`HostEvaluation::new`]).
    pub(super) fn new(
        device: DeviceEvaluation,
        gpu: &Gpu,
        population: usize,
        dimension: usize,
    ) -> Result<Self> {
        Ok(match device {
            DeviceEvaluation::Continuous(evaluator) => Self::Continuous(evaluator),
            DeviceEvaluation::Scheduling(evaluator) => Self::Scheduling(evaluator),
            DeviceEvaluation::Host => Self::Host(HostEvaluation::new(gpu, population, dimension)?),
        })
    }

    /// Whether this is the ETC evaluation (which needs per-vector makespans and flowtimes).
    pub(super) fn is_scheduling(&self) -> bool {
        matches!(self, Self::Scheduling(_))
    }

    /// Evaluates `vectors` into `fitness`; `scratch` receives the ETC makespans and flowtimes.
    ///
    /// # Errors
    /// The evaluation's: GPU errors; for the host evaluation, the problem's non-finite fitness or panic.
    pub(super) fn evaluate<P: ContinuousProblem>(
        &mut self,
        problem: &P,
        vectors: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: Settings,
        scratch: [&mut DeviceBuffer<f64>; 2],
    ) -> Result<()> {
        match self {
            Self::Continuous(evaluator) => {
                let settings = EvalSettings {
                    profile: settings.profile,
                    block: settings.block,
                };
                evaluator.evaluate(vectors, fitness, settings)
            }
            Self::Scheduling(evaluator) => {
                let [makespan, flowtime] = scratch;
                let outputs = EtcOutputs {
                    makespan,
                    flowtime,
                    fitness,
                };
                evaluator.evaluate_real(vectors, outputs, settings.profile, settings.block)
            }
            Self::Host(host) => host.evaluate(problem, vectors, fitness),
        }
    }
}
