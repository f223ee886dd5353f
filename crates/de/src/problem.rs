//! How the CUDA engine evaluates a problem: on the device through the real-vector contract of
//! [`evo_benchmarks::cuda::RealEvaluator`] (the built-in problems, a user's CUDA source as a
//! [`UserProblem`], a user's own kernels behind [`DeviceEvaluated`]), by the ETC scheduling kernels, or on the
//! host (any Rust function, ARCHITECTURE §5.3).

use evo_benchmarks::cuda::scheduling::CudaEtc;
use evo_benchmarks::cuda::{DeviceRealProblem, RealEvaluator, UserFunction, UserProblem, UserTwin};
use evo_benchmarks::scheduling::EtcProblem;
use evo_benchmarks::{Cec2010Problem, DeRastrigin, GaProblem, ShiftedProblem};
use evo_core::{Bounds, ContinuousProblem, Result};
use evo_gpu_runtime::Gpu;
use evo_kernels::ModuleId;

/// The evaluation the CUDA engine runs after building the trials.
pub enum DeviceEvaluation {
    /// A device evaluation of the real-vector contract: evo-benchmarks' kernels of a built-in problem, a
    /// user module, or a user's own kernels (bit-identical to the CPU `evaluate` where the problem promises
    /// it under the Exact profile).
    Continuous(Box<dyn RealEvaluator>),
    /// evo-benchmarks' GPU evaluation of the ETC scheduling problem on real-coded rows (bit-identical to
    /// [`EtcProblem::evaluate`]).
    Scheduling(Box<CudaEtc>),
    /// The trials are copied to the host, evaluated there with rayon, and the fitness copied back.
    Host,
}

/// A problem the CUDA engine can run: it says how its fitness is computed.
///
/// Implemented for evo-benchmarks' problems with a GPU evaluation ([`DeRastrigin`], [`ShiftedProblem`],
/// [`GaProblem`], [`Cec2010Problem`]), for [`EtcProblem`] and for a user's CUDA source ([`UserFunction`]'s
/// separable term, [`UserProblem`]'s terms over the whole vector); a
/// user's own [`DeviceRealProblem`] runs on the device through [`DeviceEvaluated`], any other
/// [`ContinuousProblem`] on the host through [`HostEvaluated`] or [`FnProblem`].
pub trait DeviceProblem: ContinuousProblem {
    /// Uploads what the evaluation needs to `gpu`.
    ///
    /// # Errors
    /// GPU errors; a problem without a GPU evaluation (CEC 2010 F4–F18) says so.
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation>;

    /// The evaluation the CUDA engine can fuse into its one-launch generation, if any (the paper's two
    /// problems and a user's CUDA source); the others run trials, evaluation, merge and best as four
    /// launches.
    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        None
    }

    /// The ETC scheduling problem this is, if it is one: the opt-in local search
    /// ([`LocalSearch`](crate::LocalSearch)) works on its schedules and refuses other problems.
    fn scheduling(&self) -> Option<&EtcProblem> {
        None
    }
}

/// An evaluation that the one-launch generation computes inside the generation's launch, with the same bits
/// as the problem's own evaluation.
#[derive(Clone, Debug, PartialEq)]
pub enum FusedEvaluation {
    /// A [`UserProblem`]: its terms, sums and data in a DE module of its own (`de_generation_user_f32`),
    /// for any dimension, term count, sum count and data (there is no limit that sends it to the four
    /// launches).
    User(UserFusion),
    /// [`DeRastrigin`]: the canonical tree of the Rastrigin terms.
    Rastrigin,
    /// A [`UserFunction`]: the built-in Rastrigin's path (terms from the trial's registers, float4 tiles,
    /// long vectors split over blocks, the same canonical tree) with the user's separable term, in a DE
    /// module of its own ([`TermFusion`]).
    Term(TermFusion),
    /// [`EtcProblem`] on at most 32 machines and 2048 tasks (larger instances take the four launches).
    Etc {
        /// The task-major matrix, `ETC[t][s] = etc[t·m + s]`.
        etc: Vec<f32>,
        /// `m`.
        machines: usize,
        /// `λ`.
        lambda: f64,
    },
}

macro_rules! continuous_on_device {
    ($($problem:ty),+) => {
        $(
            impl DeviceProblem for $problem {
                fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
                    Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
                }
            }
        )+
    };
}

continuous_on_device!(ShiftedProblem, GaProblem, Cec2010Problem);

impl DeviceProblem for DeRastrigin {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
    }

    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        Some(FusedEvaluation::Rastrigin)
    }
}

impl DeviceProblem for EtcProblem {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Scheduling(Box::new(
            self.cuda_evaluator(gpu)?,
        )))
    }

    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        Some(FusedEvaluation::Etc {
            etc: self.instance().etc().to_vec(),
            machines: self.instance().machines(),
            lambda: self.lambda(),
        })
    }

    fn scheduling(&self) -> Option<&EtcProblem> {
        Some(self)
    }
}

/// A user's CUDA source (evo-benchmarks' [`UserProblem`]): the initial population evaluated by its module,
/// every generation fused (the user's terms inside DE's one-launch generation, [`UserFusion`]), and its
/// Rust twin on the CPU.
impl<T: UserTwin> DeviceProblem for UserProblem<T> {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
    }

    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        Some(FusedEvaluation::User(UserFusion::of(self)))
    }
}

/// A user's separable term (evo-benchmarks' [`UserFunction`], `evo_user_term(i, z)`): the initial
/// population evaluated by its benchmarks module, every generation fused on the built-in Rastrigin's path
/// with the user's term instead of Rastrigin's ([`TermFusion`]), and `cpu_term` summed by the canonical tree
/// on the CPU.
impl<F: Fn(usize, f64) -> f64 + Sync + Send> DeviceProblem for UserFunction<F> {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
    }

    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        Some(FusedEvaluation::Term(TermFusion::of(self)))
    }
}

/// What DE's fused generation needs of a [`UserFunction`]: a module of its own, compiled by NVRTC, made of
/// `common/problems/functions.cuh`, the user's source (under its own `#line 1`, so NVRTC's log gives the
/// user's line numbers) and `cuda/de.cu` compiled with `EVO_DE_USER_TERM`: `de_generation_f32` alone, whose
/// Rastrigin paths (`de_fused_rastrigin`, `de_fused_rastrigin_float4`) sum `evo_user_term(j, (double)x_j)`
/// instead of Rastrigin's term. Names starting with `de_` and `evo_` are reserved in that module.
///
/// The fitness is the canonical pairwise sum of the `D` terms ([`evo_core::reduce`]), which
/// [`UserFunction`]'s `evaluate` also computes from `cpu_term`, so the Exact profile gives the CPU engine's
/// bits. As for the built-in Rastrigin, a term is computed from the trial's value in a register, a long
/// vector may be split over several blocks (each term reads one coordinate), and the fitness is not checked
/// for being finite: a NaN trial loses its selection on both engines alike.
#[derive(Clone, Debug, PartialEq)]
pub struct TermFusion {
    /// The problem's name (for errors).
    pub problem: String,
    /// The module's name: `de_term_user_<name>`.
    pub module: String,
    /// The module's full source.
    pub source: String,
}

impl TermFusion {
    /// The fused evaluation of `problem`.
    pub fn of<F: Fn(usize, f64) -> f64 + Sync + Send>(problem: &UserFunction<F>) -> Self {
        let kernels = format!(
            "#define EVO_DE_USER_TERM 1\n#line 1 \"{}\"\n{}",
            ModuleId::De.module().file,
            ModuleId::De.module().source
        );
        Self {
            problem: problem.name().to_string(),
            module: format!("de_term_{}", problem.module_name()),
            source: problem.module_source_with(&kernels),
        }
    }
}

/// What DE's fused generation needs of a [`UserProblem`]: a module of its own, compiled by NVRTC, made of
/// the user's prelude and source (under its own `#line 1`, so NVRTC's log gives the user's line numbers) and
/// `cuda/de.cu` compiled with `EVO_DE_USER` (DE's operators and the generation body with the user's terms as
/// its evaluation, `kernels/common/problems/de_user_generation.cuh`; none of the paper's kernels), and the
/// data arrays. Names starting with `de_` and `evo_` are reserved in that module.
///
/// The terms are summed with the canonical tree of [`evo_core::reduce`], as the CPU twin sums them, so the
/// Exact profile gives the CPU engine's bits. A non-finite trial fitness is reported as
/// [`Error::NonFiniteFitness`](evo_core::Error::NonFiniteFitness) when the engine reads the best vector
/// back (after the step, or after the whole batch of [`DeCuda::step_many`](crate::DeCuda::step_many),
/// naming the lowest such vector); such a trial never replaces its parent unless it is `-∞`.
///
/// One block builds and evaluates one trial: unlike the built-in Rastrigin, a long vector is never split
/// over several blocks (a term may read any coordinate of the trial, which another block would be writing
/// during the same launch), so with few long vectors a larger
/// [`with_block_size`](crate::DeParams::with_block_size) gives each vector more threads.
#[derive(Clone, Debug, PartialEq)]
pub struct UserFusion {
    /// The problem's name (for errors).
    pub problem: String,
    /// The module's name: `de_user_<name>`.
    pub module: String,
    /// The module's full source.
    pub source: String,
    /// `n`, the terms of a row.
    pub terms: usize,
    /// The concatenated `f32` data arrays (one placeholder value without any).
    pub data32: Vec<f32>,
    /// The concatenated `f64` data arrays (one placeholder value without any).
    pub data64: Vec<f64>,
}

impl UserFusion {
    /// The fused evaluation of `problem`.
    pub fn of<T: UserTwin>(problem: &UserProblem<T>) -> Self {
        let kernels = format!(
            "#define EVO_DE_USER 1\n#line 1 \"{}\"\n{}",
            ModuleId::De.module().file,
            ModuleId::De.module().source
        );
        let (data32, data64) = problem.data_buffers();
        Self {
            problem: problem.name().to_string(),
            module: format!("de_{}", problem.module_name()),
            source: problem.module_source_with(&kernels),
            terms: problem.term_count(),
            data32,
            data64,
        }
    }
}

/// Implements [`ContinuousProblem`] for a one-field wrapper by forwarding every method to the wrapped
/// problem: the wrappers below change only how the CUDA engine evaluates, never the problem.
macro_rules! forward_continuous_problem {
    ($wrapper:ident, $bound:ident) => {
        impl<P: $bound> ContinuousProblem for $wrapper<P> {
            fn name(&self) -> &str {
                self.0.name()
            }

            fn dimension(&self) -> usize {
                self.0.dimension()
            }

            fn bounds(&self) -> &Bounds {
                self.0.bounds()
            }

            fn evaluate(&self, x: &[f32]) -> f64 {
                self.0.evaluate(x)
            }

            fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
                self.0.evaluate_batch(population, fitness);
            }

            fn optimum(&self) -> Option<f64> {
                self.0.optimum()
            }
        }
    };
}

/// Any [`DeviceRealProblem`] (for example a user's own kernels, ARCHITECTURE §5 way 2), evaluated on the
/// device by its [`RealEvaluator`] when the engine runs on the GPU and by its `evaluate` on the CPU.
#[derive(Clone, Debug)]
pub struct DeviceEvaluated<P>(pub P);

forward_continuous_problem!(DeviceEvaluated, DeviceRealProblem);

impl<P: DeviceRealProblem> DeviceProblem for DeviceEvaluated<P> {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        let evaluator = self.0.real_evaluator(gpu)?;
        if evaluator.dimension() != self.0.dimension() {
            return Err(evo_core::Error::invalid_parameter(
                "DE",
                "evaluator dimension",
                evaluator.dimension(),
                format!("the problem's dimension {}", self.0.dimension()),
            ));
        }
        Ok(DeviceEvaluation::Continuous(evaluator))
    }
}

/// Any continuous problem, evaluated on the host when the engine runs on the GPU.
#[derive(Clone, Debug)]
pub struct HostEvaluated<P>(pub P);

forward_continuous_problem!(HostEvaluated, ContinuousProblem);

impl<P: ContinuousProblem> DeviceProblem for HostEvaluated<P> {
    fn device_evaluation(&self, _gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Host)
    }
}

/// A problem made of a name, a box and a Rust function (evaluated on the host on either backend).
///
/// ```
/// use evo_core::{Bounds, ContinuousProblem};
/// use evo_de::FnProblem;
///
/// let sphere = FnProblem::new("sphere", Bounds::uniform(3, -1.0, 1.0)?, |x: &[f32]| {
///     x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
/// });
/// assert_eq!(sphere.evaluate(&[1.0, 0.0, 0.5]), 1.25);
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone)]
pub struct FnProblem<F> {
    name: String,
    bounds: Bounds,
    function: F,
}

impl<F: Fn(&[f32]) -> f64 + Sync> FnProblem<F> {
    /// The problem `function` on `bounds`.
    pub fn new(name: impl Into<String>, bounds: Bounds, function: F) -> Self {
        Self {
            name: name.into(),
            bounds,
            function,
        }
    }
}

impl<F: Fn(&[f32]) -> f64 + Sync> ContinuousProblem for FnProblem<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn evaluate(&self, x: &[f32]) -> f64 {
        (self.function)(x)
    }
}

impl<F: Fn(&[f32]) -> f64 + Sync> DeviceProblem for FnProblem<F> {
    fn device_evaluation(&self, _gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Host)
    }
}
