//! [`RankedIslandModel`]: the island model spread over the processes (ranks) of one run, each owning a
//! contiguous block of the `K` islands, with the result of the one-process [`IslandModel`].

#[cfg(doc)]
use crate::IslandModel;
use crate::migration::Migrate;
use crate::model::{IslandEngine, IslandSite, check_islands, island_seed, land_all};
use crate::parallel::{for_each_grouped, for_each_grouped_in_two_passes};
use crate::params::{IslandParams, MODEL};
use crate::placement::Placement;
use crate::ranks::{Ranks, island_block};
use crate::snapshot::IslandSnapshot;
use crate::wire::{Exchange, Stage, gather, send_failure};
use evo_core::{Engine, Error, Progress, Result, RunFingerprint};
use evo_sort::SortKey;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// One island's progress as the ranks exchange it: the fitness as bits, so that it travels exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct IslandProgress {
    evaluations: u64,
    best_fitness_bits: u64,
}

impl IslandProgress {
    fn of(progress: &Progress) -> Self {
        Self {
            evaluations: progress.evaluations,
            best_fitness_bits: progress.best_fitness.to_bits(),
        }
    }

    fn best_fitness(&self) -> f64 {
        f64::from_bits(self.best_fitness_bits)
    }
}

/// What each rank tells the others once its islands are built: the run it belongs to and its islands'
/// state.
#[derive(Debug, Serialize, Deserialize)]
struct Start {
    fingerprint: RunFingerprint,
    params: IslandParams,
    generation: u64,
    evaluations_per_step: Vec<Option<u64>>,
    progress: Vec<IslandProgress>,
}

/// The island model of [`IslandModel`] with its `K` islands spread over the `R` processes of [`Ranks`]
/// (MPI ranks with the `mpi` feature's `MpiRanks`): rank `r` owns the contiguous block
/// [`island_block`]`(r, R, K)` and runs it on its own [`Placement`]. Island `i` is the same engine from the
/// same seed as in the one-process model, and a migration is the same function of the islands' snapshots
/// (each rank takes its islands' emigrants with the same code, and the emigrants of each block's last
/// island go to every rank, where the next block's first island takes them in), so the model gives the
/// one-process model's result bit for bit, on any number of ranks and any placements.
///
/// The placement is this rank's own: [`RankPlacement::for_rank`](crate::RankPlacement::for_rank) gives it
/// from the run's placement, the way the ranks of a machine share it (every rank the whole, one GPU per
/// rank, or the listed GPUs divided) and the rank's [`NodeRank`](crate::NodeRank) (over MPI,
/// `MpiRanks::node_rank`).
///
/// Every [`Engine`] method that needs other ranks' islands is collective, so every rank must call it
/// the same number of times in the same order: [`step`](Engine::step) and
/// [`step_many`](Engine::step_many) (one exchange per migration and one for the progress after the batch),
/// [`snapshot`](Engine::snapshot), [`restore`](Engine::restore) and [`best`](Engine::best) (one each);
/// [`progress`](Engine::progress), [`fingerprint`](Engine::fingerprint) and
/// [`evaluations_per_step`](Engine::evaluations_per_step) are local. Run it with the same
/// [`Executor`](evo_core::Executor) configuration on every rank, with a history point every step
/// (`with_history_every(1)`, which makes every batch one step: longer batches are sized by the clock and
/// could differ between ranks) and terminations that do not depend on the clock (generations,
/// evaluations, target fitness, stagnation); an [`Error::RankFailed`] names a rank that is out of step.
///
/// [`snapshot`](Engine::snapshot) gathers every island on every rank: the snapshot, the fingerprint and
/// the algorithm name are the one-process model's, so a checkpoint written by any rank resumes on any
/// number of ranks, or in one process. Give each rank its own checkpoint path (the executor locks it), and
/// resume every rank from one rank's file (any rank's, when rank 0 is the one lost). Checkpoint with
/// [`with_last_good_snapshot(false)`](evo_core::Checkpointing::with_last_good_snapshot): the last good
/// snapshot would gather every island on every rank after every step.
///
/// Faults: when a rank dies or hangs, the others' next exchange fails after the transport's deadline with
/// [`Error::RankFailed`] naming it; when a rank's own step fails, it sends its error in the next exchange,
/// so every rank stops there with an error naming it.
pub struct RankedIslandModel<'a, Sol, S, R> {
    islands: Vec<IslandEngine<'a, Sol, S>>,
    block: Range<usize>,
    params: IslandParams,
    placement: Placement,
    seed: u64,
    ranks: R,
    generation: u64,
    migrations: u64,
    /// Every island's progress (all `K`, in island order) after the last exchange.
    progress: Vec<IslandProgress>,
    evaluations_per_step: Option<u64>,
}

impl<'a, Sol, S, R> RankedIslandModel<'a, Sol, S, R>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
    R: Ranks,
{
    /// Builds this rank's block of islands with `build`, which gets each island's [`IslandSite`] (its
    /// index among the `K`, its seed, its backend, entry `l mod P` of `placement` for the block's `l`-th
    /// island), then compares the ranks' runs (collective).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for more ranks than islands, more backends than the rank's islands, and
    /// as [`IslandModel::new`] for the rank's islands; the first error of `build`; [`Error::RankFailed`]
    /// naming a rank whose islands could not be built or whose run differs from rank 0's (fingerprint, island
    /// parameters or generation), or that did not answer.
    pub fn new(
        params: IslandParams,
        placement: Placement,
        seed: u64,
        ranks: R,
        build: impl Fn(IslandSite) -> Result<IslandEngine<'a, Sol, S>> + Sync,
    ) -> Result<Self> {
        // A rank that cannot build its islands sends its error, so that every rank stops here.
        let built = island_block(ranks.rank(), ranks.size(), params.islands()).and_then(|block| {
            build_block(&params, &placement, seed, block.clone(), build)
                .map(|(islands, start)| (block, islands, start))
        });
        let (block, islands, local) = match built {
            Ok((block, islands, start)) => (block, islands, Ok(start)),
            Err(error) => (0..0, Vec::new(), Err(error)),
        };
        let starts: Vec<Start> = gather(&ranks, Stage::new(Exchange::Start, 0), local)?;
        let reference = &starts[0];
        for (rank, start) in starts.iter().enumerate() {
            let differs = |what: &str| Error::RankFailed {
                rank,
                exchange: Stage::new(Exchange::Start, 0).to_string(),
                reason: format!(
                    "its {what} differs from rank 0's: every rank must build the same run (seed, parameters, problem, K, m, k)"
                ),
            };
            if start.fingerprint != reference.fingerprint {
                return Err(differs("run fingerprint"));
            }
            if start.params != reference.params {
                return Err(differs("island parameters"));
            }
            if start.generation != reference.generation {
                return Err(differs("generation"));
            }
        }
        let generation = reference.generation;
        let evaluations_per_step = starts
            .iter()
            .flat_map(|start| &start.evaluations_per_step)
            .copied()
            .sum();
        let progress = starts
            .into_iter()
            .flat_map(|start| start.progress)
            .collect();
        Ok(Self {
            islands,
            block,
            params,
            placement,
            seed,
            ranks,
            generation,
            migrations: generation / params.migration_interval(),
            progress,
            evaluations_per_step,
        })
    }

    /// The island model's parameters.
    pub fn params(&self) -> &IslandParams {
        &self.params
    }

    /// Where this rank's islands run.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The run's seed (island `i`'s is [`island_seed`]`(seed, i)`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The ranks the model is spread over.
    pub fn ranks(&self) -> &R {
        &self.ranks
    }

    /// The indices of this rank's islands among the `K`.
    pub fn block(&self) -> Range<usize> {
        self.block.clone()
    }

    /// This rank's islands, in index order (island [`block`](Self::block)`().start` first).
    pub fn islands(&self) -> &[IslandEngine<'a, Sol, S>] {
        &self.islands
    }

    /// Migrations done so far (`generation div m`).
    pub fn migrations(&self) -> u64 {
        self.migrations
    }

    /// The index among the `K` of the island holding the best fitness (ties: the lower index), the rule
    /// of [`IslandModel`].
    fn best_island(&self) -> usize {
        (0..self.progress.len())
            .min_by_key(|&i| (self.progress[i].best_fitness().order_key(), i))
            .unwrap_or(0)
    }

    /// One migration after this rank's islands were stepped with outcome `stepped` (collective). The outer
    /// error is the exchange's (this rank's `stepped` error included, which the other ranks learn of);
    /// the inner one is this rank's failure to restore its islands afterwards, which the next exchange
    /// carries to the others.
    fn migrate(&mut self, stepped: Result<()>) -> Result<Result<()>> {
        let stage = Stage::new(Exchange::Migration, self.generation);
        let groups = self.placement.len();
        let migrants = self.params.migrants();
        let prepared = stepped.and_then(|()| {
            for_each_grouped(&mut self.islands, groups, |_, island| {
                island.departure(migrants)
            })
        });
        let departures = match prepared {
            Ok(departures) => departures,
            Err(error) => return Err(send_failure(&self.ranks, stage, error)),
        };
        // Every emigrant is taken before any island takes migrants in, as in `ring_migration`.
        let (mut outgoing, landings): (Vec<Vec<S::Migrant>>, Vec<_>) = departures
            .into_iter()
            .map(|departure| (departure.emigrants, departure.landing))
            .unzip();
        let mut received: Vec<Option<Vec<S::Migrant>>> =
            gather(&self.ranks, stage, Ok(outgoing.last()))?;
        // The block's first island takes in the previous block's last island's emigrants (its own last
        // island's when this rank owns every island); island `l > 0` those of island `l - 1`.
        let size = self.ranks.size();
        let previous = (self.ranks.rank() + size - 1) % size;
        let first = received[previous].take().ok_or_else(|| Error::RankFailed {
            rank: previous,
            exchange: stage.to_string(),
            reason: "it sent no migrants: every rank must own at least one island".into(),
        })?;
        outgoing.pop();
        outgoing.insert(0, first);
        let restored = land_all(&mut self.islands, groups, landings, outgoing);
        self.migrations += 1;
        Ok(restored)
    }

    /// Exchanges every island's progress after this rank's part ended with `local` (collective).
    fn share_progress(&mut self, stage: Stage, local: Result<()>) -> Result<()> {
        let mine = local.map(|()| self.local_progress());
        let blocks: Vec<Vec<IslandProgress>> = gather(&self.ranks, stage, mine)?;
        self.progress = blocks.into_iter().flatten().collect();
        Ok(())
    }

    fn local_progress(&self) -> Vec<IslandProgress> {
        self.islands
            .iter()
            .map(|island| IslandProgress::of(&island.progress()))
            .collect()
    }
}

/// The rank whose block holds island `island`.
fn owner(island: usize, ranks: usize, islands: usize) -> usize {
    (0..ranks)
        .find(|&rank| island_block(rank, ranks, islands).is_ok_and(|block| block.contains(&island)))
        .unwrap_or(0)
}

/// Builds the islands of `block` and checks them as [`IslandModel::new`] does; returns them with what the
/// rank tells the others.
fn build_block<'a, Sol, S>(
    params: &IslandParams,
    placement: &Placement,
    seed: u64,
    block: Range<usize>,
    build: impl Fn(IslandSite) -> Result<IslandEngine<'a, Sol, S>> + Sync,
) -> Result<(Vec<IslandEngine<'a, Sol, S>>, Start)>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    placement.check_islands(block.len())?;
    let first = block.start;
    let mut sites: Vec<IslandSite> = block
        .map(|index| IslandSite {
            index,
            seed: island_seed(seed, index),
            backend: placement.backend_of(index - first),
        })
        .collect();
    let mut islands = for_each_grouped(&mut sites, placement.len(), |_, site| build(*site))?;
    let generation = check_islands(&sites, &islands)?;
    let populations = for_each_grouped(&mut islands, placement.len(), |_, island| {
        Ok(island.snapshot()?.fitness().len())
    })?;
    for population in populations {
        params.check_population(population)?;
    }
    let start = Start {
        fingerprint: fingerprint(&islands, seed, params)?,
        params: *params,
        generation,
        evaluations_per_step: islands
            .iter()
            .map(|island| island.evaluations_per_step())
            .collect(),
        progress: islands
            .iter()
            .map(|island| IslandProgress::of(&island.progress()))
            .collect(),
    };
    Ok((islands, start))
}

/// The run's fingerprint as [`IslandModel`] gives it (island 0's with the island parameters), from any
/// island of the run: islands differ only in their seeds, `seed + i`, so the first island's with the
/// run's seed is island 0's.
fn fingerprint<Sol, S>(
    islands: &[IslandEngine<'_, Sol, S>],
    seed: u64,
    params: &IslandParams,
) -> Result<RunFingerprint>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    let first = islands
        .first()
        .ok_or_else(|| Error::invalid_parameter(MODEL, "island count K", 0, "at least 1"))?;
    let mut fingerprint = first.fingerprint()?;
    fingerprint.seed = seed;
    fingerprint
        .with_parameter("islands", &params.islands())?
        .with_parameter("migration_interval", &params.migration_interval())?
        .with_parameter("migrants", &params.migrants())
}

impl<Sol, S, R> Engine for RankedIslandModel<'_, Sol, S, R>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
    R: Ranks,
{
    type Solution = Sol;
    type Snapshot = IslandSnapshot<S>;

    fn algorithm(&self) -> &'static str {
        S::ALGORITHM
    }

    /// The one-process model's fingerprint (island 0's with `islands`, `migration_interval` and
    /// `migrants`), from this rank's islands; local.
    fn fingerprint(&self) -> Result<RunFingerprint> {
        fingerprint(&self.islands, self.seed, &self.params)
    }

    fn step(&mut self) -> Result<()> {
        self.step_many(1)
    }

    /// This rank's islands advance to the next migration (or by `steps`, whichever comes first) with their
    /// own `step_many`, then the migration, if due (collective); and so on; then every island's progress
    /// is exchanged (collective). A failure of this rank's islands travels in the next exchange.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        let interval = self.params.migration_interval();
        let groups = self.placement.len();
        let mut left = steps;
        let mut local = Ok(());
        while left > 0 {
            let chunk = left.min(interval - self.generation % interval);
            if local.is_ok() {
                local = for_each_grouped_in_two_passes(
                    &mut self.islands,
                    groups,
                    |island| island.start_steps(chunk),
                    |island| island.finish_steps(),
                );
            }
            self.generation += chunk;
            left -= chunk;
            if self.generation.is_multiple_of(interval) {
                local = self.migrate(local)?;
            }
        }
        self.share_progress(Stage::new(Exchange::Progress, self.generation), local)
    }

    fn evaluations_per_step(&self) -> Option<u64> {
        self.evaluations_per_step
    }

    /// The model's generation, the evaluations of all `K` islands and the best fitness of any (ties: the
    /// lower island), as of the last exchange; local.
    fn progress(&self) -> Progress {
        let best = self.best_island();
        Progress {
            generation: self.generation,
            evaluations: self.progress.iter().map(|p| p.evaluations).sum(),
            best_fitness: self
                .progress
                .get(best)
                .map_or(f64::INFINITY, IslandProgress::best_fitness),
        }
    }

    /// The best island's best, sent by the rank that owns it (collective).
    fn best(&self) -> Result<(Sol, f64)> {
        let stage = Stage::new(Exchange::Best, self.generation);
        let best = self.best_island();
        let mine = match self.block.contains(&best) {
            true => self.islands[best - self.block.start].best().map(Some),
            false => Ok(None),
        };
        let answers: Vec<Option<(Sol, u64)>> = gather(
            &self.ranks,
            stage,
            mine.map(|found| found.map(|(sol, fitness)| (sol, fitness.to_bits()))),
        )?;
        answers
            .into_iter()
            .flatten()
            .next()
            .map(|(sol, bits)| (sol, f64::from_bits(bits)))
            .ok_or_else(|| Error::RankFailed {
                rank: owner(best, self.ranks.size(), self.params.islands()),
                exchange: stage.to_string(),
                reason: format!(
                    "it sent no solution for island {best}, which it owns: the ranks disagree on the islands' progress"
                ),
            })
    }

    /// Every island's snapshot, gathered on every rank (collective): the one-process model's snapshot.
    fn snapshot(&self) -> Result<IslandSnapshot<S>> {
        let stage = Stage::new(Exchange::Snapshot, self.generation);
        let mine: Result<Vec<S>> = self
            .islands
            .iter()
            .map(|island| island.snapshot())
            .collect();
        let blocks: Vec<Vec<S>> = gather(&self.ranks, stage, mine)?;
        Ok(IslandSnapshot {
            generation: self.generation,
            migrations: self.migrations,
            islands: blocks.into_iter().flatten().collect(),
        })
    }

    /// Checks the snapshot as the one-process model does, restores this rank's islands from their entries
    /// and exchanges the islands' progress (collective). When any rank's islands refuse the snapshot,
    /// every rank gives its islands their previous state back, so the model is unchanged after the error.
    fn restore(&mut self, snapshot: &IslandSnapshot<S>) -> Result<()> {
        let stage = Stage::new(Exchange::Restore, snapshot.generation);
        let groups = self.placement.len();
        let start = self.block.start;
        let previous = match snapshot.check(&self.params).and_then(|()| {
            for_each_grouped(&mut self.islands, groups, |_, island| island.snapshot())
        }) {
            Ok(previous) => previous,
            Err(error) => return Err(send_failure(&self.ranks, stage, error)),
        };
        let restored = for_each_grouped(&mut self.islands, groups, |l, island| {
            island.restore(&snapshot.islands[start + l])
        })
        .map(drop);
        let (generation, migrations) = (self.generation, self.migrations);
        self.generation = snapshot.generation;
        self.migrations = snapshot.migrations;
        let shared = self.share_progress(stage, restored);
        if let Err(error) = shared {
            let previous = &previous;
            for_each_grouped(&mut self.islands, groups, |l, island| {
                island.restore(&previous[l])
            })?;
            self.generation = generation;
            self.migrations = migrations;
            return Err(error);
        }
        Ok(())
    }
}
