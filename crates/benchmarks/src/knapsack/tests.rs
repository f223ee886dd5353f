use super::*;
use crate::data::shared_data_dir_or_skip;
use proptest::prelude::*;
use std::path::Path;

fn small(weights: &[f32], capacity: f64) -> Knapsack {
    let profits = weights.iter().map(|w| w + 5.0).collect();
    Knapsack::new("small", capacity, weights.to_vec(), profits).unwrap()
}

fn repaired(problem: &Knapsack, bools: &[bool]) -> (Vec<bool>, Packing) {
    let mut bits = Bits::from_bools(bools);
    let packing = problem.repair(&mut bits).unwrap();
    (bits.to_bools(), packing)
}

#[test]
fn repair_matches_hand_worked_cases() {
    // w = (3, 4, 5), p = w + 5, C = 7.
    let problem = small(&[3.0, 4.0, 5.0], 7.0);
    // 111: W = 12; step 2 drops items 0 (W = 9) and 1 (W = 5); step 3 adds item 0 (W = 8 > 7), step 4 drops it.
    assert_eq!(
        repaired(&problem, &[true, true, true]),
        (
            vec![false, false, true],
            Packing {
                weight: 5.0,
                profit: 10.0
            }
        )
    );
    // 000: step 3 adds 0 (3), 1 (7), 2 (12 > 7); step 4 drops item 2.
    assert_eq!(
        repaired(&problem, &[false, false, false]),
        (
            vec![true, true, false],
            Packing {
                weight: 7.0,
                profit: 17.0
            }
        )
    );
    // 001: W = 5 fits; step 3 adds item 0 (8 > 7), step 4 drops it again.
    assert_eq!(
        repaired(&problem, &[false, false, true]),
        (
            vec![false, false, true],
            Packing {
                weight: 5.0,
                profit: 10.0
            }
        )
    );
    // Everything fits: step 3 runs to the end and step 4 still drops the last item.
    let roomy = small(&[1.0, 1.0], 10.0);
    assert_eq!(
        repaired(&roomy, &[false, false]),
        (
            vec![true, false],
            Packing {
                weight: 1.0,
                profit: 6.0
            }
        )
    );
}

#[test]
fn repair_rejects_a_selection_of_the_wrong_length() {
    let problem = small(&[3.0, 4.0, 5.0], 7.0);
    assert!(problem.repair(&mut Bits::zeros(4)).is_err());
}

#[test]
fn fitness_is_the_negated_repaired_profit() {
    let problem = small(&[3.0, 4.0, 5.0], 7.0);
    assert_eq!(
        problem.evaluate(&Bits::from_bools(&[true, true, true])),
        -10.0
    );
    let mut population = vec![0b111u32, 0b000];
    let mut fitness = [0.0; 2];
    problem.repair_batch(&mut population, &mut fitness).unwrap();
    assert_eq!(population, [0b100, 0b011]);
    assert_eq!(fitness, [-10.0, -17.0]);
    assert!(
        problem
            .repair_batch(&mut population, &mut [0.0; 3])
            .is_err()
    );
}

#[test]
fn generator_is_strongly_correlated_and_deterministic() {
    let a = Knapsack::generate(300, 7).unwrap();
    assert_eq!(a, Knapsack::generate(300, 7).unwrap());
    assert_ne!(a.weights(), Knapsack::generate(300, 8).unwrap().weights());
    for (w, p) in a.weights().iter().zip(a.profits()) {
        assert!((1.0..=10.0).contains(w));
        assert_eq!(*p, w + 5.0);
    }
    let total: f64 = a.weights().iter().map(|&w| f64::from(w)).sum();
    assert_eq!(a.capacity(), total / 2.0);
    let mean = total / 300.0;
    assert!((4.5..6.5).contains(&mean), "mean weight {mean}");
    assert!(Knapsack::generate(0, 1).is_err());
}

#[test]
fn shipped_instances_load_and_match_the_spec() {
    let Some(dir) = shared_data_dir_or_skip("shipped_instances_load_and_match_the_spec") else {
        return;
    };
    // (items, C, k*) from benchmarks.md (e).5.
    for (items, capacity, k_star) in [
        (100, 274.4956, 67),
        (250, 673.8677805, 172),
        (500, 1427.682533, 332),
    ] {
        let problem =
            Knapsack::from_file(dir.join(format!("knapsack/knapsack-{items}.txt"))).unwrap();
        assert_eq!(problem.len(), items);
        assert_eq!(problem.name(), format!("knapsack-{items}"));
        assert_eq!(problem.capacity(), capacity);
        assert_eq!(problem.max_items_that_fit(), k_star);
        for (w, p) in problem.weights().iter().zip(problem.profits()) {
            assert!((p - w - 5.0).abs() < 1e-5, "profit {p} weight {w}");
        }
    }
}

#[test]
fn knapsack_250_repair_test_vectors() {
    let Some(dir) = shared_data_dir_or_skip("knapsack_250_repair_test_vectors") else {
        return;
    };
    let problem = Knapsack::from_file(dir.join("knapsack/knapsack-250.txt")).unwrap();
    let (ones, packing) = repaired(&problem, &[true; 250]);
    assert!(ones.iter().enumerate().all(|(i, &b)| b == (i >= 126)));
    assert_eq!(packing.profit, 1288.579309463501);
    assert_eq!(packing.weight, 668.5793088674545);
    let (zeros, packing) = repaired(&problem, &[false; 250]);
    assert!(zeros.iter().enumerate().all(|(i, &b)| b == (i <= 124)));
    assert_eq!(packing.profit, 1298.7854142189026);
    assert_eq!(packing.weight, 673.7854133844376);
}

fn parse(text: &str) -> evo_core::Result<Knapsack> {
    Knapsack::parse(Path::new("bad.txt"), "bad", text)
}

fn error_text(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn malformed_files_name_the_file_the_line_and_the_expectation() {
    assert_eq!(
        error_text("# capacity\n-3\n1 6\n"),
        "bad.txt:2: expected a capacity >= 0, found `-3`"
    );
    assert_eq!(
        error_text("10\n1 6\nx 7\n"),
        "bad.txt:3: expected a number (weight), found `x`"
    );
    assert_eq!(
        error_text("10\n1 6\n2\n"),
        "bad.txt:3: expected an item line `weight profit` (two numbers), found `2`"
    );
    assert_eq!(
        error_text("10\n0 5\n"),
        "bad.txt:2: expected a weight > 0, found `0`"
    );
    assert_eq!(
        error_text("# only comments\n\n"),
        "bad.txt:2: expected a capacity line before the end of the file, found end of file"
    );
    assert_eq!(
        error_text("10\n"),
        "bad.txt:1: expected at least one item line `weight profit`, found end of file"
    );
    assert_eq!(
        error_text("10 20\n1 6\n"),
        "bad.txt:1: expected the capacity (one number) as the first data line, found `10 20`"
    );
    assert_eq!(
        error_text("inf\n1 6\n"),
        "bad.txt:1: expected a finite capacity, found `inf`"
    );
    let missing = Knapsack::from_file("/nonexistent/knapsack.txt")
        .unwrap_err()
        .to_string();
    assert!(
        missing.starts_with("/nonexistent/knapsack.txt:0: expected a readable file"),
        "{missing}"
    );
}

proptest! {
    #[test]
    fn loader_never_panics(text in "(#[ -~]{0,8}\n|[-+0-9. eE\n\tx]{0,12}){0,12}") {
        let _ = parse(&text);
    }

    #[test]
    fn loader_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn repair_always_gives_a_feasible_selection(
        seed in any::<u64>(),
        items in 1usize..100,
        words in proptest::collection::vec(any::<u32>(), 4),
    ) {
        let problem = Knapsack::generate(items, seed).unwrap();
        let mut row = words[..Bits::word_count(items)].to_vec();
        let packing = problem.repair_row(&mut row);
        let bits = Bits::from_words(row.clone(), items).unwrap();
        prop_assert!(packing.weight <= problem.capacity());
        prop_assert_eq!(problem.packing_of(&bits), packing);
        // Repairing a repaired selection may change it (step 3 always adds and step 4 drops), but it stays
        // feasible.
        prop_assert!(problem.repair_row(&mut row).weight <= problem.capacity());
    }
}
