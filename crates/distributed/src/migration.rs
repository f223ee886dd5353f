//! Ring migration on snapshots: island `i`'s best `k` replace island `(i + 1) mod K`'s worst `k`.

use evo_sort::SortKey;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What the island model needs of an algorithm's snapshot: the population's fitness, one individual taken
/// out whole, and one slot overwritten. Implemented here for each supported algorithm (DE:
/// [`DeSnapshot`](evo_de::DeSnapshot)).
///
/// Migration goes through [`Engine::snapshot`](evo_core::Engine::snapshot) and
/// [`Engine::restore`](evo_core::Engine::restore), which both backends of an algorithm implement with one
/// snapshot type, so the model needs nothing else of an engine and the CPU and CUDA engines migrate alike.
pub trait Migrate: Clone + Serialize + DeserializeOwned + Send + Sync {
    /// One individual with everything that travels with it (genes, fitness, per-individual adapted
    /// parameters); serializable, since migrants cross processes when the islands run over ranks.
    type Migrant: Send + Serialize + DeserializeOwned;

    /// The name the island model of this algorithm reports and checkpoints record ("DE islands").
    const ALGORITHM: &'static str;

    /// Generations (or cycles) completed, as the engine counts them.
    fn generation(&self) -> u64;

    /// The fitness of the current population (to minimise), one value per slot.
    fn fitness(&self) -> &[f64];

    /// A copy of the individual in slot `slot`.
    fn migrant(&self, slot: usize) -> Self::Migrant;

    /// Overwrites slot `slot` with `migrant`.
    fn settle(&mut self, slot: usize, migrant: Self::Migrant);

    /// Restores what the algorithm's snapshot keeps true once an island's migrants have settled (GA: rows
    /// sorted best first, the best so far no worse than the population's best). The default does nothing
    /// (DE keeps nothing of the kind).
    fn after_migration(&mut self) {}
}

/// The slots ordered best first, by the workspace's one total order ([`evo_sort::SortKey`]): fitness by
/// `total_cmp` with every NaN after `+inf`, ties by the lower slot. The order is strict, so it is unique.
pub fn ranking(fitness: &[f64]) -> Vec<usize> {
    let mut slots: Vec<usize> = (0..fitness.len()).collect();
    slots.sort_unstable_by_key(|&slot| (fitness[slot].order_key(), slot));
    slots
}

/// One migration over the islands' snapshots, in place (the crate docs give the rule):
///
/// 1. every island `i` ranks its slots ([`ranking`]) and sends its `k` best, best first:
///    `e_i = (s_i[0], …, s_i[k−1])`, all taken before any slot is overwritten;
/// 2. island `j = (i + 1) mod K` puts `e_i[r]` into its `r`-th worst slot `s_j[M−1−r]` (`r = 0 .. k`),
///    ranked on its own fitness before the migration, then calls [`Migrate::after_migration`].
///
/// `k` must be at most `M/2` (checked by the model), so an island's `k` best and `k` worst slots are
/// disjoint: its best individual is never overwritten.
pub fn ring_migration<S: Migrate>(islands: &mut [S], migrants: usize) {
    let emigrants: Vec<Vec<S::Migrant>> = islands
        .iter()
        .map(|island| emigrants(island, migrants))
        .collect();
    let count = islands.len();
    for (sender, group) in emigrants.into_iter().enumerate() {
        immigrate(&mut islands[(sender + 1) % count], group);
    }
}

/// Step 1 of [`ring_migration`] for one island: its `k` best individuals, best first. The model over
/// ranks calls it too, so that both models migrate alike by construction.
pub(crate) fn emigrants<S: Migrate>(island: &S, migrants: usize) -> Vec<S::Migrant> {
    ranking(island.fitness())
        .into_iter()
        .take(migrants)
        .map(|slot| island.migrant(slot))
        .collect()
}

/// Step 2 of [`ring_migration`] for one receiving island: `group[r]` into its `r`-th worst slot, then
/// [`Migrate::after_migration`].
pub(crate) fn immigrate<S: Migrate>(receiver: &mut S, group: Vec<S::Migrant>) {
    // Each island receives once, from its predecessor, so its fitness is still the pre-migration one.
    let worst_first: Vec<usize> = ranking(receiver.fitness()).into_iter().rev().collect();
    for (slot, migrant) in worst_first.into_iter().zip(group) {
        receiver.settle(slot, migrant);
    }
    receiver.after_migration();
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde::Deserialize;

    /// An island whose individuals are named by (island, slot), to follow them through a migration.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Toy {
        names: Vec<(usize, usize)>,
        fitness: Vec<f64>,
    }

    impl Migrate for Toy {
        type Migrant = ((usize, usize), f64);
        const ALGORITHM: &'static str = "toy islands";
        fn generation(&self) -> u64 {
            0
        }
        fn fitness(&self) -> &[f64] {
            &self.fitness
        }
        fn migrant(&self, slot: usize) -> Self::Migrant {
            (self.names[slot], self.fitness[slot])
        }
        fn settle(&mut self, slot: usize, (name, fitness): Self::Migrant) {
            self.names[slot] = name;
            self.fitness[slot] = fitness;
        }
    }

    fn toy(island: usize, fitness: &[f64]) -> Toy {
        Toy {
            names: (0..fitness.len()).map(|slot| (island, slot)).collect(),
            fitness: fitness.to_vec(),
        }
    }

    #[test]
    fn the_ranking_is_total_cmp_then_the_lower_slot_with_nan_last() {
        let fitness = [
            2.0,
            -0.0,
            0.0,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            2.0,
            -1.0,
        ];
        assert_eq!(ranking(&fitness), [7, 1, 2, 0, 6, 5, 3, 4]);
    }

    #[test]
    fn the_best_k_replace_the_next_islands_worst_k_best_into_the_worst() {
        let mut islands = vec![
            toy(0, &[5.0, 1.0, 3.0, 9.0, 7.0]),
            toy(1, &[2.0, 8.0, 8.0, 0.5, 4.0]),
            toy(2, &[6.0, 6.0, 1.5, 3.5, 9.5]),
        ];
        ring_migration(&mut islands, 2);
        // Island 0 sends slots 1 (1.0) then 2 (3.0); island 1's worst are slot 2 (8.0, the later tie)
        // then slot 1: slot 2 gets 1.0, slot 1 gets 3.0.
        assert_eq!(islands[1].names, [(1, 0), (0, 2), (0, 1), (1, 3), (1, 4)]);
        assert_eq!(islands[1].fitness, [2.0, 3.0, 1.0, 0.5, 4.0]);
        // Island 1 sends from its pre-migration state: slots 3 (0.5) and 0 (2.0), into island 2's slot 4
        // (9.5) and then the later of the tied 6.0s, slot 1.
        assert_eq!(islands[2].names, [(2, 0), (1, 0), (2, 2), (2, 3), (1, 3)]);
        // Island 2 sends slots 2 (1.5) and 3 (3.5) around the ring to island 0's slots 3 (9.0) and 4 (7.0).
        assert_eq!(islands[0].names, [(0, 0), (0, 1), (0, 2), (2, 2), (2, 3)]);
    }

    #[test]
    fn a_single_island_sends_its_best_into_its_own_worst() {
        let mut islands = vec![toy(0, &[4.0, 1.0, 3.0, 2.0])];
        ring_migration(&mut islands, 1);
        assert_eq!(islands[0].names, [(0, 1), (0, 1), (0, 2), (0, 3)]);
    }
}
