//! Builds the engine a configuration names and drives it with evo-core's executor.

use anyhow::{Context, Result, bail};
use evo_benchmarks::{GaProblem, Knapsack};
use evo_core::{
    BACKEND_REASON, Backend, BackendChoice, Checkpointing, DeviceSupport, Engine, Executor,
    GpuPresence, ProgressBarObserver, Report, Termination, TracingObserver, choose_backend,
};
use evo_gpu_runtime::Gpu;
use serde_json::Value;
use std::io::IsTerminal;

use crate::algorithm::Algorithm;
use crate::args::DisplayArgs;
use crate::params::AlgorithmParams;
use crate::problem::{self, Problem};
use crate::runfile::RunConfig;
use crate::spec::ProblemSpec;

/// How a session starts: afresh, or from the configured checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new run.
    Fresh,
    /// Continue the checkpoint of the configuration.
    Resume,
}

/// What the executor needs besides the engine.
struct Session<'a> {
    config: &'a RunConfig,
    termination: Termination,
    display: &'a DisplayArgs,
    start: Start,
    backend: Backend,
    /// Why the run takes `backend` (result.json's `backend_reason`).
    backend_reason: String,
    device: Option<String>,
}

/// Runs `config` and returns the report with the best solution as JSON.
///
/// # Errors
/// Configuration, problem, backend and engine errors; checkpoint errors on resume.
pub fn execute(config: &RunConfig, display: &DisplayArgs, start: Start) -> Result<Report<Value>> {
    let spec: ProblemSpec = config.problem.parse()?;
    problem::check_accepted(config.algorithm, &spec)?;
    let params = AlgorithmParams::from_value(config.algorithm, config.params.clone())?;
    let termination = config.budget.termination()?;
    let problem = problem::load(&spec)?;
    let choice = resolve_backend(config, &problem)?;
    let mut session = Session {
        config,
        termination,
        display,
        start,
        backend: choice.backend,
        backend_reason: choice.reason,
        device: None,
    };
    match params {
        AlgorithmParams::De(params) => de(params, problem, &mut session),
        AlgorithmParams::Ga(params) => ga(params, problem, &mut session),
        AlgorithmParams::Qiga(params) => qiga(&params, knapsack(problem)?, &mut session),
        AlgorithmParams::Sga(params) => sga(&params, knapsack(problem)?, &mut session),
        AlgorithmParams::Dpga(params) => dpga(params, problem, &mut session),
        AlgorithmParams::Ma(params) => ma(params, problem, &mut session),
    }
}

/// What the GA's CUDA engine needs that the command's problems other than `ga:fN:n` lack, quoted by
/// [`evo_core::Error::NoDeviceEvaluation`] and by `Backend::Auto`'s reason.
const GA_DEVICE_REMEDY: &str = "use a `ga:fN:n` problem (the command's GA evaluates only the GA paper's \
     functions on the device; from Rust, `evo_ga::HostEvaluated` gives any BinaryProblem to `evo_ga::Run`)";

/// Whether the CUDA engine the command builds for `algorithm` evaluates `problem`: every engine does for
/// every problem the command accepts, except the GA, which the command gives only the paper's functions.
fn device_support(algorithm: Algorithm, problem: &Problem) -> DeviceSupport {
    if algorithm == Algorithm::Ga && !matches!(problem, Problem::GaFunction { .. }) {
        DeviceSupport::Missing {
            remedy: GA_DEVICE_REMEDY,
        }
    } else {
        DeviceSupport::Evaluated
    }
}

/// The backend and the reason result.json records, by the rule of evo-core's `Run` builders
/// ([`choose_backend`]): `auto` takes the CPU for a problem without a device evaluation, else CUDA device 0
/// when the driver finds one, else the CPU on all cores; an explicit CUDA backend for a problem without a
/// device evaluation is [`evo_core::Error::NoDeviceEvaluation`] on every machine.
fn resolve_backend(config: &RunConfig, problem: &Problem) -> Result<BackendChoice> {
    config.backend.validate()?;
    Ok(choose_backend(
        config.algorithm.name(),
        config.backend,
        &config.problem,
        device_support(config.algorithm, problem),
        || GpuPresence::from_device_count(evo_gpu_runtime::device_count()),
    )?)
}

fn knapsack(problem: Problem) -> Result<Knapsack> {
    match problem {
        Problem::Knapsack(knapsack) => Ok(knapsack),
        _ => bail!("this algorithm runs knapsack:FILE problems only"),
    }
}

/// The CUDA device of a CUDA backend, opened, with its name recorded for the report.
fn open_gpu(session: &mut Session<'_>, device: usize) -> Result<Gpu> {
    let gpu = Gpu::open(device)?;
    session.device = Some(gpu.info().name.clone());
    Ok(gpu)
}

fn de(
    params: evo_de::DeParams,
    problem: Problem,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    fn on<P: evo_de::DeviceProblem + 'static>(
        params: evo_de::DeParams,
        problem: P,
        session: &mut Session<'_>,
    ) -> Result<Report<Value>> {
        let seed = session.config.seed;
        match session.backend {
            Backend::Cuda { device } => {
                let gpu = open_gpu(session, device)?;
                drive(evo_de::DeCuda::new(params, problem, seed, &gpu)?, session)
            }
            backend => drive(
                evo_de::DeCpu::for_backend(params, problem, seed, backend)?,
                session,
            ),
        }
    }
    match problem {
        Problem::Rastrigin(problem) => on(params, problem, session),
        Problem::Shifted(problem) => on(params, problem, session),
        Problem::Cec2010(problem) => on(params, *problem, session),
        Problem::GaFunction {
            function,
            variables,
        } => on(params, GaProblem::new(function, variables)?, session),
        Problem::Etc(problem) => on(params, *problem, session),
        Problem::Cec2006(_) | Problem::Knapsack(_) => {
            bail!("de runs continuous problems and etc:FILE")
        }
    }
}

fn ga(
    params: evo_ga::GaParams,
    problem: Problem,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    let seed = session.config.seed;
    let threads = session.backend.cpu_threads();
    match problem {
        Problem::GaFunction {
            function,
            variables,
        } => {
            let paper = evo_ga::PaperFunction::new(function, variables)?;
            match session.backend {
                Backend::Cuda { device } => {
                    let gpu = open_gpu(session, device)?;
                    drive(evo_ga::GaCuda::new(params, &paper, seed, &gpu)?, session)
                }
                _ => drive(
                    evo_ga::GaCpu::with_threads(params, paper, seed, threads)?,
                    session,
                ),
            }
        }
        Problem::Knapsack(knapsack) => drive(
            evo_ga::GaCpu::with_threads(params, knapsack, seed, threads)?,
            session,
        ),
        _ => bail!("ga runs ga:fN:n and knapsack:FILE problems"),
    }
}

fn qiga(
    params: &evo_qiga::QigaParams,
    problem: Knapsack,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    let seed = session.config.seed;
    match session.backend {
        Backend::Cuda { device } => {
            let gpu = open_gpu(session, device)?;
            drive(
                evo_qiga::QigaCuda::new(params, &problem, seed, &gpu)?,
                session,
            )
        }
        backend => drive(
            evo_qiga::QigaCpu::new(params, &problem, seed, backend.cpu_threads())?,
            session,
        ),
    }
}

fn sga(
    params: &evo_qiga::SgaParams,
    problem: Knapsack,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    let seed = session.config.seed;
    match session.backend {
        Backend::Cuda { device } => {
            let gpu = open_gpu(session, device)?;
            drive(
                evo_qiga::SgaCuda::batch(params, &problem, seed, 1, &gpu)?,
                session,
            )
        }
        backend => drive(
            evo_qiga::SgaCpu::batch(params, &problem, seed, 1, backend.cpu_threads())?,
            session,
        ),
    }
}

fn dpga(
    params: evo_dpga::DpgaParams,
    problem: Problem,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    let Problem::Cec2006(problem) = problem else {
        bail!("dpga runs cec2006:gNN problems");
    };
    let seed = session.config.seed;
    match session.backend {
        Backend::Cuda { device } => {
            let gpu = open_gpu(session, device)?;
            drive(
                evo_dpga::DpgaCuda::new(params, &problem, seed, &gpu)?,
                session,
            )
        }
        backend => drive(
            evo_dpga::DpgaCpu::new(params, problem, seed, backend.cpu_threads())?,
            session,
        ),
    }
}

fn ma(
    params: evo_ma_sw_chains::MaParams,
    problem: Problem,
    session: &mut Session<'_>,
) -> Result<Report<Value>> {
    fn on<P: evo_benchmarks::cuda::CudaProblem>(
        params: evo_ma_sw_chains::MaParams,
        problem: &P,
        session: &mut Session<'_>,
    ) -> Result<Report<Value>> {
        let seed = session.config.seed;
        match session.backend {
            Backend::Cuda { device } => {
                let gpu = open_gpu(session, device)?;
                drive(
                    evo_ma_sw_chains::MaCuda::new(params, problem, seed, &gpu)?,
                    session,
                )
            }
            backend => drive(
                evo_ma_sw_chains::MaCpu::new(params, problem, seed, backend.cpu_threads())?,
                session,
            ),
        }
    }
    match problem {
        Problem::Rastrigin(problem) => on(params, &problem, session),
        Problem::Shifted(problem) => on(params, &problem, session),
        Problem::Cec2010(problem) => on(params, problem.as_ref(), session),
        Problem::GaFunction {
            function,
            variables,
        } => on(params, &GaProblem::new(function, variables)?, session),
        _ => bail!("ma-sw-chains runs continuous problems"),
    }
}

/// Runs `engine` under the session's termination, observers and checkpoints.
fn drive<E: Engine>(engine: E, session: &Session<'_>) -> Result<Report<Value>> {
    let config = session.config;
    let mut executor = Executor::new(engine)
        .with_termination(session.termination.clone())?
        .with_history_every(config.history_every)
        .context("--history-every")?
        .with_run_metadata(session.backend, config.seed, &config.problem)
        .with_metadata(BACKEND_REASON, &session.backend_reason);
    if let Some(device) = &session.device {
        executor = executor.with_metadata("device", device);
    }
    if !session.display.quiet {
        if std::io::stderr().is_terminal() {
            executor = executor.with_observer(ProgressBarObserver::new());
        } else {
            executor = executor.with_observer(
                TracingObserver::new()
                    .with_every(session.display.log_every)
                    .context("--log-every")?,
            );
        }
    }
    if let Some(checkpoint) = &config.checkpoint {
        // No snapshot after every step: on a CUDA engine it is a device-to-host copy of the population per
        // generation, which costs more than a small generation itself. A failing step then leaves the last
        // periodic checkpoint, at most `every` generations old.
        let checkpointing =
            Checkpointing::new(&checkpoint.path, checkpoint.every)?.with_last_good_snapshot(false);
        executor = executor.with_checkpointing(checkpointing);
        if session.start == Start::Resume {
            executor = executor.resume_from(&checkpoint.path)?;
            eprintln!(
                "resumed from {} at generation {}",
                checkpoint.path.display(),
                executor.engine().progress().generation
            );
        }
    }
    let report = executor.run()?;
    Ok(Report {
        best: serde_json::to_value(&report.best).context("serializing the best solution")?,
        algorithm: report.algorithm,
        best_fitness: report.best_fitness,
        evaluations: report.evaluations,
        generations: report.generations,
        wall_time_s: report.wall_time_s,
        termination: report.termination,
        history: report.history,
        metadata: report.metadata,
    })
}
