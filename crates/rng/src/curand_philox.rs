//! cuRAND-compatible Philox4_32_10 stream (`curandStatePhilox4_32_10_t`).
//!
//! Semantics of `curand_kernel.h` / `curand_philox4x32_x.h` (spec rng.md §2):
//! 1. `curand_init(seed, subsequence, offset)`: counter 0, key = (seed_lo, seed_hi), STATE = 0.
//! 2. Subsequence skip: add `subsequence` as a 64-bit number to counter words (2, 3) (one subsequence = 2^64
//!    counters = 2^66 words); output = Philox(counter, key).
//! 3. Offset skip: STATE += offset mod 4; n = offset div 4, plus 1 if STATE > 3 (then STATE −= 4); add n to
//!    the 128-bit counter; output = Philox(counter, key).
//! 4. `curand()`: return `output[STATE]`; STATE += 1; at 4: counter += 1, output = Philox(counter, key),
//!    STATE = 0.
//!
//! Device twin: `kernels/common/rng/curand_philox.cuh`.

use std::convert::Infallible;

use rand_core::{SeedableRng, TryRng, utils};
use serde::{Deserialize, Serialize};

use crate::convert::{box_muller, uniform_f32, uniform_f64};
use crate::philox::{Counter, Key, counter_add, key_from_seed, philox4x32_10};

/// cuRAND's Philox4_32_10 stream state with its Box–Muller cache. Neither `Default` nor `Copy`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurandPhilox {
    counter: Counter,
    key: Key,
    output: [u32; 4],
    position: u32,
    cached_normal: Option<u32>,
}

impl CurandPhilox {
    /// `curand_init(seed, subsequence, offset)`.
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let key = key_from_seed(seed);
        let mut rng = Self {
            counter: [0; 4],
            key,
            output: philox4x32_10([0; 4], key),
            position: 0,
            cached_normal: None,
        };
        rng.skip_subsequences(subsequence);
        rng.advance(offset);
        rng
    }

    /// Skips `n` subsequences of 2^66 words (cuRAND `skipahead_sequence`): a 64-bit add to counter words
    /// (2, 3), without carry out of word 3.
    pub fn skip_subsequences(&mut self, n: u64) {
        let high = (self.counter[2] as u64) | ((self.counter[3] as u64) << 32);
        let sum = high.wrapping_add(n);
        self.counter[2] = sum as u32;
        self.counter[3] = (sum >> 32) as u32;
        self.output = philox4x32_10(self.counter, self.key);
    }

    /// Skips `n` words (cuRAND `skipahead`): equal to `n` calls of [`Self::next_word`].
    pub fn advance(&mut self, n: u64) {
        let mut position = self.position as u64 + (n % 4);
        let mut blocks = n / 4;
        if position > 3 {
            blocks += 1;
            position -= 4;
        }
        self.position = position as u32;
        self.counter = counter_add(self.counter, blocks as u128);
        self.output = philox4x32_10(self.counter, self.key);
    }

    /// The counter, key and position within the current block.
    pub fn state(&self) -> (Counter, Key, u32) {
        (self.counter, self.key, self.position)
    }

    /// `curand()`: the next word.
    #[inline]
    pub fn next_word(&mut self) -> u32 {
        let word = self.output[self.position as usize];
        self.position += 1;
        if self.position == 4 {
            self.counter = counter_add(self.counter, 1);
            self.output = philox4x32_10(self.counter, self.key);
            self.position = 0;
        }
        word
    }

    /// `curand4()`: the next four words.
    pub fn next_words4(&mut self) -> [u32; 4] {
        [
            self.next_word(),
            self.next_word(),
            self.next_word(),
            self.next_word(),
        ]
    }

    /// `curand_uniform`: a uniform f32 in (0, 1] from the next word.
    pub fn uniform_f32(&mut self) -> f32 {
        uniform_f32(self.next_word())
    }

    /// `curand_uniform_double`: a uniform f64 in (0, 1) from the next two words.
    pub fn uniform_f64(&mut self) -> f64 {
        let first = self.next_word();
        let second = self.next_word();
        uniform_f64(first, second)
    }

    /// `curand_normal`: Box–Muller on the next two words returns r·sin φ and caches r·cos φ.
    pub fn normal_f32(&mut self) -> f32 {
        if let Some(bits) = self.cached_normal.take() {
            return f32::from_bits(bits);
        }
        let x = self.next_word();
        let y = self.next_word();
        let [sine, cosine] = box_muller(x, y);
        self.cached_normal = Some(cosine.to_bits());
        sine
    }

    /// `curand_normal4`: Box–Muller on (w0, w1) and (w2, w3) of one `curand4` →
    /// (r1 sin φ1, r1 cos φ1, r2 sin φ2, r2 cos φ2). The cache is not touched.
    pub fn normals4(&mut self) -> [f32; 4] {
        let [w0, w1, w2, w3] = self.next_words4();
        let [a, b] = box_muller(w0, w1);
        let [c, d] = box_muller(w2, w3);
        [a, b, c, d]
    }
}

impl TryRng for CurandPhilox {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.next_word())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        utils::next_u64_via_u32(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        utils::fill_bytes_via_next_word(dst, || self.try_next_u32())
    }
}

impl SeedableRng for CurandPhilox {
    /// The 64-bit seed, little-endian; subsequence 0, offset 0.
    type Seed = [u8; 8];

    fn from_seed(seed: Self::Seed) -> Self {
        Self::new(u64::from_le_bytes(seed), 0, 0)
    }

    fn seed_from_u64(seed: u64) -> Self {
        Self::new(seed, 0, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(seed: u64, subsequence: u64, offset: u64, n: usize) -> Vec<u32> {
        let mut rng = CurandPhilox::new(seed, subsequence, offset);
        (0..n).map(|_| rng.next_word()).collect()
    }

    /// Derived from the header semantics and the official block KATs (spec rng.md §2).
    #[test]
    fn reference() {
        assert_eq!(
            words(0, 0, 0, 8),
            [
                0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0xf8e4cca4, 0x5cb200db, 0xb1a574eb,
                0x097eff67
            ]
        );
        assert_eq!(
            words(0, 1, 0, 4),
            [0x844515e1, 0xf08d6eaa, 0x0f19c053, 0x83f875f0]
        );
        assert_eq!(
            words(1234, 0, 0, 4),
            [0x2090b348, 0xda7cf0ab, 0x4401906f, 0xcbca470e]
        );
        assert_eq!(
            words(0, 0, 5, 4),
            [0x5cb200db, 0xb1a574eb, 0x097eff67, 0x04faa329]
        );
        let mut rng = CurandPhilox::new(0, 0, 0);
        let uniforms = [
            rng.uniform_f32(),
            rng.uniform_f32(),
            rng.uniform_f32(),
            rng.uniform_f32(),
        ];
        for (g, w) in uniforms
            .iter()
            .zip([0.399_046_48, 0.880_520_2, 0.735_712_77, 0.605_481_86])
        {
            assert!((g - w).abs() <= 6e-8, "got {g}, want {w}");
        }
        let mut rng = CurandPhilox::new(0, 1, 0);
        let uniforms = [rng.uniform_f32(), rng.uniform_f32()];
        for (g, w) in uniforms.iter().zip([0.516_679_17, 0.939_658_1]) {
            assert!((g - w).abs() <= 6e-8, "got {g}, want {w}");
        }
    }

    /// `curand_normal` ×4 after init(0,0,0) ≈ −0.9246624, 0.9911377, −0.4820687, −0.6176088.
    #[test]
    fn normal_reference() {
        let mut rng = CurandPhilox::new(0, 0, 0);
        let got: Vec<f32> = (0..4).map(|_| rng.normal_f32()).collect();
        for (g, w) in got
            .iter()
            .zip([-0.924_662_4, 0.991_137_7, -0.482_068_7, -0.617_608_8])
        {
            assert!((g - w).abs() < 1e-6, "got {g}, want {w}");
        }
        let mut rng = CurandPhilox::new(0, 0, 0);
        let four = rng.normals4();
        assert_eq!(
            four.map(f32::to_bits),
            [got[0], got[1], got[2], got[3]].map(f32::to_bits)
        );
    }
}
