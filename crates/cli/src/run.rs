//! Builds the run a configuration names and hands it to evo-core's [`RunBuilder`]: the algorithm crates'
//! own `Run` where it fits the command, the command's [`RunAlgorithm`]s ([`crate::engines`]) where not. The
//! builder picks the backend (evo-core's `choose_backend`: no silent fallback), builds the engine and runs
//! it with the command's observers, checkpoints, Ctrl-C and history cadence.

use anyhow::{Context, Result, bail};
use evo_benchmarks::{GaProblem, Knapsack};
use evo_core::{
    Backend, Cadence, Checkpointing, Observer, Progress, ProgressBarObserver, Report, RunAlgorithm,
    RunBuilder, Termination, TracingObserver,
};
use serde::Serialize;
use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::args::DisplayArgs;
use crate::engines::{AsGiven, GaKnapsack, Named, Qiga, Sga};
use crate::island_run::{self, World};
use crate::params::AlgorithmParams;
use crate::problem::{self, Problem};
use crate::runfile::RunConfig;
use crate::spec::ProblemSpec;
use crate::split;
use crate::user::{self, DeviceOnly, UserSource};

/// How a session starts: afresh, or from the configured checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new run.
    Fresh,
    /// Continue the checkpoint of the configuration.
    Resume,
}

/// What every run of the command attaches to its builder.
pub struct Session<'a> {
    /// The configuration.
    pub config: &'a RunConfig,
    /// Its stopping rules, Ctrl-C included.
    pub termination: Termination,
    display: &'a DisplayArgs,
    /// Afresh or from the checkpoint.
    pub start: Start,
    /// The processes of the run (MPI's ranks for islands under `mpiexec`).
    pub world: &'a World,
}

/// Runs `config` and returns the report with the best solution as JSON.
///
/// # Errors
/// Configuration, problem, backend and engine errors; checkpoint errors on resume.
pub fn execute(
    config: &RunConfig,
    display: &DisplayArgs,
    start: Start,
    world: &World,
) -> Result<Report<Value>> {
    let spec: ProblemSpec = config.problem.parse()?;
    problem::check_accepted(config.algorithm, &spec)?;
    let params = AlgorithmParams::from_value(config.algorithm, config.params.clone())?;
    let termination = config.budget.termination()?;
    let problem = problem::load(&spec)?;
    config.backend.validate()?;
    if let Problem::User(source) = &problem {
        problem::check_user_kind(config.algorithm, &config.problem, source)?;
        user::require_device(config.backend, &config.problem, source)?;
    }
    let session = Session {
        config,
        termination,
        display,
        start,
        world,
    };
    if let Some(islands) = &config.islands {
        return island_run::run(islands, params, problem, &session);
    }
    if let Some(split) = &config.split {
        let AlgorithmParams::Ma(params) = params else {
            bail!(
                "--split dimension runs ma-sw-chains only; {} has no dimension split",
                config.algorithm
            );
        };
        return split::run(split, params, problem, &session);
    }
    match params {
        AlgorithmParams::De(params) => de(params, problem, &session),
        AlgorithmParams::Ga(params) => ga(params, problem, &session),
        AlgorithmParams::Qiga(params) => session.launch(RunBuilder::<Qiga>::new(
            params,
            session.knapsack(problem)?,
            config.seed,
        )),
        AlgorithmParams::Sga(params) => session.launch(RunBuilder::<Sga>::new(
            params,
            session.knapsack(problem)?,
            config.seed,
        )),
        AlgorithmParams::Dpga(params) => dpga(params, problem, &session),
        AlgorithmParams::Ma(params) => ma(params, problem, &session),
    }
}

fn de(params: evo_de::DeParams, problem: Problem, session: &Session<'_>) -> Result<Report<Value>> {
    fn on<P: evo_de::DeviceProblem + 'static>(
        params: evo_de::DeParams,
        problem: P,
        session: &Session<'_>,
    ) -> Result<Report<Value>> {
        session.launch(evo_de::Run::new(params, problem, session.config.seed))
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
        Problem::User(source) => {
            match *source {
                UserSource::Real(problem) => session.launch(RunBuilder::<
                    DeviceOnly<evo_de::DeRun<_>>,
                >::new(
                    params, problem, session.config.seed
                )),
                _ => bail!("de runs user problems of kind real"),
            }
        }
        Problem::Cec2006(_) | Problem::Knapsack(_) => {
            bail!("de runs continuous problems, etc:FILE and user problems of kind real")
        }
    }
}

fn ga(params: evo_ga::GaParams, problem: Problem, session: &Session<'_>) -> Result<Report<Value>> {
    let seed = session.config.seed;
    match problem {
        Problem::GaFunction {
            function,
            variables,
        } => {
            let paper = evo_ga::PaperFunction::new(function, variables)?;
            session.launch(evo_ga::Run::new(params, paper, seed))
        }
        Problem::Knapsack(knapsack) => session.launch(RunBuilder::<GaKnapsack>::new(
            params,
            session.named(knapsack),
            seed,
        )),
        Problem::User(source) => match *source {
            UserSource::Bits(problem) => session.launch(
                RunBuilder::<DeviceOnly<evo_ga::GaRun<_>>>::new(params, problem, seed),
            ),
            _ => bail!("ga runs user problems of kind bits"),
        },
        _ => bail!("ga runs ga:fN:n and knapsack:FILE problems"),
    }
}

fn dpga(
    params: evo_dpga::DpgaParams,
    problem: Problem,
    session: &Session<'_>,
) -> Result<Report<Value>> {
    let seed = session.config.seed;
    match problem {
        Problem::Cec2006(problem) => session.launch(evo_dpga::Run::new(params, problem, seed)),
        Problem::User(source) => match *source {
            UserSource::Constrained(problem) => {
                session.launch(RunBuilder::<DeviceOnly<evo_dpga::DpgaRun<_>>>::new(
                    params, problem, seed,
                ))
            }
            _ => bail!("dpga runs user problems of kind constrained"),
        },
        _ => bail!("dpga runs cec2006:gNN problems and user problems of kind constrained"),
    }
}

fn ma(
    params: evo_ma_sw_chains::MaParams,
    problem: Problem,
    session: &Session<'_>,
) -> Result<Report<Value>> {
    fn on<P: evo_benchmarks::cuda::CudaProblem>(
        params: evo_ma_sw_chains::MaParams,
        problem: &P,
        session: &Session<'_>,
    ) -> Result<Report<Value>> {
        session.launch(RunBuilder::<AsGiven<evo_ma_sw_chains::MaRun<'_, P>>>::new(
            params,
            problem,
            session.config.seed,
        ))
    }
    type UserMa<'a> = DeviceOnly<AsGiven<evo_ma_sw_chains::MaRun<'a, user::RealSource>>>;
    match problem {
        Problem::Rastrigin(problem) => on(params, &problem, session),
        Problem::Shifted(problem) => on(params, &problem, session),
        Problem::Cec2010(problem) => on(params, problem.as_ref(), session),
        Problem::GaFunction {
            function,
            variables,
        } => on(params, &GaProblem::new(function, variables)?, session),
        Problem::User(source) => match source.as_ref() {
            UserSource::Real(problem) => session.launch(RunBuilder::<UserMa<'_>>::new(
                params,
                problem,
                session.config.seed,
            )),
            _ => bail!("ma-sw-chains runs user problems of kind real"),
        },
        _ => bail!("ma-sw-chains runs continuous problems"),
    }
}

impl Session<'_> {
    /// `problem` named by the configuration's spec.
    fn named<P>(&self, problem: P) -> Named<P> {
        Named {
            spec: self.config.problem.clone(),
            problem,
        }
    }

    fn knapsack(&self, problem: Problem) -> Result<Named<Knapsack>> {
        match problem {
            Problem::Knapsack(knapsack) => Ok(self.named(knapsack)),
            _ => bail!("this algorithm runs knapsack:FILE problems only"),
        }
    }

    /// Runs `builder` with the configuration's backend, stopping rules, history cadence and checkpoints,
    /// Ctrl-C watched, and the display's observers; returns the report with the best solution as JSON.
    fn launch<A: RunAlgorithm>(&self, builder: RunBuilder<A>) -> Result<Report<Value>>
    where
        A::Solution: Serialize,
    {
        self.launch_on(builder, self.config.backend)
    }

    /// [`launch`](Self::launch) on `backend` in place of the configuration's (the split's first device).
    pub fn launch_on<A: RunAlgorithm>(
        &self,
        builder: RunBuilder<A>,
        backend: Backend,
    ) -> Result<Report<Value>>
    where
        A::Solution: Serialize,
    {
        let config = self.config;
        let mut builder = builder
            .backend(backend)
            .termination(self.termination.clone())
            .history_every(config.history_every)
            .ctrl_c(true);
        if let Some(checkpoint) = &config.checkpoint {
            if self.start == Start::Resume {
                self.require_checkpoint(&checkpoint.path)?;
                builder = builder
                    .observer(ResumedFrom(checkpoint.path.clone()))
                    .resume_if_present(true);
            }
            // No snapshot after every step: on a CUDA engine it is a device-to-host copy of the population
            // per generation, which costs more than a small generation itself. A failing step then leaves
            // the last periodic checkpoint, at most `every` generations old.
            let checkpointing = Checkpointing::new(&checkpoint.path, checkpoint.every)?
                .with_last_good_snapshot(false);
            builder = builder.checkpoint(checkpointing);
        }
        if let Some(observer) = self.progress_observer()? {
            builder = builder.observer(observer);
        }
        to_json(builder.run()?)
    }

    /// `evo resume` continues a checkpoint; it never starts afresh in its place.
    pub fn require_checkpoint(&self, path: &Path) -> Result<()> {
        if !path.is_file() {
            bail!(
                "the checkpoint {} does not exist (the run stopped before its first checkpoint, or the \
                 file moved without its .run.json); start the run again with `evo run`",
                path.display()
            );
        }
        Ok(())
    }

    /// The display's progress: a bar on a terminal, log lines otherwise, nothing with `--quiet`.
    pub fn progress_observer(&self) -> Result<Option<Box<dyn Observer + Send>>> {
        if self.display.quiet {
            return Ok(None);
        }
        Ok(Some(if std::io::stderr().is_terminal() {
            Box::new(ProgressBarObserver::new())
        } else {
            Box::new(
                TracingObserver::new()
                    .with_every(self.display.log_every)
                    .context("--log-every")?,
            )
        }))
    }
}

/// `report` with its best solution as JSON.
pub fn to_json<S: Serialize>(report: Report<S>) -> Result<Report<Value>> {
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

/// Says where a resumed run continues, once the builder has restored it (`on_start` sees the restored
/// position); it asks for no step, so the run batches as it would without it.
pub struct ResumedFrom(pub PathBuf);

impl Observer for ResumedFrom {
    fn on_start(&mut self, _algorithm: &str, progress: &Progress, _termination: &Termination) {
        eprintln!(
            "resumed from {} at generation {}",
            self.0.display(),
            progress.generation
        );
    }

    fn cadence(&self) -> Cadence {
        Cadence::Batches
    }
}
