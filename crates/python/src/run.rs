//! One `minimize` call: the algorithm's `Run` builder with the Python watch, driven without the GIL.

use evo_benchmarks::GaProblem;
use evo_core::{Backend, Bits, Checkpointing, HistoryPoint, Report, Termination};
use pyo3::prelude::*;
use std::collections::BTreeMap;

use crate::callable::PythonFitness;
use crate::errors::{to_py, value_error};
use crate::problems::Builtin;
use crate::watch::{PythonWatch, StopSlot};

/// The algorithms `minimize` runs, by their names in the `evo` command.
pub const ALGORITHMS: &str = "de, ma-sw-chains, ga, dpga, qiga, sga";

/// What the run minimises: a built-in problem or a Python function over the population.
pub enum Fitness {
    /// A built-in problem.
    Builtin(Builtin),
    /// A Python function on a box (DE and MA-SW-Chains, NumPy arrays on the CPU, DLPack tensors on the GPU).
    Python(PythonFitness),
    /// A `UserProblem`'s CUDA source (DE and MA-SW-Chains; its Python twin on the CPU).
    Source(crate::user_source::SourceProblem),
}

/// Everything of a run besides the algorithm's parameters and the problem.
pub struct Settings {
    /// The Philox seed.
    pub seed: u64,
    /// The backend asked for.
    pub backend: Backend,
    /// The generation limit, if any.
    pub max_generations: Option<u64>,
    /// The evaluation limit, if any.
    pub max_evaluations: Option<u64>,
    /// A history point every this many generations.
    pub history_every: u64,
    /// Checkpoints, resumed from when the file exists.
    pub checkpoint: Option<Checkpointing>,
    /// The user's callback.
    pub callback: Option<Py<PyAny>>,
    /// Where the watch and the Python fitness record why they stopped the run, with the run's stop token.
    pub stop: StopSlot,
}

impl Settings {
    /// The stopping rules from the budget arguments, or `None` when neither was given.
    pub fn termination(&self) -> Option<Termination> {
        let mut rules = None;
        if let Some(max) = self.max_generations {
            rules = Some(Termination::new().with_max_generations(max));
        }
        if let Some(max) = self.max_evaluations {
            rules = Some(rules.unwrap_or_default().with_max_evaluations(max));
        }
        rules
    }

    /// The stopping rules, required by the algorithms without a budget of their own.
    fn required_termination(&self, algorithm: &str) -> PyResult<Termination> {
        self.termination().ok_or_else(|| {
            value_error(format!(
                "{algorithm} needs a budget: pass max_generations= or max_evaluations="
            ))
        })
    }
}

/// The best solution in the form `minimize` returns it.
pub enum Solution {
    /// Real genes (DE, MA-SW-Chains, DPGA).
    Reals(Vec<f32>),
    /// Bits (the GA).
    Bits(Vec<bool>),
}

/// A finished run, ready to become a Python result.
pub struct Outcome {
    /// The algorithm's name.
    pub algorithm: String,
    /// The best solution.
    pub x: Solution,
    /// Its fitness.
    pub fun: f64,
    /// Evaluations, initialisation included.
    pub evaluations: u64,
    /// Generations completed.
    pub generations: u64,
    /// Wall time in seconds.
    pub wall_time_s: f64,
    /// The rule that ended the run.
    pub termination: String,
    /// The trajectory.
    pub history: Vec<HistoryPoint>,
    /// Backend, device, seed, problem...
    pub metadata: BTreeMap<String, String>,
}

impl Outcome {
    fn from_report<S>(report: Report<S>, x: impl FnOnce(S) -> Solution) -> Self {
        Self {
            algorithm: report.algorithm,
            x: x(report.best),
            fun: report.best_fitness,
            evaluations: report.evaluations,
            generations: report.generations,
            wall_time_s: report.wall_time_s,
            termination: report.termination.to_string(),
            history: report.history,
            metadata: report.metadata,
        }
    }
}

fn reals(report: Report<Vec<f32>>) -> Outcome {
    Outcome::from_report(report, Solution::Reals)
}

/// The outcome of a run whose solutions are bit strings.
pub fn bits(report: Report<Bits>) -> Outcome {
    Outcome::from_report(report, |bits| Solution::Bits(bits.to_bools()))
}

/// Attaches the run's stop token, the watch, the history cadence and the checkpoint to any crate's `Run`
/// builder (they are one generic `evo_core::RunBuilder`).
macro_rules! with_options {
    ($run:expr, $settings:expr) => {{
        let settings: Settings = $settings;
        // Ctrl-C reaches the run through Python's own handler (the watch), and every stop through the
        // run's token, never evo-core's process-wide interrupt flag, which would stop another thread's run.
        let mut run = $run
            .backend(settings.backend)
            .stop_token(settings.stop.token())
            .observer(PythonWatch::new(settings.callback, settings.stop))
            .history_every(settings.history_every);
        if let Some(checkpointing) = settings.checkpoint {
            run = run.checkpoint(checkpointing).resume_if_present(true);
        }
        run
    }};
}

/// Runs `algorithm` on `fitness`; called without the GIL.
///
/// # Errors
/// The crates' errors as evo-core errors; a problem the algorithm does not run as a `ValueError`.
pub fn run(algorithm: Algorithm, fitness: Fitness, settings: Settings) -> PyResult<Outcome> {
    match algorithm {
        Algorithm::De(params) => de(params, fitness, settings),
        Algorithm::Ma(params) => ma(params, fitness, settings),
        Algorithm::Ga(params) => ga(params, fitness, settings),
        Algorithm::Dpga(params) => dpga(params, fitness, settings),
        Algorithm::Knapsack(algorithm) => crate::knapsack::run(algorithm, fitness, settings),
    }
}

/// An algorithm with its validated parameters.
pub enum Algorithm {
    /// `de`.
    De(evo_de::DeParams),
    /// `ma-sw-chains`.
    Ma(evo_ma_sw_chains::MaParams),
    /// `ga`.
    Ga(evo_ga::GaParams),
    /// `dpga`.
    Dpga(evo_dpga::DpgaParams),
    /// `qiga` or `sga`.
    Knapsack(crate::knapsack::KnapsackAlgorithm),
}

fn refuse(algorithm: &str, problem: &str, accepts: &str) -> PyErr {
    value_error(format!(
        "{algorithm} does not run `{problem}` problems; it runs {accepts}"
    ))
}

fn de(params: evo_de::DeParams, fitness: Fitness, settings: Settings) -> PyResult<Outcome> {
    fn on<P: evo_de::DeviceProblem + Send>(
        params: evo_de::DeParams,
        problem: P,
        settings: Settings,
    ) -> PyResult<Outcome> {
        let termination = settings.required_termination("de")?;
        let seed = settings.seed;
        let run = evo_de::Run::new(params, problem, seed).termination(termination);
        with_options!(run, settings).run().map(reals).map_err(to_py)
    }
    match fitness {
        Fitness::Python(problem) => on(params, problem, settings),
        Fitness::Source(problem) => on(params, problem, settings),
        Fitness::Builtin(Builtin::Rastrigin(problem)) => on(params, problem, settings),
        Fitness::Builtin(Builtin::Shifted(problem)) => on(params, problem, settings),
        Fitness::Builtin(Builtin::Cec2010(problem)) => on(params, *problem, settings),
        Fitness::Builtin(Builtin::Etc(problem)) => on(params, *problem, settings),
        Fitness::Builtin(Builtin::Ga {
            function,
            variables,
        }) => on(
            params,
            GaProblem::new(function, variables).map_err(to_py)?,
            settings,
        ),
        Fitness::Builtin(other) => Err(refuse(
            "de",
            other.syntax(),
            "rastrigin, shifted-*, cec2010, ga, etc and Python functions",
        )),
    }
}

fn ma(
    params: evo_ma_sw_chains::MaParams,
    fitness: Fitness,
    settings: Settings,
) -> PyResult<Outcome> {
    fn on<P: evo_benchmarks::cuda::DeviceRealProblem>(
        params: evo_ma_sw_chains::MaParams,
        problem: &P,
        settings: Settings,
    ) -> PyResult<Outcome> {
        // MA-SW-Chains' budget is a parameter (its engine stands still past it), so the evaluation limit
        // goes there; a generation limit is an extra rule.
        let params = match settings.max_evaluations {
            Some(max) => params.with_max_evaluations(max).map_err(to_py)?,
            None => params,
        };
        let mut run = evo_ma_sw_chains::Run::new(params, problem, settings.seed);
        if let Some(max) = settings.max_generations {
            run = run.termination(Termination::new().with_max_generations(max));
        }
        with_options!(run, settings).run().map(reals).map_err(to_py)
    }
    let problem = match fitness {
        Fitness::Builtin(problem) => problem,
        Fitness::Python(problem) => return on(params, &problem, settings),
        Fitness::Source(problem) => return on(params, &problem, settings),
    };
    match problem {
        Builtin::Rastrigin(problem) => on(params, &problem, settings),
        Builtin::Shifted(problem) => on(params, &problem, settings),
        Builtin::Cec2010(problem) => on(params, problem.as_ref(), settings),
        Builtin::Ga {
            function,
            variables,
        } => on(
            params,
            &GaProblem::new(function, variables).map_err(to_py)?,
            settings,
        ),
        other => Err(refuse(
            "ma-sw-chains",
            other.syntax(),
            "rastrigin, shifted-*, cec2010 and ga",
        )),
    }
}

fn ga(params: evo_ga::GaParams, fitness: Fitness, settings: Settings) -> PyResult<Outcome> {
    fn on<P: evo_ga::DeviceBitProblem + Send + 'static>(
        params: evo_ga::GaParams,
        problem: P,
        settings: Settings,
    ) -> PyResult<Outcome> {
        let mut run = evo_ga::Run::new(params, problem, settings.seed);
        // Without a budget argument the GA runs its parameters' generation count.
        if let Some(termination) = settings.termination() {
            run = run.termination(termination);
        }
        with_options!(run, settings).run().map(bits).map_err(to_py)
    }
    match fitness {
        Fitness::Builtin(Builtin::Ga {
            function,
            variables,
        }) => on(
            params,
            evo_ga::PaperFunction::new(function, variables).map_err(to_py)?,
            settings,
        ),
        // Knapsack has no device kernel: the CUDA engine evaluates it on the host, as the CPU engine does.
        Fitness::Builtin(Builtin::Knapsack(problem)) => {
            on(params, evo_ga::HostEvaluated::new(problem), settings)
        }
        Fitness::Builtin(other) => Err(refuse("ga", other.syntax(), "ga and knapsack")),
        Fitness::Source(_) => Err(value_error(
            "ga runs bit strings; a UserProblem runs with algorithm=\"de\" or \"ma-sw-chains\"",
        )),
        Fitness::Python(_) => Err(value_error(
            "ga runs built-in problems only; a Python function runs with algorithm=\"de\" or \"ma-sw-chains\"",
        )),
    }
}

fn dpga(params: evo_dpga::DpgaParams, fitness: Fitness, settings: Settings) -> PyResult<Outcome> {
    let Fitness::Builtin(Builtin::Cec2006(problem)) = fitness else {
        return Err(value_error("dpga runs cec2006:gNN problems only"));
    };
    let termination = settings.required_termination("dpga")?;
    let run = evo_dpga::Run::new(params, problem, settings.seed).termination(termination);
    with_options!(run, settings).run().map(reals).map_err(to_py)
}
