//! The GA's operators as pure scalar functions. Each one is mirrored, with the same name and the same order
//! of operations, by a device function in `kernels/cuda/ga.cu` (`ga_op_*`); the CPU engine calls these, the
//! kernels call their twins, and the equivalence suite checks that both produce the same populations.
//!
//! Random draws (spec ga.md §4 decisions 3–6, rng.md §5): every draw is addressed by
//! (seed; stream, step, individual, word), so the order in which threads make them does not matter.
//! `step` is the number of the generation being produced (1, 2, …); the initial population is step 0.

use evo_rng::{Philox, Stream, convert};

/// Word `word` of individual `individual` of the initial population: word `word` of the sequence
/// (GA_INIT, 0, individual), every bit uniform, with the bits at and past `bits` cleared ([`Bits`] layout).
/// Twin: `ga_op_init_word`.
///
/// [`Bits`]: evo_core::Bits
pub fn init_word(rng: &Philox, individual: u32, word: u32, bits: u32) -> u32 {
    rng.sequence(Stream::GaInit, 0, individual).word(word) & valid_mask(word, bits)
}

/// The bits of word `word` that lie below `bits` (the rest is padding and stays zero).
pub fn valid_mask(word: u32, bits: u32) -> u32 {
    let first = word * 32;
    if first + 32 <= bits {
        u32::MAX
    } else if first >= bits {
        0
    } else {
        (1u32 << (bits - first)) - 1
    }
}

/// The champion of tournament slot `slot` over a population of `population` individuals sorted best first:
/// `size` positions drawn uniformly with replacement (words 0..size of the sequence (GA_TOURNAMENT, step,
/// slot), Lemire's `below`), the fittest wins. In a sorted population the workspace order on (fitness,
/// index) is the order of positions, so the fittest of the draws is the one at the lowest position.
/// Twin: `ga_op_tournament`.
pub fn tournament(rng: &Philox, step: u32, slot: u32, population: u32, size: u32) -> u32 {
    let draws = rng.sequence(Stream::GaTournament, step, slot);
    let mut champion = draws.below(0, population);
    for j in 1..size {
        champion = champion.min(draws.below(j, population));
    }
    champion
}

/// The crossover point of pair `pair` (rows 2·pair and 2·pair + 1), or `None` when the pair is not crossed.
/// Word 0 of the sequence (GA_CROSSOVER, step, pair) gives the point c = 1 + below(w, L − 1) in [1, L − 1]
/// (spec ga.md §4 decision 4); word 1 gives u ∈ (0, 1] and the pair is crossed when u ≤ p_c (so p_c = 1
/// always crosses, as in the paper, and p_c = 0 never does). Twin: `ga_op_crossover_point`.
pub fn crossover_point(rng: &Philox, step: u32, pair: u32, bits: u32, rate: f32) -> Option<u32> {
    let draws = rng.sequence(Stream::GaCrossover, step, pair);
    if draws.uniform_f32(1) <= rate {
        Some(1 + draws.below(0, bits - 1))
    } else {
        None
    }
}

/// One-point crossover of word `word` of a pair at point `c`: the bits at positions ≥ c are exchanged.
/// Returns the two new words. Twin: `ga_op_crossover_word`.
pub fn crossover_word(first: u32, second: u32, word: u32, c: u32) -> (u32, u32) {
    let start = word * 32;
    let swapped = if c <= start {
        u32::MAX
    } else if c >= start + 32 {
        0
    } else {
        !((1u32 << (c - start)) - 1)
    };
    let difference = (first ^ second) & swapped;
    (first ^ difference, second ^ difference)
}

/// The flip mask of word `word` of individual `individual`: bit g = 32·word + k (g < L) flips when
/// u_g < p_m, with u_g = uniform_f32 of word g of the sequence (GA_MUTATION, step, individual), i.e. lane
/// g div 4 (spec ga.md §4 decision 5). Twin: `ga_op_mutation_mask`.
pub fn mutation_mask(
    rng: &Philox,
    step: u32,
    individual: u32,
    word: u32,
    bits: u32,
    rate: f32,
) -> u32 {
    let draws = rng.sequence(Stream::GaMutation, step, individual);
    let valid = valid_mask(word, bits);
    let mut mask = 0u32;
    for lane_in_word in 0..8u32 {
        let block = draws.block(word * 8 + lane_in_word);
        for (k, &w) in block.iter().enumerate() {
            let bit = lane_in_word * 4 + k as u32;
            if convert::uniform_f32(w) < rate {
                mask |= 1 << bit;
            }
        }
    }
    mask & valid
}

// ---- Paper mode (spec ga.md §4 decision 7): the same operators reading words of the per-generation array.

/// The start state of xor128 thread `thread`: the 4 words of Philox(counter = (thread, 0, 0, GA_XOR128_SEED),
/// key = seed), all-zero replaced by the standard start. Twin: `ga_op_xor128_seed`.
pub fn xor128_seed(rng: &Philox, thread: u32) -> [u32; 4] {
    evo_rng::Xor128::from_words_or_standard(rng.sequence(Stream::GaXor128Seed, 0, 0).block(thread))
        .state()
}

/// Fills `array` from the xor128 `states` as the paper's RNG kernel does: thread t writes entries t, t + T,
/// t + 2T, … in order, advancing its state. Twin: `ga_xor128_fill_u32`.
pub fn xor128_fill(states: &mut [[u32; 4]], array: &mut [u32]) {
    let threads = states.len();
    for (t, state) in states.iter_mut().enumerate() {
        let mut generator = evo_rng::Xor128::from_words_or_standard(*state);
        for entry in array.iter_mut().skip(t).step_by(threads) {
            *entry = generator.next_word();
        }
        *state = generator.state();
    }
}

/// [`tournament`] on the words `draws` (one per contestant) of the paper-mode array. Twin:
/// `ga_op_tournament_words`.
pub fn tournament_from_words(draws: &[u32], population: u32) -> u32 {
    draws
        .iter()
        .map(|&w| convert::below(w, population))
        .min()
        .unwrap_or(0)
}

/// The crossover point 1 + below(w, L − 1) from one word of the paper-mode array. Twin:
/// `ga_op_crossover_point_word`.
pub fn crossover_point_from_word(word: u32, bits: u32) -> u32 {
    1 + convert::below(word, bits - 1)
}

/// [`mutation_mask`] from the words of the paper-mode array: `draws[k]` decides bit 32·word + k (entries
/// past L are absent or ignored). Twin: `ga_op_mutation_mask_words`.
pub fn mutation_mask_from_words(draws: &[u32], word: u32, bits: u32, rate: f32) -> u32 {
    let mut mask = 0u32;
    for (k, &w) in draws.iter().enumerate().take(32) {
        if convert::uniform_f32(w) < rate {
            mask |= 1 << k;
        }
    }
    mask & valid_mask(word, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor128_fill_interleaves_the_threads() {
        let rng = Philox::new(4);
        let mut states: Vec<[u32; 4]> = (0..3).map(|t| xor128_seed(&rng, t)).collect();
        let mut generators: Vec<_> = states
            .iter()
            .map(|&s| evo_rng::Xor128::from_words_or_standard(s))
            .collect();
        let mut array = vec![0u32; 10];
        xor128_fill(&mut states, &mut array);
        for (i, &word) in array.iter().enumerate() {
            assert_eq!(word, generators[i % 3].next_word(), "entry {i}");
        }
        assert_eq!(states[1], generators[1].state());
    }

    #[test]
    fn valid_mask_covers_exactly_the_first_bits() {
        assert_eq!(valid_mask(0, 64), u32::MAX);
        assert_eq!(valid_mask(1, 40), 0xFF);
        assert_eq!(valid_mask(2, 40), 0);
    }

    #[test]
    fn crossover_exchanges_the_tail_only() {
        // c = 4: bits 0..3 stay, bits ≥ 4 swap.
        assert_eq!(
            crossover_word(0x0000_000F, 0xFFFF_FFF0, 0, 4),
            (0xFFFF_FFFF, 0)
        );
        assert_eq!(crossover_word(1, 2, 0, 40), (1, 2));
        assert_eq!(crossover_word(1, 2, 2, 40), (2, 1));
        assert_eq!(
            crossover_word(0xAAAA_AAAA, 0x5555_5555, 1, 40),
            (0x5555_55AA, 0xAAAA_AA55)
        );
    }

    #[test]
    fn crossover_point_lies_in_one_to_l_minus_one() {
        let rng = Philox::new(3);
        for pair in 0..2000 {
            let c = crossover_point(&rng, 1, pair, 5, 1.0).unwrap();
            assert!((1..=4).contains(&c), "{c}");
            assert_eq!(crossover_point(&rng, 1, pair, 5, 0.0), None);
        }
    }

    #[test]
    fn tournament_of_one_is_a_uniform_draw_and_larger_ones_favour_the_front() {
        let rng = Philox::new(11);
        let mean = |size| {
            (0..4000)
                .map(|s| f64::from(tournament(&rng, 1, s, 100, size)))
                .sum::<f64>()
                / 4000.0
        };
        assert!((mean(1) - 49.5).abs() < 3.0);
        // E[min of two uniform draws in 0..100] ≈ 32.8.
        assert!((mean(2) - 32.8).abs() < 3.0);
    }

    #[test]
    fn mutation_flips_about_p_m_of_the_bits_and_none_past_l() {
        let rng = Philox::new(5);
        let mut flips = 0;
        for individual in 0..64 {
            for word in 0..32 {
                let mask = mutation_mask(&rng, 2, individual, word, 1000, 0.1);
                flips += mask.count_ones();
                if word == 31 {
                    assert_eq!(mask & !valid_mask(31, 1000), 0);
                }
            }
        }
        let expected = 0.1 * 64.0 * 1000.0;
        assert!(
            (f64::from(flips) - expected).abs() < 4.0 * (expected * 0.9).sqrt(),
            "{flips}"
        );
        assert_eq!(mutation_mask(&rng, 2, 0, 0, 32, 0.0), 0);
    }

    #[test]
    fn mutation_reads_word_g_of_its_sequence() {
        let rng = Philox::new(9);
        let draws = rng.sequence(Stream::GaMutation, 4, 7);
        let mask = mutation_mask(&rng, 4, 7, 1, 64, 0.5);
        for k in 0..32 {
            let flipped = draws.uniform_f32(32 + k) < 0.5;
            assert_eq!((mask >> k) & 1 == 1, flipped, "bit {k}");
        }
    }
}
