//! The DPGA operators as pure scalar functions (spec §2–§4). A CUDA twin would mirror each one by name.

use crate::params::{ConstraintHandling, Crossover, Encoding};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// One evaluated individual of the main population (spec §3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The objective `f(x)` to minimise.
    pub objective: f64,
    /// `V(x) = Σ max(0, g_j) + Σ_{|h_j| > ε} |h_j|`.
    pub violation: f64,
    /// How many constraints hold (`g_j ≤ 0`, `|h_j| ≤ ε`).
    pub satisfied: u32,
    /// Whether every constraint holds.
    pub feasible: bool,
}

/// Builds an [`Evaluation`] from the constraint values (spec §3): the sum runs inequalities first, each in
/// index order. A non-finite objective, constraint value or violation sum (g14's `0·ln 0` at `x_i = 0`, g20's
/// `0/0` on its box boundary, spec cec2006.md "Singular points") gives [`Evaluation::non_finite`], the worst
/// value under both comparators, so the run goes on without it.
pub fn evaluate_constraints(
    objective: f64,
    inequality: &[f64],
    equality: &[f64],
    tolerance: f64,
) -> Evaluation {
    let total = (inequality.len() + equality.len()) as u32;
    if !objective.is_finite()
        || inequality.iter().any(|g| !g.is_finite())
        || equality.iter().any(|h| !h.is_finite())
    {
        return Evaluation::non_finite(total);
    }
    let mut violation = 0.0;
    let mut satisfied = 0u32;
    for &g in inequality {
        if g <= 0.0 {
            satisfied += 1;
        } else {
            violation += g;
        }
    }
    for &h in equality {
        if h.abs() <= tolerance {
            satisfied += 1;
        } else {
            violation += h.abs();
        }
    }
    if !violation.is_finite() {
        return Evaluation::non_finite(total);
    }
    Evaluation {
        objective,
        violation,
        satisfied,
        feasible: satisfied == total,
    }
}

impl Evaluation {
    /// The value of a point whose objective or a constraint is not finite: objective and violation
    /// `f64::MAX`, no constraint satisfied (infeasible unless the problem has no constraint). It ranks after
    /// every finite evaluation under MCSM and Deb's rules, and equal ones go by index like any tie.
    pub fn non_finite(constraints: u32) -> Self {
        Self {
            objective: f64::MAX,
            violation: f64::MAX,
            satisfied: 0,
            feasible: constraints == 0,
        }
    }

    /// Whether this is [`Evaluation::non_finite`]'s value (a finite evaluation has a violation below
    /// `f64::MAX` unless its sum rounds to exactly that).
    pub fn is_non_finite(&self) -> bool {
        self.objective == f64::MAX && self.violation == f64::MAX && self.satisfied == 0
    }
}

/// MCSM (spec §3): more satisfied constraints first; equal counts with all satisfied → lower objective;
/// otherwise lower violation, then lower objective. `Less` means `a` is better.
pub fn mcsm_cmp(a: &Evaluation, b: &Evaluation) -> Ordering {
    b.satisfied.cmp(&a.satisfied).then_with(|| {
        if a.feasible {
            a.objective.total_cmp(&b.objective)
        } else {
            a.violation
                .total_cmp(&b.violation)
                .then_with(|| a.objective.total_cmp(&b.objective))
        }
    })
}

/// Deb's feasibility rules: feasible beats infeasible; feasible by objective; infeasible by violation.
pub fn deb_cmp(a: &Evaluation, b: &Evaluation) -> Ordering {
    match (a.feasible, b.feasible) {
        (true, true) => a.objective.total_cmp(&b.objective),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.violation.total_cmp(&b.violation),
    }
}

/// The comparator chosen by `handling`, completed by the lower index (a total order).
pub fn main_cmp(
    handling: ConstraintHandling,
    a: (&Evaluation, usize),
    b: (&Evaluation, usize),
) -> Ordering {
    let by_value = match handling {
        ConstraintHandling::Mcsm => mcsm_cmp(a.0, b.0),
        ConstraintHandling::Deb => deb_cmp(a.0, b.0),
    };
    by_value.then(a.1.cmp(&b.1))
}

/// The reserve order: higher `f_r` first, then the lower index.
pub fn reserve_cmp(a: (f64, usize), b: (f64, usize)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The integer of reflected-Gray-code bits `g` (`b ≤ 64`): `g ⊕ (g >> 1) ⊕ (g >> 2) ⊕ …`, the inverse of
/// `k ⊕ (k >> 1)`.
pub fn gray_to_binary(g: u64) -> u64 {
    let mut k = g;
    let mut shift = 1;
    while shift < 64 {
        k ^= k >> shift;
        shift <<= 1;
    }
    k
}

/// Decodes variable bits (most significant first) to `lo + (hi − lo)·k/(2^b − 1)`, in `f64` then rounded to
/// `f32` (spec §2 item 1). `k` is the bits read as plain binary, or as a reflected Gray code: binary bit `i`
/// is the XOR of the Gray bits `0..=i` (the same `k` as [`gray_to_binary`]), built in one pass.
pub fn decode_variable(bits: &[u8], encoding: Encoding, lower: f32, upper: f32) -> f32 {
    let mut k: u64 = 0;
    let mut previous: u8 = 0;
    for &bit in bits {
        let binary = match encoding {
            Encoding::Binary => bit,
            Encoding::Gray => previous ^ bit,
        };
        previous = binary;
        k = (k << 1) | u64::from(binary);
    }
    let top = ((1u64 << bits.len()) - 1) as f64;
    let (lo, hi) = (f64::from(lower), f64::from(upper));
    (lo + (hi - lo) * (k as f64 / top)) as f32
}

/// Decodes a whole bit string of `bits_per_variable` bits per variable, variable `k` into
/// `[lower[k], upper[k]]` by [`decode_variable`]: the one decoding both engines report candidates through.
pub fn decode(
    bits: &[u8],
    bits_per_variable: usize,
    encoding: Encoding,
    lower: &[f32],
    upper: &[f32],
) -> Vec<f32> {
    bits.chunks(bits_per_variable)
        .zip(lower.iter().zip(upper))
        .map(|(var, (&lo, &hi))| decode_variable(var, encoding, lo, hi))
        .collect()
}

/// Bit `j` of a uniform bit string drawn from words: bit `j mod 32` of word `j div 32`.
pub fn random_bit(word: u32, j: usize) -> u8 {
    ((word >> (j % 32)) & 1) as u8
}

/// The main mean vector `m̄_k` = frequency of allele 1 at bit `k` (spec §4 item 1); `population` is row-major
/// with rows of `length` bits.
pub fn mean_vector(population: &[u8], length: usize) -> Vec<f64> {
    let rows = population.len() / length;
    let mut ones = vec![0u32; length];
    for row in population.chunks_exact(length) {
        for (count, &bit) in ones.iter_mut().zip(row) {
            *count += u32::from(bit);
        }
    }
    ones.iter().map(|&c| f64::from(c) / rows as f64).collect()
}

/// `d(M, x) = (1/ℓ) Σ_k |x_k − m̄_k|`, summed in bit order (spec §4 item 2).
pub fn distance_to_main(bits: &[u8], mean: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (&bit, &m) in bits.iter().zip(mean) {
        sum += (f64::from(bit) - m).abs();
    }
    sum / bits.len() as f64
}

/// The reserve fitness `f_r = 1 − |δ − d(M, x)|`, maximised (spec §4 item 3).
pub fn reserve_fitness(distance: f64, target_distance: f64) -> f64 {
    1.0 - (target_distance - distance).abs()
}

/// δ ← clamp(δ + η·(s_C − s_I), δ_min, δ_max) (spec §4 item 4).
pub fn adapt_target_distance(
    delta: f64,
    learning_rate: f64,
    crossbred_survival: f64,
    inbred_survival: f64,
    range: (f64, f64),
) -> f64 {
    (delta + learning_rate * (crossbred_survival - inbred_survival)).clamp(range.0, range.1)
}

/// A tournament: the best of the candidates `below(word_i, size)` under `better` (`Less` = better); the first
/// drawn wins among equals, and `better` itself breaks ties by index.
pub fn tournament(
    words: impl Iterator<Item = u32>,
    size: u32,
    better: impl Fn(usize, usize) -> Ordering,
) -> usize {
    let mut winner: Option<usize> = None;
    for w in words {
        let candidate = evo_rng::convert::below(w, size) as usize;
        winner = Some(match winner {
            Some(current) if better(candidate, current) != Ordering::Less => current,
            _ => candidate,
        });
    }
    winner.unwrap_or(0)
}

/// Whether bit `j` is swapped between the two children. `cuts` are the cut points drawn for the pair
/// (one-point: `[c, L]`; two-point: the sorted pair), `uniform_word` the word deciding bit `j` for uniform
/// crossover.
pub fn swaps_bit(crossover: Crossover, j: usize, cuts: (usize, usize), uniform_word: u32) -> bool {
    match crossover {
        Crossover::OnePoint | Crossover::TwoPoint => j >= cuts.0 && j < cuts.1,
        Crossover::Uniform => random_bit(uniform_word, j) == 1,
    }
}

/// The swapped range `[c1, c2)` from two words: one-point `[1 + below(w1, L − 1), L)`; two-point the sorted
/// pair of `below(w, L + 1)`; for `L = 1` nothing is swapped.
pub fn cut_points(crossover: Crossover, length: usize, w1: u32, w2: u32) -> (usize, usize) {
    if length < 2 {
        return (length, length);
    }
    let l = length as u32;
    match crossover {
        Crossover::OnePoint => (1 + evo_rng::convert::below(w1, l - 1) as usize, length),
        Crossover::TwoPoint => {
            let a = evo_rng::convert::below(w1, l + 1) as usize;
            let b = evo_rng::convert::below(w2, l + 1) as usize;
            (a.min(b), a.max(b))
        }
        Crossover::Uniform => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(objective: f64, violation: f64, satisfied: u32, total: u32) -> Evaluation {
        Evaluation {
            objective,
            violation,
            satisfied,
            feasible: satisfied == total,
        }
    }

    #[test]
    fn constraints_count_and_sum_as_the_spec_says() {
        let e = evaluate_constraints(1.0, &[-1.0, 0.0, 2.0], &[5e-5, -0.5], 1e-4);
        assert_eq!(e.satisfied, 3);
        assert_eq!(e.violation, 2.5);
        assert!(!e.feasible);
        assert!(evaluate_constraints(1.0, &[-1.0], &[1e-4], 1e-4).feasible);
    }

    #[test]
    fn mcsm_prefers_more_satisfied_constraints_even_with_more_violation() {
        let more = eval(10.0, 50.0, 3, 4);
        let fewer = eval(-10.0, 0.1, 2, 4);
        assert_eq!(mcsm_cmp(&more, &fewer), Ordering::Less);
        // Deb's rules look only at the violation between infeasible points.
        assert_eq!(deb_cmp(&more, &fewer), Ordering::Greater);
        let feasible_a = eval(1.0, 0.0, 4, 4);
        let feasible_b = eval(2.0, 0.0, 4, 4);
        assert_eq!(mcsm_cmp(&feasible_a, &feasible_b), Ordering::Less);
        let tie_v = eval(1.0, 2.0, 2, 4);
        let tie_v_worse_f = eval(3.0, 2.0, 2, 4);
        assert_eq!(mcsm_cmp(&tie_v, &tie_v_worse_f), Ordering::Less);
        assert_eq!(
            main_cmp(ConstraintHandling::Mcsm, (&tie_v, 5), (&tie_v, 2)),
            Ordering::Greater
        );
    }

    #[test]
    fn decoding_spans_the_box_most_significant_bit_first() {
        let binary = Encoding::Binary;
        assert_eq!(decode_variable(&[0, 0, 0], binary, -1.0, 1.0), -1.0);
        assert_eq!(decode_variable(&[1, 1, 1], binary, -1.0, 1.0), 1.0);
        assert_eq!(decode_variable(&[1, 0, 0], binary, 0.0, 7.0), 4.0);
        assert_eq!(decode_variable(&[0, 0, 1], binary, 0.0, 7.0), 1.0);
    }

    #[test]
    fn a_bit_string_decodes_variable_by_variable_into_its_own_box() {
        let bits = [1, 0, 0, 0, 0, 1, 1, 1, 1];
        let x = decode(
            &bits,
            3,
            Encoding::Binary,
            &[0.0, 0.0, -1.0],
            &[7.0, 14.0, 1.0],
        );
        assert_eq!(x, vec![4.0, 2.0, 1.0]);
        let gray = decode(
            &bits,
            3,
            Encoding::Gray,
            &[0.0, 0.0, -1.0],
            &[7.0, 14.0, 1.0],
        );
        assert_eq!(
            gray,
            vec![
                7.0,
                2.0,
                decode_variable(&[1, 0, 1], Encoding::Binary, -1.0, 1.0)
            ]
        );
    }

    fn bits_of(value: u64, b: usize) -> Vec<u8> {
        (0..b).rev().map(|i| ((value >> i) & 1) as u8).collect()
    }

    #[test]
    fn gray_decoding_reads_the_reflected_code() {
        let gray = Encoding::Gray;
        // The 3-bit reflected Gray code: 000 001 011 010 110 111 101 100 are k = 0..7.
        let code = [0b000u64, 0b001, 0b011, 0b010, 0b110, 0b111, 0b101, 0b100];
        for (k, &g) in code.iter().enumerate() {
            assert_eq!(gray_to_binary(g), k as u64);
            assert_eq!(decode_variable(&bits_of(g, 3), gray, 0.0, 7.0), k as f32);
        }
        assert_eq!(decode_variable(&[1, 1, 1], gray, 0.0, 7.0), 5.0);
        assert_eq!(decode_variable(&[1, 0, 0], gray, -1.0, 1.0), 1.0);
        assert_eq!(decode_variable(&[0; 20], gray, 0.0, 10.0), 0.0);
    }

    #[test]
    fn gray_code_round_trips_and_neighbours_differ_in_one_bit() {
        let b = 20;
        for k in (0u64..1 << b)
            .step_by(997)
            .chain([(1 << 19) - 1, 1 << 19, (1 << b) - 1])
        {
            let g = k ^ (k >> 1);
            assert_eq!(gray_to_binary(g), k);
            // The one-pass decode gives the same k: with [0, 2^b − 1] as the box, x = k.
            let x = decode_variable(
                &bits_of(g, b),
                Encoding::Gray,
                0.0,
                ((1u64 << b) - 1) as f32,
            );
            assert_eq!(x, k as f32);
            if k + 1 < 1 << b {
                let next = (k + 1) ^ ((k + 1) >> 1);
                assert_eq!((g ^ next).count_ones(), 1);
            }
        }
        // All ones is the Gray code of 1010…10.
        assert_eq!(gray_to_binary(u64::MAX), 0xAAAA_AAAA_AAAA_AAAA);
    }

    #[test]
    fn a_non_finite_evaluation_is_the_worst_under_both_comparators() {
        let nan = evaluate_constraints(f64::NAN, &[-1.0], &[0.0], 1e-4);
        assert!(nan.is_non_finite() && !nan.feasible);
        assert_eq!(nan, Evaluation::non_finite(2));
        assert!(evaluate_constraints(-f64::NAN, &[-1.0], &[], 1e-4).is_non_finite());
        assert!(evaluate_constraints(1.0, &[f64::INFINITY], &[], 1e-4).is_non_finite());
        assert!(evaluate_constraints(1.0, &[-1.0], &[f64::NAN], 1e-4).is_non_finite());
        assert!(evaluate_constraints(1.0, &[f64::MAX, f64::MAX], &[], 1e-4).is_non_finite());
        assert!(!evaluate_constraints(1.0, &[-1.0], &[], 1e-4).is_non_finite());
        let worst_finite = eval(1e300, 1e300, 0, 2);
        for handling in [ConstraintHandling::Mcsm, ConstraintHandling::Deb] {
            assert_eq!(
                main_cmp(handling, (&nan, 0), (&worst_finite, 1)),
                Ordering::Greater
            );
            assert_eq!(main_cmp(handling, (&nan, 0), (&nan, 1)), Ordering::Less);
        }
    }

    #[test]
    fn distance_is_the_mean_hamming_distance_to_the_main_population() {
        let main = [0u8, 0, 1, 1, 0, 1, 1, 1];
        let mean = mean_vector(&main, 4);
        assert_eq!(mean, vec![0.0, 0.5, 1.0, 1.0]);
        // Hamming distances of x = 1000 to 0011 and 0111: 3 and 4, over 4 bits: mean 7/8.
        assert_eq!(distance_to_main(&[1, 0, 0, 0], &mean), 7.0 / 8.0);
        assert_eq!(reserve_fitness(0.5, 0.5), 1.0);
        assert_eq!(reserve_fitness(0.25, 0.5), 0.75);
        assert_eq!(adapt_target_distance(0.5, 0.1, 1.0, 0.0, (0.05, 0.95)), 0.6);
        assert_eq!(
            adapt_target_distance(0.9, 1.0, 1.0, 0.0, (0.05, 0.95)),
            0.95
        );
    }

    #[test]
    fn cuts_stay_inside_the_string() {
        for w in [0u32, 1, u32::MAX / 2, u32::MAX] {
            let (a, b) = cut_points(Crossover::OnePoint, 10, w, 0);
            assert!((1..10).contains(&a) && b == 10);
            let (a, b) = cut_points(Crossover::TwoPoint, 10, w, !w);
            assert!(a <= b && b <= 10);
        }
        assert!(swaps_bit(Crossover::OnePoint, 9, (9, 10), 0));
        assert!(!swaps_bit(Crossover::OnePoint, 8, (9, 10), 0));
    }

    #[test]
    fn a_tournament_returns_the_best_drawn_candidate() {
        let values: [f64; 4] = [5.0, 1.0, 3.0, 0.0];
        let better = |a: usize, b: usize| values[a].total_cmp(&values[b]).then(a.cmp(&b));
        // below(w, 4) is the top two bits of w.
        let words = [0u32, 1 << 30, 2 << 30];
        assert_eq!(tournament(words.into_iter(), 4, better), 1);
        assert_eq!(tournament([3u32 << 30].into_iter(), 4, better), 3);
    }
}
