//! `restore` refuses a snapshot holding a value no DE run reaches, naming the field and the allowed range,
//! and leaves the engine as it was; a checkpoint of another run is refused by the executor.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::DeRastrigin;
use evo_core::{Checkpointing, Engine, Error, Executor, Termination};
use evo_de::{DeCpu, DeParams, DeSnapshot};

fn engine(seed: u64) -> DeCpu<DeRastrigin> {
    DeCpu::new(DeParams::default(), DeRastrigin::new(6).unwrap(), seed, 1).unwrap()
}

/// Restores `edit`ed state and returns the refusal's (field, allowed); the engine must be unchanged.
fn refusal(edit: impl FnOnce(&mut DeSnapshot)) -> (String, String) {
    let mut engine = engine(3);
    engine.step().unwrap();
    let before = engine.snapshot().unwrap();
    let mut bad = before.clone();
    edit(&mut bad);
    let error = engine.restore(&bad).unwrap_err();
    assert_eq!(
        engine.snapshot().unwrap(),
        before,
        "a refused snapshot changes nothing"
    );
    match error {
        Error::InvalidSnapshot {
            algorithm,
            field,
            allowed,
            ..
        } => {
            assert_eq!(algorithm, "DE");
            (field, allowed)
        }
        other => panic!("expected Error::InvalidSnapshot, got {other}"),
    }
}

#[test]
fn a_crossover_rate_out_of_range_is_refused_by_index() {
    let (field, allowed) = refusal(|s| s.crossover_rates[4] = 7.5);
    assert_eq!(
        (field.as_str(), allowed.as_str()),
        ("crossover_rates[4]", "in [0, 1]")
    );
    let (field, _) = refusal(|s| s.differential_weights[0] = f32::NAN);
    assert_eq!(field, "differential_weights[0]");
}

#[test]
fn impossible_counters_are_refused() {
    let (field, allowed) = refusal(|s| s.generation = u64::MAX);
    assert_eq!(field, "generation");
    assert!(allowed.contains("32 bits"), "{allowed}");
    let (field, allowed) = refusal(|s| s.evaluations += 1);
    assert_eq!(field, "evaluations");
    assert!(allowed.contains("M · (generation + 1)"), "{allowed}");
}

#[test]
fn genes_outside_the_bounds_and_non_finite_fitness_are_refused() {
    let (field, allowed) = refusal(|s| s.population[7] = 1.0e6);
    assert_eq!(field, "population[1][1]");
    assert!(allowed.contains("bounds"), "{allowed}");
    let (field, _) = refusal(|s| s.fitness[2] = f64::INFINITY);
    assert_eq!(field, "fitness[2]");
}

#[test]
fn a_checkpoint_of_another_seed_or_parameter_is_refused_by_the_executor() {
    let path = std::env::temp_dir().join(format!("evo-de-fingerprint-{}.ckpt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    Executor::new(engine(3))
        .with_termination(Termination::new().with_max_generations(2))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, 1).unwrap())
        .run()
        .unwrap();
    let error = Executor::new(engine(4)).resume_from(&path).err().unwrap();
    assert!(
        error.to_string().contains("seed: checkpoint 3, this run 4"),
        "{error}"
    );
    let other = DeParams::default().with_crossover_rate(0.5).unwrap();
    let error = Executor::new(DeCpu::new(other, DeRastrigin::new(6).unwrap(), 3, 1).unwrap())
        .resume_from(&path)
        .err()
        .unwrap();
    assert!(
        error
            .to_string()
            .contains("parameter `crossover_rate`: checkpoint 0.9, this run 0.5"),
        "{error}"
    );
    let resumed = Executor::new(engine(3)).resume_from(&path).unwrap();
    assert_eq!(resumed.engine().progress().generation, 2);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(path.with_extension("ckpt.lock"));
}
