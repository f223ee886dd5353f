//! `evogpu.UserProblem`: a real-vector problem written as CUDA source, evo-benchmarks'
//! [`UserProblem`] from Python (the contract of the issue "Your own problem on the GPU, in every engine").
//!
//! The source defines `evo_user_terms` (and `evo_user_combine` with `sums=`); the fitness of a row is the
//! canonical pairwise sum of its terms, or the combine of several sums. Data arrays (`data={name: array}`)
//! are uploaded once and read as `data.<name>` and `data.<name>_len`. The source is compiled by NVRTC when
//! the problem is made, where NVRTC is installed (no GPU needed), so a mistake raises [`CompileError`]
//! carrying NVRTC's log with the user's own line numbers.
//!
//! On the CUDA backend DE and MA-SW-Chains evaluate it with the compiled module. On the CPU a source has no
//! evaluation of its own: a Python `twin` over the whole population (NumPy float64 rows in, one value per
//! row out, as a fitness function) evaluates it there; without a twin a CPU run is refused before it starts.

use evo_benchmarks::cuda::{
    DataLength, DeviceRealProblem, RealEvaluator, Terms, UserData, UserProblem, UserTwin,
};
use evo_core::{Backend, Bounds, ContinuousProblem, Error, Result};
use evo_de::{DeviceEvaluation, DeviceProblem, FusedEvaluation};
use evo_gpu_runtime::{Gpu, Profile};
use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::callable::PythonFitness;
use crate::errors::{to_py, value_error};
use crate::watch::StopSlot;

create_exception!(
    evogpu,
    CompileError,
    PyRuntimeError,
    "NVRTC rejected a UserProblem's CUDA source; `log` holds NVRTC's log (the user's file is \
     `user_<name>.cu`, its lines numbered from 1)."
);

/// The architecture the source is checked for when the problem is made: the oldest the kernels target.
pub const CHECK_ARCH: &str = "sm_80";

/// What a CPU run without a twin is told.
const REMEDY: &str = "CUDA source has no CPU evaluation, so run it with backend=\"cuda\" (or \"auto\" where a \
                      CUDA device is present), or give UserProblem a twin= function for the CPU";

/// The twin type of the device problem: never asked, since [`SourceProblem`] evaluates on the host through
/// the Python twin or refuses the CPU before a run starts.
#[derive(Clone, Copy, Debug)]
pub struct DeviceOnly;

impl UserTwin for DeviceOnly {
    /// A NaN, which an engine refuses as a non-finite fitness, rather than a value that could pass.
    fn terms(&self, _i: usize, _x: &[f32], _data: &UserData, t: &mut [f64]) {
        t.fill(f64::NAN);
    }
}

/// A real-vector problem written as CUDA source, for `minimize` (DE, MA-SW-Chains).
///
/// `UserProblem(source, bounds, terms=None, sums=None, data=None, name="problem", twin=None)`. The source
/// defines `__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
/// const EvoUserData& data, double* t)`, writing term `i` of row `x`; the fitness is the pairwise sum of
/// the terms, or with `sums=K` the `evo_user_combine(const double* sums, unsigned long long d, const
/// EvoUserData& data)` of K sums. `terms`: "dimension" (default), "dimension-<k>" or a count. `data`:
/// `{name: array}`, read as `data.<name>` and `data.<name>_len`. `twin`: a function of the population
/// (float64 array (n, D) -> n values) for the CPU backend, which refuses the problem without one. Where
/// NVRTC is installed the source is compiled here, and a mistake raises `CompileError` (NVRTC's log in
/// `.log`, the user's lines numbered from 1 in `user_<name>.cu`).
#[pyclass(name = "UserProblem", module = "evogpu", frozen)]
pub struct UserSource {
    problem: UserProblem<DeviceOnly>,
    twin: Option<Py<PyAny>>,
}

/// `terms=`: `"dimension"`, `"dimension-k"` or a count.
fn parse_terms(terms: &Bound<'_, PyAny>) -> PyResult<Terms> {
    if let Ok(count) = terms.extract::<usize>() {
        return Ok(Terms::Count(count));
    }
    let text: String = terms.extract().map_err(|_| {
        value_error("terms must be \"dimension\", \"dimension-<k>\" or a number of terms")
    })?;
    if text == "dimension" {
        return Ok(Terms::Dimension);
    }
    text.strip_prefix("dimension-")
        .and_then(|k| k.parse::<usize>().ok())
        .map(Terms::DimensionMinus)
        .ok_or_else(|| {
            value_error(format!(
                "terms must be \"dimension\", \"dimension-<k>\" or a number of terms, got {text:?}"
            ))
        })
}

/// `data=`: each array flattened row-major, float32 arrays kept as `float`, others read as `double`.
fn parse_data(data: Option<&Bound<'_, PyDict>>) -> PyResult<UserData> {
    let mut parsed = UserData::new();
    let Some(data) = data else {
        return Ok(parsed);
    };
    let numpy = data.py().import("numpy")?;
    for (name, values) in data.iter() {
        let name: String = name.extract().map_err(|_| {
            value_error("data keys must be strings (the arrays' names in the source)")
        })?;
        let array = numpy.call_method1("asarray", (values,))?;
        let is_f32 = array.getattr("dtype")?.str()?.to_cow()? == "float32";
        let flat = array.call_method1("ravel", ("C",))?;
        parsed = if is_f32 {
            let values: Vec<f32> = flat.call_method0("tolist")?.extract()?;
            parsed.with_f32(&name, values, DataLength::Any)
        } else {
            let values: Vec<f64> = flat
                .call_method1("astype", ("float64",))?
                .call_method0("tolist")?
                .extract()?;
            parsed.with_f64(&name, values, DataLength::Any)
        }
        .map_err(to_py)?;
    }
    Ok(parsed)
}

/// A compile error as [`CompileError`] with NVRTC's log, a source without its entry points as `ValueError`
/// (the user's mistake), other errors as usual.
fn compile_error(py: Python<'_>, error: Error) -> PyErr {
    match &error {
        Error::MissingEntryPoint { .. } => value_error(error.to_string()),
        Error::KernelCompile { log, .. } => {
            let raised = CompileError::new_err(error.to_string());
            match raised.value(py).setattr("log", log.as_str()) {
                Ok(()) => raised,
                Err(failed) => failed,
            }
        }
        _ => to_py(error),
    }
}

#[pymethods]
impl UserSource {
    /// See `evogpu.UserProblem`.
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (source, bounds, terms=None, sums=None, data=None, name="problem", twin=None))]
    fn new(
        py: Python<'_>,
        source: &str,
        bounds: Vec<(f64, f64)>,
        terms: Option<&Bound<'_, PyAny>>,
        sums: Option<usize>,
        data: Option<&Bound<'_, PyDict>>,
        name: &str,
        twin: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        if let Some(twin) = &twin
            && !twin.bind(py).is_callable()
        {
            return Err(value_error(
                "twin must be a function of the population (a float64 array of shape (n, D)) returning n values",
            ));
        }
        let bounds = crate::to_bounds(&bounds)?;
        let refused = |error| compile_error(py, error);
        let mut problem = UserProblem::new(name, bounds, source, DeviceOnly).map_err(refused)?;
        if let Some(terms) = terms {
            problem = problem.with_terms(parse_terms(terms)?).map_err(refused)?;
        }
        if let Some(sums) = sums {
            problem = problem.with_combined_sums(sums).map_err(refused)?;
        }
        problem = problem.with_data(parse_data(data)?).map_err(to_py)?;
        let made = Self { problem, twin };
        if evo_gpu_runtime::nvrtc_present() {
            made.check_compiles(py, CHECK_ARCH)?;
        }
        Ok(made)
    }

    /// Compiles the source with NVRTC for `arch` (no GPU needed); raises `CompileError` with NVRTC's log.
    #[pyo3(signature = (arch=CHECK_ARCH))]
    fn check_compiles(&self, py: Python<'_>, arch: &str) -> PyResult<()> {
        py.detach(|| self.problem.check_compiles(Profile::Exact, arch))
            .map_err(|error| compile_error(py, error))
    }

    /// The problem's name.
    #[getter]
    fn name(&self) -> &str {
        self.problem.name()
    }

    /// `D`.
    #[getter]
    fn dimension(&self) -> usize {
        self.problem.dimension()
    }

    /// The number of terms per row.
    #[getter]
    fn terms(&self) -> usize {
        self.problem.term_count()
    }

    /// Whether a Python twin evaluates the problem on the CPU.
    #[getter]
    fn has_twin(&self) -> bool {
        self.twin.is_some()
    }

    /// The whole module NVRTC compiles: the prelude, the user's source from its line 1, the kernels.
    #[getter]
    fn module_source(&self) -> String {
        self.problem.module_source()
    }

    fn __repr__(&self) -> String {
        format!(
            "UserProblem(name={:?}, dimension={}, terms={}, twin={})",
            self.problem.name(),
            self.problem.dimension(),
            self.problem.term_count(),
            self.twin.is_some()
        )
    }
}

/// The problem `minimize` runs for a `UserProblem`: the compiled source on the device, the twin on the host.
pub struct SourceProblem {
    device: UserProblem<DeviceOnly>,
    twin: Option<PythonFitness>,
}

/// The backend a run of `source` takes and its problem: `"auto"` is the first CUDA device when there is
/// one; a CPU backend needs a twin.
///
/// # Errors
/// `ValueError` for given bounds (the problem has its own) and for a CPU run without a twin.
pub fn fitness(
    source: &Bound<'_, UserSource>,
    backend: Backend,
    bounds_given: bool,
    stop: &StopSlot,
) -> PyResult<(Backend, SourceProblem)> {
    let py = source.py();
    let source = source.get();
    if bounds_given {
        return Err(value_error(
            "a UserProblem carries its own bounds; leave bounds=None",
        ));
    }
    let backend = match backend {
        Backend::Auto => match evo_gpu_runtime::device_count() {
            Ok(count) if count > 0 => Backend::Cuda { device: 0 },
            _ => Backend::cpu(),
        },
        chosen => chosen,
    };
    if matches!(backend, Backend::Cpu { .. }) && source.twin.is_none() {
        return Err(value_error(
            Error::NoHostEvaluation {
                problem: source.problem.name().to_string(),
                backend: backend.to_string(),
                remedy: REMEDY,
            }
            .to_string(),
        ));
    }
    let twin = source.twin.as_ref().map(|twin| {
        PythonFitness::new(
            source.problem.name().to_string(),
            source.problem.bounds().clone(),
            twin.clone_ref(py),
            stop.clone(),
        )
    });
    Ok((
        backend,
        SourceProblem {
            device: source.problem.clone(),
            twin,
        },
    ))
}

impl ContinuousProblem for SourceProblem {
    fn name(&self) -> &str {
        self.device.name()
    }

    fn dimension(&self) -> usize {
        self.device.dimension()
    }

    fn bounds(&self) -> &Bounds {
        self.device.bounds()
    }

    /// The twin's value; without one the CPU was refused before the run, and [`DeviceOnly`]'s NaN stands.
    fn evaluate(&self, x: &[f32]) -> f64 {
        match &self.twin {
            Some(twin) => twin.evaluate(x),
            None => self.device.evaluate(x),
        }
    }

    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        match &self.twin {
            Some(twin) => twin.evaluate_batch(population, fitness),
            None => self.device.evaluate_batch(population, fitness),
        }
    }
}

impl DeviceRealProblem for SourceProblem {
    fn real_evaluator(&self, gpu: &Gpu) -> Result<Box<dyn RealEvaluator>> {
        self.device.real_evaluator(gpu)
    }
}

impl DeviceProblem for SourceProblem {
    fn device_evaluation(&self, gpu: &Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
    }

    /// The source's own fusion, so that DE on CUDA runs its one-launch generation as it does for the
    /// `UserProblem` from Rust (without it, DE took its four-launch path for every Python source).
    fn fused_evaluation(&self) -> Option<FusedEvaluation> {
        self.device.fused_evaluation()
    }
}
