//! The scalar operators of DE, the CPU twins of `kernels/cuda/de.cu`.
//!
//! Each function is mirrored by a device function `de_<name>` with the same operations in the same order
//! (no fused multiply-add on either side under the Exact profile), so both engines produce the same bits.
//! Random words come from [`evo_rng::Philox`] addressed by (stream, step = generation, individual = vector):
//!
//! | draw | stream | words |
//! | --- | --- | --- |
//! | initial coordinate `j` of vector `i` | `DeInit`, step 0 | word `j` |
//! | partners `r1, r2, r3` | `DeIndices` | words 0, 1, 2 |
//! | `j_rand` | `DeJrand` | word 0 |
//! | crossover draw `u_j` (binomial) or `u_k` (exponential) | `DeCross` | word `j` (`k`) |
//! | jDE | `DeJde` | words 0–3 |

use evo_rng::convert::{below, skip_taken, uniform_f32};

/// jDE's probability τ1 of drawing a new `F` (and τ2 of a new `CR`).
pub const JDE_TAU: f32 = 0.1;
/// jDE's smallest `F`.
pub const JDE_F_LOWER: f32 = 0.1;
/// jDE's range of new `F` values: `F ∈ [0.1, 0.1 + 0.9]`.
pub const JDE_F_RANGE: f32 = 0.9;

/// Three mutually distinct partners, all different from vector `i`, from three words (spec rng.md §5.3):
/// `r1` uniform in `[0, M − 1)` skipping `{i}`, `r2` in `[0, M − 2)` skipping `{i, r1}`, `r3` in
/// `[0, M − 3)` skipping `{i, r1, r2}` (taken indices in increasing order). `M ≥ 4`.
/// Twin: `de_distinct_indices`.
pub fn distinct_indices(words: [u32; 3], i: u32, population: u32) -> [u32; 3] {
    let r1 = skip_taken(below(words[0], population - 1), &[i]);
    let two = sorted2(i, r1);
    let r2 = skip_taken(below(words[1], population - 2), &two);
    let three = sorted3(two, r2);
    let r3 = skip_taken(below(words[2], population - 3), &three);
    [r1, r2, r3]
}

/// Two indices in increasing order.
fn sorted2(a: u32, b: u32) -> [u32; 2] {
    if a < b { [a, b] } else { [b, a] }
}

/// Inserts `c` into an increasing pair.
fn sorted3([a, b]: [u32; 2], c: u32) -> [u32; 3] {
    if c < a {
        [c, a, b]
    } else if c < b {
        [a, c, b]
    } else {
        [a, b, c]
    }
}

/// DE/rand/1: `a + F·(b − c)`. Twin: `de_mutate_rand1`.
#[inline]
pub fn mutate_rand1(a: f32, b: f32, c: f32, f: f32) -> f32 {
    a + f * (b - c)
}

/// DE/best/1: `best + F·(a − b)`. Twin: `de_mutate_best1`.
#[inline]
pub fn mutate_best1(best: f32, a: f32, b: f32, f: f32) -> f32 {
    best + f * (a - b)
}

/// DE/current-to-best/1: `(x + F·(best − x)) + F·(a − b)`. Twin: `de_mutate_current_to_best1`.
#[inline]
pub fn mutate_current_to_best1(x: f32, best: f32, a: f32, b: f32, f: f32) -> f32 {
    x + f * (best - x) + f * (a - b)
}

/// Range repair (step 3.2, spec §3 item 4): clamps into `[lower, upper]`; NaN becomes `lower`.
/// Twin: `de_repair`.
#[inline]
pub fn repair(v: f32, lower: f32, upper: f32) -> f32 {
    if v.is_nan() || v < lower {
        lower
    } else if v > upper {
        upper
    } else {
        v
    }
}

/// Binomial crossover: whether coordinate `j` comes from the mutant. Twin: `de_binomial_takes_mutant`.
#[inline]
pub fn binomial_takes_mutant(j: u32, j_rand: u32, u: f32, cr: f32) -> bool {
    j == j_rand || u < cr
}

/// The paper's literal crossover: coordinate `j_rand` keeps the parent's value, any other comes from the
/// mutant when `u < CR`. Twin: `de_paper_literal_takes_mutant`.
#[inline]
pub fn paper_literal_takes_mutant(j: u32, j_rand: u32, u: f32, cr: f32) -> bool {
    j != j_rand && u < cr
}

/// The exponential crossover's length `L`: the first `k ∈ [1, D)` with `u_k ≥ CR`, or `D` when there is
/// none. Twin: `de_exponential_length` (a block-wide minimum over chunks of `k`).
pub fn exponential_length(dimension: u32, cr: f32, u: impl Fn(u32) -> f32) -> u32 {
    (1..dimension).find(|&k| u(k) >= cr).unwrap_or(dimension)
}

/// Exponential crossover: whether coordinate `j` comes from the mutant, i.e. its cyclic offset from
/// `j_rand` is below `L`. Twin: `de_exponential_takes_mutant`.
#[inline]
pub fn exponential_takes_mutant(j: u32, j_rand: u32, length: u32, dimension: u32) -> bool {
    (j + dimension - j_rand) % dimension < length
}

/// jDE (spec de.md §4): the `(F', CR')` for this generation's trial from four words and the vector's
/// current `(F_i, CR_i)`. Twin: `de_jde_adapt`.
pub fn jde_adapt(words: [u32; 4], f: f32, cr: f32) -> (f32, f32) {
    let f_new = if uniform_f32(words[0]) < JDE_TAU {
        JDE_F_LOWER + JDE_F_RANGE * uniform_f32(words[1])
    } else {
        f
    };
    let cr_new = if uniform_f32(words[2]) < JDE_TAU {
        uniform_f32(words[3])
    } else {
        cr
    };
    (f_new, cr_new)
}

/// Selection (step 3.4): whether the trial replaces its parent. Twin: `de_trial_wins`.
#[inline]
pub fn trial_wins(trial: f64, parent: f64, accept_equal: bool) -> bool {
    trial < parent || (accept_equal && trial <= parent)
}

/// The index of the smallest fitness under the total order (`total_cmp`, then the lower index).
/// Twin: `de_best_index`.
pub fn best_index(fitness: &[f64]) -> usize {
    let mut best = 0;
    for (i, value) in fitness.iter().enumerate().skip(1) {
        if value.total_cmp(&fitness[best]).is_lt() {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_are_distinct_and_differ_from_the_vector() {
        let population = 5;
        for w in [0u32, 1, 0x5555_5555, 0x8000_0000, u32::MAX] {
            for i in 0..population {
                let words = [w, w.rotate_left(7), w.wrapping_mul(2_654_435_761)];
                let [r1, r2, r3] = distinct_indices(words, i, population);
                let mut all = [i, r1, r2, r3];
                all.sort_unstable();
                assert!(all.windows(2).all(|p| p[0] < p[1]), "{all:?}");
                assert!(all[3] < population);
            }
        }
    }

    #[test]
    fn every_partner_triple_is_reachable() {
        // M = 4 leaves exactly one set {r1, r2, r3} for each i, in 3! orders.
        let mut seen = std::collections::BTreeSet::new();
        for a in 0..3u32 {
            for b in 0..2u32 {
                let words = [a * 0x5555_5556, b << 31, 0];
                seen.insert(distinct_indices(words, 0, 4));
            }
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
    }

    #[test]
    fn exponential_crossover_takes_a_cyclic_run() {
        let u = [0.0, 0.1, 0.2, 0.95, 0.1, 0.1];
        let length = exponential_length(6, 0.9, |k| u[k as usize]);
        assert_eq!(length, 3);
        let taken: Vec<u32> = (0..6)
            .filter(|&j| exponential_takes_mutant(j, 4, length, 6))
            .collect();
        assert_eq!(taken, [0, 4, 5]);
        assert_eq!(exponential_length(6, 1.0, |_| 0.5), 6);
    }

    #[test]
    fn crossovers_force_one_coordinate() {
        assert!(binomial_takes_mutant(3, 3, 1.0, 0.0));
        assert!(!paper_literal_takes_mutant(3, 3, 0.0, 1.0));
        assert!(paper_literal_takes_mutant(2, 3, 0.5, 0.9));
        assert!(!binomial_takes_mutant(2, 3, 0.95, 0.9));
    }

    #[test]
    fn repair_clamps_and_maps_nan_to_the_lower_limit() {
        assert_eq!(repair(f32::NAN, -1.0, 1.0).to_bits(), (-1.0f32).to_bits());
        assert_eq!(repair(7.0, -1.0, 1.0).to_bits(), 1.0f32.to_bits());
        assert_eq!(repair(-7.0, -1.0, 1.0).to_bits(), (-1.0f32).to_bits());
        assert_eq!(repair(0.25, -1.0, 1.0).to_bits(), 0.25f32.to_bits());
    }

    #[test]
    fn jde_keeps_or_redraws_within_its_ranges() {
        let keep = jde_adapt([u32::MAX, 0, u32::MAX, 0], 0.5, 0.9);
        assert_eq!(keep, (0.5, 0.9));
        let (f, cr) = jde_adapt([0, u32::MAX, 0, 0], 0.5, 0.9);
        assert!((0.1..=1.0).contains(&f) && f > 0.99, "{f}");
        assert!(cr > 0.0 && cr < 1e-9, "{cr}");
    }

    #[test]
    fn best_index_prefers_the_lower_index_on_ties() {
        assert_eq!(best_index(&[3.0, 1.0, 1.0, 2.0]), 1);
        assert_eq!(best_index(&[0.0, -0.0]), 1);
        assert_eq!(best_index(&[5.0]), 0);
    }

    #[test]
    fn selection_is_strict_unless_asked() {
        assert!(!trial_wins(1.0, 1.0, false));
        assert!(trial_wins(1.0, 1.0, true));
        assert!(trial_wins(0.5, 1.0, false));
    }
}
