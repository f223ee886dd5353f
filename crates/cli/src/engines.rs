//! The command's [`RunAlgorithm`]s where an algorithm crate's own `Run` does not fit the command: QIGA and
//! the SGA (their crate has no `Run` builder), the GA on a knapsack (the command keeps it on the CPU), and
//! MA-SW-Chains with the command's stopping rules as given. evo-core's [`RunBuilder`](evo_core::RunBuilder)
//! drives each of them as it drives the crates' own.

use evo_benchmarks::Knapsack;
use evo_core::{Backend, DeviceSupport, Error, GpuPresence, OnDevice, Result, RunAlgorithm};
use evo_gpu_runtime::Gpu;
use std::marker::PhantomData;

/// A problem with the spec it was given as, which names it in the report and in backend errors (so that
/// `Backend::Auto`'s reason and [`Error::NoDeviceEvaluation`] quote what the user typed).
pub struct Named<P> {
    /// The spec as resolved (`knapsack:/abs/path`).
    pub spec: String,
    /// The problem.
    pub problem: P,
}

fn gpu_presence() -> Result<GpuPresence> {
    GpuPresence::from_device_count(evo_gpu_runtime::device_count())
}

/// What the GA's CUDA engine needs that a knapsack lacks in the command, quoted by
/// [`Error::NoDeviceEvaluation`] and by `Backend::Auto`'s reason.
pub const GA_DEVICE_REMEDY: &str = "use a `ga:fN:n` problem (the command's GA evaluates only the GA paper's \
     functions on the device; from Rust, `evo_ga::HostEvaluated` gives any BinaryProblem to `evo_ga::Run`)";

/// The GA on a knapsack: the CPU engine only. `Backend::Auto` takes the CPU and says why; `Backend::Cuda` is
/// [`Error::NoDeviceEvaluation`] with [`GA_DEVICE_REMEDY`].
pub struct GaKnapsack;

impl RunAlgorithm for GaKnapsack {
    const NAME: &'static str = "ga";
    type Params = evo_ga::GaParams;
    type Problem = Named<Knapsack>;
    type Solution = evo_core::Bits;
    type CpuEngine = evo_ga::GaCpu<Knapsack>;
    type CudaEngine = evo_ga::GaCpu<Knapsack>;

    fn device_support(_problem: &Self::Problem) -> DeviceSupport {
        DeviceSupport::Missing {
            remedy: GA_DEVICE_REMEDY,
        }
    }

    fn gpu_presence() -> Result<GpuPresence> {
        gpu_presence()
    }

    fn problem_name(problem: &Self::Problem) -> String {
        problem.spec.clone()
    }

    fn cpu_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        backend: Backend,
    ) -> Result<Self::CpuEngine> {
        evo_ga::GaCpu::with_threads(params, problem.problem, seed, backend.cpu_threads())
    }

    /// The builder refuses a CUDA backend before it asks for this engine ([`device_support`]), so this
    /// answers as the builder would.
    ///
    /// [`device_support`]: RunAlgorithm::device_support
    fn cuda_engine(
        _params: Self::Params,
        problem: Self::Problem,
        _seed: u64,
        _device: usize,
    ) -> Result<OnDevice<Self::CudaEngine>> {
        Err(Error::NoDeviceEvaluation {
            algorithm: Self::NAME,
            problem: problem.spec,
            remedy: GA_DEVICE_REMEDY,
        })
    }
}

/// The quantum-inspired GA on a knapsack, one run per engine.
pub struct Qiga;

impl RunAlgorithm for Qiga {
    const NAME: &'static str = "qiga";
    type Params = evo_qiga::QigaParams;
    type Problem = Named<Knapsack>;
    type Solution = evo_core::Bits;
    type CpuEngine = evo_qiga::QigaCpu;
    type CudaEngine = evo_qiga::QigaCuda;

    fn gpu_presence() -> Result<GpuPresence> {
        gpu_presence()
    }

    fn problem_name(problem: &Self::Problem) -> String {
        problem.spec.clone()
    }

    fn cpu_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        backend: Backend,
    ) -> Result<Self::CpuEngine> {
        evo_qiga::QigaCpu::new(&params, &problem.problem, seed, backend.cpu_threads())
    }

    fn cuda_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<Self::CudaEngine>> {
        let gpu = Gpu::open(device)?;
        let engine = evo_qiga::QigaCuda::new(&params, &problem.problem, seed, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name))
    }
}

/// The QIGA paper's simple GA on a knapsack, a batch of one run.
pub struct Sga;

impl RunAlgorithm for Sga {
    const NAME: &'static str = "sga";
    type Params = evo_qiga::SgaParams;
    type Problem = Named<Knapsack>;
    type Solution = evo_core::Bits;
    type CpuEngine = evo_qiga::SgaCpu;
    type CudaEngine = evo_qiga::SgaCuda;

    fn gpu_presence() -> Result<GpuPresence> {
        gpu_presence()
    }

    fn problem_name(problem: &Self::Problem) -> String {
        problem.spec.clone()
    }

    fn cpu_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        backend: Backend,
    ) -> Result<Self::CpuEngine> {
        evo_qiga::SgaCpu::batch(&params, &problem.problem, seed, 1, backend.cpu_threads())
    }

    fn cuda_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<Self::CudaEngine>> {
        let gpu = Gpu::open(device)?;
        let engine = evo_qiga::SgaCuda::batch(&params, &problem.problem, seed, 1, &gpu)?;
        Ok(OnDevice::new(engine, &gpu.info().name))
    }
}

/// Algorithm `A` under exactly the stopping rules the command was given: the trait's default
/// [`termination`](RunAlgorithm::termination), where `A`'s own may add its parameters' budget
/// (MA-SW-Chains' `max_evaluations`, which the command uses only when no stopping rule is given).
pub struct AsGiven<A>(PhantomData<A>);

impl<A: RunAlgorithm> RunAlgorithm for AsGiven<A> {
    const NAME: &'static str = A::NAME;
    type Params = A::Params;
    type Problem = A::Problem;
    type Solution = A::Solution;
    type CpuEngine = A::CpuEngine;
    type CudaEngine = A::CudaEngine;

    fn device_support(problem: &Self::Problem) -> DeviceSupport {
        A::device_support(problem)
    }

    fn gpu_presence() -> Result<GpuPresence> {
        A::gpu_presence()
    }

    fn problem_name(problem: &Self::Problem) -> String {
        A::problem_name(problem)
    }

    fn problem_metadata(problem: &Self::Problem) -> Vec<(&'static str, String)> {
        A::problem_metadata(problem)
    }

    fn cpu_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        backend: Backend,
    ) -> Result<Self::CpuEngine> {
        A::cpu_engine(params, problem, seed, backend)
    }

    fn cuda_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> Result<OnDevice<Self::CudaEngine>> {
        A::cuda_engine(params, problem, seed, device)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use evo_core::Termination;

    #[test]
    fn as_given_keeps_the_rules_where_the_algorithm_would_add_its_budget() {
        type Ma<'a> = evo_ma_sw_chains::MaRun<'a, evo_benchmarks::DeRastrigin>;
        let params = evo_ma_sw_chains::MaParams::new();
        let generations = Termination::new().with_max_generations(7);
        let own = Ma::termination(&params, Some(generations.clone())).unwrap();
        assert!(own.max_evaluations().is_some());
        let given = AsGiven::<Ma>::termination(&params, Some(generations)).unwrap();
        assert_eq!(given.max_evaluations(), None);
        assert_eq!(given.max_generations(), Some(7));
        assert!(AsGiven::<Ma>::termination(&params, None).is_err());
    }
}
