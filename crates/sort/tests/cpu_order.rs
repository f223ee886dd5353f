//! The CPU twins against the order's definition: each result is checked with `order::compare` alone (sorted,
//! a permutation, the first of the order), on proptest inputs full of ties, ±0.0, ±∞ and NaNs of both signs.

use evo_sort::cpu;
use evo_sort::order::compare;
use proptest::prelude::*;

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => prop::sample::select(vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN, 1.0, -1.0]),
        2 => (-3i32..3).prop_map(f64::from),
        2 => any::<u64>().prop_map(f64::from_bits),
    ]
}

fn is_sorted_permutation(fitness: &[f64], order: &[u32]) -> bool {
    let mut seen = vec![false; fitness.len()];
    order
        .iter()
        .all(|&i| !std::mem::replace(&mut seen[i as usize], true))
        && order.len() == fitness.len()
        && order.windows(2).all(|w| {
            let (a, b) = (w[0] as usize, w[1] as usize);
            compare(fitness[a], a, fitness[b], b).is_lt()
        })
}

proptest! {
    #[test]
    fn argsort_is_the_sorted_permutation(fitness in prop::collection::vec(value(), 0..300)) {
        let order = cpu::argsort(&fitness).unwrap();
        prop_assert!(is_sorted_permutation(&fitness, &order));
        let single: Vec<f32> = fitness.iter().map(|&v| v as f32).collect();
        let order = cpu::argsort(&single).unwrap();
        let widened: Vec<f64> = single.iter().map(|&v| f64::from(v)).collect();
        prop_assert!(is_sorted_permutation(&widened, &order));
    }

    #[test]
    fn segments_sort_each_segment(fitness in prop::collection::vec(value(), 1..200), len in 1usize..20) {
        let whole = fitness.len() / len * len;
        let sorted = cpu::sort_segments(&fitness[..whole], len).unwrap();
        for (segment, order) in fitness[..whole].chunks(len).zip(sorted.order.chunks(len)) {
            prop_assert!(is_sorted_permutation(segment, order));
        }
    }

    #[test]
    fn selections_agree_with_argsort(fitness in prop::collection::vec(value(), 1..300), k in 1usize..50) {
        let order = cpu::argsort(&fitness).unwrap();
        prop_assert_eq!(cpu::argmin(&fitness), Some(order[0] as usize));
        let k = k.min(fitness.len());
        prop_assert_eq!(cpu::top_k(&fitness, k).unwrap(), order[..k].to_vec());
        let largest = cpu::argmax(&fitness).unwrap();
        for (i, &v) in fitness.iter().enumerate() {
            let by_value = compare(v, 0, fitness[largest], 0);
            prop_assert!(by_value.is_lt() || (by_value.is_eq() && i >= largest));
        }
        let ranks = cpu::ranks(&fitness).unwrap();
        for (rank, &i) in order.iter().enumerate() {
            prop_assert_eq!(ranks[i as usize] as usize, rank);
        }
    }
}
