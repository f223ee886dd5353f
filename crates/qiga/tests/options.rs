//! The knapsack options (issue 33) on the CPU engine: the paper's setting is untouched, each option does what
//! its docs say, and a run with options resumes bit for bit.

use evo_benchmarks::Knapsack;
use evo_benchmarks::knapsack::KnapsackClass;
use evo_core::{Bits, Engine};
use evo_qiga::{KnapsackOptions, LocalSearch, QigaCpu, QigaParams, Repair, RotationAngles};

#[allow(clippy::expect_used, reason = "a fixed, valid test fixture")]
fn strong(items: usize) -> Knapsack {
    Knapsack::generate_class(KnapsackClass::StronglyCorrelated, items, 1000, 7)
        .expect("a valid instance")
}

fn params(options: KnapsackOptions) -> QigaParams {
    QigaParams::default()
        .with_rotation_angles(RotationAngles::TUNED)
        .with_options(options)
}

#[test]
fn the_paper_options_leave_the_serialised_parameters_unchanged() {
    let paper = serde_json::to_value(QigaParams::default()).unwrap();
    assert!(paper.get("options").is_none(), "{paper}");
    let practical = serde_json::to_value(params(KnapsackOptions::PRACTICAL)).unwrap();
    assert_eq!(
        practical["options"],
        serde_json::json!({"repair": "Greedy", "greedy_seed": true, "local_search": "SwapWindow"})
    );
    let back: QigaParams = serde_json::from_value(paper).unwrap();
    assert_eq!(back.options(), KnapsackOptions::PAPER);
}

#[test]
fn the_greedy_repair_keeps_every_observation_feasible_and_maximal() {
    let problem = strong(70);
    let options = KnapsackOptions {
        repair: Repair::Greedy,
        ..KnapsackOptions::PAPER
    };
    let mut engine = QigaCpu::new(&params(options), &problem, 3, 1).unwrap();
    for _ in 0..5 {
        engine.step().unwrap();
    }
    let state = engine.state();
    let words = Bits::word_count(problem.len());
    for (i, row) in state.runs[0].observed.chunks(words).enumerate() {
        let bits = Bits::from_words(row.to_vec(), problem.len()).unwrap();
        let packing = problem.packing_of(&bits);
        assert!(packing.weight <= problem.capacity(), "individual {i}");
        assert_eq!(packing.profit, state.runs[0].profits[i]);
        // The greedy repair of a greedy-repaired row changes nothing: it is maximal.
        let mut again = row.to_vec();
        problem.greedy_repair_row(&mut again);
        assert_eq!(again, row, "individual {i}");
    }
}

#[test]
fn the_greedy_seed_starts_from_the_greedy_solution() {
    let problem = strong(90);
    let options = KnapsackOptions {
        greedy_seed: true,
        ..KnapsackOptions::PAPER
    };
    let engine = QigaCpu::new(&params(options), &problem, 3, 1).unwrap();
    let greedy = problem.greedy_solution().1.profit;
    assert!(engine.state().runs[0].best_profit >= greedy);
    // The paper's run starts from nothing and, after generation 0, is below the greedy solution here.
    let paper = QigaCpu::new(&params(KnapsackOptions::PAPER), &problem, 3, 1).unwrap();
    assert!(paper.state().runs[0].best_profit < greedy);
}

#[test]
fn the_local_search_never_lowers_and_the_options_reach_the_optimum_region() {
    let problem = strong(100);
    let optimum = problem.exact_optimum(1 << 28).unwrap().profit;
    let greedy = problem.greedy_solution().1.profit;
    let mut without = QigaCpu::new(
        &params(KnapsackOptions {
            local_search: LocalSearch::Off,
            ..KnapsackOptions::PRACTICAL
        }),
        &problem,
        5,
        1,
    )
    .unwrap();
    let mut with = QigaCpu::new(&params(KnapsackOptions::PRACTICAL), &problem, 5, 1).unwrap();
    for _ in 0..100 {
        without.step().unwrap();
        with.step().unwrap();
    }
    let (a, b) = (
        without.state().runs[0].best_profit,
        with.state().runs[0].best_profit,
    );
    assert!(
        a >= greedy && b >= greedy && a <= optimum && b <= optimum,
        "{greedy} {a} {b} {optimum}"
    );
    let best = Bits::from_words(with.state().runs[0].best.clone(), problem.len()).unwrap();
    let packing = problem.packing_of(&best);
    assert!(packing.weight <= problem.capacity());
    assert_eq!(packing.profit, b);
}

#[test]
fn a_run_with_every_option_resumes_bit_for_bit() {
    let problem = strong(60);
    let p = params(KnapsackOptions::PRACTICAL);
    let mut straight = QigaCpu::new(&p, &problem, 9, 1).unwrap();
    for _ in 0..10 {
        straight.step().unwrap();
    }
    let saved = straight.snapshot().unwrap();
    let mut resumed = QigaCpu::new(&p, &problem, 9, 2).unwrap();
    resumed.restore(&saved).unwrap();
    for _ in 0..10 {
        straight.step().unwrap();
        resumed.step().unwrap();
        assert_eq!(straight.snapshot().unwrap(), resumed.snapshot().unwrap());
    }
    // Options are part of the fingerprint.
    let paper = QigaCpu::new(&params(KnapsackOptions::PAPER), &problem, 9, 1).unwrap();
    assert_ne!(
        straight.fingerprint().unwrap(),
        paper.fingerprint().unwrap()
    );
}
