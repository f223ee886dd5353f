//! The island model on CPU placements: the contract of the crate docs (seeds, migration rule, placement
//! independence, checkpoint and resume, configuration errors).

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{
    SEED, assert_same_report, de_params, island_params, model, problem, run, run_checkpointed,
};
use evo_core::{Backend, Engine, Error};
use evo_de::{DeCpu, DeSnapshot};
use evo_distributed::{
    IslandEngine, IslandModel, IslandParams, Placement, de, island_seed, ring_migration,
};

#[test]
fn four_islands_on_one_two_and_four_cpu_placements_should_give_identical_reports() {
    // 42 generations: 8 migrations, and a stretch after the last one.
    let one = run(model("cpu:1"), 42);
    for placement in ["cpu:1,cpu:2", "cpu:2,cpu:1,cpu:1,cpu:3", "cpu:4"] {
        let other = run(model(placement), 42);
        assert_same_report(placement, &one, &other);
    }
    assert_eq!(one.algorithm, "DE islands");
    assert_eq!(one.evaluations, 4 * 16 * 43);
}

#[test]
fn islands_follow_lone_engines_from_their_seeds_and_migrate_by_the_ring_rule() {
    let params = island_params();
    let mut lone: Vec<DeCpu<_>> = (0..params.islands())
        .map(|i| DeCpu::new(de_params(), problem(), island_seed(SEED, i), 1).unwrap())
        .collect();
    let mut islands = model("cpu:1,cpu:1");
    let snapshots = |engines: &[DeCpu<_>]| -> Vec<DeSnapshot> {
        engines.iter().map(|e| e.snapshot().unwrap()).collect()
    };
    // Three migration periods, stepped one generation at a time and in batches.
    for period in 0..3 {
        if period == 1 {
            islands.step_many(5).unwrap();
        } else {
            for _ in 0..5 {
                islands.step().unwrap();
            }
        }
        for engine in &mut lone {
            engine.step_many(5).unwrap();
        }
        let mut expected = snapshots(&lone);
        ring_migration(&mut expected, params.migrants());
        for (engine, snapshot) in lone.iter_mut().zip(&expected) {
            engine.restore(snapshot).unwrap();
        }
        let got = islands.snapshot().unwrap();
        assert_eq!(got.islands, expected, "period {period}");
        assert_eq!(
            (got.generation, got.migrations),
            (5 * (period + 1), period + 1)
        );
    }
    // The migration moved something: without it island 1 would hold a lone run's population.
    let mut unmigrated = DeCpu::new(de_params(), problem(), island_seed(SEED, 1), 1).unwrap();
    unmigrated.step_many(15).unwrap();
    assert_ne!(
        islands.snapshot().unwrap().islands[1],
        unmigrated.snapshot().unwrap()
    );
}

#[test]
fn the_model_reports_the_best_island_and_all_evaluations() {
    let mut islands = model("cpu:2");
    islands.step_many(7).unwrap();
    let fitness: Vec<f64> = islands
        .islands()
        .iter()
        .map(|i| i.progress().best_fitness)
        .collect();
    let best = fitness.iter().copied().fold(f64::INFINITY, f64::min);
    let progress = islands.progress();
    assert_eq!(progress.best_fitness.to_bits(), best.to_bits());
    assert_eq!(progress.generation, 7);
    assert_eq!(progress.evaluations, 4 * 16 * 8);
    assert_eq!(islands.evaluations_per_step(), Some(4 * 16));
    let (vector, value) = islands.best().unwrap();
    assert_eq!(value.to_bits(), best.to_bits());
    assert_eq!(vector.len(), 6);
}

#[test]
fn a_resumed_island_run_should_end_as_an_uninterrupted_one_on_any_placement() {
    let uninterrupted = run(model("cpu:1"), 37);
    for (first, second) in [
        ("cpu:1", "cpu:1"),
        ("cpu:1,cpu:1", "cpu:2,cpu:1,cpu:1,cpu:1"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("islands.ckpt");
        // Stops at 23 (between migrations 4 and 5) with checkpoints every 10 steps and at the end.
        let stopped = run_checkpointed(model(first), 23, &path, 10);
        assert_eq!(stopped.generations, 23);
        let header = evo_core::checkpoint::read_header(&path).unwrap();
        assert_eq!(header.algorithm, "DE islands");
        assert_eq!(header.fingerprint.parameters["islands"], "4");
        assert_eq!(header.fingerprint.parameters["migration_interval"], "5");
        assert_eq!(header.fingerprint.parameters["migrants"], "3");
        let resumed = run_checkpointed(model(second), 37, &path, 10);
        assert_same_report(&format!("{first} then {second}"), &resumed, &uninterrupted);
    }
}

#[test]
fn a_checkpoint_of_other_island_parameters_is_refused_naming_the_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("islands.ckpt");
    run_checkpointed(model("cpu:1"), 6, &path, 10);
    let other = island_params().with_migrants(2).unwrap();
    let placement: Placement = "cpu:1".parse().unwrap();
    let resumed = de::islands(&de_params(), &problem(), SEED, other, placement).unwrap();
    let error = evo_core::Executor::new(resumed)
        .with_checkpointing(evo_core::Checkpointing::new(&path, 10).unwrap())
        .resume_if_present()
        .err()
        .unwrap();
    assert!(matches!(error, Error::RunMismatch { .. }), "{error}");
    assert!(error.to_string().contains("migrants"), "{error}");
}

#[test]
fn restore_checks_the_counters_and_leaves_the_model_unchanged_when_an_island_refuses() {
    let mut islands = model("cpu:1,cpu:1");
    islands.step_many(12).unwrap();
    let good = islands.snapshot().unwrap();

    let mut fewer = good.clone();
    fewer.islands.pop();
    let error = islands.restore(&fewer).unwrap_err().to_string();
    assert!(error.contains("one per island, K = 4"), "{error}");

    let mut counted = good.clone();
    counted.migrations = 3;
    let error = islands.restore(&counted).unwrap_err().to_string();
    assert!(error.contains("generation div m = 12 div 5 = 2"), "{error}");

    let mut behind = good.clone();
    behind.islands[2].generation = 11;
    behind.islands[2].evaluations = 16 * 12;
    let error = islands.restore(&behind).unwrap_err().to_string();
    assert!(error.contains("islands[2].generation"), "{error}");

    // Island 3's snapshot is refused by the engine after islands 0-2 took theirs: they are rolled back.
    let mut other = model("cpu:1");
    other.step_many(13).unwrap();
    let mut late_refusal = other.snapshot().unwrap();
    late_refusal.islands[3].fitness[0] = f64::NAN;
    let generation = late_refusal.generation;
    late_refusal.migrations = generation / 5;
    let error = islands.restore(&late_refusal).unwrap_err().to_string();
    assert!(error.contains("fitness[0]"), "{error}");
    assert_eq!(islands.snapshot().unwrap(), good);
    assert_eq!(islands.progress().generation, 12);
}

#[test]
fn bad_configurations_are_refused_with_what_is_allowed() {
    let placement = |text: &str| text.parse::<Placement>().unwrap();
    let build = |params: IslandParams, placement: Placement| {
        de::islands(&de_params(), &problem(), SEED, params, placement)
    };
    // k = 9 > M/2 = 8.
    let too_many = island_params().with_migrants(9).unwrap();
    let error = build(too_many, placement("cpu:1"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("at most half the population size M = 16"),
        "{error}"
    );
    // Five backends for four islands.
    let error = build(island_params(), placement("cpu:1,cpu:1,cpu:1,cpu:1,cpu:1"))
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("at most the island count K = 4"), "{error}");
    // K = 0, m = 0, an empty placement.
    assert!(IslandParams::default().with_islands(0).is_err());
    assert!(IslandParams::default().with_migration_interval(0).is_err());
    assert!(Placement::new(Vec::<Backend>::new()).is_err());
}

#[test]
fn a_builder_that_ignores_the_site_seed_is_refused() {
    let placement: Placement = "cpu:1".parse().unwrap();
    let error = IslandModel::new(island_params(), placement, SEED, |_site| {
        let engine = DeCpu::new(de_params(), problem(), SEED, 1)?;
        let island: IslandEngine<'static, Vec<f32>, DeSnapshot> = Box::new(engine);
        Ok(island)
    })
    .err()
    .unwrap()
    .to_string();
    assert!(
        error.contains(&format!("island 1 with seed {SEED}")),
        "{error}"
    );
    assert!(error.contains(&format!("seed {}", SEED + 1)), "{error}");
}
