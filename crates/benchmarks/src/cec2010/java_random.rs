//! The `java.util.Random` algorithm, as the official CEC 2010 Java code (T. Weise's `Randomizer`) draws
//! its shift vectors, permutations and rotations with it (spec benchmarks.md §(c), generator item 1).
//!
//! A 48-bit linear congruential generator (Knuth, TAOCP vol. 2 §3.2.1):
//!
//! ```text
//! seed ← (seed · 0x5DEECE66D + 0xB) mod 2^48,   next(bits) = seed >> (48 − bits) as signed 32-bit
//! ```
//!
//! `next_int`, `next_double` and `next_gaussian` follow the `java.util.Random` documentation (Java SE API):
//! rejection for bounds that are not powers of two, 53-bit doubles, and the Marsaglia polar method with the
//! second deviate cached. The logarithm is fdlibm's ([`evo_core::math::log_f64`]), as in Java's `StrictMath`.
//!
//! Unlike `java.util.Random(long)`, [`JavaRandom::new`] stores the seed as is, without XOR-ing it with the
//! multiplier: the official `Randomizer` sets the state that way (spec item 2).

use evo_core::math::log_f64;

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;
/// `2^-53`.
const DOUBLE_UNIT: f64 = 1.0 / (1u64 << 53) as f64;

/// The `java.util.Random` generator with a raw 48-bit state.
#[derive(Debug)]
pub struct JavaRandom {
    state: u64,
    cached_gaussian: Option<f64>,
}

impl JavaRandom {
    /// A generator whose state is `seed mod 2^48` (no scrambling, see the module docs).
    pub fn new(seed: u64) -> Self {
        Self {
            state: seed & MASK,
            cached_gaussian: None,
        }
    }

    /// The next `bits` (1..=32) random bits as Java's signed `int`.
    fn next(&mut self, bits: u32) -> i32 {
        self.state = (self.state.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        // Java's `(int)(seed >>> (48 - bits))` keeps the low 32 bits of the shifted state.
        (self.state >> (48 - bits)) as u32 as i32
    }

    /// A uniform integer in `0..bound` (`bound ≥ 1`), Java's `nextInt(int)`.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        debug_assert!(bound > 0);
        if bound & (bound - 1) == 0 {
            return ((i64::from(bound) * i64::from(self.next(31))) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let value = bits % bound;
            // Java rejects the draw when `bits - value + (bound - 1)` overflows a 32-bit int.
            if bits
                .checked_sub(value)
                .and_then(|v| v.checked_add(bound - 1))
                .is_some()
            {
                return value;
            }
        }
    }

    /// A uniform double in `[0, 1)` with 53 random bits, Java's `nextDouble()`.
    pub fn next_double(&mut self) -> f64 {
        let high = i64::from(self.next(26)) << 27;
        let low = i64::from(self.next(27));
        (high + low) as f64 * DOUBLE_UNIT
    }

    /// A standard normal deviate, Java's `nextGaussian()` (Marsaglia's polar method, pairs cached).
    pub fn next_gaussian(&mut self) -> f64 {
        if let Some(cached) = self.cached_gaussian.take() {
            return cached;
        }
        loop {
            let v1 = 2.0 * self.next_double() - 1.0;
            let v2 = 2.0 * self.next_double() - 1.0;
            let s = v1 * v1 + v2 * v2;
            if s < 1.0 && s != 0.0 {
                let multiplier = (-2.0 * log_f64(s) / s).sqrt();
                self.cached_gaussian = Some(v2 * multiplier);
                return v1 * multiplier;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers of `java.util.Random`: `new Random(42)` scrambles 42 with the multiplier, so the raw
    /// state `42 ^ 0x5DEECE66D` reproduces it; its first `nextInt()` is -1170105035 and its first
    /// `nextInt(10)` is 0 (values widely quoted from the JDK).
    #[test]
    fn reproduces_java_util_random() {
        let mut random = JavaRandom::new(42 ^ MULTIPLIER);
        assert_eq!(random.next(32), -1_170_105_035);
        let mut random = JavaRandom::new(42 ^ MULTIPLIER);
        assert_eq!(random.next_int(10), 0);
    }

    #[test]
    fn bounded_integers_stay_in_range() {
        let mut random = JavaRandom::new(7);
        for bound in [1, 2, 3, 50, 64, 1000, 1 << 30, i32::MAX] {
            for _ in 0..100 {
                let v = random.next_int(bound);
                assert!((0..bound).contains(&v));
            }
        }
    }

    #[test]
    fn gaussians_have_unit_variance() {
        let mut random = JavaRandom::new(3);
        let n = 20_000;
        let draws: Vec<f64> = (0..n).map(|_| random.next_gaussian()).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let variance = draws.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        assert!(
            mean.abs() < 0.03 && (variance - 1.0).abs() < 0.05,
            "{mean} {variance}"
        );
    }
}
