//! The GA paper's 16-bit binary encoding (§4.2; the decoding details are spec benchmarks.md §(a) decision 4).
//!
//! Variable `i` owns bits `16i .. 16i + 15` of the string, the first bit most significant (plain binary, not
//! Gray):
//!
//! ```text
//! k_i = Σ_{b=0}^{15} bit_{16i+b} · 2^{15−b}
//! x_i = f32(lo + (hi − lo) · k_i / 65535)     (computed in f64, rounded to f32 once)
//! ```
//!
//! Bit `j` of a [`Bits`] string is bit `j % 32` (least significant first) of word `j / 32`.

use evo_core::Bits;

/// Bits per encoded variable.
pub const BITS_PER_VARIABLE: usize = 16;

/// The largest code, `2^16 − 1`.
const MAX_CODE: f64 = 65535.0;

/// The integer code `k_i` of variable `i` in the packed words (bit 16i most significant).
fn code(words: &[u32], i: usize) -> u32 {
    let mut k = 0u32;
    for b in 0..BITS_PER_VARIABLE {
        let j = i * BITS_PER_VARIABLE + b;
        let bit = (words[j / 32] >> (j % 32)) & 1;
        k = (k << 1) | bit;
    }
    k
}

/// Decodes variable `i` of the packed words into `[lo, hi]`: `f32(lo + (hi − lo)·k/65535)`.
pub fn decode_variable(words: &[u32], i: usize, lo: f64, hi: f64) -> f32 {
    let k = f64::from(code(words, i));
    (lo + (hi - lo) * k / MAX_CODE) as f32
}

/// Decodes the first `n` variables of `bits` (which holds at least `16 n` bits).
pub fn decode(bits: &Bits, n: usize, lo: f64, hi: f64) -> Vec<f32> {
    (0..n)
        .map(|i| decode_variable(bits.words(), i, lo, hi))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bit_is_most_significant() {
        // Variable 0 with only its first bit set is 2^15.
        let mut bits = Bits::zeros(32);
        bits.set(0, true).unwrap();
        assert_eq!(code(bits.words(), 0), 1 << 15);
        // Variable 1 with only its last bit (bit 31) set is 1.
        let mut bits = Bits::zeros(32);
        bits.set(31, true).unwrap();
        assert_eq!(code(bits.words(), 1), 1);
        assert_eq!(code(bits.words(), 0), 0);
    }

    #[test]
    fn extremes_decode_to_the_limits_and_the_grid_misses_zero() {
        let ones = Bits::from_bools(&[true; 16]);
        assert_eq!(decode(&ones, 1, -5.12, 5.12), vec![5.12f32]);
        assert_eq!(decode(&Bits::zeros(16), 1, -5.12, 5.12), vec![-5.12f32]);
        // k = 32767: lo + (hi − lo)·0.499992… is just below 0.
        let mut middle = Bits::from_bools(&[true; 16]);
        middle.set(0, false).unwrap();
        let x = decode(&middle, 1, -5.12, 5.12)[0];
        assert!(x < 0.0 && x > -1e-3, "{x}");
    }
}
