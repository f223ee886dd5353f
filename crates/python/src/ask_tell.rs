//! Ask/tell for DE: the user evaluates each population wherever they like (a simulator, a cluster).
//!
//! DE's engines have no ask/tell API of their own; their problem is called once per generation with the
//! whole population. So the CPU engine runs on a thread of its own with a problem that hands each
//! population to `ask` and waits for `tell`'s fitness: the engine does exactly what it does in a run with a
//! Python fitness function, so the same seed and the same fitness give the same populations.

use evo_core::{Bounds, ContinuousProblem};
use evo_de::{DeCpu, DeviceEvaluation, DeviceProblem};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use crate::errors::{to_py, value_error};

/// A problem whose evaluation is a round trip through two channels.
struct Relay {
    bounds: Bounds,
    /// Populations to `ask`, fitness from `tell`.
    channels: Mutex<(SyncSender<Message>, Receiver<Vec<f64>>)>,
}

impl ContinuousProblem for Relay {
    fn name(&self) -> &str {
        "ask/tell"
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

    /// Sends the population and waits for its fitness. When the Python object is gone the channels are
    /// closed: the fitness stays NaN, the engine refuses it, and its thread ends.
    fn evaluate_batch(&self, population: &[f32], fitness: &mut [f64]) {
        fitness.fill(f64::NAN);
        let Ok(channels) = self.channels.lock() else {
            return;
        };
        if channels
            .0
            .send(Message::Population(population.to_vec()))
            .is_err()
        {
            return;
        }
        if let Ok(told) = channels.1.recv()
            && told.len() == fitness.len()
        {
            fitness.copy_from_slice(&told);
        }
    }
}

impl DeviceProblem for Relay {
    fn device_evaluation(&self, _gpu: &evo_gpu_runtime::Gpu) -> evo_core::Result<DeviceEvaluation> {
        Ok(DeviceEvaluation::Host)
    }
}

/// What `ask` receives from the engine's thread.
enum Message {
    /// A population to evaluate.
    Population(Vec<f32>),
    /// Why the engine stopped (its parameters were refused, or a step failed).
    Failed(PyErr),
}

/// DE driven one population at a time: `ask()` gives the population (float64, shape (population_size,
/// dimension)), `tell(fitness)` takes its fitness. The CPU engine runs on a thread of its own and waits for
/// each `tell`; the same seed and fitness give the same populations as `minimize` with a Python fitness
/// function. The first `ask` gives the initial population, every later one a generation's trial vectors.
/// `DeAskTell(bounds, seed=0, options=None, threads=0)`, with `minimize`'s DE options.
#[pyclass(module = "evogpu")]
pub struct DeAskTell {
    dimension: usize,
    population_size: usize,
    from_engine: Mutex<Receiver<Message>>,
    to_engine: Option<SyncSender<Vec<f64>>>,
    asked: Option<Vec<f32>>,
    generation: u64,
    evaluations: u64,
    best: Option<(Vec<f32>, f64)>,
}

#[pymethods]
impl DeAskTell {
    /// DE on `bounds` from `seed` with `options` (the keys of `minimize`'s DE options).
    #[new]
    #[pyo3(signature = (bounds, seed=0, options=None, threads=0))]
    fn new(
        bounds: Vec<(f64, f64)>,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
        threads: usize,
    ) -> PyResult<Self> {
        let params = crate::params::de(options)?;
        let bounds = crate::to_bounds(&bounds)?;
        let dimension = bounds.dimension();
        let population_size = params.population();
        let (fitness_tx, fitness_rx) = sync_channel::<Vec<f64>>(1);
        let (message_tx, message_rx) = sync_channel::<Message>(1);
        // Populations and the engine's failure travel on one channel, so `ask` sees either.
        let relay = Relay {
            bounds,
            channels: Mutex::new((message_tx.clone(), fitness_rx)),
        };
        thread::spawn(move || {
            let failure = match DeCpu::new(params, relay, seed, threads) {
                Ok(mut engine) => loop {
                    if let Err(error) = evo_core::Engine::step(&mut engine) {
                        break error;
                    }
                },
                Err(error) => error,
            };
            // Nobody listens any more when the Python object was dropped; that is the normal end.
            let _ = message_tx.send(Message::Failed(to_py(failure)));
        });
        Ok(Self {
            dimension,
            population_size,
            from_engine: Mutex::new(message_rx),
            to_engine: Some(fitness_tx),
            asked: None,
            generation: 0,
            evaluations: 0,
            best: None,
        })
    }

    /// The next population to evaluate, a float64 array of shape (population, dimension).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.asked.is_some() {
            return Err(value_error(
                "ask: the last population has not been told its fitness; call tell(fitness) first",
            ));
        }
        let receiver = &self.from_engine;
        let message = py.detach(|| {
            receiver
                .lock()
                .map_err(|_| value_error("ask: the engine's channel is unusable"))
                .and_then(|channel| {
                    channel
                        .recv()
                        .map_err(|_| value_error("ask: the engine has stopped"))
                })
        })?;
        let population = match message {
            Message::Population(population) => population,
            Message::Failed(error) => return Err(error),
        };
        let widened: Vec<f64> = population.iter().map(|&g| f64::from(g)).collect();
        self.asked = Some(population);
        Ok(PyArray1::from_vec(py, widened)
            .reshape([self.population_size, self.dimension])?
            .into_any())
    }

    /// The fitness of the last asked population: `population` finite values, one per row.
    fn tell(&mut self, fitness: Vec<f64>) -> PyResult<()> {
        let Some(population) = self.asked.as_ref() else {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        };
        if fitness.len() != self.population_size {
            return Err(value_error(format!(
                "tell: expected {} fitness values, one per row of the asked population, got {}",
                self.population_size,
                fitness.len()
            )));
        }
        if let Some((i, value)) = fitness.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(value_error(format!(
                "tell: fitness[{i}] is {value}; every fitness must be finite"
            )));
        }
        for (i, &value) in fitness.iter().enumerate() {
            if self.best.as_ref().is_none_or(|(_, best)| value < *best) {
                let row = population[i * self.dimension..(i + 1) * self.dimension].to_vec();
                self.best = Some((row, value));
            }
        }
        let sender = self
            .to_engine
            .as_ref()
            .ok_or_else(|| value_error("tell: the engine has stopped"))?;
        sender
            .send(fitness)
            .map_err(|_| value_error("tell: the engine has stopped"))?;
        self.asked = None;
        // The first tell is the initial population's; each later one completes a generation.
        if self.evaluations > 0 {
            self.generation += 1;
        }
        self.evaluations += self.population_size as u64;
        Ok(())
    }

    /// The best point told so far (a float64 array), or None before the first tell.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.best
            .as_ref()
            .map(|(x, _)| PyArray1::from_vec(py, x.iter().map(|&g| f64::from(g)).collect()))
    }

    /// The best fitness told so far, or None before the first tell.
    #[getter]
    fn fun(&self) -> Option<f64> {
        self.best.as_ref().map(|(_, f)| *f)
    }

    /// Generations completed (0 after the initial population is told).
    #[getter]
    fn generation(&self) -> u64 {
        self.generation
    }

    /// Fitness values told so far.
    #[getter]
    fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The number of rows of every asked population.
    #[getter]
    fn population_size(&self) -> usize {
        self.population_size
    }
}
