//! The Philox4x32-10 block function (Salmon, Moraes, Dror, Shaw, *Parallel random numbers: as easy as
//! 1, 2, 3*, SC'11): a bijection of the 128-bit counter, keyed by 64 bits.
//!
//! One round maps counter `(c0, c1, c2, c3)` with key `(k0, k1)` to
//! `(hi(M1·c2) ⊕ c1 ⊕ k0, lo(M1·c2), hi(M0·c0) ⊕ c3 ⊕ k1, lo(M0·c0))`, where `hi`/`lo` are the upper and lower
//! 32 bits of the 64-bit product. Ten rounds; before each of rounds 2..10 the key is bumped by `(W0, W1)`.
//! Device twin: `evo_philox4x32_10` in `kernels/common/rng/philox.cuh`.

/// Multiplier of counter word 0.
pub const M0: u32 = 0xD251_1F53;
/// Multiplier of counter word 2.
pub const M1: u32 = 0xCD9E_8D57;
/// Key word 0 increment per round (the golden ratio).
pub const W0: u32 = 0x9E37_79B9;
/// Key word 1 increment per round (√3 − 1).
pub const W1: u32 = 0xBB67_AE85;

/// A 128-bit counter, word 0 lowest.
pub type Counter = [u32; 4];
/// A 64-bit key, word 0 lowest.
pub type Key = [u32; 2];

/// The key of a 64-bit seed: (low word, high word), no scrambling (cuRAND's convention).
#[inline]
pub const fn key_from_seed(seed: u64) -> Key {
    [seed as u32, (seed >> 32) as u32]
}

#[inline(always)]
const fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    let product = (a as u64) * (b as u64);
    ((product >> 32) as u32, product as u32)
}

#[inline(always)]
const fn round(c: Counter, k: Key) -> Counter {
    let (hi0, lo0) = mul_hi_lo(M0, c[0]);
    let (hi1, lo1) = mul_hi_lo(M1, c[2]);
    [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0]
}

/// Philox4x32 with `rounds` rounds (10 is the standard; other counts exist for the known-answer tests).
#[inline(always)]
pub const fn philox4x32(counter: Counter, key: Key, rounds: u32) -> Counter {
    let mut c = counter;
    let mut k = key;
    let mut r = 0;
    while r < rounds {
        if r > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        c = round(c, k);
        r += 1;
    }
    c
}

/// Philox4x32-10: four random words from a counter and a key.
#[inline]
pub const fn philox4x32_10(counter: Counter, key: Key) -> Counter {
    philox4x32(counter, key, 10)
}

/// Adds `n` to a 128-bit counter (word 0 lowest, carries upward, wrapping at 2^128).
#[inline]
pub const fn counter_add(counter: Counter, n: u128) -> Counter {
    let value = (counter[0] as u128)
        | ((counter[1] as u128) << 32)
        | ((counter[2] as u128) << 64)
        | ((counter[3] as u128) << 96);
    let sum = value.wrapping_add(n);
    [
        sum as u32,
        (sum >> 32) as u32,
        (sum >> 64) as u32,
        (sum >> 96) as u32,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers from random123 `tests/kat_vectors`, lines `philox4x32 10` (spec rng.md §1).
    #[test]
    fn reference() {
        let cases: [(Counter, Key, Counter); 3] = [
            (
                [0; 4],
                [0; 2],
                [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
            ),
            (
                [u32::MAX; 4],
                [u32::MAX; 2],
                [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
            ),
            (
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0],
                [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
            ),
        ];
        for (counter, key, expected) in cases {
            assert_eq!(
                philox4x32_10(counter, key),
                expected,
                "counter {counter:08x?} key {key:08x?}"
            );
        }
    }

    /// The 7-round variant (random123 `kat_vectors`, `philox4x32 7`) pins the round count.
    #[test]
    fn seven_rounds_reference() {
        assert_eq!(
            philox4x32([0; 4], [0; 2], 7),
            [0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48]
        );
    }

    #[test]
    fn counter_add_carries_across_words() {
        assert_eq!(counter_add([u32::MAX, u32::MAX, 0, 7], 1), [0, 0, 1, 7]);
        assert_eq!(counter_add([u32::MAX; 4], 2), [1, 0, 0, 0]);
    }

    #[test]
    fn key_from_seed_splits_low_then_high() {
        assert_eq!(key_from_seed(0x0000_0001_0000_04d2), [1234, 1]);
    }
}
