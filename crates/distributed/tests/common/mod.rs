//! Helpers shared by the island-model tests: a small DE island model on Rastrigin, runs through the
//! executor, reports without their wall times, and the GPU gate.

// Each test binary uses a different subset of these helpers; they unwrap: a failure there is a failed test.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evo_benchmarks::DeRastrigin;
use evo_core::{Checkpointing, Executor, Report, Termination};
use evo_de::{DeParams, DeSnapshot};
use evo_distributed::{IslandModel, IslandParams, Placement, de};
use evo_gpu_runtime::{Gpu, device_count};
use std::path::Path;

/// The seed of every test run.
pub const SEED: u64 = 2026;

/// M = 16 vectors of Rastrigin in 6 dimensions.
pub fn problem() -> DeRastrigin {
    DeRastrigin::new(6).unwrap()
}

/// DE with M = 16 and jDE, so that migrants carry their own F_i and CR_i.
pub fn de_params() -> DeParams {
    DeParams::default()
        .with_population(16)
        .unwrap()
        .with_adaptation(evo_de::Adaptation::Jde)
}

/// K = 4 islands, migration every 5 generations, 3 migrants.
pub fn island_params() -> IslandParams {
    IslandParams::default()
        .with_islands(4)
        .unwrap()
        .with_migration_interval(5)
        .unwrap()
        .with_migrants(3)
        .unwrap()
}

/// The DE island model on `placement` (a text such as `cpu:1,cpu:2`).
pub fn model(placement: &str) -> IslandModel<'static, Vec<f32>, DeSnapshot> {
    let placement: Placement = placement.parse().unwrap();
    de::islands(&de_params(), &problem(), SEED, island_params(), placement).unwrap()
}

/// The report without its wall times (the only values that depend on the machine's speed).
pub fn timeless<S>(mut report: Report<S>) -> Report<S> {
    report.wall_time_s = 0.0;
    for point in &mut report.history {
        point.elapsed_s = 0.0;
    }
    report
}

/// `model` run for `generations` with a history point every 3 generations; the report without wall times.
pub fn run(
    model: IslandModel<'static, Vec<f32>, DeSnapshot>,
    generations: u64,
) -> Report<Vec<f32>> {
    let report = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap()
        .with_history_every(3)
        .unwrap()
        .run()
        .unwrap();
    timeless(report)
}

/// `model` run for `generations`, checkpointing to `path` every `every` steps and resuming from it when it
/// exists.
pub fn run_checkpointed(
    model: IslandModel<'static, Vec<f32>, DeSnapshot>,
    generations: u64,
    path: &Path,
    every: u64,
) -> Report<Vec<f32>> {
    let report = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))
        .unwrap()
        .with_history_every(3)
        .unwrap()
        .with_checkpointing(Checkpointing::new(path, every).unwrap())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    timeless(report)
}

/// Panics at the first bit that differs between two reports, naming the field.
pub fn assert_same_report(context: &str, a: &Report<Vec<f32>>, b: &Report<Vec<f32>>) {
    assert_eq!(a.generations, b.generations, "{context}: generations");
    assert_eq!(a.evaluations, b.evaluations, "{context}: evaluations");
    assert_eq!(
        a.best_fitness.to_bits(),
        b.best_fitness.to_bits(),
        "{context}: best fitness {} vs {}",
        a.best_fitness,
        b.best_fitness
    );
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.best), bits(&b.best), "{context}: best vector");
    assert_eq!(
        a.history.len(),
        b.history.len(),
        "{context}: history length"
    );
    for (p, q) in a.history.iter().zip(&b.history) {
        assert_eq!(
            (p.generation, p.evaluations, p.best_fitness.to_bits()),
            (q.generation, q.evaluations, q.best_fitness.to_bits()),
            "{context}: history point"
        );
    }
    assert_eq!(a, b, "{context}: report");
}

/// The number of CUDA devices; `None` (printing SKIPPED) without one, a panic under `EVO_REQUIRE_GPU=1`.
pub fn devices_or_skip(test: &str) -> Option<usize> {
    match Gpu::first_available() {
        Ok(Some(_)) => Some(device_count().unwrap()),
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            eprintln!("SKIPPED (no CUDA device): {test}");
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

/// The CUDA placements this machine can hold for a model of `islands` islands: one device, one device
/// beside CPU pools, and with two, three or four devices every device (in order and reversed, mixed with a
/// CPU pool); a placement of more backends than islands is left out, since the model refuses it.
pub fn cuda_placements(devices: usize, islands: usize) -> Vec<String> {
    let mut placements = vec!["cuda:0".to_string(), "cpu:1,cuda:0".to_string()];
    if devices >= 2 {
        placements.push("cuda:0,cuda:1".into());
        placements.push("cuda:1,cpu:2,cuda:0".into());
    }
    if devices >= 3 {
        placements.push("cuda:2,cuda:0,cuda:1".into());
    }
    if devices >= 4 {
        placements.push("cuda:0,cuda:1,cuda:2,cuda:3".into());
        placements.push("cuda:3,cuda:2,cuda:1,cuda:0".into());
    }
    placements.retain(|placement| placement.split(',').count() <= islands);
    placements
}
