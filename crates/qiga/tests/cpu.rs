//! The CPU engine: resume bit for bit, batches equal their runs made one by one, the executor's checkpoints,
//! and the solution it reports.

use evo_benchmarks::Knapsack;
use evo_core::{Checkpointing, Engine, Executor, Termination};
use evo_qiga::{QigaCpu, QigaParams, QuadrantRule, RotationAngles, RunConfig, SignChoice};

/// A strongly correlated instance of 60 items (not a multiple of 32, so padding bits are exercised).
#[allow(clippy::expect_used, reason = "a fixed, valid test fixture")]
fn knapsack() -> Knapsack {
    Knapsack::generate(60, 11).expect("a valid instance")
}

#[test]
fn restore_continues_bit_for_bit() {
    let params = QigaParams::default();
    let problem = knapsack();
    let mut straight = QigaCpu::new(&params, &problem, 5, 1).unwrap();
    let mut halted = QigaCpu::new(&params, &problem, 5, 1).unwrap();
    for _ in 0..10 {
        straight.step().unwrap();
        halted.step().unwrap();
    }
    let saved = halted.snapshot().unwrap();
    let json = serde_json::to_string(&saved).unwrap();
    // Another seed is refused (the one seed rule of every engine; QIGA used to adopt the snapshot's).
    let mut other = QigaCpu::new(&params, &problem, 99, 1).unwrap();
    let error = other
        .restore(&serde_json::from_str(&json).unwrap())
        .unwrap_err();
    assert!(
        matches!(error, evo_core::Error::InvalidSnapshot { ref field, .. } if field == "runs[0].config.seed"),
        "{error}"
    );
    let mut resumed = QigaCpu::new(&params, &problem, 5, 2).unwrap();
    resumed
        .restore(&serde_json::from_str(&json).unwrap())
        .unwrap();
    for _ in 0..15 {
        straight.step().unwrap();
        resumed.step().unwrap();
        assert_eq!(straight.snapshot().unwrap(), resumed.snapshot().unwrap());
    }
}

#[test]
fn a_batch_equals_its_runs_made_one_by_one() {
    let params = QigaParams::default()
        .with_sign_choice(SignChoice::Random)
        .with_quadrant_rule(QuadrantRule::NowotniakQuirk);
    let problem = knapsack();
    let angles = [
        RotationAngles::ORIGINAL,
        RotationAngles::TUNED,
        RotationAngles::new([0.1, 0.02, 0.2, 0.3, 0.0]).unwrap(),
    ];
    let runs = RunConfig::batch(40, &angles);
    let mut batch = QigaCpu::batch(&params, &problem, runs.clone(), 2).unwrap();
    let mut singles: Vec<QigaCpu> = runs
        .iter()
        .map(|run| {
            let single = params.clone().with_rotation_angles(run.angles);
            QigaCpu::new(&single, &problem, run.seed, 1).unwrap()
        })
        .collect();
    for _ in 0..30 {
        batch.step().unwrap();
        for single in &mut singles {
            single.step().unwrap();
        }
    }
    for (r, single) in singles.iter().enumerate() {
        assert_eq!(batch.state().runs[r], single.state().runs[0], "run {r}");
    }
    // Different angles make different runs.
    assert_ne!(batch.state().runs[0].theta, batch.state().runs[1].theta);
}

#[test]
fn checkpoints_resume_to_the_same_report() {
    let params = QigaParams::default();
    let problem = knapsack();
    let dir = std::env::temp_dir().join(format!("evo-qiga-checkpoint-{}", std::process::id()));
    let path = dir.join("qiga.json");
    let _ = std::fs::remove_file(&path);
    let straight = Executor::new(QigaCpu::new(&params, &problem, 3, 1).unwrap())
        .with_termination(Termination::new().with_max_generations(40))
        .unwrap()
        .run()
        .unwrap();
    Executor::new(QigaCpu::new(&params, &problem, 3, 1).unwrap())
        .with_termination(Termination::new().with_max_generations(17))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 5).unwrap())
        .run()
        .unwrap();
    let mut resumed = Executor::new(QigaCpu::new(&params, &problem, 3, 1).unwrap())
        .with_termination(Termination::new().with_max_generations(40))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 5).unwrap())
        .resume_from(&path)
        .unwrap();
    let report = resumed.run().unwrap();
    assert_eq!(report.best, straight.best);
    assert_eq!(
        report.best_fitness.to_bits(),
        straight.best_fitness.to_bits()
    );
    assert_eq!(report.evaluations, 10 * 41);
    assert_eq!(report.generations, 40);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_reported_best_is_a_feasible_selection_with_that_profit() {
    let problem = knapsack();
    let engine = {
        let mut engine = QigaCpu::new(&QigaParams::default(), &problem, 8, 1).unwrap();
        for _ in 0..50 {
            engine.step().unwrap();
        }
        engine
    };
    let (best, fitness) = engine.best().unwrap();
    let packing = problem.packing_of(&best);
    assert!(packing.weight <= problem.capacity());
    assert_eq!(packing.profit.to_bits(), (-fitness).to_bits());
    // b never gets worse and is at least every observation of the last generation.
    let state = engine.state();
    assert!(
        state.runs[0]
            .profits
            .iter()
            .all(|&p| p <= state.runs[0].best_profit)
    );
    // The repair keeps a maximal prefix-filled selection, so the profit is far above zero.
    assert!(-fitness > 0.5 * problem.capacity());
}

#[test]
fn restore_rejects_a_snapshot_of_another_shape() {
    let problem = knapsack();
    let engine = QigaCpu::new(&QigaParams::default(), &problem, 1, 1).unwrap();
    let mut other = QigaCpu::new(
        &QigaParams::default().with_population(4).unwrap(),
        &problem,
        1,
        1,
    )
    .unwrap();
    let error = other.restore(&engine.snapshot().unwrap()).unwrap_err();
    assert!(error.to_string().contains("snapshot population"), "{error}");
}

#[test]
fn parameters_are_validated_with_the_algorithm_named() {
    let error = QigaParams::default()
        .with_angles([0.1, 0.1, 0.5, 0.1, 0.1])
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "QIGA: rotation angle θ3 must be in [0, 0.349] rad, got 0.5"
    );
    assert!(
        QigaParams::default()
            .with_angles([f32::NAN, 0.0, 0.0, 0.0, 0.0])
            .is_err()
    );
    assert!(QigaParams::default().with_population(65).is_err());
    assert!(QigaParams::default().with_block_size(100).is_err());
    assert!(QigaParams::default().with_generations(0).is_err());
    let problem = knapsack();
    assert!(QigaCpu::batch(&QigaParams::default(), &problem, Vec::new(), 1).is_err());
}
