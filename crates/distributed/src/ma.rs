//! MA-SW-Chains islands: [`MaSnapshot`] migrates, and [`islands`] builds a model of [`MaCpu`] and
//! [`MaCuda`] engines.

use crate::island::Island;
use crate::migration::Migrate;
use crate::model::{IslandEngine, IslandModel, IslandSite};
use crate::params::{IslandParams, MODEL};
use crate::placement::Placement;
use crate::ranked::RankedIslandModel;
use crate::ranks::Ranks;
use evo_benchmarks::cuda::DeviceRealProblem;
use evo_core::{Backend, ContinuousProblem, Error, Result};
use evo_gpu_runtime::Gpu;
use evo_ma_sw_chains::{Chain, MaCpu, MaCuda, MaParams, MaSnapshot};
use serde::{Deserialize, Serialize};

/// An MA-SW-Chains individual on its way to another island: its genes, its fitness, its non-improved
/// counter and its Solis–Wets chain (step size, counters, bias), so that its local search continues where
/// it stood. Individuals never move within an island (a chain belongs to a slot), so the migrant takes the
/// receiving slot's place whole.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MaMigrant {
    /// The genes, `D` values.
    pub genes: Vec<f32>,
    /// Its fitness.
    pub fitness: f64,
    /// Its non-improved counter.
    pub non_improved: u32,
    /// Its stored chain, if any.
    pub chain: Option<Chain>,
}

impl Migrate for MaSnapshot {
    type Migrant = MaMigrant;
    const ALGORITHM: &'static str = "MA-SW-Chains islands";

    /// Memetic cycles completed: the model steps an MA island one cycle at a time.
    fn generation(&self) -> u64 {
        self.cycles
    }

    fn fitness(&self) -> &[f64] {
        &self.fitness
    }

    fn migrant(&self, slot: usize) -> MaMigrant {
        let d = self.dimension;
        MaMigrant {
            genes: self.population[slot * d..(slot + 1) * d].to_vec(),
            fitness: self.fitness[slot],
            non_improved: self.non_improved[slot],
            chain: self.chains[slot].clone(),
        }
    }

    fn settle(&mut self, slot: usize, migrant: MaMigrant) {
        let d = self.dimension;
        self.population[slot * d..(slot + 1) * d].copy_from_slice(&migrant.genes);
        self.fitness[slot] = migrant.fitness;
        self.non_improved[slot] = migrant.non_improved;
        self.chains[slot] = migrant.chain;
    }
}

/// MA-SW-Chains islands migrate through snapshots (the provided methods): a migrant carries its chain.
impl<P: ContinuousProblem + ?Sized> Island for MaCpu<'_, P> {}

/// As [`MaCpu`]'s.
impl<P: DeviceRealProblem + ?Sized> Island for MaCuda<'_, P> {}

/// `K` MA-SW-Chains islands with `ma` on `problem` from `seed`: island `i` is an [`MaCuda`] on
/// `cuda:<device>` placements and an [`MaCpu`] on `cpu:<threads>` ones, from seed
/// [`island_seed`](crate::island_seed)`(seed, i)`. The engines borrow the problem, so the model does too.
/// Each island has the whole evaluation budget of `ma`; the model's step is one memetic cycle of every
/// island.
///
/// # Errors
/// As [`IslandModel::new`]; the engines' errors ([`MaCpu::new`], [`MaCuda::new`]: parameters, problem,
/// device memory).
pub fn islands<'p, P>(
    ma: &MaParams,
    problem: &'p P,
    seed: u64,
    params: IslandParams,
    placement: Placement,
) -> Result<IslandModel<'p, Vec<f32>, MaSnapshot>>
where
    P: DeviceRealProblem + Sync + ?Sized,
{
    IslandModel::new(params, placement, seed, |site| island(ma, problem, site))
}

/// The MA-SW-Chains islands of this rank of `ranks`: [`islands`]' engines, island `i` from the same seed
/// on this rank's `placement`, for the rank's block of the `K` ([`RankedIslandModel`]).
///
/// # Errors
/// As [`RankedIslandModel::new`]; the engines' errors as [`islands`].
pub fn ranked_islands<'p, P, R>(
    ma: &MaParams,
    problem: &'p P,
    seed: u64,
    params: IslandParams,
    placement: Placement,
    ranks: R,
) -> Result<RankedIslandModel<'p, Vec<f32>, MaSnapshot, R>>
where
    P: DeviceRealProblem + Sync + ?Sized,
    R: Ranks,
{
    RankedIslandModel::new(params, placement, seed, ranks, |site| {
        island(ma, problem, site)
    })
}

/// The engine of one island: [`MaCuda`] on a CUDA backend, [`MaCpu`] on a CPU one.
fn island<'p, P>(
    ma: &MaParams,
    problem: &'p P,
    site: IslandSite,
) -> Result<IslandEngine<'p, Vec<f32>, MaSnapshot>>
where
    P: DeviceRealProblem + Sync + ?Sized,
{
    let island: IslandEngine<'p, Vec<f32>, MaSnapshot> = match site.backend {
        Backend::Cuda { device } => Box::new(MaCuda::new(
            ma.clone(),
            problem,
            site.seed,
            &Gpu::open(device)?,
        )?),
        Backend::Cpu { threads } => Box::new(MaCpu::new(ma.clone(), problem, site.seed, threads)?),
        Backend::Auto => {
            return Err(Error::invalid_parameter(
                MODEL,
                "island backend",
                "auto",
                "`cpu:<threads>` or `cuda:<device>`",
            ));
        }
    };
    Ok(island)
}
