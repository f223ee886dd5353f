//! cuRAND-compatible XORWOW (`curandStateXORWOW_t`), the generator of the DE and MA-SW-Chains papers.
//!
//! Semantics of `curand_kernel.h` (spec rng.md §3):
//! 1. `curand_init(seed, subsequence, offset)`: s0 = seed_lo ⊕ 0xaad26b49, s1 = seed_hi ⊕ 0xf7dcefdd,
//!    t0 = 1099087573·s0, t1 = 2591861531·s1; d = 6615241 + t1 + t0; v = (123456789 + t0, 362436069 ⊕ t0,
//!    521288629 + t1, 88675123 ⊕ t1, 5783321 + t0).
//! 2. Jump `subsequence`·2^67 steps and `offset` steps by GF(2) matrix powers of v ([`crate::gf2`]);
//!    d += 362437·offset (the subsequence jump leaves d unchanged: 362437·2^67 ≡ 0 mod 2^32).
//! 3. `curand()`: t = v0 ⊕ (v0 >> 2); shift v left by one word; v4 ← (v4 ⊕ (v4 << 4)) ⊕ (t ⊕ (t << 1));
//!    d += 362437; return v4 + d.
//!
//! Device twin: `kernels/common/rng/curand_xorwow.cuh`.

use std::convert::Infallible;

use rand_core::{SeedableRng, TryRng, utils};
use serde::{Deserialize, Serialize};

use crate::convert::{box_muller, uniform_f32, uniform_f64};
use crate::gf2::{JumpTables, xorshift_step};

/// The Weyl increment of d per step.
pub const WEYL: u32 = 362_437;

/// cuRAND's XORWOW state with its Box–Muller cache. Neither `Default` nor `Copy`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurandXorwow {
    d: u32,
    v: [u32; 5],
    cached_normal: Option<u32>,
}

impl CurandXorwow {
    /// `curand_init(seed, subsequence, offset)`.
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let mut rng = Self::seeded(seed);
        rng.skip_subsequences(subsequence);
        rng.advance(offset);
        rng.cached_normal = None;
        rng
    }

    /// The state right after seeding, before any jump.
    fn seeded(seed: u64) -> Self {
        let s0 = (seed as u32) ^ 0xaad2_6b49;
        let s1 = ((seed >> 32) as u32) ^ 0xf7dc_efdd;
        let t0 = 1_099_087_573u32.wrapping_mul(s0);
        let t1 = 2_591_861_531u32.wrapping_mul(s1);
        Self {
            d: 6_615_241u32.wrapping_add(t1).wrapping_add(t0),
            v: [
                123_456_789u32.wrapping_add(t0),
                362_436_069 ^ t0,
                521_288_629u32.wrapping_add(t1),
                88_675_123 ^ t1,
                5_783_321u32.wrapping_add(t0),
            ],
            cached_normal: None,
        }
    }

    /// Skips `n` words (cuRAND `skipahead`): equal to `n` calls of [`Self::next_word`].
    pub fn advance(&mut self, n: u64) {
        self.v = JumpTables::get().jump_offset(self.v, n);
        self.d = self.d.wrapping_add(WEYL.wrapping_mul(n as u32));
    }

    /// Skips `n` subsequences of 2^67 words (cuRAND `skipahead_sequence`).
    pub fn skip_subsequences(&mut self, n: u64) {
        self.v = JumpTables::get().jump_subsequence(self.v, n);
    }

    /// The state (d, v0..v4).
    pub fn state(&self) -> (u32, [u32; 5]) {
        (self.d, self.v)
    }

    /// `curand()`: the next word.
    #[inline]
    pub fn next_word(&mut self) -> u32 {
        self.v = xorshift_step(self.v);
        self.d = self.d.wrapping_add(WEYL);
        self.v[4].wrapping_add(self.d)
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

    /// `curand_normal`: Box–Muller on the next two words returns r·sin φ and caches r·cos φ for the next
    /// call (portable math, so the device twin agrees bit for bit).
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
}

impl TryRng for CurandXorwow {
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

impl SeedableRng for CurandXorwow {
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
        let mut rng = CurandXorwow::new(seed, subsequence, offset);
        (0..n).map(|_| rng.next_word()).collect()
    }

    fn uniforms(subsequence: u64, n: usize) -> Vec<f32> {
        let mut rng = CurandXorwow::new(0, subsequence, 0);
        (0..n).map(|_| rng.uniform_f32()).collect()
    }

    fn assert_close(got: &[f32], want: &[f64]) {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            // The published values are printed to 10 digits; one f32 ulp near 1 is 6e-8.
            assert!(
                (f64::from(*g) - w).abs() <= 6e-8,
                "uniform {i}: got {g}, published {w}"
            );
        }
    }

    /// `curand_init(0, k, 0)` raw words and uniforms: JuliaGPU/CUDA.jl docs `docs/src/usage/array.md` (older
    /// revision) and simoncblyth/opticks `notes/issues/lifting-the-3M-photon-limitation.rst` (spec rng.md §3).
    #[test]
    fn reference() {
        assert_eq!(
            words(0, 0, 0, 5),
            [3179217846, 1883133293, 2220552389, 674260989, 306521119]
        );
        assert_eq!(
            words(0, 1, 0, 4),
            [3955638199, 1977250130, 1432217238, 1599962988]
        );
        assert_eq!(
            words(0, 2, 0, 4),
            [167591721, 1074664060, 792354105, 4133572041]
        );
        assert_eq!(
            words(0, 99999, 0, 4),
            [3925649615, 1891181141, 4070922878, 386624711]
        );
        assert_close(
            &uniforms(0, 8),
            &[
                0.7402193546,
                0.4384511411,
                0.5170126557,
                0.1569886208,
                0.0713675097,
                0.4625083804,
                0.2276432663,
                0.3293584883,
            ],
        );
        assert_close(
            &uniforms(1, 8),
            &[
                0.9209938049,
                0.4603644311,
                0.3334640563,
                0.3725204170,
                0.4896024764,
                0.5672709346,
                0.0799058080,
                0.2333681583,
            ],
        );
        assert_close(
            &uniforms(99999, 4),
            &[0.9140115380, 0.4403249323, 0.9478355646, 0.0900180787],
        );
        let first: Vec<f32> = (0..8).map(|k| uniforms(k, 1)[0]).collect();
        assert_close(
            &first,
            &[
                0.74021935, 0.9209938, 0.03902049, 0.96896291, 0.92514056, 0.4463501, 0.66731918,
                0.10993068,
            ],
        );
    }

    /// The state after the first draw of subsequence 0 (spec rng.md §3).
    #[test]
    fn state_after_first_draw() {
        let mut rng = CurandXorwow::new(0, 0, 0);
        rng.next_word();
        assert_eq!(
            rng.state(),
            (
                0x2ac1d59a,
                [0x455f2458, 0xf8a42704, 0xdcd8f87c, 0x511db0d6, 0x92bd2e1c]
            )
        );
    }

    /// Computed values (no external check): other seeds and an offset.
    #[test]
    fn other_seeds_and_offsets() {
        assert_eq!(words(1, 0, 0, 3), [2898200796, 3111669439, 2179589753]);
        assert_eq!(words(1234, 0, 0, 3), [624778773, 1867875844, 3739671282]);
        assert_eq!(words(0, 0, 3, 2), [674260989, 306521119]);
    }

    /// `curand_normal` ×2 after init(0,0,0) ≈ 0.2925366, −0.7183591 (spec rng.md §3).
    #[test]
    fn normal_reference() {
        let mut rng = CurandXorwow::new(0, 0, 0);
        let got = [rng.normal_f32(), rng.normal_f32()];
        for (g, w) in got.iter().zip([0.292_536_6f32, -0.718_359_1]) {
            assert!((g - w).abs() < 1e-6, "got {g}, want {w}");
        }
    }
}
