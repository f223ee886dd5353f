//! A Python fitness function on the CUDA backend: each evaluation hands the function the engine's device
//! population through DLPack (no copy) and reads its answer back through DLPack on the device.
//!
//! One evaluation of `n` rows of `D` genes, on the engine's thread with the GIL taken:
//!
//! 1. A [`DeviceView`] of the engine's `n × D` `float32` buffer is made and, unless the run asked for bare
//!    views, converted by the run's tensor function (`torch.from_dlpack`, `cupy.from_dlpack`): the
//!    consumer's `__dlpack__(stream=s)` call orders its stream `s` after the engine's main stream (one
//!    event of the evaluator, recorded again for every call: no event is created per generation).
//! 2. The function is called with the tensor and returns `n` values: a CUDA tensor on the engine's device, or
//!    any host array (NumPy, a CPU tensor, a list).
//! 3. A device answer is taken over with `__dlpack__(stream=…)` so that the engine's stream is ordered after
//!    the producer's work, and `evogpu_read_fitness` copies (widening `float32`) its values into the
//!    engine's fitness buffer on that stream. When the conversion ordered the legacy default stream (the
//!    current stream of PyTorch and CuPy unless the caller chose another), the answer is asked for on that
//!    stream, where the producer's work already is (so it orders nothing), and the evaluator's event orders
//!    the main stream after it; otherwise it is asked for on the main stream and the producer orders it.
//!    One event wait each way per call, and none of them created anew. A host answer is copied up.
//! 4. The answer's memory must stay valid until that kernel has run; rather than wait for it on the host,
//!    the answer is released after the next call of the function, whose import of the next view ordered
//!    the consumer's stream (where its allocator would reuse that memory) after the kernel, or when the run
//!    ends, after a wait for the engine's stream.
//!
//! The view is valid during the call only: it refuses exports afterwards, and a tensor of it still alive
//! once the function's answer has been released (kept in a global, say) ends the run with a `ValueError`,
//! since the engine overwrites that memory in the next generation and frees it at the end.
//!
//! The answers are not checked for NaN on the device (as for every device evaluation of DE: a NaN trial
//! never replaces its parent); MA-SW-Chains checks the values it reads back.

use evo_benchmarks::cuda::{EvalSettings, RealEvaluator};
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LEGACY_DEFAULT_STREAM, StreamOrder};
use pyo3::exceptions::{PyAttributeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::sync::{Arc, Mutex, PoisonError};

use crate::dlpack::{DEVICE_CPU, DEVICE_CUDA};
use crate::dlpack_export::{DeviceView, ViewState};
use crate::dlpack_import::{Imported, Request};
use crate::read_fitness::FitnessReader;
use crate::watch::{Stop, StopSlot};

/// `kDLCUDAHost`: pinned host memory.
const DEVICE_CUDA_HOST: i32 = 3;

/// The legacy default stream's handle as the protocol's `stream` argument (a Python int).
const LEGACY_HANDLE: i64 = 1;
const _: () = assert!(LEGACY_HANDLE as u64 == LEGACY_DEFAULT_STREAM);

/// The last answer, kept until its read has been ordered before any reuse of its memory (module docs).
struct Pending {
    answer: Option<Imported>,
    view: Arc<ViewState>,
}

/// The evaluator of a Python function on the CUDA backend (module docs).
pub struct PythonEvaluator {
    gpu: Gpu,
    name: String,
    dimension: usize,
    function: Py<PyAny>,
    tensors: Option<Py<PyAny>>,
    stop: StopSlot,
    reader: FitnessReader,
    /// The event that orders streams of the consumer and the engine, reused for every call.
    order: Arc<StreamOrder>,
    pending: Mutex<Option<Pending>>,
    /// The answer's `__dlpack__` arguments on the legacy default stream, on the main stream (the same stream
    /// for the evaluator's life: no engine records a graph around a Python evaluation) and for a host
    /// answer, each made at its first use and reused by every later call.
    requests: Requests,
}

/// The `__dlpack__` arguments of the answers, one set per stream an answer is asked for on.
struct Requests {
    legacy: PyOnceLock<Request>,
    main: PyOnceLock<Request>,
    host: PyOnceLock<Request>,
}

impl PythonEvaluator {
    /// The evaluator of `function` on `gpu`, its population converted by `tensors` (or handed over as
    /// [`DeviceView`]s when `None`); exceptions are recorded in `stop`.
    ///
    /// # Errors
    /// NVRTC and driver errors of the small read-back kernel and of the ordering event.
    pub fn new(
        gpu: &Gpu,
        name: &str,
        dimension: usize,
        function: Py<PyAny>,
        tensors: Option<Py<PyAny>>,
        stop: StopSlot,
    ) -> Result<Self> {
        Ok(Self {
            gpu: gpu.clone(),
            name: name.to_string(),
            dimension,
            function,
            tensors,
            stop,
            reader: FitnessReader::new(gpu)?,
            order: Arc::new(StreamOrder::new(gpu)?),
            pending: Mutex::new(None),
            requests: Requests {
                legacy: PyOnceLock::new(),
                main: PyOnceLock::new(),
                host: PyOnceLock::new(),
            },
        })
    }

    /// Releases the previous answer and checks that no tensor of its population outlived it.
    fn release_previous(&self) -> PyResult<()> {
        let previous = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(previous) = previous else {
            return Ok(());
        };
        drop(previous.answer);
        kept_alive(&previous.view)
    }

    /// Steps 1–3 of the module docs for `n` rows.
    fn call(
        &self,
        py: Python<'_>,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
    ) -> PyResult<()> {
        let n = fitness.len();
        let view = DeviceView::cuda(
            Arc::clone(&self.order),
            population.device_address(),
            n,
            self.dimension,
        );
        let state = view.state();
        let view = Bound::new(py, view)?;
        let argument = match &self.tensors {
            Some(convert) => convert.bind(py).call1((&view,))?,
            None => view.clone().into_any(),
        };
        // The stream the conversion (before the function ran, in the caller's context) ordered.
        let consumer = state.last_consumer_stream();
        let answer = self.function.bind(py).call1((&argument,));
        drop(argument);
        view.get().invalidate();
        let answer = answer?;
        self.release_previous()?;
        let (answer, device) = match answer.getattr(intern!(py, "__dlpack_device__")) {
            Ok(device) => (answer, device),
            Err(error) if error.is_instance_of::<PyAttributeError>(py) => {
                let answer = crate::arrays::contiguous(&answer, intern!(py, "float64"))?;
                let device = answer.getattr(intern!(py, "__dlpack_device__"))?;
                (answer, device)
            }
            Err(error) => return Err(error),
        };
        let (device_type, device_id): (i32, i32) = device.call0()?.extract()?;
        let kept = match device_type {
            DEVICE_CUDA => {
                if usize::try_from(device_id).ok() != Some(self.gpu.index()) {
                    return Err(PyValueError::new_err(format!(
                        "the fitness function returned a tensor on cuda:{device_id}; the engine runs on \
                         cuda:{} and reads its fitness from there",
                        self.gpu.index()
                    )));
                }
                let imported = self.import_device(&answer, consumer)?;
                let vector = imported.vector(n, "the fitness function must return")?;
                // SAFETY: the vector holds `n` values of the producer's tensor, alive until `Pending`
                // releases it after the read has been ordered before any reuse; `import_device` ordered
                // the main stream after the producer's work.
                unsafe { self.reader.read(vector, fitness) }.map_err(crate::errors::to_py)?;
                Some(imported)
            }
            DEVICE_CPU | DEVICE_CUDA_HOST => {
                let request = self
                    .requests
                    .host
                    .get_or_try_init(py, || Request::new(py, None))?;
                let values = Imported::take_with(&answer, request)?
                    .host_values(n, "the fitness function must return")?;
                fitness
                    .copy_from_host(&values)
                    .map_err(crate::errors::to_py)?;
                None
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "the fitness function returned an array on DLPack device type {other}; return a CUDA \
                     tensor on the engine's device or a host array"
                )));
            }
        };
        *self.pending.lock().unwrap_or_else(PoisonError::into_inner) = Some(Pending {
            answer: kept,
            view: state,
        });
        Ok(())
    }

    /// Takes over a device answer with the main stream ordered after the producer's work (step 3).
    ///
    /// When the conversion ordered the legacy default stream (PyTorch's and CuPy's default current
    /// stream), the answer is asked for on that stream, which the producer then need not order (its work
    /// is there already: no event of its own), and the engine's reused event orders the main stream after
    /// it. Any other stream is asked for as the main stream itself, so the producer orders it: a stream
    /// handle seen during the conversion may be gone by now, the legacy default stream never is.
    fn import_device(
        &self,
        answer: &Bound<'_, PyAny>,
        consumer: Option<u64>,
    ) -> PyResult<Imported> {
        let py = answer.py();
        if consumer == Some(LEGACY_DEFAULT_STREAM) {
            let request = self
                .requests
                .legacy
                .get_or_try_init(py, || Request::new(py, Some(LEGACY_HANDLE)))?;
            let imported = Imported::take_with(answer, request)?;
            // SAFETY: the legacy default stream's special handle names the current context's stream.
            unsafe { self.order.order_main_after(LEGACY_DEFAULT_STREAM) }
                .map_err(crate::errors::to_py)?;
            return Ok(imported);
        }
        let request = self.requests.main.get_or_try_init(py, || {
            Request::on_stream_handle(py, self.gpu.main_stream_handle())
        })?;
        Imported::take_with(answer, request)
    }
}

/// A `ValueError` when tensors of a population view are still alive.
fn kept_alive(view: &ViewState) -> PyResult<()> {
    match view.exports() {
        0 => Ok(()),
        alive => Err(PyValueError::new_err(format!(
            "the fitness function kept {alive} tensor(s) of the population alive after it returned; they \
             view the engine's device memory, which the next generation overwrites: copy what you keep \
             (x.clone()) during the call"
        ))),
    }
}

impl RealEvaluator for PythonEvaluator {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let expected = fitness.len().checked_mul(self.dimension);
        if expected != Some(population.len()) {
            return Err(Error::invalid_parameter(
                "Python fitness",
                "population length",
                population.len(),
                format!("{} rows of {} genes", fitness.len(), self.dimension),
            ));
        }
        Python::attach(|py| self.call(py, population, fitness)).map_err(|error| {
            self.stop.set(Stop::Raised(error));
            Error::ProblemPanicked {
                problem: self.name.clone(),
                message: "the Python fitness function raised an exception (minimize raises it)"
                    .to_string(),
            }
        })
    }
}

impl Drop for PythonEvaluator {
    /// Releases the last answer once the engine's stream has read it (step 4 of the module docs).
    fn drop(&mut self) {
        let pending = self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(pending) = pending else {
            return;
        };
        if let Err(error) = self.gpu.stream().synchronize() {
            // The device failed: its memory is gone with it, and the error is the run's to report.
            self.stop.set(Stop::Raised(crate::errors::to_py(error)));
        }
        Python::attach(|_| {
            drop(pending.answer);
            if let Err(error) = kept_alive(&pending.view) {
                self.stop.set(Stop::Raised(error));
            }
        });
    }
}
