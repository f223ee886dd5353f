//! GA islands: [`GaSnapshot`] migrates, and [`islands`] builds a model of [`GaCpu`] and [`GaFusedCuda`]
//! engines.

use crate::island::Island;
use crate::migration::{Migrate, ranking};
use crate::model::{IslandEngine, IslandModel, IslandSite};
use crate::params::{IslandParams, MODEL};
use crate::placement::Placement;
use crate::ranked::RankedIslandModel;
use crate::ranks::Ranks;
use evo_core::{Backend, BinaryProblem, Bits, Error, Result};
use evo_ga::{GaCpu, GaFusedCuda, GaParams, GaSnapshot, PaperFunction};
use evo_gpu_runtime::Gpu;
use evo_sort::SortKey;
use serde::{Deserialize, Serialize};

/// A GA individual on its way to another island: its row of `⌈L/32⌉` words and its fitness.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GaMigrant {
    /// The individual's words, in the [`Bits`] layout.
    pub row: Vec<u32>,
    /// Its fitness.
    pub fitness: f64,
}

impl Migrate for GaSnapshot {
    type Migrant = GaMigrant;
    const ALGORITHM: &'static str = "GA islands";

    fn generation(&self) -> u64 {
        self.generation
    }

    fn fitness(&self) -> &[f64] {
        &self.fitness
    }

    fn migrant(&self, slot: usize) -> GaMigrant {
        GaMigrant {
            row: self.row(slot).to_vec(),
            fitness: self.fitness[slot],
        }
    }

    fn settle(&mut self, slot: usize, migrant: GaMigrant) {
        let w = self.words();
        self.population[slot * w..(slot + 1) * w].copy_from_slice(&migrant.row);
        self.fitness[slot] = migrant.fitness;
    }

    /// A GA snapshot holds its rows sorted best first and a best so far no worse than row 0: the rows are
    /// put back in the workspace's order ([`ranking`]: fitness, then the slot they were in), and row 0
    /// becomes the best so far when it is strictly better (a migrant better than anything the island had
    /// found).
    fn after_migration(&mut self) {
        let order = ranking(&self.fitness);
        let mut population = Vec::with_capacity(self.population.len());
        for &slot in &order {
            population.extend_from_slice(self.row(slot));
        }
        self.fitness = order.iter().map(|&slot| self.fitness[slot]).collect();
        self.population = population;
        if let Some(&first) = self.fitness.first()
            && first.order_key() < self.best_fitness.order_key()
        {
            self.best = self.row(0).to_vec();
            self.best_fitness = first;
        }
    }
}

/// GA islands migrate through snapshots (the provided methods): the receiving island's rows are
/// re-sorted best first afterwards ([`Migrate::after_migration`]).
impl<P: BinaryProblem + Send> Island for GaCpu<P> {}

/// As [`GaCpu`]'s.
impl Island for GaFusedCuda {}

/// `K` GA islands with `ga` on one of the paper's functions from `seed`: island `i` is a [`GaFusedCuda`]
/// on `cuda:<device>` placements and a [`GaCpu`] on `cpu:<threads>` ones, from seed
/// [`island_seed`](crate::island_seed)`(seed, i)`. Both give the same snapshots bit for bit.
///
/// The CUDA island is the fused engine because [`GaCuda`](evo_ga::GaCuda) keeps a recorded CUDA graph,
/// which cudarc does not let move between threads, and the model steps each backend's islands on a thread
/// of their own; the fused engine's limits apply there (Philox RNG, at most 1 024 variables, both
/// populations in one block's shared memory). Other binary problems run on CPU placements through
/// [`IslandModel::new`] with a builder of [`GaCpu`] engines.
///
/// # Errors
/// As [`IslandModel::new`]; the engines' errors ([`GaCpu::with_threads`], [`GaFusedCuda::new`]:
/// parameters, limits, GPU).
pub fn islands(
    ga: &GaParams,
    problem: &PaperFunction,
    seed: u64,
    params: IslandParams,
    placement: Placement,
) -> Result<IslandModel<'static, Bits, GaSnapshot>> {
    IslandModel::new(params, placement, seed, |site| island(ga, problem, site))
}

/// The GA islands of this rank of `ranks`: [`islands`]' engines, island `i` from the same seed on this
/// rank's `placement`, for the rank's block of the `K` ([`RankedIslandModel`]).
///
/// # Errors
/// As [`RankedIslandModel::new`]; the engines' errors as [`islands`].
pub fn ranked_islands<R: Ranks>(
    ga: &GaParams,
    problem: &PaperFunction,
    seed: u64,
    params: IslandParams,
    placement: Placement,
    ranks: R,
) -> Result<RankedIslandModel<'static, Bits, GaSnapshot, R>> {
    RankedIslandModel::new(params, placement, seed, ranks, |site| {
        island(ga, problem, site)
    })
}

/// The engine of one island: [`GaFusedCuda`] on a CUDA backend, [`GaCpu`] on a CPU one.
fn island(
    ga: &GaParams,
    problem: &PaperFunction,
    site: IslandSite,
) -> Result<IslandEngine<'static, Bits, GaSnapshot>> {
    let island: IslandEngine<'static, Bits, GaSnapshot> = match site.backend {
        Backend::Cuda { device } => Box::new(GaFusedCuda::new(
            ga.clone(),
            problem,
            site.seed,
            &Gpu::open(device)?,
        )?),
        Backend::Cpu { threads } => Box::new(GaCpu::with_threads(
            ga.clone(),
            problem.clone(),
            site.seed,
            threads,
        )?),
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Three 1-word individuals 10, 20, 30 with fitness 1, 2, 3 and a best so far of `best_fitness`.
    fn snapshot(best_fitness: f64) -> GaSnapshot {
        GaSnapshot {
            generation: 4,
            evaluations: 0,
            bits: 32,
            population: vec![10, 20, 30, 40],
            fitness: vec![1.0, 2.0, 3.0, 4.0],
            best: vec![7],
            best_fitness,
            xor128: Vec::new(),
        }
    }

    #[test]
    fn settled_rows_are_sorted_back_and_a_better_migrant_becomes_the_best() {
        let mut island = snapshot(0.5);
        island.settle(
            3,
            GaMigrant {
                row: vec![99],
                fitness: 0.25,
            },
        );
        island.settle(
            2,
            GaMigrant {
                row: vec![98],
                fitness: 2.0,
            },
        );
        island.after_migration();
        // The tie at 2.0 keeps the lower slot first: the resident (slot 1) before the migrant (slot 2).
        assert_eq!(island.population, [99, 10, 20, 98]);
        assert_eq!(island.fitness, [0.25, 1.0, 2.0, 2.0]);
        assert_eq!((island.best.clone(), island.best_fitness), (vec![99], 0.25));
    }

    #[test]
    fn a_migrant_no_better_than_the_best_so_far_leaves_it() {
        let mut island = snapshot(0.25);
        island.settle(
            3,
            GaMigrant {
                row: vec![99],
                fitness: 0.25,
            },
        );
        island.after_migration();
        assert_eq!(island.population, [99, 10, 20, 30]);
        assert_eq!((island.best.clone(), island.best_fitness), (vec![7], 0.25));
    }
}
