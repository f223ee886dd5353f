//! `user:MANIFEST.toml`: a user's own problem as CUDA source, run by the engines of its genome kind on the
//! GPU (issue 29's contract): real vectors ([`UserProblem`], de and ma-sw-chains), bit strings
//! ([`UserBits`], ga) and constrained problems ([`UserConstrained`], dpga).
//!
//! A file gives no Rust twin, so a user problem runs only on a CUDA device: a CPU backend, or
//! `Backend::Auto` on a machine without a device, is [`Error::NoHostEvaluation`] (never a CPU run of
//! something else). Before that error the source is compiled by NVRTC where NVRTC is installed, so that a
//! machine without a GPU still reports the source's mistakes with NVRTC's log and the user's line numbers.

pub mod data;
pub mod manifest;

use evo_benchmarks::cuda::{UserData, UserProblem, UserTwin};
use evo_core::{
    Backend, Bits, Bounds, DeviceSupport, Error, GpuPresence, InstanceDigest, OnDevice,
    Result as EvoResult, RunAlgorithm,
};
use evo_dpga::UserConstrained;
use evo_ga::UserBits;
use evo_gpu_runtime::Profile;
use std::marker::PhantomData;
use std::path::Path;

use manifest::{Limit, Manifest, ManifestError, Shape};

/// What [`Error::NoHostEvaluation`] tells the user of a CUDA source problem.
pub const USER_SOURCE_REMEDY: &str = "a CUDA source file gives no CPU twin, so run it where a CUDA device is \
     present (--backend cuda[:N], or auto); for CPU runs, write the problem in Rust with a twin \
     (evo_benchmarks::cuda::UserProblem, evo_ga::UserBits, evo_dpga::UserConstrained)";

/// The architecture the source is compiled for when the run is refused the CPU, to report the source's
/// mistakes first (a GPU run compiles it for its device's own architecture instead).
pub const CHECK_ARCH: &str = "sm_80";

/// The twin of a real-vector source problem. The command never builds a CPU engine for it (the CPU is
/// refused before, see the module docs), so it is never asked; were it asked, its NaN would show rather
/// than pass for a value.
#[derive(Clone, Copy, Debug)]
pub struct NoTwin;

impl UserTwin for NoTwin {
    fn terms(&self, _i: usize, _x: &[f32], _data: &UserData, t: &mut [f64]) {
        t.fill(f64::NAN);
    }
}

/// The twin of a bit-string source problem ([`NoTwin`]'s reasons).
pub type BitsTwin = fn(&Bits) -> f64;

/// The twin of a constrained source problem ([`NoTwin`]'s reasons).
pub type ConstrainedTwin = fn(&[f64], &mut [f64], &mut [f64]) -> f64;

fn no_bits_twin(_bits: &Bits) -> f64 {
    f64::NAN
}

fn no_constrained_twin(_x: &[f64], _g: &mut [f64], _h: &mut [f64]) -> f64 {
    f64::NAN
}

/// A real-vector source problem.
pub type RealSource = UserProblem<NoTwin>;

/// A user problem built from its manifest.
pub enum UserSource {
    /// `kind = "real"`.
    Real(RealSource),
    /// `kind = "bits"`.
    Bits(UserBits<BitsTwin>),
    /// `kind = "constrained"`.
    Constrained(UserConstrained<ConstrainedTwin>),
}

/// Why a user problem could not be built: its manifest, or the problem type's own check of the source and
/// the shape ([`Error::MissingEntryPoint`], a dimension the terms do not fit, data of the wrong length).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The manifest or a file it names.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The problem type refused the source, the shape or the data.
    #[error("problem `{spec}`: {source}")]
    Problem {
        /// The spec.
        spec: String,
        /// The problem type's error.
        source: Box<Error>,
    },
}

impl UserSource {
    /// Reads the manifest at `path`, the source and the data files it names, and builds the problem.
    ///
    /// # Errors
    /// [`LoadError`].
    pub fn load(path: &Path, spec: &str) -> Result<Self, LoadError> {
        let manifest = Manifest::load(path)?;
        let problem = |source: Error| LoadError::Problem {
            spec: spec.to_string(),
            source: Box::new(source),
        };
        let code = std::fs::read_to_string(&manifest.source).map_err(|source| {
            ManifestError::ReadFile {
                path: path.to_path_buf(),
                file: manifest.source.clone(),
                source,
            }
        })?;
        let name = &manifest.name;
        Ok(match &manifest.shape {
            Shape::Real {
                dimension,
                lower,
                upper,
                terms,
                sums,
            } => {
                let bounds = bounds(*dimension, lower, upper).map_err(problem)?;
                let mut built = UserProblem::new(name, bounds, &code, NoTwin)
                    .and_then(|built| built.with_terms(*terms))
                    .map_err(problem)?;
                if let Some(sums) = sums {
                    built = built.with_combined_sums(*sums).map_err(problem)?;
                }
                let data = read_data(path, &manifest)?;
                Self::Real(built.with_data(data).map_err(problem)?)
            }
            Shape::Bits { bits, optimum } => {
                let mut built =
                    UserBits::new(name, *bits, &code, no_bits_twin as BitsTwin).map_err(problem)?;
                if let Some(optimum) = optimum {
                    built = built.with_optimum(*optimum).map_err(problem)?;
                }
                // Without arrays the source keeps the data-less signature.
                if !manifest.data.is_empty() {
                    let data = read_data(path, &manifest)?;
                    built = built.with_data(data).map_err(problem)?;
                }
                Self::Bits(built)
            }
            Shape::Constrained {
                dimension,
                lower,
                upper,
                inequalities,
                equalities,
                equality_tolerance,
            } => {
                let bounds = bounds(*dimension, lower, upper).map_err(problem)?;
                let mut built = UserConstrained::new(
                    name,
                    bounds,
                    *inequalities,
                    *equalities,
                    &code,
                    no_constrained_twin as ConstrainedTwin,
                )
                .map_err(problem)?;
                if let Some(tolerance) = equality_tolerance {
                    built = built.with_equality_tolerance(*tolerance).map_err(problem)?;
                }
                if !manifest.data.is_empty() {
                    let data = read_data(path, &manifest)?;
                    built = built.with_data(data).map_err(problem)?;
                }
                Self::Constrained(built)
            }
        })
    }

    /// The kind, for messages.
    pub fn kind(&self) -> manifest::Kind {
        match self {
            Self::Real(_) => manifest::Kind::Real,
            Self::Bits(_) => manifest::Kind::Bits,
            Self::Constrained(_) => manifest::Kind::Constrained,
        }
    }

    /// Compiles the source's module with NVRTC for [`CHECK_ARCH`] (no GPU needed).
    ///
    /// # Errors
    /// [`Error::KernelCompile`] with NVRTC's log (the user's file and line numbers).
    pub fn check_compiles(&self) -> EvoResult<()> {
        match self {
            Self::Real(problem) => problem.check_compiles(Profile::Exact, CHECK_ARCH),
            Self::Bits(problem) => problem.check_compiles(Profile::Exact, CHECK_ARCH),
            Self::Constrained(problem) => problem.check_compiles(Profile::Exact, CHECK_ARCH),
        }
    }
}

fn bounds(dimension: usize, lower: &Limit, upper: &Limit) -> EvoResult<Bounds> {
    let each = |limit: &Limit| match limit {
        Limit::One(value) => vec![*value; dimension],
        Limit::Each(values) => values.clone(),
    };
    match (lower, upper) {
        (Limit::One(lower), Limit::One(upper)) => Bounds::uniform(dimension, *lower, *upper),
        _ => Bounds::new(each(lower), each(upper)),
    }
}

fn read_data(path: &Path, manifest: &Manifest) -> Result<UserData, LoadError> {
    let mut data = UserData::new();
    for entry in &manifest.data {
        let refuse = |reason: String| ManifestError::Data {
            path: path.to_path_buf(),
            name: entry.name.clone(),
            file: entry.file.clone(),
            reason,
        };
        let values = data::read(&entry.file, entry.element).map_err(refuse)?;
        data = match values {
            evo_benchmarks::cuda::DataValues::F32(values) => {
                data.with_f32(&entry.name, values, entry.length)
            }
            evo_benchmarks::cuda::DataValues::F64(values) => {
                data.with_f64(&entry.name, values, entry.length)
            }
        }
        .map_err(|error| refuse(error.to_string()))?;
    }
    Ok(data)
}

/// A digest of the manifest at `path` and of the source and data files it names, each file's length and
/// bytes in the manifest's order, as 16 hex digits.
///
/// # Errors
/// [`LoadError`] when the manifest is refused or a file cannot be read.
pub fn files_digest(path: &Path) -> Result<String, LoadError> {
    let manifest = Manifest::load(path)?;
    let files = [path, manifest.source.as_path()]
        .into_iter()
        .chain(manifest.data.iter().map(|entry| entry.file.as_path()));
    let mut digest = InstanceDigest::new();
    for file in files {
        let bytes = std::fs::read(file).map_err(|source| ManifestError::ReadFile {
            path: path.to_path_buf(),
            file: file.to_path_buf(),
            source,
        })?;
        digest = digest.u64(bytes.len() as u64).bytes(&bytes);
    }
    Ok(format!("{:016x}", digest.finish()))
}

/// Refuses a run of a user source problem that would take the CPU: `backend` is a CPU backend, or `Auto`
/// on a machine without a CUDA device. The source is compiled first where NVRTC is installed, so its
/// mistakes come before the backend's.
///
/// # Errors
/// [`Error::KernelCompile`] from the source; [`Error::NoHostEvaluation`] naming `spec` and the backend; a
/// CUDA driver that is present but fails.
pub fn require_device(backend: Backend, spec: &str, source: &UserSource) -> EvoResult<()> {
    let refused = match backend {
        Backend::Cuda { .. } => return Ok(()),
        Backend::Cpu { .. } => format!("{backend}, as asked"),
        Backend::Auto => match GpuPresence::from_device_count(evo_gpu_runtime::device_count())? {
            GpuPresence::Device(_) => return Ok(()),
            GpuPresence::Absent { reason } => format!(
                "the CPU, which Backend::Auto took because there is no CUDA device ({reason})"
            ),
        },
    };
    if evo_gpu_runtime::nvrtc_present() {
        source.check_compiles()?;
    }
    Err(Error::NoHostEvaluation {
        problem: spec.to_string(),
        backend: refused,
        remedy: USER_SOURCE_REMEDY,
    })
}

/// Algorithm `A` on a problem that has only a device evaluation: everything as `A`, except that a CPU
/// engine is [`Error::NoHostEvaluation`] (the command refuses the CPU before with [`require_device`]; this
/// keeps the builder from ever running the twin that a file cannot give).
pub struct DeviceOnly<A>(PhantomData<A>);

impl<A: RunAlgorithm> RunAlgorithm for DeviceOnly<A> {
    const NAME: &'static str = A::NAME;
    type Params = A::Params;
    type Problem = A::Problem;
    type Solution = A::Solution;
    type CpuEngine = A::CpuEngine;
    type CudaEngine = A::CudaEngine;

    fn termination(
        params: &Self::Params,
        chosen: Option<evo_core::Termination>,
    ) -> EvoResult<evo_core::Termination> {
        A::termination(params, chosen)
    }

    fn device_support(problem: &Self::Problem) -> DeviceSupport {
        A::device_support(problem)
    }

    fn gpu_presence() -> EvoResult<GpuPresence> {
        A::gpu_presence()
    }

    fn problem_name(problem: &Self::Problem) -> String {
        A::problem_name(problem)
    }

    fn problem_metadata(problem: &Self::Problem) -> Vec<(&'static str, String)> {
        A::problem_metadata(problem)
    }

    fn cpu_engine(
        _params: Self::Params,
        problem: Self::Problem,
        _seed: u64,
        backend: Backend,
    ) -> EvoResult<Self::CpuEngine> {
        Err(Error::NoHostEvaluation {
            problem: A::problem_name(&problem),
            backend: backend.to_string(),
            remedy: USER_SOURCE_REMEDY,
        })
    }

    fn cuda_engine(
        params: Self::Params,
        problem: Self::Problem,
        seed: u64,
        device: usize,
    ) -> EvoResult<OnDevice<Self::CudaEngine>> {
        A::cuda_engine(params, problem, seed, device)
    }
}
