//! DE's ask/tell on the CUDA backend: the CUDA engine runs on a thread of its own with a device evaluator,
//! the [`DeviceRelay`], that hands `ask` a [`DeviceView`] of the rows it evaluates (the engine's own
//! buffer: the initial population, then each generation's trials) and reads `tell`'s fitness into the
//! engine's fitness buffer on the device. The engine does what it does with any device evaluation, so the
//! same seed and the same fitness give the CPU door's populations, bit for bit.
//!
//! One round, `n` rows of `D` genes:
//!
//! 1. The engine's thread sends the rows' device address; `ask` returns a [`DeviceView`] of it, whose
//!    `__dlpack__(stream=s)` orders the consumer's stream `s` after the engine's main stream.
//! 2. `tell(fitness)` takes a CUDA tensor on the engine's device through DLPack with
//!    `__dlpack__(stream=<engine's main stream>)` (the producer orders that stream after its work), or any
//!    host array (n finite values, copied up). The view stops exporting.
//! 3. The engine's thread copies the values into its fitness buffer on its main stream (`read_fitness.rs`;
//!    a host answer by a copy), queues the best-so-far update ([`BestSoFar`]), runs the rest of the
//!    generation and the next trials, and sends their address: `tell` returns once it has, so the next
//!    `ask` returns at once, and an error of the engine is raised by the `tell` that caused it.
//! 4. A device answer's memory must stay valid until the copy has run: it is released at the next `tell`,
//!    once the view asked in between ordered a consumer's stream after that copy (else after a wait for the
//!    engine's stream), or when the engine is dropped, after that wait.
//!
//! Device answers are not checked for NaN (as in every device evaluation of DE: a NaN trial never replaces
//! its parent); host answers are checked as on the CPU.

use evo_benchmarks::cuda::{EvalSettings, RealEvaluator};
use evo_core::{Bounds, ContinuousProblem, Error, Result};
use evo_de::{DeCuda, DeParams, DeviceEvaluation, DeviceProblem};
use evo_gpu_runtime::{DeviceBuffer, Gpu, StreamOrder};
use pyo3::exceptions::PyAttributeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use super::check_told;
use super::device_best::BestSoFar;
use crate::dlpack::DEVICE_CUDA;
use crate::dlpack_export::{DeviceView, ViewState};
use crate::dlpack_import::{Imported, Request, Vector};
use crate::errors::{to_py, value_error};
use crate::read_fitness::FitnessReader;

/// Where `tell`'s values are.
enum Told {
    /// Host values, checked.
    Host(Vec<f64>),
    /// A device vector of the engine's device, imported by `tell`.
    Device(Vector),
}

/// What the engine's thread sends: rows to evaluate, or why it stopped.
type Rows = std::result::Result<(u64, usize), PyErr>;

/// Why a round trip ended: the Python object was dropped, which ends the engine's thread.
fn dropped() -> Error {
    Error::invalid_parameter(
        "DE ask/tell",
        "answer",
        "none (the DeAskTell object was dropped)",
        "a tell for every ask",
    )
}

/// The engine's evaluator: one round trip with `ask`/`tell` per evaluation (module docs, steps 1 and 3).
struct DeviceRelay {
    dimension: usize,
    rows: SyncSender<Rows>,
    /// Locked for the whole round trip.
    answers: Mutex<Receiver<Told>>,
    reader: FitnessReader,
    best: Arc<Mutex<BestSoFar>>,
}

impl RealEvaluator for DeviceRelay {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        _settings: EvalSettings,
    ) -> Result<()> {
        let answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        self.rows
            .send(Ok((population.device_address(), fitness.len())))
            .map_err(|_| dropped())?;
        match answers.recv().map_err(|_| dropped())? {
            Told::Host(values) => fitness.copy_from_host(&values)?,
            // SAFETY: `tell` imported the vector with the main stream ordered after its producer's work,
            // checked it holds `fitness.len()` values on this device, and keeps it alive until this copy
            // has run (module docs, step 4).
            Told::Device(vector) => unsafe { self.reader.read(vector, fitness)? },
        }
        self.best
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .update(fitness, population)
    }
}

/// The box of the run, evaluated on the device through the relay.
struct RelayProblem {
    bounds: Bounds,
    /// Taken by the engine's one call of `device_evaluation`.
    relay: Mutex<Option<DeviceRelay>>,
}

impl ContinuousProblem for RelayProblem {
    fn name(&self) -> &str {
        "ask/tell"
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    /// The CUDA engine evaluates through the relay only; a host evaluation has no answer to give, and NaN
    /// is what every engine refuses.
    fn evaluate(&self, _x: &[f32]) -> f64 {
        f64::NAN
    }
}

impl DeviceProblem for RelayProblem {
    fn device_evaluation(&self, _gpu: &Gpu) -> Result<DeviceEvaluation> {
        let relay = self
            .relay
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "DE ask/tell",
                    "device evaluations",
                    "a second one",
                    "one per engine",
                )
            })?;
        Ok(DeviceEvaluation::Continuous(Box::new(relay)))
    }
}

/// The last device answer and the state of the view asked after it, if any yet.
type Pending = (Imported, Option<Arc<ViewState>>);

/// The rows asked last.
struct Asked {
    view: Py<DeviceView>,
    rows: usize,
}

/// The Python side of DE's ask/tell on the CUDA backend (module docs).
pub struct DeviceDoor {
    gpu: Gpu,
    /// The event that orders a consumer's stream after the engine's, reused for every view.
    order: Arc<StreamOrder>,
    dimension: usize,
    from_engine: Mutex<Receiver<Rows>>,
    to_engine: SyncSender<Told>,
    /// The rows the engine sent and `ask` has not returned yet.
    next: Option<Rows>,
    asked: Option<Asked>,
    /// The last device answer and the state of the view asked after it (step 4); in a mutex because a
    /// pyclass is shared between threads and the producer's tensor is not.
    pending: Mutex<Option<Pending>>,
    /// A device answer's `__dlpack__` arguments on the main stream, made at the first device `tell` and
    /// reused by every later one.
    request: PyOnceLock<Request>,
    best: Arc<Mutex<BestSoFar>>,
    pub generation: u64,
    pub evaluations: u64,
}

impl DeviceDoor {
    /// DE with `params` on `bounds` from `seed` on CUDA device `device`, its engine started on a thread of
    /// its own (built there; its errors come with the first `ask`).
    ///
    /// # Errors
    /// [`Error::NoGpu`] and the other errors of opening the device, compiling the two small kernels,
    /// creating the ordering event and allocating the best row.
    pub fn start(params: DeParams, bounds: Bounds, seed: u64, device: usize) -> Result<Self> {
        let gpu = Gpu::open(device)?;
        let dimension = bounds.dimension();
        let best = Arc::new(Mutex::new(BestSoFar::new(&gpu, dimension)?));
        let (rows_tx, rows_rx) = sync_channel::<Rows>(1);
        let (told_tx, told_rx) = sync_channel::<Told>(1);
        let relay = DeviceRelay {
            dimension,
            rows: rows_tx.clone(),
            answers: Mutex::new(told_rx),
            reader: FitnessReader::new(&gpu)?,
            best: Arc::clone(&best),
        };
        let order = Arc::new(StreamOrder::new(&gpu)?);
        let engine_gpu = gpu.clone();
        thread::spawn(move || {
            let problem = RelayProblem {
                bounds,
                relay: Mutex::new(Some(relay)),
            };
            let failure = match DeCuda::new(params, problem, seed, &engine_gpu) {
                Ok(mut engine) => loop {
                    if let Err(error) = evo_core::Engine::step(&mut engine) {
                        break error;
                    }
                },
                Err(error) => error,
            };
            // Nobody listens any more when the Python object was dropped; that is the normal end.
            let _ = rows_tx.send(Err(to_py(failure)));
        });
        Ok(Self {
            gpu,
            order,
            dimension,
            from_engine: Mutex::new(rows_rx),
            to_engine: told_tx,
            next: None,
            asked: None,
            pending: Mutex::new(None),
            request: PyOnceLock::new(),
            best,
            generation: 0,
            evaluations: 0,
        })
    }

    /// The device's name as the backends write it.
    pub fn backend(&self) -> String {
        format!("cuda:{}", self.gpu.index())
    }

    /// The next rows the engine sends (waiting for it without the GIL).
    fn receive(&self, py: Python<'_>) -> Rows {
        let receiver = &self.from_engine;
        py.detach(|| {
            receiver
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv()
                .unwrap_or_else(|_| Err(value_error("the DE engine's thread has stopped")))
        })
    }

    /// Step 1: a view of the next rows.
    pub fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, DeviceView>> {
        if self.asked.is_some() {
            return Err(value_error(
                "ask: the last population has not been told its fitness; call tell(fitness) first",
            ));
        }
        let (address, rows) = match self.next.take() {
            Some(rows) => rows,
            None => self.receive(py),
        }?;
        let view = DeviceView::cuda(Arc::clone(&self.order), address, rows, self.dimension);
        let state = view.state();
        let view = Bound::new(py, view)?;
        if let Some((_, after)) = self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
        {
            *after = Some(Arc::clone(&state));
        }
        self.asked = Some(Asked {
            view: view.clone().unbind(),
            rows,
        });
        Ok(view)
    }

    /// Steps 2 and 3: the fitness of the rows asked last.
    pub fn tell(&mut self, py: Python<'_>, fitness: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(n) = self.asked.as_ref().map(|asked| asked.rows) else {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        };
        let (told, imported) = self.import(fitness, n)?;
        self.release_pending(py)?;
        if let Some(asked) = self.asked.take() {
            asked.view.get().invalidate();
        }
        *self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = imported.map(|answer| (answer, None));
        self.to_engine
            .send(told)
            .map_err(|_| value_error("tell: the engine has stopped"))?;
        // The first tell is the initial population's; each later one completes a generation.
        if self.evaluations > 0 {
            self.generation += 1;
        }
        self.evaluations += n as u64;
        // Step 3: the engine has queued the copy once it sends the next rows (or its error).
        match self.receive(py) {
            Ok(rows) => {
                self.next = Some(Ok(rows));
                Ok(())
            }
            Err(error) => Err(error),
        }
    }

    /// `fitness` as the engine reads it: a device vector of `n` values on the engine's device (kept in the
    /// returned `Imported`), or `n` finite host values.
    fn import(&self, fitness: &Bound<'_, PyAny>, n: usize) -> PyResult<(Told, Option<Imported>)> {
        let py = fitness.py();
        // One lookup of an interned name, where hasattr and a call by name made two and two strings.
        let device = match fitness.getattr(intern!(py, "__dlpack_device__")) {
            Ok(device) => Some(device),
            Err(error) if error.is_instance_of::<PyAttributeError>(py) => None,
            Err(error) => return Err(error),
        };
        if let Some(device) = device {
            let (device_type, device_id): (i32, i32) = device.call0()?.extract()?;
            if device_type == DEVICE_CUDA {
                if usize::try_from(device_id).ok() != Some(self.gpu.index()) {
                    return Err(value_error(format!(
                        "tell: the fitness is on cuda:{device_id}; the engine runs on cuda:{} and reads it \
                         from there",
                        self.gpu.index()
                    )));
                }
                let request = self.request.get_or_try_init(py, || {
                    Request::on_stream_handle(py, self.gpu.main_stream_handle())
                })?;
                let imported = Imported::take_with(fitness, request)?;
                let vector = imported.vector(n, "tell: expected")?;
                return Ok((Told::Device(vector), Some(imported)));
            }
        }
        let values: Vec<f64> = fitness.extract()?;
        check_told(&values, n)?;
        Ok((Told::Host(values), None))
    }

    /// Releases the previous device answer (step 4): its copy was queued before the rows asked since, so a
    /// consumer stream ordered after those rows is ordered after the copy; otherwise the engine's stream is
    /// waited for first.
    fn release_pending(&mut self, py: Python<'_>) -> PyResult<()> {
        let pending = self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some((answer, after)) = pending else {
            return Ok(());
        };
        if !after.is_some_and(|state| state.ordered_a_consumer()) {
            let stream = self.gpu.stream();
            py.detach(|| stream.synchronize()).map_err(to_py)?;
        }
        drop(answer);
        Ok(())
    }

    /// The best row told so far and its fitness (a wait for the engine's stream).
    pub fn best(&self, py: Python<'_>) -> PyResult<Option<(Vec<f32>, f64)>> {
        let best = &self.best;
        py.detach(|| best.lock().unwrap_or_else(PoisonError::into_inner).read())
            .map_err(to_py)
    }
}

impl Drop for DeviceDoor {
    /// Releases the last device answer once the engine's stream has copied it (step 4), and makes a view
    /// still waiting for its tell refuse exports: the engine frees its buffers when its thread ends.
    fn drop(&mut self) {
        if let Some(asked) = self.asked.take() {
            asked.view.get().invalidate();
        }
        let pending = self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((answer, _)) = pending {
            // A failed wait means a failed device, whose memory went with it; nobody is left to tell.
            let _ = self.gpu.stream().synchronize();
            drop(answer);
        }
    }
}
