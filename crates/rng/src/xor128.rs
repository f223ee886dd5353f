//! Marsaglia's xor128 (*Xorshift RNGs*, J. Stat. Softw. 8(14), 2003): the GA paper's "Xorshift".
//!
//! State (x, y, z, w), never all zero. Step: `t = x ⊕ (x << 11)`; `(x, y, z) ← (y, z, w)`;
//! `w ← w ⊕ (w >> 19) ⊕ t ⊕ (t >> 8)`; output `w`. Period 2^128 − 1. Device twin: `evo_xor128_next` in
//! `kernels/common/rng/xor128.cuh`.

use std::convert::Infallible;

use evo_core::{Error, Result};
use rand_core::{SeedableRng, TryRng, utils};

/// Marsaglia's standard start (x, y, z, w).
pub const STANDARD_START: [u32; 4] = [123_456_789, 362_436_069, 521_288_629, 88_675_123];

/// The xor128 generator. Neither `Default` nor `Copy`: a copied generator silently repeats its numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xor128 {
    state: [u32; 4],
}

impl Xor128 {
    /// A generator at `state` = (x, y, z, w); the all-zero state is a fixed point and is rejected.
    pub fn new(state: [u32; 4]) -> Result<Self> {
        if state == [0; 4] {
            return Err(Error::invalid_parameter(
                "xor128",
                "state",
                "[0, 0, 0, 0]",
                "any state except all zero (a fixed point)",
            ));
        }
        Ok(Self { state })
    }

    /// The generator at Marsaglia's standard start.
    pub fn standard() -> Self {
        Self {
            state: STANDARD_START,
        }
    }

    /// A generator from four words, with the all-zero state replaced by the standard start (how the GA
    /// paper mode seeds its per-thread generators from Philox words).
    pub fn from_words_or_standard(state: [u32; 4]) -> Self {
        if state == [0; 4] {
            Self::standard()
        } else {
            Self { state }
        }
    }

    /// The state (x, y, z, w).
    pub fn state(&self) -> [u32; 4] {
        self.state
    }

    /// The next word.
    #[inline]
    pub fn next_word(&mut self) -> u32 {
        let [x, y, z, w] = self.state;
        let t = x ^ (x << 11);
        let next = w ^ (w >> 19) ^ (t ^ (t >> 8));
        self.state = [y, z, w, next];
        next
    }
}

impl TryRng for Xor128 {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> std::result::Result<u32, Infallible> {
        Ok(self.next_word())
    }

    fn try_next_u64(&mut self) -> std::result::Result<u64, Infallible> {
        utils::next_u64_via_u32(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Infallible> {
        utils::fill_bytes_via_next_word(dst, || self.try_next_u32())
    }
}

impl SeedableRng for Xor128 {
    /// (x, y, z, w) as little-endian words.
    type Seed = [u8; 16];

    /// The all-zero seed is replaced by the standard start (the all-zero state is a fixed point).
    fn from_seed(seed: Self::Seed) -> Self {
        let words: [u32; 4] = utils::read_words(&seed);
        Self::from_words_or_standard(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    /// The first ten outputs from the standard start: vim `src/testdir/test_random.vim` (first five) and
    /// dlang/phobos `std/random.d`, Xorshift128 unittest (ten). Spec rng.md §4.
    #[test]
    fn reference() {
        let mut rng = Xor128::standard();
        let words: Vec<u32> = (0..10).map(|_| rng.next_u32()).collect();
        assert_eq!(
            words,
            [
                3701687786, 458299110, 2500872618, 3633119408, 516391518, 2377269574, 2599949379,
                717229868, 137866584, 395339113
            ]
        );
    }

    #[test]
    fn all_zero_state_is_rejected_with_the_reason() {
        let error = Xor128::new([0; 4]).unwrap_err().to_string();
        assert!(error.contains("all zero"), "{error}");
        assert_eq!(Xor128::from_seed([0; 16]), Xor128::standard());
    }
}
