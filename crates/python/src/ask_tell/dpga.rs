//! `evogpu.DpgaAskTell`: DPGA's CPU engine fed by ask/tell.
//!
//! DPGA evaluates twice per generation (the main population's offspring, then the crossbred children
//! bred from the best of them), and its initialisation draws batches until enough are feasible, so which
//! points come next depends on the values told. The engine is run as it is, on a problem that answers from
//! the values told so far ([`Memo`]): a pass that meets a point without a value is undone (the engine's
//! snapshot is restored, or the engine is built again during the initialisation), the first batch it lacked
//! is asked, and the pass runs again once it is told. The last pass of each generation meets told values
//! only, so the engine computes exactly what it computes with a problem that returns those values.

use evo_core::{Bounds, ConstrainedProblem, Engine};
use evo_dpga::{DpgaCpu, DpgaParams, Initialisation};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::errors::{to_py, value_error};

/// A told point's objective and constraint values (inequalities, then equalities).
struct Told {
    objective: f64,
    constraints: Vec<f64>,
}

/// What a pass of the engine met: the values told in this generation, keyed by the point's `f32` bits, and
/// the points without one, with the index of the evaluation that met them.
#[derive(Default)]
struct Memory {
    told: Mutex<HashMap<Vec<u32>, Told>>,
    evaluations: AtomicUsize,
    missing: Mutex<Vec<(usize, Vec<f32>)>>,
}

/// The problem the engine runs on: the user's box and constraint counts, its values from [`Memory`].
#[derive(Clone)]
struct Memo {
    bounds: Bounds,
    inequalities: usize,
    equalities: usize,
    tolerance: f64,
    memory: Arc<Memory>,
}

fn key(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

impl Memo {
    /// Forgets the last pass's evaluations and missing points before the next pass.
    fn start_pass(&self) {
        self.memory.evaluations.store(0, Ordering::SeqCst);
        lock(&self.memory.missing).clear();
    }

    /// The missing points of the first batch the pass lacked (later batches were bred from placeholder
    /// values and are discarded), in evaluation order; empty when the pass met told values only.
    fn first_missing_batch(&self, batch_of: impl Fn(usize) -> (usize, usize)) -> Vec<Vec<f32>> {
        let mut missing = std::mem::take(&mut *lock(&self.memory.missing));
        missing.sort_by_key(|(evaluation, _)| *evaluation);
        let Some(&(first, _)) = missing.first() else {
            return Vec::new();
        };
        let (start, end) = batch_of(first);
        let mut seen = std::collections::HashSet::new();
        missing
            .into_iter()
            .filter(|(evaluation, x)| (start..end).contains(evaluation) && seen.insert(key(x)))
            .map(|(_, x)| x)
            .collect()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ConstrainedProblem for Memo {
    fn name(&self) -> &str {
        "ask/tell"
    }

    fn dimension(&self) -> usize {
        self.bounds.dimension()
    }

    fn bounds(&self) -> &Bounds {
        &self.bounds
    }

    fn inequality_count(&self) -> usize {
        self.inequalities
    }

    fn equality_count(&self) -> usize {
        self.equalities
    }

    fn equality_tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The told values of `x`; a point without them is recorded and gets placeholder zeros (the pass is
    /// undone).
    fn evaluate(&self, x: &[f32], inequality: &mut [f64], equality: &mut [f64]) -> f64 {
        let evaluation = self.memory.evaluations.fetch_add(1, Ordering::SeqCst);
        if let Some(told) = lock(&self.memory.told).get(&key(x)) {
            let (g, h) = told.constraints.split_at(self.inequalities);
            inequality.copy_from_slice(g);
            equality.copy_from_slice(h);
            return told.objective;
        }
        lock(&self.memory.missing).push((evaluation, x.to_vec()));
        inequality.fill(0.0);
        equality.fill(0.0);
        0.0
    }
}

/// DPGA driven one batch at a time: `ask()` gives the distinct points the DPGA needs evaluated next
/// (float64, shape (n, dimension)): the initial candidates (one batch of main_size, or several while the
/// feasible initialisation draws), then each generation's main offspring and its crossbred children, a point
/// repeated within a generation asked once. `tell(objective, constraints)` takes their objective (to
/// minimise) and constraint values, shape (n, inequalities + equalities): `g_i(x) <= 0` first, then
/// `h_j(x) = 0` (held within `equality_tolerance`). The same seed and values give the same run as the Rust
/// API's `DpgaCpu` and `minimize(algorithm="dpga")`. `DpgaAskTell(bounds, inequalities=0, equalities=0,
/// seed=0, options=None, equality_tolerance=1e-4)`, with `minimize`'s DPGA options. The engine runs on one
/// thread and replays the batches told before each new one: an initialisation that draws many batches (a
/// tiny feasible region, up to its 50 000 draws) costs time quadratic in their number;
/// `options={"initialisation": "random"}` draws one batch.
#[pyclass(module = "evogpu")]
pub struct DpgaAskTell {
    params: DpgaParams,
    seed: u64,
    memo: Memo,
    engine: Option<DpgaCpu<Memo>>,
    /// The next batch, found by the constructor or by `advance`, not yet asked.
    next: Option<Vec<Vec<f32>>>,
    asked: Option<Vec<Vec<f32>>>,
}

#[pymethods]
impl DpgaAskTell {
    /// DPGA on `bounds` with `inequalities` and `equalities` constraints, from `seed`, with `options`
    /// (`minimize`'s DPGA options) and the equality tolerance.
    #[new]
    #[pyo3(signature = (bounds, inequalities=0, equalities=0, seed=0, options=None,
        equality_tolerance=evo_core::problem::DEFAULT_EQUALITY_TOLERANCE))]
    fn new(
        bounds: Vec<(f64, f64)>,
        inequalities: usize,
        equalities: usize,
        seed: u64,
        options: Option<&Bound<'_, PyDict>>,
        equality_tolerance: f64,
    ) -> PyResult<Self> {
        if !(equality_tolerance.is_finite() && equality_tolerance >= 0.0) {
            return Err(value_error(format!(
                "DpgaAskTell: equality_tolerance must be finite and at least 0, got {equality_tolerance}"
            )));
        }
        let params = crate::params::dpga(options)?;
        let memo = Memo {
            bounds: crate::to_bounds(&bounds)?,
            inequalities,
            equalities,
            tolerance: equality_tolerance,
            memory: Arc::default(),
        };
        let mut engine = Self {
            params,
            seed,
            memo,
            engine: None,
            next: None,
            asked: None,
        };
        // The first pass checks the parameters and the box, so that bad ones fail here.
        engine.next = Some(engine.advance().map_err(to_py)?);
        Ok(engine)
    }

    /// The next points to evaluate, a float64 array of shape (n, dimension).
    fn ask<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.asked.is_some() {
            return Err(value_error(
                "ask: the last points have not been told their values; call tell(objective, constraints) first",
            ));
        }
        let rows = match self.next.take() {
            Some(rows) => rows,
            None => self.advance().map_err(to_py)?,
        };
        let dimension = self.memo.bounds.dimension();
        let flat: Vec<f64> = rows.iter().flatten().map(|&v| f64::from(v)).collect();
        let count = rows.len();
        self.asked = Some(rows);
        Ok(PyArray1::from_vec(py, flat)
            .reshape([count, dimension])?
            .into_any())
    }

    /// The values of the last asked points: `objective`, n finite values, and `constraints`, finite values
    /// of shape (n, inequalities + equalities) (None or empty without constraints).
    #[pyo3(signature = (objective, constraints=None))]
    fn tell(
        &mut self,
        objective: Vec<f64>,
        constraints: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let Some(rows) = self.asked.as_ref() else {
            return Err(value_error("tell: nothing was asked; call ask() first"));
        };
        let n = rows.len();
        if objective.len() != n {
            return Err(value_error(format!(
                "tell: expected {n} objective values, one per asked point, got {}",
                objective.len()
            )));
        }
        if let Some((i, value)) = objective.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(value_error(format!(
                "tell: objective[{i}] is {value}; every objective must be finite"
            )));
        }
        let width = self.memo.inequalities + self.memo.equalities;
        let constraints = self.constraint_rows(constraints, n, width)?;
        let mut told = lock(&self.memo.memory.told);
        for ((x, objective), constraints) in rows.iter().zip(objective).zip(constraints) {
            told.insert(
                key(x),
                Told {
                    objective,
                    constraints,
                },
            );
        }
        drop(told);
        self.asked = None;
        Ok(())
    }

    /// The best point so far (a float64 array), or None before the initial population is complete.
    #[getter]
    fn x<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        Ok(self.best_point()?.map(|(x, _)| PyArray1::from_vec(py, x)))
    }

    /// The best objective so far: that of the best point when it is feasible, inf until a feasible point
    /// is found; None before the initial population is complete.
    #[getter]
    fn fun(&self) -> PyResult<Option<f64>> {
        Ok(self.best_point()?.map(|(_, fitness)| fitness))
    }

    /// `(x, fun)`, or None before the initial population is complete.
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> PyResult<Option<(Bound<'py, PyArray1<f64>>, f64)>> {
        Ok(self
            .best_point()?
            .map(|(x, fitness)| (PyArray1::from_vec(py, x), fitness)))
    }

    /// Generations completed (0 until the initial population is complete and during the first
    /// generation).
    #[getter]
    fn generation(&self) -> u64 {
        self.engine
            .as_ref()
            .map_or(0, |engine| engine.progress().generation)
    }

    /// DPGA's evaluation count of the completed generations (every drawn or bred point, repeats
    /// included), as `minimize` reports it.
    #[getter]
    fn evaluations(&self) -> u64 {
        self.engine
            .as_ref()
            .map_or(0, |engine| engine.progress().evaluations)
    }

    /// The number of variables.
    #[getter]
    fn dimension(&self) -> usize {
        self.memo.bounds.dimension()
    }
}

impl DpgaAskTell {
    /// Runs passes of the engine until one lacks values, and returns the batch it lacked first. A pass
    /// that lacks none completes the initialisation or a generation; the values told for it are then
    /// forgotten and the next one starts.
    fn advance(&mut self) -> evo_core::Result<Vec<Vec<f32>>> {
        loop {
            self.memo.start_pass();
            match &mut self.engine {
                None => {
                    let engine =
                        DpgaCpu::new(self.params.clone(), self.memo.clone(), self.seed, 1)?;
                    let batch = self.memo.first_missing_batch(|e| self.initial_batch(e));
                    if !batch.is_empty() {
                        return Ok(batch);
                    }
                    self.engine = Some(engine);
                }
                Some(engine) => {
                    let before = engine.snapshot()?;
                    engine.step()?;
                    let m = self.params.main_size();
                    let children = self.params.crossbreed_size();
                    let batch = self
                        .memo
                        .first_missing_batch(|e| if e < m { (0, m) } else { (m, m + children) });
                    if !batch.is_empty() {
                        engine.restore(&before)?;
                        return Ok(batch);
                    }
                }
            }
            lock(&self.memo.memory.told).clear();
        }
    }

    /// The initialisation's batch holding evaluation `e`: batches of main_size draws, up to
    /// `init_max_draws` for the feasible initialisation (DpgaCpu's step 2).
    fn initial_batch(&self, e: usize) -> (usize, usize) {
        let m = self.params.main_size();
        let draws = match self.params.initialisation() {
            Initialisation::Feasible => {
                usize::try_from(self.params.init_max_draws()).unwrap_or(usize::MAX)
            }
            Initialisation::Random => m,
        };
        let start = e / m * m;
        (start, (start + m).min(draws))
    }

    /// The engine's best point and fitness, once the initial population is complete.
    fn best_point(&self) -> PyResult<Option<(Vec<f64>, f64)>> {
        let Some(engine) = &self.engine else {
            return Ok(None);
        };
        let (x, fitness) = engine.best().map_err(to_py)?;
        Ok(Some((x.iter().map(|&v| f64::from(v)).collect(), fitness)))
    }

    /// `constraints` as n rows of `width` finite values.
    fn constraint_rows(
        &self,
        constraints: Option<&Bound<'_, PyAny>>,
        n: usize,
        width: usize,
    ) -> PyResult<Vec<Vec<f64>>> {
        let Some(constraints) = constraints else {
            if width == 0 {
                return Ok(vec![Vec::new(); n]);
            }
            return Err(value_error(format!(
                "tell: constraints are required: shape ({n}, {width}), the inequalities then the equalities"
            )));
        };
        let shape_error = |got: String| {
            value_error(format!(
                "tell: constraints must have shape ({n}, {width}), one row per asked point (the {} inequalities \
                 then the {} equalities), got {got}",
                self.memo.inequalities, self.memo.equalities
            ))
        };
        let array =
            crate::arrays::contiguous(constraints, pyo3::intern!(constraints.py(), "float64"))?;
        let array = array.cast_into::<PyArray2<f64>>().map_err(|array| {
            shape_error(format!(
                "an array of {} dimensions",
                array
                    .into_inner()
                    .getattr("ndim")
                    .map_or(0, |d| d.extract::<usize>().unwrap_or(0))
            ))
        })?;
        if array.shape() != [n, width] {
            return Err(shape_error(format!("{:?}", array.shape())));
        }
        if width == 0 {
            return Ok(vec![Vec::new(); n]);
        }
        let values = array.readonly().as_slice()?.to_vec();
        if let Some((i, value)) = values.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(value_error(format!(
                "tell: constraints[{}, {}] is {value}; every constraint value must be finite",
                i / width,
                i % width
            )));
        }
        Ok(values.chunks(width).map(<[f64]>::to_vec).collect())
    }
}
