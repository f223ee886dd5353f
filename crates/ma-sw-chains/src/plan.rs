//! The host-side decisions shared by both engines: the draws of the SSGA (mother, NAM candidates,
//! mutation), the father's choice from the distances, the replacement, the choice of c_LS. Both engines call
//! these same functions, so only the vector work (crossover, distances, evaluation, Solis–Wets) differs.

use evo_rng::convert::skip_taken;
use evo_rng::{Philox, Stream};

/// Words of the mutation sequence: 0 = apply?, 1 = gene, 2..=17 = the 16 coin flips α_k, 18 = sign.
const MUTATION_SIGN_WORD: u32 = 18;

/// One BGA mutation (spec step 5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mutation {
    /// The mutated variable.
    pub gene: u32,
    /// s = Σ α_k·2^{−k} (never 0: a zero sum is no mutation).
    pub s: f32,
    /// `x += rang·s` when true, `x −= rang·s` otherwise.
    pub plus: bool,
}

/// What one child is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildPlan {
    /// The child's global index (the step of its draws).
    pub counter: u32,
    /// The mother's slot.
    pub mother: u32,
    /// The NAM candidates' slots in draw order.
    pub candidates: Vec<u32>,
    /// The father's slot, once the distances are known.
    pub father: u32,
    /// The mutation, if any.
    pub mutation: Option<Mutation>,
}

/// Spec step 3: the mother uniform in `0..n` (word 0), then `nam` candidates distinct from her and from each
/// other (word 1 + k draws from the `n − 1 − k` slots left, mapped past the taken ones).
pub fn draw_parents(rng: &Philox, counter: u32, n: u32, nam: u32) -> (u32, Vec<u32>) {
    let sequence = rng.sequence(Stream::MaSelection, counter, 0);
    let mother = sequence.below(0, n);
    let mut taken = vec![mother];
    let mut candidates = Vec::with_capacity(nam as usize);
    for k in 0..nam {
        let r = sequence.below(1 + k, n - 1 - k);
        let slot = skip_taken(r, &taken);
        candidates.push(slot);
        let at = taken.partition_point(|&t| t < slot);
        taken.insert(at, slot);
    }
    (mother, candidates)
}

/// Spec step 5: with probability `probability` (word 0), one gene (word 1) moves by `±rang·s`; `None` when
/// not applied or when `s = 0`.
pub fn draw_mutation(
    rng: &Philox,
    counter: u32,
    dimension: u32,
    probability: f32,
) -> Option<Mutation> {
    let sequence = rng.sequence(Stream::MaMutation, counter, 0);
    if sequence.uniform_f32(0) >= probability {
        return None;
    }
    let gene = sequence.below(1, dimension);
    let mut bits = 0u16;
    for k in 0..16 {
        if sequence.uniform_f32(2 + k) < 1.0 / 16.0 {
            bits |= 1 << k;
        }
    }
    let s = crate::ops::bga_sum(bits);
    if s == 0.0 {
        return None;
    }
    let plus = sequence.uniform_f32(MUTATION_SIGN_WORD) < 0.5;
    Some(Mutation { gene, s, plus })
}

/// The NAM father: the candidate farthest from the mother (largest squared distance; ties keep the first
/// drawn).
pub fn pick_father(candidates: &[u32], squared_distances: &[f64]) -> u32 {
    let mut best = 0;
    for k in 1..candidates.len() {
        if squared_distances[k] > squared_distances[best] {
            best = k;
        }
    }
    candidates[best]
}

/// The plans of children `first .. first + count`, fathers still unset (set to the mother).
pub fn draw_children(
    rng: &Philox,
    first: u32,
    count: usize,
    n: u32,
    nam: u32,
    dimension: u32,
    probability: f32,
) -> Vec<ChildPlan> {
    (0..count as u32)
        .map(|k| {
            let counter = first + k;
            let (mother, candidates) = draw_parents(rng, counter, n, nam);
            ChildPlan {
                counter,
                mother,
                candidates,
                father: mother,
                mutation: draw_mutation(rng, counter, dimension, probability),
            }
        })
        .collect()
}

/// The total order on (fitness, index): fitness by `total_cmp`, then the lower index.
fn before(a: (f64, usize), b: (f64, usize)) -> bool {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).is_lt()
}

/// Decision 3: the best N of the N slots and the k children survive (order on (fitness, index), slots first,
/// children numbered N..N+k). Returns (child, slot) pairs: the surviving children in child order take the
/// evicted slots in increasing slot order. With k = 1 this is "replace the worst if strictly better".
pub fn replacements(population: &[f64], children: &[f64]) -> Vec<(usize, usize)> {
    let n = population.len();
    let mut all: Vec<(f64, usize)> = population
        .iter()
        .chain(children.iter())
        .copied()
        .zip(0..)
        .collect();
    all.sort_by(|&a, &b| {
        if before(a, b) {
            std::cmp::Ordering::Less
        } else {
            std::cmp::Ordering::Greater
        }
    });
    let mut survives = vec![false; n + children.len()];
    for &(_, index) in &all[..n] {
        survives[index] = true;
    }
    let evicted = (0..n).filter(|&slot| !survives[slot]);
    let adopted = (0..children.len()).filter(|&child| survives[n + child]);
    adopted.zip(evicted).collect()
}

/// The best slot by the total order.
pub fn best_slot(fitness: &[f64]) -> usize {
    let mut best = 0;
    for i in 1..fitness.len() {
        if before((fitness[i], i), (fitness[best], best)) {
            best = i;
        }
    }
    best
}

/// Spec step 8: c_LS is the best slot whose non-improved counter is 0; if there is none, a uniform slot
/// (word 0 of `MaLsChoice` at step `cycle`). Returns the slot and whether S_LS was empty.
pub fn choose_ls(rng: &Philox, cycle: u32, fitness: &[f64], non_improved: &[u32]) -> (usize, bool) {
    let mut chosen: Option<usize> = None;
    for i in 0..fitness.len() {
        if non_improved[i] == 0 && chosen.is_none_or(|c| before((fitness[i], i), (fitness[c], c))) {
            chosen = Some(i);
        }
    }
    match chosen {
        Some(slot) => (slot, false),
        None => {
            let n = fitness.len() as u32;
            (
                rng.sequence(Stream::MaLsChoice, cycle, 0).below(0, n) as usize,
                true,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_are_distinct() {
        let rng = Philox::new(3);
        for counter in 0..500 {
            let (mother, candidates) = draw_parents(&rng, counter, 4, 3);
            let mut all = candidates.clone();
            all.push(mother);
            all.sort_unstable();
            assert_eq!(all, vec![0, 1, 2, 3], "counter {counter}");
        }
    }

    #[test]
    fn sequential_replacement_replaces_the_worst_only_if_strictly_better() {
        assert_eq!(replacements(&[1.0, 5.0, 5.0, 2.0], &[4.0]), vec![(0, 2)]);
        assert_eq!(replacements(&[1.0, 5.0, 5.0, 2.0], &[5.0]), vec![]);
        assert_eq!(
            replacements(&[1.0, 5.0, 3.0, 2.0], &[0.5, 9.0, 2.5]),
            vec![(0, 1), (2, 2)]
        );
    }

    #[test]
    fn father_is_the_farthest_first_drawn_on_ties() {
        assert_eq!(pick_father(&[7, 8, 9], &[1.0, 3.0, 3.0]), 8);
    }

    #[test]
    fn ls_choice_prefers_the_best_unfailed_slot() {
        let rng = Philox::new(1);
        assert_eq!(choose_ls(&rng, 0, &[1.0, 0.5, 2.0], &[0, 1, 0]), (0, false));
        let (slot, empty) = choose_ls(&rng, 0, &[1.0, 0.5, 2.0], &[1, 1, 1]);
        assert!(empty && slot < 3);
    }

    #[test]
    fn mutation_rate_is_about_one_in_eight() {
        let rng = Philox::new(9);
        let hits = (0..8000)
            .filter(|&c| draw_mutation(&rng, c, 100, 0.125).is_some())
            .count();
        // s = 0 (probability (15/16)^16 = 0.356) cancels a mutation: expected 8000·0.125·0.644 = 644.
        assert!((540..750).contains(&hits), "{hits}");
    }
}
