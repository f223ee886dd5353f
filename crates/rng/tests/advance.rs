//! "advance(n) equals n steps" for the sequential generators with skip-ahead (spec rng.md §3.5, §2.3).

use evo_rng::{CurandPhilox, CurandXorwow};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn xorwow_advance_equals_single_steps(seed: u64, subsequence in 0u64..1_000_000, start in 0u64..1000, n in 0u64..3000) {
        let mut stepped = CurandXorwow::new(seed, subsequence, start);
        for _ in 0..n {
            stepped.next_word();
        }
        let mut jumped = CurandXorwow::new(seed, subsequence, start);
        jumped.advance(n);
        prop_assert_eq!(jumped.state(), stepped.state());
        prop_assert_eq!(jumped.next_word(), stepped.next_word());
    }

    #[test]
    fn xorwow_jumps_compose(seed: u64, subsequence: u64, a in 0u64..(1 << 62), b in 0u64..(1 << 62)) {
        let mut twice = CurandXorwow::new(seed, subsequence, a);
        twice.advance(b);
        let mut once = CurandXorwow::new(seed, subsequence, 0);
        once.advance(a + b);
        prop_assert_eq!(twice.state(), once.state());
    }

    #[test]
    fn xorwow_subsequences_compose(seed: u64, a in 0u64..(1 << 62), b in 0u64..(1 << 62)) {
        let mut split = CurandXorwow::new(seed, a, 0);
        split.skip_subsequences(b);
        prop_assert_eq!(split.state(), CurandXorwow::new(seed, a + b, 0).state());
    }

    #[test]
    fn philox_advance_equals_single_steps(seed: u64, subsequence: u64, start in 0u64..1000, n in 0u64..3000) {
        let mut stepped = CurandPhilox::new(seed, subsequence, start);
        for _ in 0..n {
            stepped.next_word();
        }
        let mut jumped = CurandPhilox::new(seed, subsequence, start);
        jumped.advance(n);
        prop_assert_eq!(jumped.state(), stepped.state());
        prop_assert_eq!(jumped.next_word(), stepped.next_word());
    }

    #[test]
    fn philox_jumps_compose(seed: u64, subsequence: u64, a in 0u64..(1 << 62), b in 0u64..(1 << 62)) {
        let mut twice = CurandPhilox::new(seed, subsequence, a);
        twice.advance(b);
        prop_assert_eq!(twice.state(), CurandPhilox::new(seed, subsequence, a + b).state());
    }
}
