//! DE islands: [`DeSnapshot`] migrates, and [`islands`] builds a model of [`DeCpu`] and [`DeCuda`] engines.

use crate::island::{Departure, Island, Landing};
use crate::migration::{Migrate, immigrate};
use crate::model::{IslandEngine, IslandModel, IslandSite};
use crate::params::IslandParams;
use crate::placement::Placement;
use crate::ranked::RankedIslandModel;
use crate::ranks::Ranks;
use evo_core::{Backend, ContinuousProblem, Engine, Result};
use evo_de::{DeCpu, DeCuda, DeIndividual, DeParams, DeSnapshot, DeviceProblem};

/// A DE individual on its way to another island: its vector, its fitness and its own `F_i` and `CR_i`
/// (which jDE adapts; constant otherwise), so that it keeps competing as it did at home.
pub type DeMigrant = DeIndividual;

impl Migrate for DeSnapshot {
    type Migrant = DeMigrant;
    const ALGORITHM: &'static str = "DE islands";

    fn generation(&self) -> u64 {
        self.generation
    }

    fn fitness(&self) -> &[f64] {
        &self.fitness
    }

    fn migrant(&self, slot: usize) -> DeMigrant {
        let d = self.dimension;
        DeMigrant {
            vector: self.population[slot * d..(slot + 1) * d].to_vec(),
            fitness: self.fitness[slot],
            differential_weight: self.differential_weights[slot],
            crossover_rate: self.crossover_rates[slot],
        }
    }

    fn settle(&mut self, slot: usize, migrant: DeMigrant) {
        let d = self.dimension;
        self.population[slot * d..(slot + 1) * d].copy_from_slice(&migrant.vector);
        self.fitness[slot] = migrant.fitness;
        self.differential_weights[slot] = migrant.differential_weight;
        self.crossover_rates[slot] = migrant.crossover_rate;
    }
}

/// `Island::departure` and `Island::land` of a DE engine with `population_fitness`, `individuals` and
/// `replace_individuals` (both engines have them, with one signature).
macro_rules! migrants_through_slots {
    () => {
        fn departure(&self, migrants: usize) -> Result<Departure<DeSnapshot>> {
            Departure::from_slots(&self.population_fitness()?, migrants, |slots| {
                self.individuals(slots)
            })
        }

        fn land(&mut self, landing: Landing<DeSnapshot>, arrivals: Vec<DeMigrant>) -> Result<()> {
            land_in_slots(self, landing, arrivals, |engine, replacements| {
                engine.replace_individuals(replacements)
            })
        }
    };
}

/// A DE island moves only its migrants: the population's fitness and `k` individuals read, `k` slots
/// written ([`DeCpu::replace_individuals`]), the same bits as the snapshot path.
impl<P: ContinuousProblem> Island for DeCpu<P> {
    migrants_through_slots!();
}

/// As for [`DeCpu`]: on the device, one batch of range copies through pinned staging each way for the `k`
/// vectors and their slots' values ([`DeCuda::individuals`], [`DeCuda::replace_individuals`]) instead of
/// the whole population. Its steps are queued when
/// started and read back when finished.
impl<P: DeviceProblem> Island for DeCuda<P> {
    /// The generations queued on the device's stream, nothing read back ([`DeCuda::queue_generations`]).
    fn start_steps(&mut self, steps: u64) -> Result<()> {
        self.queue_generations(steps)
    }

    /// The best read back ([`DeCuda::read_back`]), after every island of the device queued its generations.
    fn finish_steps(&mut self) -> Result<()> {
        self.read_back()
    }

    migrants_through_slots!();
}

/// Arrival `r` into slot `r` of a [`Landing::Slots`] with `replace`; a [`Landing::Snapshot`] (from another
/// engine's departure) is settled and restored as [`Island::land`] does by default.
fn land_in_slots<E: Engine<Snapshot = DeSnapshot>>(
    engine: &mut E,
    landing: Landing<DeSnapshot>,
    arrivals: Vec<DeMigrant>,
    replace: impl FnOnce(&mut E, &[(usize, DeMigrant)]) -> Result<()>,
) -> Result<()> {
    match landing {
        Landing::Slots(slots) => {
            let replacements: Vec<(usize, DeMigrant)> = slots.into_iter().zip(arrivals).collect();
            replace(engine, &replacements)
        }
        Landing::Snapshot(mut snapshot) => {
            immigrate(&mut snapshot, arrivals);
            engine.restore(&snapshot)
        }
    }
}

/// `K` DE islands with `de` on `problem` from `seed`: island `i` is a [`DeCuda`] on `cuda:<device>`
/// placements and a [`DeCpu`] on `cpu:<threads>` ones, from seed [`island_seed`](crate::island_seed)`(seed, i)`.
/// For other engine options (initial vectors, local search, a compile profile) build the islands with
/// [`IslandModel::new`] and a builder of your own.
///
/// # Errors
/// As [`IslandModel::new`]; the engines' errors ([`DeCpu::new`], [`DeCuda::new`]: parameters, problem,
/// GPU).
pub fn islands<P>(
    de: &DeParams,
    problem: &P,
    seed: u64,
    params: IslandParams,
    placement: Placement,
) -> Result<IslandModel<'static, Vec<f32>, DeSnapshot>>
where
    P: DeviceProblem + Clone + Send + Sync + 'static,
{
    IslandModel::new(params, placement, seed, |site| island(de, problem, site))
}

/// The DE islands of this rank of `ranks`: [`islands`]' engines, island `i` from the same seed on this
/// rank's `placement`, for the rank's block of the `K` ([`RankedIslandModel`]).
///
/// # Errors
/// As [`RankedIslandModel::new`]; the engines' errors as [`islands`].
pub fn ranked_islands<P, R>(
    de: &DeParams,
    problem: &P,
    seed: u64,
    params: IslandParams,
    placement: Placement,
    ranks: R,
) -> Result<RankedIslandModel<'static, Vec<f32>, DeSnapshot, R>>
where
    P: DeviceProblem + Clone + Send + Sync + 'static,
    R: Ranks,
{
    RankedIslandModel::new(params, placement, seed, ranks, |site| {
        island(de, problem, site)
    })
}

/// The engine of island `site` as [`islands`] and [`ranked_islands`] build it: a [`DeCuda`] on a CUDA
/// backend, a [`DeCpu`] otherwise, from the site's seed. Public so that a program can drive the very
/// engines of a model without the model (the islands bench does, to tell the model's own cost).
///
/// # Errors
/// The engines' errors ([`DeCpu::new`], [`DeCuda::new`]: parameters, problem, GPU).
pub fn island<P>(
    de: &DeParams,
    problem: &P,
    site: IslandSite,
) -> Result<IslandEngine<'static, Vec<f32>, DeSnapshot>>
where
    P: DeviceProblem + Clone + Send + Sync + 'static,
{
    let island: IslandEngine<'static, Vec<f32>, DeSnapshot> = match site.backend {
        Backend::Cuda { .. } => Box::new(DeCuda::for_backend(
            de.clone(),
            problem.clone(),
            site.seed,
            site.backend,
        )?),
        Backend::Cpu { .. } | Backend::Auto => Box::new(DeCpu::for_backend(
            de.clone(),
            problem.clone(),
            site.seed,
            site.backend,
        )?),
    };
    Ok(island)
}
