//! The SGA baseline: resume bit for bit, runs independent of the batch and the threads, feasible bests.

use evo_benchmarks::Knapsack;
use evo_core::Engine;
use evo_qiga::{SgaCpu, SgaParams};

#[allow(clippy::expect_used, reason = "a fixed, valid test fixture")]
fn knapsack() -> Knapsack {
    Knapsack::generate(70, 3).expect("a valid instance")
}

#[test]
fn restore_continues_bit_for_bit() {
    let params = SgaParams::default().with_population(20).unwrap();
    let problem = knapsack();
    let mut straight = SgaCpu::batch(&params, &problem, 4, 2, 1).unwrap();
    for _ in 0..5 {
        straight.step().unwrap();
    }
    let saved: evo_qiga::SgaSnapshot =
        serde_json::from_str(&serde_json::to_string(&straight.snapshot().unwrap()).unwrap())
            .unwrap();
    // Another base seed is refused (the one seed rule of every engine; SGA used to adopt the snapshot's).
    let mut other = SgaCpu::batch(&params, &problem, 99, 2, 1).unwrap();
    let error = other.restore(&saved).unwrap_err();
    assert!(
        matches!(error, evo_core::Error::InvalidSnapshot { ref field, .. } if field == "runs[0].seed"),
        "{error}"
    );
    let mut resumed = SgaCpu::batch(&params, &problem, 4, 2, 2).unwrap();
    resumed.restore(&saved).unwrap();
    for _ in 0..5 {
        straight.step().unwrap();
        resumed.step().unwrap();
    }
    assert_eq!(straight.snapshot().unwrap(), resumed.snapshot().unwrap());
}

#[test]
fn runs_do_not_depend_on_the_batch_or_the_threads() {
    let params = SgaParams::default().with_population(31).unwrap();
    let problem = knapsack();
    let mut batch = SgaCpu::batch(&params, &problem, 10, 3, 2).unwrap();
    let mut third = SgaCpu::batch(&params, &problem, 12, 1, 1).unwrap();
    for _ in 0..8 {
        batch.step().unwrap();
        third.step().unwrap();
    }
    assert_eq!(batch.state().runs[2], third.state().runs[0]);
}

#[test]
fn the_best_never_gets_worse_and_is_feasible() {
    let problem = knapsack();
    let mut engine = SgaCpu::batch(&SgaParams::default(), &problem, 1, 1, 1).unwrap();
    let mut last = f64::INFINITY;
    for _ in 0..10 {
        engine.step().unwrap();
        let fitness = engine.progress().best_fitness;
        assert!(fitness <= last);
        last = fitness;
    }
    let (best, fitness) = engine.best().unwrap();
    let packing = problem.packing_of(&best);
    assert!(packing.weight <= problem.capacity());
    assert_eq!(packing.profit.to_bits(), (-fitness).to_bits());
    assert_eq!(engine.progress().evaluations, 100 * 11);
    assert!(SgaCpu::batch(&SgaParams::default(), &problem, 1, 0, 1).is_err());
    assert!(SgaParams::default().with_population(1).is_err());
}
