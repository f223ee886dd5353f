//! The workspace's default generator: Philox4x32-10 addressed by (seed; stream, step, individual, lane).
//!
//! ```text
//!            key = (seed low, seed high)
//!   counter = ( lane , individual , step , stream )      word 0 lowest
//!               │        │          │       └─ purpose of the draw (Stream table)
//!               │        │          └───────── generation or steady-state event counter
//!               │        └──────────────────── individual (or pair, task, run slot)
//!               └───────────────────────────── which block of 4 words of that sequence
//!
//!   sequence (stream, step, individual):  word j = Philox(counter = (j div 4, ...))[j mod 4]
//!   │ w0 w1 w2 w3 │ w4 w5 w6 w7 │ w8 ...        lane 0 │ lane 1 │ lane 2 ...
//!   normals: pair q = words (2q, 2q+1) → normal 2q = r·sin φ, normal 2q+1 = r·cos φ (4 per lane)
//! ```
//!
//! Any thread mapping reads the same words, so the CPU and GPU engines draw identical numbers. Device twin:
//! `evo_sequence_*` in `kernels/common/rng/addressed.cuh`.

use crate::convert::{below, box_muller, uniform_f32, uniform_f64};
use crate::philox::{Key, key_from_seed, philox4x32_10};
use crate::stream::Stream;

/// Philox4x32-10 keyed by one run's seed; hands out addressed [`Sequence`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Philox {
    key: Key,
}

impl Philox {
    /// The generator of the run with this seed (key = low word, high word).
    pub const fn new(seed: u64) -> Self {
        Self {
            key: key_from_seed(seed),
        }
    }

    /// The generator of run `run` of a batch started from `base_seed`: seed `base_seed + run` (64-bit
    /// wrapping), so a batch gives the same results as its runs made one by one (spec rng.md §6.2).
    pub const fn for_batch_run(base_seed: u64, run: u64) -> Self {
        Self::new(base_seed.wrapping_add(run))
    }

    /// The key.
    pub const fn key(&self) -> Key {
        self.key
    }

    /// The sequence of words for one (stream, step, individual).
    #[inline]
    pub const fn sequence(&self, stream: Stream, step: u32, individual: u32) -> Sequence {
        Sequence {
            key: self.key,
            individual,
            step,
            stream: stream.id(),
        }
    }
}

/// The words of one (stream, step, individual) address; word `j` is word `j mod 4` of the block at lane
/// `j div 4`. Cheap to copy: it holds only the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sequence {
    key: Key,
    individual: u32,
    step: u32,
    stream: u32,
}

impl Sequence {
    /// The seed of the key.
    pub const fn seed(&self) -> u64 {
        (self.key[0] as u64) | ((self.key[1] as u64) << 32)
    }

    /// The stream id (counter word 3).
    pub const fn stream_id(&self) -> u32 {
        self.stream
    }

    /// The step (counter word 2).
    pub const fn step(&self) -> u32 {
        self.step
    }

    /// The individual (counter word 1).
    pub const fn individual(&self) -> u32 {
        self.individual
    }

    /// The four words of lane `lane`.
    #[inline]
    pub fn block(&self, lane: u32) -> [u32; 4] {
        philox4x32_10([lane, self.individual, self.step, self.stream], self.key)
    }

    /// Word `j`.
    #[inline]
    pub fn word(&self, j: u32) -> u32 {
        self.block(j / 4)[(j % 4) as usize]
    }

    /// A uniform f32 in (0, 1] from word `j` (spec rng.md §5.1).
    #[inline]
    pub fn uniform_f32(&self, j: u32) -> f32 {
        uniform_f32(self.word(j))
    }

    /// A uniform f64 in (0, 1) from words `2q` and `2q + 1` (spec rng.md §5.2).
    #[inline]
    pub fn uniform_f64(&self, q: u32) -> f64 {
        let block = self.block(q / 2);
        let first = 2 * (q % 2) as usize;
        uniform_f64(block[first], block[first + 1])
    }

    /// A uniform integer in `[0, n)` from word `j` (spec rng.md §5.3; `n ≥ 1`).
    #[inline]
    pub fn below(&self, j: u32, n: u32) -> u32 {
        below(self.word(j), n)
    }

    /// Standard normal number `k`: pair `k div 2` uses words `(2(k div 2), 2(k div 2) + 1)`; even `k` is the
    /// sine value, odd `k` the cosine value (spec rng.md §6.1).
    #[inline]
    pub fn normal_f32(&self, k: u32) -> f32 {
        self.normals4(k / 4)[(k % 4) as usize]
    }

    /// The four normals of lane `lane` (normals `4·lane .. 4·lane + 3`), as cuRAND's `curand_normal4`.
    #[inline]
    pub fn normals4(&self, lane: u32) -> [f32; 4] {
        let [w0, w1, w2, w3] = self.block(lane);
        let [a, b] = box_muller(w0, w1);
        let [c, d] = box_muller(w2, w3);
        [a, b, c, d]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::philox::philox4x32_10;

    #[test]
    fn word_j_is_word_j_mod_4_of_lane_j_div_4() {
        let sequence = Philox::new(0x1234_5678_9abc_def0).sequence(Stream::DeCross, 17, 42);
        for j in 0..40 {
            let block = philox4x32_10(
                [j / 4, 42, 17, Stream::DeCross.id()],
                [0x9abc_def0, 0x1234_5678],
            );
            assert_eq!(sequence.word(j), block[(j % 4) as usize], "word {j}");
        }
    }

    #[test]
    fn normals_come_in_sine_cosine_pairs() {
        let sequence = Philox::new(7).sequence(Stream::MaSwNoise, 3, 9);
        let block = sequence.block(2);
        let [s0, c0] = box_muller(block[0], block[1]);
        let [s1, c1] = box_muller(block[2], block[3]);
        let got: Vec<u32> = (8..12).map(|k| sequence.normal_f32(k).to_bits()).collect();
        assert_eq!(got, [s0, c0, s1, c1].map(f32::to_bits));
    }

    #[test]
    fn uniform_f64_uses_consecutive_word_pairs() {
        let sequence = Philox::new(1).sequence(Stream::Fill, 0, 0);
        let w: Vec<u32> = (0..8).map(|j| sequence.word(j)).collect();
        for q in 0..4 {
            let q_usize = q as usize;
            let expected = uniform_f64(w[2 * q_usize], w[2 * q_usize + 1]);
            assert_eq!(
                sequence.uniform_f64(q).to_bits(),
                expected.to_bits(),
                "pair {q}"
            );
        }
    }

    #[test]
    fn batch_runs_use_consecutive_seeds() {
        assert_eq!(Philox::for_batch_run(u64::MAX, 2), Philox::new(1));
    }
}
