//! Tests of the instance classes, the greedy repair, the LP bound and the exact optimum.

use super::*;
use proptest::prelude::*;

fn instance(weights: &[u32], profits: &[u32], capacity: u32) -> Knapsack {
    Knapsack::new(
        "t",
        f64::from(capacity),
        weights.iter().map(|&w| w as f32).collect(),
        profits.iter().map(|&p| p as f32).collect(),
    )
    .unwrap()
}

/// The best profit over all 2^n selections.
fn brute_force(problem: &Knapsack) -> f64 {
    let n = problem.len();
    (0u32..1 << n)
        .filter_map(|mask| {
            let bools: Vec<bool> = (0..n).map(|j| (mask >> j) & 1 == 1).collect();
            let packing = problem.packing_of(&Bits::from_bools(&bools));
            (packing.weight <= problem.capacity()).then_some(packing.profit)
        })
        .fold(0.0, f64::max)
}

#[test]
fn classes_follow_their_formulas() {
    let (items, range) = (500, 1000);
    let strong =
        Knapsack::generate_class(KnapsackClass::StronglyCorrelated, items, range, 9).unwrap();
    for class in KnapsackClass::ALL {
        let problem = Knapsack::generate_class(class, items, range, 9).unwrap();
        // One seed, the same weights in every class.
        assert_eq!(problem.weights(), strong.weights());
        let total: f64 = problem.weights().iter().map(|&w| f64::from(w)).sum();
        assert_eq!(problem.capacity(), (total / 2.0).floor());
        for (&w, &p) in problem.weights().iter().zip(problem.profits()) {
            assert!((1.0..=1000.0).contains(&w) && w.fract() == 0.0, "{w}");
            match class {
                KnapsackClass::Uncorrelated => assert!((1.0..=1000.0).contains(&p)),
                KnapsackClass::WeaklyCorrelated => {
                    assert!(p >= 1.0 && (p - w).abs() <= 100.0, "{w} {p}")
                }
                KnapsackClass::StronglyCorrelated => assert_eq!(p, w + 100.0),
                KnapsackClass::SubsetSum => assert_eq!(p, w),
            }
        }
    }
    // Uniform weights over [1, R]: the mean is near (R + 1) / 2 and both ends occur.
    let big = Knapsack::generate_class(KnapsackClass::SubsetSum, 20_000, 10, 1).unwrap();
    let mean = big.weights().iter().map(|&w| f64::from(w)).sum::<f64>() / 20_000.0;
    assert!((mean - 5.5).abs() < 0.1, "{mean}");
    assert!(big.weights().contains(&1.0) && big.weights().contains(&10.0));
    assert_eq!(strong.instance_name(), "knapsack-strong-500-r1000-seed9");
}

#[test]
fn classes_refuse_bad_sizes_and_ranges() {
    let class = KnapsackClass::Uncorrelated;
    assert!(Knapsack::generate_class(class, 0, 1000, 1).is_err());
    let error = Knapsack::generate_class(class, 10, 9, 1).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Knapsack::generate_class: data range R must be in 10 ..= 15000000, got 9"
    );
    assert!(Knapsack::generate_class(class, 10, MAX_RANGE + 1, 1).is_err());
}

#[test]
fn greedy_repair_drops_the_worst_ratios_then_adds_the_best_that_fit() {
    // Ratios: item 0 = 2, item 1 = 3, item 2 = 1, item 3 = 1.5; order 1, 0, 3, 2.
    let problem = instance(&[5, 2, 4, 4], &[10, 6, 4, 6], 9);
    assert_eq!(problem.ratio_order(), [1, 0, 3, 2]);
    // All in (W = 15): drop item 2 (W = 11), drop item 3 (W = 7); add nothing else (item 2, 3 do not fit).
    let mut all = Bits::from_bools(&[true; 4]);
    let packing = problem.greedy_repair(&mut all).unwrap();
    assert_eq!(all.to_bools(), [true, true, false, false]);
    assert_eq!((packing.weight, packing.profit), (7.0, 16.0));
    // {3} (W = 4): adds item 1 (6), not item 0 (11 > 9), not item 2 (10 > 9).
    let mut one = Bits::from_bools(&[false, false, false, true]);
    problem.greedy_repair(&mut one).unwrap();
    assert_eq!(one.to_bools(), [false, true, false, true]);
    // The greedy solution: items 1 and 0 (W = 7), then nothing fits.
    let (row, packing) = problem.greedy_solution();
    assert_eq!(row, [0b11]);
    assert_eq!(packing.profit, 16.0);
    // LP: items 1, 0 (W = 7, P = 16), then 2/4 of item 3: 16 + 3 = 19.
    assert_eq!(problem.lp_bound(), 19.0);
    assert_eq!(problem.exact_optimum(1 << 20).unwrap().profit, 16.0);
}

#[test]
fn the_optimum_is_unknown_for_real_data_or_a_small_table_limit() {
    let real = Knapsack::new("r", 5.0, vec![1.5, 2.0], vec![3.0, 4.0]).unwrap();
    assert_eq!(
        real.exact_optimum(1 << 20).unwrap_err(),
        OptimumUnknown::NotSmallIntegers { item: 0 }
    );
    let hard = Knapsack::generate_class(KnapsackClass::StronglyCorrelated, 200, 1000, 3).unwrap();
    assert!(matches!(
        hard.exact_optimum(10),
        Err(OptimumUnknown::TableTooLarge { limit: 10, .. })
    ));
}

#[test]
fn larger_optima_lie_between_the_greedy_and_the_lp_bound() {
    for class in KnapsackClass::ALL {
        let problem = Knapsack::generate_class(class, 400, 1000, 5).unwrap();
        let optimum = problem.exact_optimum(1 << 31).unwrap();
        let packing = problem.packing_of(&optimum.selection);
        assert!(packing.weight <= problem.capacity());
        assert_eq!(packing.profit, optimum.profit);
        assert!(optimum.profit >= problem.greedy_solution().1.profit);
        assert!(optimum.profit <= problem.lp_bound().floor(), "{class:?}");
    }
}

fn small_instances() -> impl Strategy<Value = Knapsack> {
    (1usize..=12)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(1u32..=30, n),
                prop::collection::vec(0u32..=40, n),
                0u32..=200,
            )
        })
        .prop_map(|(w, p, c)| instance(&w, &p, c))
}

proptest! {
    #[test]
    fn the_exact_optimum_equals_brute_force(problem in small_instances()) {
        let optimum = problem.exact_optimum(1 << 20).unwrap();
        let packing = problem.packing_of(&optimum.selection);
        prop_assert!(packing.weight <= problem.capacity());
        prop_assert_eq!(packing.profit, optimum.profit);
        prop_assert_eq!(optimum.profit, brute_force(&problem));
        prop_assert!(problem.lp_bound() >= optimum.profit);
    }

    #[test]
    fn greedy_repair_is_feasible_and_maximal(problem in small_instances(), mask in any::<u32>()) {
        let n = problem.len();
        let bools: Vec<bool> = (0..n).map(|j| (mask >> j) & 1 == 1).collect();
        let mut bits = Bits::from_bools(&bools);
        let packing = problem.greedy_repair(&mut bits).unwrap();
        prop_assert!(packing.weight <= problem.capacity());
        prop_assert_eq!(packing, problem.packing_of(&bits));
        let repaired = bits.to_bools();
        for j in 0..n {
            // Maximal: every item left out would overflow.
            if !repaired[j] {
                prop_assert!(packing.weight + f64::from(problem.weights()[j]) > problem.capacity());
            }
            // Only drops among the chosen and adds among the rest: a feasible input is only added to.
            if bools[j] && !repaired[j] {
                prop_assert!(problem.packing_of(&Bits::from_bools(&bools)).weight > problem.capacity());
            }
        }
    }
}
