//! The CPU engine: determinism across thread counts, snapshot/restore and checkpoint resume bit for bit,
//! the budget, progress on easy problems and the typed errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::{Bounds, Checkpointing, ContinuousProblem, Engine, Error, Executor, Termination};
use evo_ma_sw_chains::{MaCpu, MaParams, MaSnapshot};

fn run_to(engine: &mut MaCpu<'_, ShiftedProblem>, budget: u64) {
    while engine.progress().evaluations < budget {
        engine.step().unwrap();
    }
}

#[test]
fn one_thread_and_four_threads_give_the_same_snapshots() {
    // D spans several rayon chunks (16 384 variables each) so the parallel split is exercised.
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 17_000).unwrap();
    let params = MaParams::new().with_max_evaluations(900).unwrap();
    let mut one = MaCpu::new(params.clone(), &problem, 11, 1).unwrap();
    let mut four = MaCpu::new(params, &problem, 11, 4).unwrap();
    for _ in 0..2 {
        one.step().unwrap();
        four.step().unwrap();
        assert!(one.snapshot().unwrap() == four.snapshot().unwrap());
    }
}

#[test]
fn restore_continues_bit_for_bit_and_survives_json() {
    let problem = ShiftedProblem::new(ShiftedFunction::Griewank, 300).unwrap();
    let params = MaParams::new()
        .with_max_evaluations(12_000)
        .unwrap()
        .with_population(12)
        .unwrap();
    let mut original = MaCpu::new(params.clone(), &problem, 5, 1).unwrap();
    run_to(&mut original, 5_000);
    let middle = original.snapshot().unwrap();
    assert!(
        middle.chains.iter().any(Option::is_some),
        "a chain should be stored by now"
    );
    let json = serde_json::to_string(&middle).unwrap();
    let parsed: MaSnapshot = serde_json::from_str(&json).unwrap();
    assert!(parsed == middle);
    run_to(&mut original, 12_000);

    let mut resumed = MaCpu::new(params, &problem, 5, 2).unwrap();
    resumed.restore(&parsed).unwrap();
    run_to(&mut resumed, 12_000);
    assert!(resumed.snapshot().unwrap() == original.snapshot().unwrap());
}

#[test]
fn executor_checkpoint_resume_matches_an_uninterrupted_run() {
    let problem = ShiftedProblem::new(ShiftedFunction::Schwefel12, 64).unwrap();
    let params = MaParams::new().with_max_evaluations(9_000).unwrap();
    let dir = std::env::temp_dir().join(format!("ma-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ma.json");
    let termination = |evals| Termination::new().with_max_evaluations(evals);

    let full = Executor::new(MaCpu::new(params.clone(), &problem, 3, 1).unwrap())
        .with_termination(termination(9_000))
        .unwrap()
        .run()
        .unwrap();

    Executor::new(MaCpu::new(params.clone(), &problem, 3, 1).unwrap())
        .with_termination(termination(4_000))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap())
        .run()
        .unwrap();
    let resumed = Executor::new(MaCpu::new(params, &problem, 3, 1).unwrap())
        .with_termination(termination(9_000))
        .unwrap()
        .resume_from(&path)
        .unwrap()
        .run()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(resumed.best_fitness.to_bits(), full.best_fitness.to_bits());
    assert_eq!(resumed.best, full.best);
    assert_eq!(resumed.evaluations, full.evaluations);
}

#[test]
fn the_budget_is_spent_exactly_and_never_exceeded() {
    let problem = ShiftedProblem::new(ShiftedFunction::Discus, 20).unwrap();
    let params = MaParams::new().with_max_evaluations(2_345).unwrap();
    let mut engine = MaCpu::new(params, &problem, 1, 1).unwrap();
    run_to(&mut engine, 2_345);
    assert_eq!(engine.progress().evaluations, 2_345);
    let before = engine.snapshot().unwrap();
    engine.step().unwrap();
    assert!(
        engine.snapshot().unwrap() == before,
        "a step after the budget changes nothing"
    );
}

#[test]
fn sum_squares_improves_by_orders_of_magnitude() {
    let problem = ShiftedProblem::new(ShiftedFunction::SumSquares, 30).unwrap();
    let params = MaParams::new().with_max_evaluations(30_000).unwrap();
    let mut engine = MaCpu::new(params, &problem, 2, 1).unwrap();
    let start = engine.progress().best_fitness - problem.optimum().unwrap();
    run_to(&mut engine, 30_000);
    let end = engine.progress().best_fitness - problem.optimum().unwrap();
    assert!(end < start * 1e-3, "start {start}, end {end}");
    let (best, fitness) = engine.best().unwrap();
    assert_eq!(problem.evaluate(&best).to_bits(), fitness.to_bits());
}

#[test]
fn sequential_ssga_and_no_restart_run_too() {
    let problem = ShiftedProblem::new(ShiftedFunction::Salomon, 25).unwrap();
    let params = MaParams::new()
        .with_children_per_step(1)
        .unwrap()
        .with_restart(false)
        .with_max_evaluations(4_000)
        .unwrap();
    let mut engine = MaCpu::new(params, &problem, 4, 1).unwrap();
    let start = engine.progress().best_fitness;
    run_to(&mut engine, 4_000);
    assert!(engine.progress().best_fitness < start);
}

struct Empty {
    bounds: Bounds,
}

impl ContinuousProblem for Empty {
    fn name(&self) -> &str {
        "empty"
    }
    fn dimension(&self) -> usize {
        0
    }
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
    fn evaluate(&self, _: &[f32]) -> f64 {
        0.0
    }
}

#[test]
fn bad_input_gets_typed_errors_before_any_work() {
    let empty = Empty {
        // A malformed problem: its bounds have one variable but it reports zero.
        bounds: Bounds::uniform(1, -1.0, 1.0).unwrap(),
    };
    let error = MaCpu::new(MaParams::new(), &empty, 1, 1).err().unwrap();
    assert!(
        matches!(
            error,
            Error::InvalidParameter {
                name: "dimension D",
                ..
            }
        ),
        "{error}"
    );
    let error = MaParams::new().with_population(3).unwrap_err();
    assert_eq!(
        error.to_string(),
        "MA-SW-Chains: population must be at least 4, got 3"
    );
    let error = MaParams::new().with_max_evaluations(10).unwrap_err();
    assert!(error.to_string().contains("evaluation budget"), "{error}");
}

#[test]
fn a_snapshot_of_another_shape_is_rejected() {
    let small = ShiftedProblem::new(ShiftedFunction::Rastrigin, 10).unwrap();
    let large = ShiftedProblem::new(ShiftedFunction::Rastrigin, 11).unwrap();
    let a = MaCpu::new(MaParams::new(), &small, 1, 1).unwrap();
    let mut b = MaCpu::new(MaParams::new(), &large, 1, 1).unwrap();
    assert!(b.restore(&a.snapshot().unwrap()).is_err());
}

#[test]
fn half_nearest_rho_starts_chains_below_rho_init_at_large_d() {
    // At D = 2000 on [-100, 100] the nearest member is about 2600 away: ½·2600/2000 ≈ 0.65 > 0.2, so use a
    // narrow domain where the cap binds: Rastrigin on [-5.12, 5.12], nearest ≈ 130, ½·130/2000 ≈ 0.03.
    let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 2_000).unwrap();
    let params = MaParams::new()
        .with_max_evaluations(1_000)
        .unwrap()
        .with_rho_half_nearest(true);
    let mut engine = MaCpu::new(params, &problem, 8, 1).unwrap();
    run_to(&mut engine, 1_000);
    let snapshot = engine.snapshot().unwrap();
    let chain = snapshot
        .chains
        .iter()
        .flatten()
        .next()
        .expect("the first LS improved");
    assert!(chain.rho < 0.2, "rho {}", chain.rho);
}
