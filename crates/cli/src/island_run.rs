//! Runs a configuration's island model ([`crate::islands`]) under evo-core's [`Executor`], with the
//! command's stopping rules, history, checkpoints and observers, in one process or (with the `mpi`
//! feature, under `mpiexec`) over the ranks, which give the one-process result bit for bit.

use anyhow::{Context, Result, bail};
use evo_benchmarks::GaProblem;
use evo_core::{BACKEND_REASON, Checkpointing, Engine, Executor, Report};
use evo_distributed::{
    IslandParams, IslandSnapshot, Migrate, NodeRank, Placement, RankShare, de, ga, ma, ranking,
};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

use crate::islands::IslandConfig;
use crate::params::AlgorithmParams;
use crate::problem::Problem;
use crate::run::{ResumedFrom, Session, Start, to_json};

/// The processes of the run: this one alone, or (with the `mpi` feature, under `mpiexec`) the ranks of
/// MPI's world, which every rank joins before its islands are built.
pub struct World {
    rank: usize,
    size: usize,
    /// This rank's place among the ranks of its machine, which decides its share of the GPUs.
    node: NodeRank,
    #[cfg(feature = "mpi")]
    universe: Option<evo_distributed::mpi::Universe>,
}

/// How long a rank waits for the others at an exchange before it names the one it misses: generous, as a
/// step of a large island (or a CUDA kernel's first compilation) takes a while.
#[cfg(feature = "mpi")]
const RANK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// The number of ranks the launcher started, from the process-manager variables of MPICH (`PMI_SIZE`) and
/// Open MPI (`OMPI_COMM_WORLD_SIZE`), read without initializing MPI.
#[cfg(feature = "mpi")]
fn launched_ranks() -> Option<usize> {
    ["PMI_SIZE", "OMPI_COMM_WORLD_SIZE"]
        .into_iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
}

impl World {
    /// The world of a run: MPI's when the build has the `mpi` feature and the run has islands, else this
    /// process alone.
    ///
    /// # Errors
    /// MPI initialized twice, or a world MPI cannot describe.
    pub fn join(islands: Option<&IslandConfig>) -> Result<Self> {
        #[cfg(feature = "mpi")]
        if islands.is_some() {
            use evo_distributed::Ranks as _;
            let universe = evo_distributed::mpi::initialize()
                .context("MPI was initialized already in this process")?;
            let ranks = evo_distributed::mpi::MpiRanks::new(&universe.world(), RANK_TIMEOUT)?;
            return Ok(Self {
                rank: ranks.rank(),
                size: ranks.size(),
                node: ranks.node_rank()?,
                universe: Some(universe),
            });
        }
        #[cfg(feature = "mpi")]
        if let Some(size) = launched_ranks().filter(|&size| size > 1) {
            bail!(
                "this evo runs as one of {size} MPI ranks, but only an island run (--islands K) spreads \
                 over ranks; a run of one engine would run {size} times into the same output folder"
            );
        }
        let _ = islands;
        Ok(Self {
            rank: 0,
            size: 1,
            node: NodeRank::alone(),
            #[cfg(feature = "mpi")]
            universe: None,
        })
    }

    /// This process's rank (0 without MPI).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks (1 without MPI).
    pub fn size(&self) -> usize {
        self.size
    }

    /// This rank's place among the ranks of its machine ([`NodeRank::alone`] without MPI).
    pub fn node(&self) -> NodeRank {
        self.node
    }

    /// Ends the process's part in the world without MPI's finalize, which waits for every rank: after an
    /// error another rank may be gone.
    pub fn abandon(self) {
        #[cfg(feature = "mpi")]
        std::mem::forget(self.universe);
    }

    /// The ranks as evo-distributed's transport, when there are several.
    #[cfg(feature = "mpi")]
    fn ranks(&self) -> Result<Option<evo_distributed::mpi::MpiRanks>> {
        match &self.universe {
            Some(universe) if self.size > 1 => Ok(Some(evo_distributed::mpi::MpiRanks::new(
                &universe.world(),
                RANK_TIMEOUT,
            )?)),
            _ => Ok(None),
        }
    }
}

/// Drives the island model of `$algorithm` (evo-distributed's `de`, `ga` or `ma` module) for `$params` on
/// `$problem` at `$site`: over the ranks when the build has the `mpi` feature and the run has several, else
/// in this process. A macro, as the three modules' model builders are free functions of one shape, not a
/// trait; it returns from the calling function in the ranked case.
macro_rules! islands {
    ($site:expr, $algorithm:ident, $params:expr, $problem:expr) => {{
        let (site, params, problem): (&Site<'_, '_>, _, _) = ($site, $params, $problem);
        #[cfg(feature = "mpi")]
        if let Some(ranks) = site.session.world.ranks()? {
            let model = $algorithm::ranked_islands(
                params,
                problem,
                site.seed,
                site.model,
                site.placement.clone(),
                ranks,
            )?;
            return drive(model, site);
        }
        let model = $algorithm::islands(
            params,
            problem,
            site.seed,
            site.model,
            site.placement.clone(),
        )?;
        drive(model, site)
    }};
}

/// Runs `params` on `problem` as the configuration's island model.
///
/// # Errors
/// A problem the algorithm's islands do not run, the model's and the engines' errors, a configuration the
/// ranks cannot keep in step, and the executor's errors.
pub fn run(
    islands: &IslandConfig,
    params: AlgorithmParams,
    problem: Problem,
    session: &Session<'_>,
) -> Result<Report<Value>> {
    let model = islands.params()?;
    let placement = islands.placement(session.world.node())?;
    check_ranks(session)?;
    let seed = session.config.seed;
    let site = Site {
        model,
        placement,
        whole: islands.placement.clone(),
        share: islands.share,
        seed,
        session,
    };
    match params {
        AlgorithmParams::De(params) => match problem {
            Problem::Rastrigin(problem) => islands!(&site, de, &params, &problem),
            Problem::Shifted(problem) => islands!(&site, de, &params, &problem),
            Problem::Cec2010(problem) => islands!(&site, de, &params, problem.as_ref()),
            Problem::GaFunction {
                function,
                variables,
            } => islands!(&site, de, &params, &GaProblem::new(function, variables)?),
            Problem::Etc(problem) => islands!(&site, de, &params, problem.as_ref()),
            _ => bail!("de islands run the built-in continuous problems and etc:FILE"),
        },
        AlgorithmParams::Ga(params) => match problem {
            Problem::GaFunction {
                function,
                variables,
            } => islands!(
                &site,
                ga,
                &params,
                &evo_ga::PaperFunction::new(function, variables)?
            ),
            _ => bail!("ga islands run ga:fN:n problems"),
        },
        AlgorithmParams::Ma(params) => match problem {
            Problem::Rastrigin(problem) => islands!(&site, ma, &params, &problem),
            Problem::Shifted(problem) => islands!(&site, ma, &params, &problem),
            Problem::Cec2010(problem) => islands!(&site, ma, &params, problem.as_ref()),
            Problem::GaFunction {
                function,
                variables,
            } => islands!(&site, ma, &params, &GaProblem::new(function, variables)?),
            _ => bail!("ma-sw-chains islands run the built-in continuous problems"),
        },
        _ => bail!("--islands runs de, ga and ma-sw-chains"),
    }
}

/// Over several ranks every batch must be one step on every rank and every rule must stop every rank at
/// the same generation (evo-distributed's `RankedIslandModel`): a history point every generation, and no
/// rule that reads the clock.
fn check_ranks(session: &Session<'_>) -> Result<()> {
    if session.world.size() == 1 {
        return Ok(());
    }
    let config = session.config;
    if config.history_every != 1 {
        bail!(
            "islands over {} ranks need --history-every 1 (a history point every generation keeps the \
             ranks' batches in step), got {}",
            session.world.size(),
            config.history_every
        );
    }
    if config.budget.seconds.is_some() {
        bail!(
            "islands over several ranks cannot stop on --seconds (each rank's clock would stop it at \
             another generation); give --generations, --evaluations or --target"
        );
    }
    Ok(())
}

/// What every island model of a run is built from.
struct Site<'s, 'c> {
    model: IslandParams,
    /// This rank's placement.
    placement: Placement,
    /// The run's placement, which the ranks of a machine share as `share` says.
    whole: String,
    share: RankShare,
    seed: u64,
    session: &'s Session<'c>,
}

/// Runs `model` with the session's rules, history, checkpoints and observers. Rank 0 checkpoints to the
/// configured file and every other rank `r` to `<file>.rank<r>` (the model's checkpoints are collective);
/// a resume on any rank continues rank 0's file. Progress and the resume line come from rank 0 alone.
fn drive<E, S>(model: E, site: &Site<'_, '_>) -> Result<Report<Value>>
where
    E: Engine<Snapshot = IslandSnapshot<S>>,
    E::Solution: Serialize,
    S: Migrate,
{
    let session = site.session;
    let config = session.config;
    let rank = session.world.rank();
    let single = session.world.size() == 1;
    // The run's placement and share, not this rank's part: the same text on any number of ranks, as the
    // rest of the result.
    let mut reason = format!(
        "{} islands placed on {} (--gpus, --placement or --backend)",
        site.model.islands(),
        site.whole
    );
    if site.share != RankShare::Same {
        reason.push_str(&format!(
            ", shared as `{}` by the ranks of a machine under mpiexec",
            site.share
        ));
    }
    let mut executor = Executor::new(model)
        .with_metadata("backend", &site.whole)
        .with_metadata(BACKEND_REASON, reason)
        .with_metadata("seed", site.seed)
        .with_metadata("problem", &config.problem)
        // Ctrl-C reaches the ranks at different generations, so over ranks it ends them as a crash does:
        // the last periodic checkpoint resumes the run.
        .with_termination(session.termination.clone().with_ctrl_c(single))?
        .with_history_every(config.history_every)?;
    if let Some(checkpoint) = &config.checkpoint {
        let own = match rank {
            0 => checkpoint.path.clone(),
            r => {
                let mut name = checkpoint.path.as_os_str().to_owned();
                name.push(format!(".rank{r}"));
                PathBuf::from(name)
            }
        };
        if session.start == Start::Resume {
            session.require_checkpoint(&checkpoint.path)?;
        }
        let checkpointing =
            Checkpointing::new(&own, checkpoint.every)?.with_last_good_snapshot(false);
        executor = executor.with_checkpointing(checkpointing);
        if session.start == Start::Resume {
            if rank == 0 {
                executor = executor
                    .with_observer(ResumedFrom(checkpoint.path.clone()))
                    .resume_if_present()?;
            } else {
                executor = executor.resume_from(&checkpoint.path)?;
            }
        }
    }
    if rank == 0
        && let Some(observer) = session.progress_observer()?
    {
        executor = executor.with_observer(observer);
    }
    let mut report = executor.run().context("the island model")?;
    // One snapshot of the islands after the run (collective over ranks, as every rank ends here).
    let snapshot = executor
        .into_engine()
        .snapshot()
        .context("the islands after the run")?;
    let bests: Vec<f64> = snapshot.islands.iter().map(population_best).collect();
    report.metadata.insert(
        ISLAND_BESTS.to_string(),
        serde_json::to_string(&bests).context("the islands' best fitness")?,
    );
    to_json(report)
}

/// The report's metadata key of the islands' best fitness at the end (a JSON array, island 0 first), which
/// result.json shows under `islands.best_fitness`.
pub const ISLAND_BESTS: &str = "island_best_fitness";

/// The best fitness of an island's population (the workspace's order: NaN last).
fn population_best<S: Migrate>(island: &S) -> f64 {
    let fitness = island.fitness();
    ranking(fitness)
        .first()
        .map_or(f64::NAN, |&slot| fitness[slot])
}
