//! [`IslandModel`]: `K` engines stepped together with ring migration, behind the [`Engine`] trait.

use crate::island::{Island, Landing};
use crate::migration::Migrate;
use crate::parallel::{for_each_grouped, for_each_grouped_in_two_passes};
use crate::params::{IslandParams, MODEL};
use crate::placement::Placement;
use crate::snapshot::IslandSnapshot;
use evo_core::{Backend, Engine, Error, Progress, Result, RunFingerprint};
use evo_sort::SortKey;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// One island: an engine of either backend, behind the [`Island`] trait (an [`Engine`] with a migration's
/// two halves); `'a` is what it borrows (the problem, for engines that hold a reference to it).
pub type IslandEngine<'a, Sol, S> = Box<dyn Island<Solution = Sol, Snapshot = S> + Send + 'a>;

/// Where and from what seed an island is built; the model hands one to its builder per island.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IslandSite {
    /// The island's index `i` in `0 .. K`.
    pub index: usize,
    /// The island's seed, [`island_seed`]`(seed, i)`.
    pub seed: u64,
    /// The backend the island runs on, [`Placement::backend_of`]`(i)`.
    pub backend: Backend,
}

/// Island `island`'s seed: `seed + island` (64-bit wrapping), the project's rule for the runs of a batch
/// (spec rng.md §6.2, `evo_rng::Philox::for_batch_run`), so island `i` of a model from `seed` draws what
/// a lone run from seed `seed + i` draws until its first migration.
pub fn island_seed(seed: u64, island: usize) -> u64 {
    seed.wrapping_add(island as u64)
}

/// `K` islands of one algorithm, each an engine with its own seed, stepped together; after every `m`-th
/// generation island `i`'s best `k` replace island `(i + 1) mod K`'s worst `k` ([`ring_migration`](crate::ring_migration)). The
/// crate docs give the rule and its contract; the model is an [`Engine`], so the
/// [`Executor`](evo_core::Executor) runs it with terminations, observers and checkpoints.
///
/// Its [`progress`](Engine::progress) counts the model's generations (each island's), the evaluations of
/// all islands, and the best fitness of any island (ties: the lower island). [`best`](Engine::best) is
/// that island's best.
pub struct IslandModel<'a, Sol, S> {
    islands: Vec<IslandEngine<'a, Sol, S>>,
    params: IslandParams,
    placement: Placement,
    seed: u64,
    generation: u64,
    migrations: u64,
}

impl<'a, Sol, S> IslandModel<'a, Sol, S>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    /// Builds the `K` islands with `build`, which gets each island's [`IslandSite`] (index, seed, backend)
    /// and returns a fresh engine of that seed on that backend. The islands of each backend are built on
    /// that backend's host thread.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for more backends than islands, for `k` over half the population, and
    /// when the islands are not one run's islands: another algorithm, another seed than the site's, other
    /// parameters or problem than island 0's, or another generation; the first error of `build`.
    pub fn new(
        params: IslandParams,
        placement: Placement,
        seed: u64,
        build: impl Fn(IslandSite) -> Result<IslandEngine<'a, Sol, S>> + Sync,
    ) -> Result<Self> {
        placement.check_islands(params.islands())?;
        let mut sites: Vec<IslandSite> = (0..params.islands())
            .map(|index| IslandSite {
                index,
                seed: island_seed(seed, index),
                backend: placement.backend_of(index),
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
        Ok(Self {
            islands,
            params,
            placement,
            seed,
            generation,
            migrations: generation / params.migration_interval(),
        })
    }

    /// The island model's parameters.
    pub fn params(&self) -> &IslandParams {
        &self.params
    }

    /// Where the islands run.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// The run's seed (island `i`'s is [`island_seed`]`(seed, i)`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The islands, in index order.
    pub fn islands(&self) -> &[IslandEngine<'a, Sol, S>] {
        &self.islands
    }

    /// Migrations done so far (`generation div m`).
    pub fn migrations(&self) -> u64 {
        self.migrations
    }

    /// The index of the island holding the best fitness (ties: the lower index).
    fn best_island(&self) -> usize {
        (0..self.islands.len())
            .min_by_key(|&i| (self.islands[i].progress().best_fitness.order_key(), i))
            .unwrap_or(0)
    }

    /// One migration ([`ring_migration`](crate::ring_migration)'s rule): every island's departure, then
    /// island `j` lands island `(j − 1) mod K`'s emigrants.
    fn migrate(&mut self) -> Result<()> {
        let groups = self.placement.len();
        let migrants = self.params.migrants();
        let departures = for_each_grouped(&mut self.islands, groups, |_, island| {
            island.departure(migrants)
        })?;
        let (mut outgoing, landings): (Vec<_>, Vec<_>) = departures
            .into_iter()
            .map(|departure| (departure.emigrants, departure.landing))
            .unzip();
        outgoing.rotate_right(1);
        land_all(&mut self.islands, groups, landings, outgoing)?;
        self.migrations += 1;
        Ok(())
    }
}

/// Lands `arrivals[i]` on island `i` where `landings[i]` says ([`Island::land`]), the backends side by side
/// as [`for_each_grouped`] works; the error of the lowest-numbered island that failed.
pub(crate) fn land_all<Sol, S>(
    islands: &mut [IslandEngine<'_, Sol, S>],
    groups: usize,
    landings: Vec<Landing<S>>,
    arrivals: Vec<Vec<S::Migrant>>,
) -> Result<()>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    let mut parcels: Vec<_> = islands
        .iter_mut()
        .zip(landings.into_iter().zip(arrivals))
        .collect();
    for_each_grouped(&mut parcels, groups, |_, (island, parcel)| {
        let (landing, arrivals) =
            std::mem::replace(parcel, (Landing::Slots(Vec::new()), Vec::new()));
        island.land(landing, arrivals)
    })?;
    Ok(())
}

/// Checks that the islands are one run's (see [`IslandModel::new`]) and returns their common generation.
pub(crate) fn check_islands<Sol, S>(
    sites: &[IslandSite],
    islands: &[IslandEngine<'_, Sol, S>],
) -> Result<u64>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    let Some(first) = islands.first() else {
        return Err(Error::invalid_parameter(
            MODEL,
            "island count K",
            0,
            "at least 1",
        ));
    };
    let reference = first.fingerprint()?;
    let generation = first.progress().generation;
    let mismatch = |i: usize, what: &str, found: String, wanted: String| {
        Error::invalid_parameter(
            MODEL,
            "island built",
            format!("island {i} with {what} {found}"),
            format!("{what} {wanted}, as the builder's site and island 0 say"),
        )
    };
    for (i, (site, island)) in sites.iter().zip(islands).enumerate() {
        if island.algorithm() != first.algorithm() {
            return Err(mismatch(
                i,
                "algorithm",
                island.algorithm().into(),
                first.algorithm().into(),
            ));
        }
        let fingerprint = island.fingerprint()?;
        if fingerprint.seed != site.seed {
            return Err(mismatch(
                i,
                "seed",
                fingerprint.seed.to_string(),
                site.seed.to_string(),
            ));
        }
        if fingerprint.parameters != reference.parameters {
            return Err(mismatch(
                i,
                "parameters",
                format!("{:?}", fingerprint.parameters),
                format!("{:?}", reference.parameters),
            ));
        }
        if fingerprint.problem != reference.problem {
            return Err(mismatch(
                i,
                "problem",
                format!("{:?}", fingerprint.problem),
                format!("{:?}", reference.problem),
            ));
        }
        let at = island.progress().generation;
        if at != generation {
            return Err(mismatch(
                i,
                "generation",
                at.to_string(),
                generation.to_string(),
            ));
        }
    }
    Ok(generation)
}

impl<Sol, S> Engine for IslandModel<'_, Sol, S>
where
    Sol: Clone + Serialize + DeserializeOwned,
    S: Migrate,
{
    type Solution = Sol;
    type Snapshot = IslandSnapshot<S>;

    fn algorithm(&self) -> &'static str {
        S::ALGORITHM
    }

    /// Island 0's fingerprint (the run's seed, the algorithm's parameters, the problem) with `islands`,
    /// `migration_interval` and `migrants` added; the placement is not part of it.
    fn fingerprint(&self) -> Result<RunFingerprint> {
        let first = self
            .islands
            .first()
            .ok_or_else(|| Error::invalid_parameter(MODEL, "island count K", 0, "at least 1"))?;
        first
            .fingerprint()?
            .with_parameter("islands", &self.params.islands())?
            .with_parameter("migration_interval", &self.params.migration_interval())?
            .with_parameter("migrants", &self.params.migrants())
    }

    fn step(&mut self) -> Result<()> {
        self.step_many(1)
    }

    /// Every island advances to the next migration (or by `steps`, whichever comes first), the backends side
    /// by side, each backend starting all its islands' steps before finishing any ([`Island::start_steps`]);
    /// then the migration, if due; and so on.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        let interval = self.params.migration_interval();
        let mut left = steps;
        while left > 0 {
            let chunk = left.min(interval - self.generation % interval);
            for_each_grouped_in_two_passes(
                &mut self.islands,
                self.placement.len(),
                |island| island.start_steps(chunk),
                |island| island.finish_steps(),
            )?;
            self.generation += chunk;
            left -= chunk;
            if self.generation.is_multiple_of(interval) {
                self.migrate()?;
            }
        }
        Ok(())
    }

    fn evaluations_per_step(&self) -> Option<u64> {
        self.islands
            .iter()
            .map(|island| island.evaluations_per_step())
            .sum()
    }

    fn progress(&self) -> Progress {
        let best = self.best_island();
        Progress {
            generation: self.generation,
            evaluations: self
                .islands
                .iter()
                .map(|island| island.progress().evaluations)
                .sum(),
            best_fitness: self.islands[best].progress().best_fitness,
        }
    }

    fn best(&self) -> Result<(Sol, f64)> {
        self.islands[self.best_island()].best()
    }

    /// Every island's snapshot, taken in island order on the calling thread (`snapshot` borrows the model
    /// immutably, and the islands need not be shareable between threads).
    fn snapshot(&self) -> Result<IslandSnapshot<S>> {
        Ok(IslandSnapshot {
            generation: self.generation,
            migrations: self.migrations,
            islands: self
                .islands
                .iter()
                .map(|island| island.snapshot())
                .collect::<Result<_>>()?,
        })
    }

    /// Checks the island count and the counters, then restores every island (each checks its own
    /// snapshot). When an island refuses its snapshot, the islands already restored get their previous
    /// state back, so the model is unchanged after the error.
    fn restore(&mut self, snapshot: &IslandSnapshot<S>) -> Result<()> {
        snapshot.check(&self.params)?;
        let groups = self.placement.len();
        let previous = for_each_grouped(&mut self.islands, groups, |_, island| island.snapshot())?;
        let restored = for_each_grouped(&mut self.islands, groups, |i, island| {
            island.restore(&snapshot.islands[i])
        });
        if let Err(error) = restored {
            let previous = &previous;
            for_each_grouped(&mut self.islands, groups, |i, island| {
                island.restore(&previous[i])
            })?;
            return Err(error);
        }
        self.generation = snapshot.generation;
        self.migrations = snapshot.migrations;
        Ok(())
    }
}
