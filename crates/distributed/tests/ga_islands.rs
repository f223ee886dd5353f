//! GA islands: CPU placements agree bit for bit, the migration keeps the GA snapshot's invariants, and CUDA
//! placements (the fused engine) agree with the CPU (skipped without a GPU, failing under
//! `EVO_REQUIRE_GPU=1`).

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{cuda_placements, devices_or_skip, timeless};
use evo_benchmarks::ga_functions::GaFunction;
use evo_core::{Bits, Engine, Executor, Report, Termination};
use evo_distributed::{IslandParams, ga, island_seed, ring_migration};
use evo_ga::{GaCpu, GaParams, PaperFunction};

const SEED: u64 = 77;

fn problem() -> PaperFunction {
    PaperFunction::new(GaFunction::Rastrigin, 8).unwrap()
}

/// N = 32 with 2 elites.
fn ga_params() -> GaParams {
    GaParams::new()
        .with_population(32)
        .unwrap()
        .with_elite(2)
        .unwrap()
}

/// K = 4, migration every 4 generations, 5 migrants.
fn island_params() -> IslandParams {
    IslandParams::default()
        .with_islands(4)
        .unwrap()
        .with_migration_interval(4)
        .unwrap()
        .with_migrants(5)
        .unwrap()
}

fn run(placement: &str, generations: u64) -> Report<Bits> {
    let model = ga::islands(
        &ga_params(),
        &problem(),
        SEED,
        island_params(),
        placement.parse().unwrap(),
    )
    .unwrap();
    let report = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap()
        .with_history_every(5)
        .unwrap()
        .run()
        .unwrap();
    timeless(report)
}

fn assert_same(context: &str, a: &Report<Bits>, b: &Report<Bits>) {
    assert_eq!(
        a.best_fitness.to_bits(),
        b.best_fitness.to_bits(),
        "{context}: best fitness {} vs {}",
        a.best_fitness,
        b.best_fitness
    );
    assert_eq!(a, b, "{context}: report");
}

#[test]
fn ga_islands_on_one_two_and_four_cpu_placements_should_give_identical_reports() {
    let one = run("cpu:1", 30);
    assert_eq!(one.algorithm, "GA islands");
    for placement in ["cpu:2,cpu:1", "cpu:1,cpu:1,cpu:2,cpu:1"] {
        assert_same(placement, &one, &run(placement, 30));
    }
}

#[test]
fn ga_islands_follow_lone_engines_and_restore_after_every_migration() {
    let params = island_params();
    let mut lone: Vec<GaCpu<PaperFunction>> = (0..params.islands())
        .map(|i| GaCpu::with_threads(ga_params(), problem(), island_seed(SEED, i), 1).unwrap())
        .collect();
    let mut model = ga::islands(
        &ga_params(),
        &problem(),
        SEED,
        params,
        "cpu:1,cpu:1".parse().unwrap(),
    )
    .unwrap();
    for period in 1..=3 {
        model.step_many(4).unwrap();
        for engine in &mut lone {
            engine.step_many(4).unwrap();
        }
        let mut expected: Vec<_> = lone.iter().map(|e| e.snapshot().unwrap()).collect();
        ring_migration(&mut expected, params.migrants());
        // The engines accept the migrated snapshots: rows sorted, best so far no worse than row 0.
        for (engine, snapshot) in lone.iter_mut().zip(&expected) {
            engine.restore(snapshot).unwrap();
        }
        assert_eq!(
            model.snapshot().unwrap().islands,
            expected,
            "period {period}"
        );
    }
}

#[test]
fn ga_islands_on_cuda_placements_should_match_cpu_islands() {
    let test = "ga_islands_on_cuda_placements_should_match_cpu_islands";
    let Some(devices) = devices_or_skip(test) else {
        return;
    };
    let cpu = run("cpu:1", 30);
    for placement in cuda_placements(devices, island_params().islands()) {
        eprintln!("{test}: {placement} ({devices} device(s))");
        assert_same(&placement, &cpu, &run(&placement, 30));
    }
}
