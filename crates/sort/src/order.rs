//! The total order every routine of this crate sorts and selects by, defined once.
//!
//! Pairs `(value, index)` are ordered by value, then by the lower index. Values are ordered by
//! [`f64::total_cmp`] (or [`f32::total_cmp`]) with one change: **every NaN, of either sign and any payload,
//! ranks after `+∞`**, and all NaNs tie with each other (so among NaNs the lower index comes first).
//! `total_cmp` alone would put negative NaNs before `−∞`; a NaN fitness is a failed evaluation and must never
//! be selected as the best of a minimisation. Everything else follows `total_cmp`:
//!
//! ```text
//! −∞ < negative numbers < −0.0 < +0.0 < positive numbers < +∞ < NaN (any sign, any payload)
//! ```
//!
//! The order is computed through an unsigned **order key** ([`SortKey::order_key`]) whose unsigned order is
//! the value order above: a value with bits `b` maps to `b | sign` when its sign bit is clear and to `!b` when
//! it is set (negative values reverse, and sit below every positive one), and every NaN maps to the largest key
//! `Key::MAX`, which no other value reaches (`+∞` maps to `0xff80_0000` in f32). The CUDA twin is
//! `kernels/common/sort/key.cuh` (`evo_sort_key_f32`, `evo_sort_key_f64`, `evo_sort_precedes`), line for line.
//!
//! Because pairs carry distinct indices, the order on pairs is strict and total: sorting a set of pairs has
//! exactly one result. That is why the CPU twins may sort with any comparison sort while the kernels use
//! bitonic networks and radix passes, and the permutations still agree exactly.

use std::cmp::Ordering;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A fitness type the crate sorts: `f32` or `f64`.
pub trait SortKey:
    Copy + Send + Sync + PartialEq + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The unsigned order key (`u32` for `f32`, `u64` for `f64`).
    type Key: Copy + Ord + Send + Sync + std::fmt::Debug + 'static;

    /// The type's name in kernel entry points and reports (`"f32"`).
    const NAME: &'static str;

    /// The order key: unsigned order of keys equals the value order of the module docs.
    /// Twin: `evo_sort_key_f32` / `evo_sort_key_f64`.
    fn order_key(self) -> Self::Key;

    /// The bits of the value, widened to 64 bits, for messages.
    fn bits(self) -> u64;
}

impl SortKey for f32 {
    type Key = u32;
    const NAME: &'static str = "f32";

    fn order_key(self) -> u32 {
        let bits = self.to_bits();
        if bits & 0x7fff_ffff > 0x7f80_0000 {
            return u32::MAX;
        }
        if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        }
    }

    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl SortKey for f64 {
    type Key = u64;
    const NAME: &'static str = "f64";

    fn order_key(self) -> u64 {
        let bits = self.to_bits();
        if bits & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000 {
            return u64::MAX;
        }
        if bits & 0x8000_0000_0000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000_0000_0000
        }
    }

    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// The order of `(a, index_a)` and `(b, index_b)`: by order key, then by index.
pub fn compare<T: SortKey>(a: T, index_a: usize, b: T, index_b: usize) -> Ordering {
    a.order_key()
        .cmp(&b.order_key())
        .then(index_a.cmp(&index_b))
}

/// Whether `(a, index_a)` comes strictly before `(b, index_b)`. Twin: `evo_sort_precedes`.
pub fn precedes<T: SortKey>(a: T, index_a: usize, b: T, index_b: usize) -> bool {
    compare(a, index_a, b, index_b) == Ordering::Less
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_total_cmp_for_every_non_nan_value() {
        let values = [
            f64::NEG_INFINITY,
            f64::MIN,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1.0,
            f64::MAX,
            f64::INFINITY,
        ];
        for pair in values.windows(2) {
            assert!(pair[0].total_cmp(&pair[1]).is_lt());
            assert!(
                pair[0].order_key() < pair[1].order_key(),
                "{:?} vs {:?}",
                pair[0],
                pair[1]
            );
        }
        let single: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        for pair in single.windows(2) {
            assert!(pair[0].order_key() <= pair[1].order_key());
            assert_eq!(
                pair[0].order_key().cmp(&pair[1].order_key()),
                pair[0].total_cmp(&pair[1])
            );
        }
    }

    #[test]
    fn every_nan_ranks_after_infinity_and_ties_with_other_nans() {
        let nans = [
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7f80_0001),
            f32::from_bits(0xffc0_1234),
        ];
        for nan in nans {
            assert_eq!(nan.order_key(), u32::MAX);
            assert!(precedes(f32::INFINITY, 9, nan, 0));
        }
        assert!(precedes(-f64::NAN, 1, f64::NAN, 2));
        assert!(precedes(f64::NAN, 1, -f64::NAN, 2));
        assert_eq!(f32::INFINITY.order_key(), 0xff80_0000);
    }

    #[test]
    fn minus_zero_precedes_plus_zero_and_equal_values_go_by_index() {
        assert!(precedes(-0.0f64, 7, 0.0, 1));
        assert!(precedes(2.5f32, 3, 2.5, 4));
        assert!(!precedes(2.5f32, 4, 2.5, 4));
        assert_eq!(compare(1.0f64, 2, 1.0, 2), Ordering::Equal);
    }
}
