//! The CPU engine's contracts: results independent of the thread count, snapshot/restore and checkpoint
//! resume bit for bit, elitism keeps the best, the paper's settings optimise the test functions.

// Helpers outside `#[test]` functions unwrap too: a failure there is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::assert_resume_matches;
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Backend, BinaryProblem, Bits, Engine};
use evo_ga::{GaCpu, GaParams, GaSnapshot, PaperFunction};

fn small_params() -> GaParams {
    GaParams::new().with_population(64).unwrap()
}

fn run_snapshots(threads: usize, generations: u64) -> Vec<GaSnapshot> {
    let problem = PaperFunction::new(GaFunction::Rastrigin, 8).unwrap();
    let mut engine = GaCpu::with_threads(small_params(), problem, 17, threads).unwrap();
    let mut snapshots = vec![engine.snapshot().unwrap()];
    for _ in 0..generations {
        engine.step().unwrap();
        snapshots.push(engine.snapshot().unwrap());
    }
    snapshots
}

#[test]
fn one_thread_and_four_threads_give_identical_snapshots() {
    let (one, four) = (run_snapshots(1, 25), run_snapshots(4, 25));
    assert_eq!(one.len(), four.len());
    for (a, b) in one.iter().zip(&four) {
        assert!(a.bit_identical(b), "generation {}", a.generation);
    }
}

#[test]
fn the_population_is_sorted_and_the_best_never_gets_worse_with_an_elite() {
    let snapshots = run_snapshots(2, 40);
    for pair in snapshots.windows(2) {
        assert!(pair[1].best_fitness <= pair[0].best_fitness);
        assert_eq!(pair[1].evaluations, pair[0].evaluations + 63);
    }
    for snapshot in &snapshots {
        assert!(snapshot.fitness.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(snapshot.fitness[0], snapshot.best_fitness);
        assert_eq!(snapshot.row(0), snapshot.best.as_slice());
        let problem = PaperFunction::new(GaFunction::Rastrigin, 8).unwrap();
        let row = Bits::from_words(snapshot.row(5).to_vec(), snapshot.bits).unwrap();
        assert_eq!(
            problem.evaluate(&row).to_bits(),
            snapshot.fitness[5].to_bits()
        );
    }
}

#[test]
fn restore_continues_bit_for_bit() {
    let problem = PaperFunction::new(GaFunction::Griewank, 8).unwrap();
    let mut original = GaCpu::new(small_params(), problem.clone(), 3).unwrap();
    for _ in 0..10 {
        original.step().unwrap();
    }
    let middle = original.snapshot().unwrap();
    let json = serde_json::to_string(&middle).unwrap();
    let parsed: GaSnapshot = serde_json::from_str(&json).unwrap();
    assert!(
        parsed.bit_identical(&middle),
        "the JSON round trip keeps every bit"
    );
    for _ in 0..10 {
        original.step().unwrap();
    }
    let mut resumed = GaCpu::new(small_params(), problem, 3).unwrap();
    resumed
        .restore(&serde_json::from_str(&json).unwrap())
        .unwrap();
    for _ in 0..10 {
        resumed.step().unwrap();
    }
    assert!(
        resumed
            .snapshot()
            .unwrap()
            .bit_identical(&original.snapshot().unwrap())
    );
}

#[test]
fn restore_rejects_another_shape() {
    let problem = PaperFunction::new(GaFunction::Step, 4).unwrap();
    let other = PaperFunction::new(GaFunction::Step, 5).unwrap();
    let snapshot = GaCpu::new(small_params(), other, 1)
        .unwrap()
        .snapshot()
        .unwrap();
    let mut engine = GaCpu::new(small_params(), problem, 1).unwrap();
    let error = engine.restore(&snapshot).unwrap_err();
    assert!(
        error.to_string().starts_with("GA: snapshot shape"),
        "{error}"
    );
}

#[test]
fn checkpoint_resume_equals_an_uninterrupted_run() {
    let problem = PaperFunction::new(GaFunction::Schwefel, 4).unwrap();
    let make = || GaCpu::new(small_params(), problem.clone(), 99).unwrap();
    assert_resume_matches("evo-ga-checkpoint", make(), make, 12, 30, 4);
}

#[test]
fn the_paper_settings_solve_a_small_hypersphere() {
    let problem = PaperFunction::new(GaFunction::Hypersphere, 4).unwrap();
    let params = GaParams::new().with_generations(300).unwrap();
    let report = evo_ga::run(params, problem, 5, Backend::Cpu { threads: 0 }).unwrap();
    assert_eq!(report.generations, 300);
    // The grid's closest point to 0 is 7.8e-5 away per coordinate; 4 · (0.01)² is far above that.
    assert!(report.best_fitness < 4e-4, "{}", report.best_fitness);
    assert!(
        report
            .history
            .windows(2)
            .all(|w| w[1].best_fitness <= w[0].best_fitness)
    );
}

#[test]
fn parameters_other_than_the_paper_work_too() {
    let problem = PaperFunction::new(GaFunction::Ackley, 3).unwrap();
    let params = GaParams::new()
        .with_population(31)
        .unwrap()
        .with_tournament_size(4)
        .unwrap()
        .with_elite(0)
        .unwrap()
        .with_crossover_rate(0.6)
        .unwrap()
        .with_mutation_rate(0.02)
        .unwrap();
    let mut engine = GaCpu::new(params, problem, 8).unwrap();
    let start = engine.progress().best_fitness;
    for _ in 0..50 {
        engine.step().unwrap();
    }
    assert!(engine.progress().best_fitness < start);
    assert_eq!(engine.progress().evaluations, 31 * 51);
}

#[test]
fn paper_rng_mode_runs_restores_and_is_thread_independent() {
    let problem = PaperFunction::new(GaFunction::Rastrigin, 4).unwrap();
    let params = small_params().with_paper_rng(100).unwrap();
    let run = |threads: usize| {
        let mut engine = GaCpu::with_threads(params.clone(), problem.clone(), 21, threads).unwrap();
        for _ in 0..20 {
            engine.step().unwrap();
        }
        engine
    };
    let (mut one, four) = (run(1), run(4));
    let snapshot = one.snapshot().unwrap();
    assert!(snapshot.bit_identical(&four.snapshot().unwrap()));
    assert_eq!(snapshot.xor128.len(), 100);
    let philox = GaCpu::new(small_params(), problem.clone(), 21).unwrap();
    assert!(philox.snapshot().unwrap().xor128.is_empty());

    let mut resumed = GaCpu::new(params.clone(), problem.clone(), 21).unwrap();
    resumed.restore(&snapshot).unwrap();
    for _ in 0..10 {
        one.step().unwrap();
        resumed.step().unwrap();
    }
    assert!(
        resumed
            .snapshot()
            .unwrap()
            .bit_identical(&one.snapshot().unwrap())
    );
    assert!(
        one.progress().best_fitness < 40.0,
        "{}",
        one.progress().best_fitness
    );
    // A Philox-mode snapshot has no xor128 states, so a paper-mode engine refuses it.
    assert!(resumed.restore(&philox.snapshot().unwrap()).is_err());
}

#[test]
fn paper_rng_mode_needs_crossover_rate_one() {
    let problem = PaperFunction::new(GaFunction::Step, 2).unwrap();
    let params = small_params()
        .with_paper_rng(8)
        .unwrap()
        .with_crossover_rate(0.5)
        .unwrap();
    let error = GaCpu::new(params, problem, 1).err().unwrap();
    assert!(
        error
            .to_string()
            .contains("crossover rate with the paper's RNG"),
        "{error}"
    );
    assert!(GaParams::new().with_paper_rng(0).is_err());
}
