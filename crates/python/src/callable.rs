//! A Python function over the whole population as a problem of the engines: NumPy arrays on the CPU
//! backend, device tensors through DLPack on the CUDA backend ([`device_fitness`](crate::device_fitness)).

use evo_benchmarks::cuda::{DeviceRealProblem, RealEvaluator};
use evo_core::{Bounds, ContinuousProblem, Result};
use evo_de::{DeviceEvaluation, DeviceProblem};
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::intern;
use pyo3::prelude::*;

use crate::device_fitness::PythonEvaluator;
use crate::errors::value_error;
use crate::watch::{Stop, StopSlot};

/// `function(population) -> fitness`: on the CPU backend `population` is a float64 NumPy array of shape
/// (n, D) (the engine's f32 genes, widened exactly) and the answer n finite values (any sequence NumPy can
/// read as float64); on the CUDA backend `population` is `tensors(view)` of a [`DeviceView`] of the engine's
/// device population (or the view itself) and the answer a device tensor or a host array of n values.
///
/// [`DeviceView`]: crate::dlpack_export::DeviceView
pub struct PythonFitness {
    name: String,
    bounds: Bounds,
    function: Py<PyAny>,
    tensors: Option<Py<PyAny>>,
    stop: StopSlot,
}

impl PythonFitness {
    /// `function` on `bounds`; an exception it raises is recorded in `stop`.
    pub fn new(name: String, bounds: Bounds, function: Py<PyAny>, stop: StopSlot) -> Self {
        Self {
            name,
            bounds,
            function,
            tensors: None,
            stop,
        }
    }

    /// On the CUDA backend, the function receives `tensors(view)` (`torch.from_dlpack`, say) instead of
    /// the bare view.
    pub fn with_tensors(mut self, tensors: Option<Py<PyAny>>) -> Self {
        self.tensors = tensors;
        self
    }

    /// Calls the function on `population` and copies its n answers into `fitness`.
    fn call(&self, py: Python<'_>, population: &[f32], fitness: &mut [f64]) -> PyResult<()> {
        let n = fitness.len();
        let d = self.bounds.dimension();
        let widened: Vec<f64> = population.iter().map(|&g| f64::from(g)).collect();
        // Made (n, D) at once rather than as a vector reshaped after: one NumPy array object per call, not two.
        let widened = Array2::from_shape_vec((n, d), widened).map_err(|_| {
            value_error(format!(
                "the engine handed {} genes for {n} rows of {d}",
                population.len()
            ))
        })?;
        let array = PyArray2::from_owned_array(py, widened);
        let answer = self.function.call1(py, (array,))?;
        let values = crate::arrays::contiguous(answer.bind(py), intern!(py, "float64"))?;
        let values = values.cast_into::<PyArray1<f64>>().map_err(|_| {
            value_error(format!(
                "the fitness function must return {n} values (a 1-D array), got an array of another shape"
            ))
        })?;
        if values.len() != n {
            return Err(value_error(format!(
                "the fitness function must return {n} values, one per row, got {}",
                values.len()
            )));
        }
        fitness.copy_from_slice(values.readonly().as_slice()?);
        Ok(())
    }
}

impl ContinuousProblem for PythonFitness {
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
        let mut fitness = [f64::NAN];
        self.evaluate_batch(x, &mut fitness);
        fitness[0]
    }

    /// One call of the Python function for the whole batch. An exception leaves NaN fitness, which the
    /// engine refuses, so the run ends; `minimize` then raises the recorded exception instead.
    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        if self.stop.is_set() {
            fitness.fill(f64::NAN);
            return;
        }
        if let Err(error) = Python::attach(|py| self.call(py, population, fitness)) {
            self.stop.set(Stop::Raised(error));
            fitness.fill(f64::NAN);
        }
    }
}

/// On the CUDA backend the function sees device tensors viewing the engine's population (DLPack).
impl DeviceRealProblem for PythonFitness {
    fn real_evaluator(&self, gpu: &evo_gpu_runtime::Gpu) -> Result<Box<dyn RealEvaluator>> {
        let (function, tensors) = Python::attach(|py| {
            (
                self.function.clone_ref(py),
                self.tensors.as_ref().map(|tensors| tensors.clone_ref(py)),
            )
        });
        Ok(Box::new(PythonEvaluator::new(
            gpu,
            &self.name,
            self.dimension(),
            function,
            tensors,
            self.stop.clone(),
        )?))
    }
}

impl DeviceProblem for PythonFitness {
    fn device_evaluation(&self, gpu: &evo_gpu_runtime::Gpu) -> Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Continuous(self.real_evaluator(gpu)?))
    }
}
