//! MA-SW-Chains islands: CPU placements agree bit for bit, migrants carry their chains and the engines
//! accept the migrated snapshots, and CUDA placements agree with the CPU (skipped without a GPU, failing
//! under `EVO_REQUIRE_GPU=1`).

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{cuda_placements, devices_or_skip, timeless};
use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
use evo_core::{Engine, Executor, Report, Termination};
use evo_distributed::{IslandParams, island_seed, ma, ring_migration};
use evo_ma_sw_chains::{MaCpu, MaParams};

const SEED: u64 = 31;

fn problem() -> ShiftedProblem {
    ShiftedProblem::new(ShiftedFunction::Rastrigin, 40).unwrap()
}

/// The default population with a budget that lasts the tests' cycles.
fn ma_params() -> MaParams {
    MaParams::new().with_max_evaluations(200_000).unwrap()
}

/// K = 3, migration every 2 cycles, 4 migrants.
fn island_params() -> IslandParams {
    IslandParams::default()
        .with_islands(3)
        .unwrap()
        .with_migration_interval(2)
        .unwrap()
        .with_migrants(4)
        .unwrap()
}

fn run(problem: &ShiftedProblem, placement: &str, cycles: u64) -> Report<Vec<f32>> {
    let model = ma::islands(
        &ma_params(),
        problem,
        SEED,
        island_params(),
        placement.parse().unwrap(),
    )
    .unwrap();
    let report = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(cycles))
        .unwrap()
        .run()
        .unwrap();
    timeless(report)
}

fn assert_same(context: &str, a: &Report<Vec<f32>>, b: &Report<Vec<f32>>) {
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
fn ma_islands_on_one_two_and_three_cpu_placements_should_give_identical_reports() {
    let problem = problem();
    let one = run(&problem, "cpu:1", 7);
    assert_eq!(one.algorithm, "MA-SW-Chains islands");
    for placement in ["cpu:2,cpu:1", "cpu:1,cpu:1,cpu:2"] {
        assert_same(placement, &one, &run(&problem, placement, 7));
    }
}

#[test]
fn ma_islands_follow_lone_engines_and_migrants_carry_their_chains() {
    let problem = problem();
    let params = island_params();
    let mut lone: Vec<MaCpu<'_, ShiftedProblem>> = (0..params.islands())
        .map(|i| MaCpu::new(ma_params(), &problem, island_seed(SEED, i), 1).unwrap())
        .collect();
    let mut model = ma::islands(
        &ma_params(),
        &problem,
        SEED,
        params,
        "cpu:1,cpu:1".parse().unwrap(),
    )
    .unwrap();
    let mut chains_moved = false;
    for period in 1..=3 {
        model.step_many(2).unwrap();
        for engine in &mut lone {
            engine.step_many(2).unwrap();
        }
        let before: Vec<_> = lone.iter().map(|e| e.snapshot().unwrap()).collect();
        let mut expected = before.clone();
        ring_migration(&mut expected, params.migrants());
        chains_moved |= expected
            .iter()
            .zip(&before)
            .any(|(after, before)| after.chains != before.chains);
        for (engine, snapshot) in lone.iter_mut().zip(&expected) {
            engine.restore(snapshot).unwrap();
        }
        assert_eq!(
            model.snapshot().unwrap().islands,
            expected,
            "period {period}"
        );
    }
    assert!(
        chains_moved,
        "no migration moved a chain: the test would not see a lost one"
    );
}

#[test]
fn ma_islands_on_cuda_placements_should_match_cpu_islands() {
    let test = "ma_islands_on_cuda_placements_should_match_cpu_islands";
    let Some(devices) = devices_or_skip(test) else {
        return;
    };
    let problem = problem();
    let cpu = run(&problem, "cpu:1", 7);
    for placement in cuda_placements(devices, island_params().islands()) {
        eprintln!("{test}: {placement} ({devices} device(s))");
        assert_same(&placement, &cpu, &run(&problem, &placement, 7));
    }
}
