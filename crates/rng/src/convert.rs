//! Conversions of random words to numbers, identical on the CPU and the GPU (spec rng.md §5).
//!
//! Each function is the twin of an `evo_*` function of the same name in `kernels/common/rng/convert.cuh`, with
//! the same operations in the same order; under the Exact profile (no contraction into FMA) both give the
//! same bits.

use evo_core::math::{cos_f32, log_f32, sin_f32};

/// 2^-32 as f32 (exact).
pub const TWO_POW_MINUS_32_F32: f32 = 2.328_306_4e-10;
/// 2^-33 as f32 (exact): half a step of [`uniform_f32`]'s grid.
pub const TWO_POW_MINUS_33_F32: f32 = 1.164_153_2e-10;
/// 2^-53 as f64 (exact).
pub const TWO_POW_MINUS_53_F64: f64 = 1.110_223_024_625_156_5e-16;
/// 2^-54 as f64 (exact).
pub const TWO_POW_MINUS_54_F64: f64 = 5.551_115_123_125_783e-17;
/// The angle step of Box–Muller: f32(2^-32)·6.2831855f = 1.4629181e-9 (an exact product, cuRAND's
/// `CURAND_2POW32_INV_2PI`).
pub const ANGLE_STEP_F32: f32 = TWO_POW_MINUS_32_F32 * 6.283_185_5;

/// A uniform f32 in (0, 1] from one word: `f32(w)·2^-32 + 2^-33`, all in f32 (cuRAND's `curand_uniform`).
///
/// `f32(w)` rounds to nearest, the product is exact, the sum rounds: `w = 0` gives 2^-33 and every
/// `w ≥ 2^32 − 128` gives exactly 1.0. Never 0, so `ln u` is finite.
#[inline]
pub fn uniform_f32(word: u32) -> f32 {
    (word as f32) * TWO_POW_MINUS_32_F32 + TWO_POW_MINUS_33_F32
}

/// A uniform f64 in (0, 1) from two words (cuRAND's `curand_uniform_double`, "hq" variant): the 53-bit
/// integer `z = w0 ⊕ (w1 << 21)`, then `z·2^-53 + 2^-54`. The second word supplies the high bits.
#[inline]
pub fn uniform_f64(first: u32, second: u32) -> f64 {
    let z = (first as u64) ^ ((second as u64) << 21);
    (z as f64) * TWO_POW_MINUS_53_F64 + TWO_POW_MINUS_54_F64
}

/// A uniform integer in `[0, n)` from one word by Lemire's multiply-shift without rejection:
/// `(u64(w)·n) >> 32`.
///
/// Each value has probability ⌊2^32/n⌋/2^32 or ⌈2^32/n⌉/2^32, a relative bias below n/2^32 (2.3e-7 for
/// n = 1000). `n` must be at least 1 (callers validate sizes up front); `n = 0` yields 0.
#[inline]
pub fn below(word: u32, n: u32) -> u32 {
    (((word as u64) * (n as u64)) >> 32) as u32
}

/// Maps a draw `r` from `[0, n − k)` to an index of `[0, n)` that avoids `k` taken indices, given in
/// increasing order: for each taken `t`, if `r ≥ t` then `r ← r + 1`. One word per index, no rejection
/// (spec rng.md §5.3, used for DE's r1, r2, r3 ≠ i and NAM's candidates).
#[inline]
pub fn skip_taken(mut r: u32, taken_increasing: &[u32]) -> u32 {
    for &t in taken_increasing {
        if r >= t {
            r += 1;
        }
    }
    r
}

/// Two standard normals from two words by Box–Muller in cuRAND's order: `u = uniform_f32(x)`,
/// `φ = f32(y)·c + c/2` with `c` = [`ANGLE_STEP_F32`], `r = √(−2 ln u)`; returns `[r·sin φ, r·cos φ]`.
/// All in f32 with the portable math, so the GPU twin gives the same bits.
#[inline]
pub fn box_muller(x: u32, y: u32) -> [f32; 2] {
    let u = uniform_f32(x);
    let angle = (y as f32) * ANGLE_STEP_F32 + ANGLE_STEP_F32 / 2.0;
    let radius = (-2.0 * log_f32(u)).sqrt();
    [radius * sin_f32(angle), radius * cos_f32(angle)]
}

/// Bernoulli(p): true when `uniform_f32(w) < p`.
#[inline]
pub fn bernoulli(word: u32, p: f32) -> bool {
    uniform_f32(word) < p
}

/// A uniform real in `[a, b]`: `a + (b − a)·u`, then clamped to `[a, b]` (rounding can step past `b`).
#[inline]
pub fn uniform_in(word: u32, a: f32, b: f32) -> f32 {
    (a + (b - a) * uniform_f32(word)).clamp(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_exact_powers_of_two() {
        assert_eq!(TWO_POW_MINUS_32_F32, 2.0f32.powi(-32));
        assert_eq!(TWO_POW_MINUS_33_F32, 2.0f32.powi(-33));
        assert_eq!(TWO_POW_MINUS_53_F64, 2.0f64.powi(-53));
        assert_eq!(TWO_POW_MINUS_54_F64, 2.0f64.powi(-54));
        assert_eq!(ANGLE_STEP_F32.to_bits(), 1.462_918_1e-9f32.to_bits());
    }

    #[test]
    fn uniform_f32_ends_of_the_range() {
        assert_eq!(uniform_f32(0), TWO_POW_MINUS_33_F32);
        assert_eq!(uniform_f32(u32::MAX - 127), 1.0);
        assert!(uniform_f32(u32::MAX - 128) <= 1.0);
        assert_eq!(uniform_f32(u32::MAX), 1.0);
    }

    /// Spec rng.md §5.2: Philox words (0x6627e8d5, 0xe169c58d) give 0.8805202684009383.
    #[test]
    fn uniform_f64_reference() {
        assert_eq!(uniform_f64(0x6627e8d5, 0xe169c58d), 0.880_520_268_400_938_3);
        assert!(uniform_f64(0, 0) > 0.0);
        assert!(uniform_f64(u32::MAX, u32::MAX) < 1.0);
    }

    /// Spec rng.md §5.3: Philox init(0,0,0) words with n = 10 give 3, 8, 7, 6.
    #[test]
    fn below_reference() {
        let words = [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8];
        assert_eq!(words.map(|w| below(w, 10)), [3, 8, 7, 6]);
        assert_eq!(below(u32::MAX, 1), 0);
        assert_eq!(below(u32::MAX, u32::MAX), u32::MAX - 1);
    }

    #[test]
    fn skip_taken_avoids_every_taken_index() {
        let n = 7;
        let taken = [1, 4];
        let picks: Vec<u32> = (0..n - 2).map(|r| skip_taken(r, &taken)).collect();
        assert_eq!(picks, [0, 2, 3, 5, 6]);
    }

    /// Spec rng.md §2: `curand_normal` ×4 after Philox init(0,0,0) ≈ −0.9246624, 0.9911377, −0.4820687,
    /// −0.6176088 (libm values; our portable math is within 1e-6 of them).
    #[test]
    fn box_muller_matches_curand_values() {
        let [a, b] = box_muller(0x6627e8d5, 0xe169c58d);
        let [c, d] = box_muller(0xbc57ac4c, 0x9b00dbd8);
        let expected = [-0.924_662_4, 0.991_137_7, -0.482_068_7, -0.617_608_8];
        for (got, want) in [a, b, c, d].into_iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "got {got}, want {want}");
        }
    }

    #[test]
    fn uniform_in_stays_inside_the_interval() {
        for w in [0, 1, u32::MAX / 2, u32::MAX] {
            let x = uniform_in(w, -5.12, 5.12);
            assert!((-5.12..=5.12).contains(&x));
        }
    }
}
