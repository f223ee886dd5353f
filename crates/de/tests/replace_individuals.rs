//! Replacing a few slots of a running engine (`replace_individuals`, an island's migrants) leaves it exactly
//! as a restore of its snapshot with those slots overwritten does: equal snapshots then, and equal runs
//! after, bit for bit, on the CPU and on CUDA (the one-launch path, whose vectors live in two buffers, and
//! the four-launch host path), and the CUDA runs equal the CPU's. `individuals` reads what the snapshot
//! holds, every slot in whichever of the one-launch path's two buffers it lives, and reads a replacement
//! back right away. A bad replacement is refused with nothing written. The CUDA tests skip (printing SKIPPED) without a
//! GPU and fail instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod host_rastrigin;

use evo_benchmarks::DeRastrigin;
use evo_core::{Bounds, Engine};
use evo_de::{Adaptation, DeCpu, DeCuda, DeIndividual, DeParams, DeSnapshot, FnProblem};
use host_rastrigin::rastrigin;

const SEED: u64 = 5;
const DIMENSION: usize = 24;
/// Slots the replacements go to: the first, one inside and the last.
const SLOTS: [usize; 3] = [0, 13, 31];

/// jDE, so that every slot's `F_i` and `CR_i` differ and must travel with it.
fn params() -> DeParams {
    DeParams::default()
        .with_population(32)
        .unwrap()
        .with_adaptation(Adaptation::Jde)
}

fn host_problem() -> FnProblem<fn(&[f32]) -> f64> {
    let bounds = Bounds::uniform(DIMENSION, -5.12, 5.12).unwrap();
    FnProblem::new("rastrigin", bounds, rastrigin as fn(&[f32]) -> f64)
}

/// Individuals of another run (another seed, 9 generations in): valid, and unlike the receiver's.
fn donors() -> Vec<DeIndividual> {
    let mut donor = DeCpu::new(
        params(),
        DeRastrigin::new(DIMENSION).unwrap(),
        SEED + 100,
        1,
    )
    .unwrap();
    donor.step_many(9).unwrap();
    donor.individuals(&[4, 20, 7]).unwrap()
}

/// The snapshot with `replacements` written into it, as the island model's snapshot path writes migrants.
fn overwritten(mut snapshot: DeSnapshot, replacements: &[(usize, DeIndividual)]) -> DeSnapshot {
    let d = snapshot.dimension;
    for (slot, individual) in replacements {
        snapshot.population[slot * d..(slot + 1) * d].copy_from_slice(&individual.vector);
        snapshot.fitness[*slot] = individual.fitness;
        snapshot.differential_weights[*slot] = individual.differential_weight;
        snapshot.crossover_rates[*slot] = individual.crossover_rate;
    }
    snapshot
}

/// Two engines of one run stepped 7 generations; one takes the replacements with `replace`, the other
/// through its snapshot and `restore`; both must then agree, and again 13 generations later. Returns the
/// final snapshot.
fn replace_then_run<E: Engine<Snapshot = DeSnapshot, Solution = Vec<f32>>>(
    context: &str,
    build: impl Fn() -> E,
    replace: impl Fn(&mut E, &[(usize, DeIndividual)]),
    read: impl Fn(&E, &[usize]) -> Vec<DeIndividual>,
) -> DeSnapshot {
    let replacements: Vec<(usize, DeIndividual)> = SLOTS.into_iter().zip(donors()).collect();
    let (mut direct, mut restored) = (build(), build());
    direct.step_many(7).unwrap();
    restored.step_many(7).unwrap();
    let before = direct.snapshot().unwrap();
    let read_back = read(&direct, &SLOTS);
    for (slot, individual) in SLOTS.iter().zip(&read_back) {
        let (expected, d) = (&before, before.dimension);
        assert_eq!(
            individual.vector,
            expected.population[slot * d..(slot + 1) * d],
            "{context}: slot {slot}"
        );
        assert_eq!(
            individual.fitness.to_bits(),
            expected.fitness[*slot].to_bits(),
            "{context}"
        );
        assert_eq!(
            individual.differential_weight, expected.differential_weights[*slot],
            "{context}"
        );
        assert_eq!(
            individual.crossover_rate, expected.crossover_rates[*slot],
            "{context}"
        );
    }
    replace(&mut direct, &replacements);
    let target = overwritten(restored.snapshot().unwrap(), &replacements);
    restored.restore(&target).unwrap();
    assert_eq!(
        direct.snapshot().unwrap(),
        target,
        "{context}: after the replacement"
    );
    assert_eq!(
        direct.progress().best_fitness.to_bits(),
        restored.progress().best_fitness.to_bits(),
        "{context}: best after the replacement"
    );
    direct.step_many(13).unwrap();
    restored.step_many(13).unwrap();
    let end = direct.snapshot().unwrap();
    assert_eq!(
        end,
        restored.snapshot().unwrap(),
        "{context}: 13 generations later"
    );
    assert_eq!(
        direct.best().unwrap(),
        restored.best().unwrap(),
        "{context}: best"
    );
    end
}

fn cpu_run() -> DeSnapshot {
    replace_then_run(
        "DeCpu",
        || DeCpu::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, 2).unwrap(),
        |engine, replacements| engine.replace_individuals(replacements).unwrap(),
        |engine, slots| engine.individuals(slots).unwrap(),
    )
}

#[test]
fn replacing_slots_on_the_cpu_should_equal_restoring_the_overwritten_snapshot() {
    let end = cpu_run();
    assert_eq!(end.generation, 20);
}

#[test]
fn a_replacement_the_restore_would_refuse_is_refused_with_nothing_written() {
    let mut engine = DeCpu::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, 1).unwrap();
    engine.step_many(3).unwrap();
    let before = engine.snapshot().unwrap();
    let mut donors = donors();
    let mut outside = donors.pop().unwrap();
    outside.vector[5] = 6.0;
    let valid = donors.pop().unwrap();
    for (replacements, expected) in [
        (
            vec![(2, valid.clone()), (32, valid.clone())],
            "below the population size M = 32",
        ),
        (vec![(2, valid.clone()), (2, valid.clone())], "slot 2 twice"),
        (vec![(1, valid.clone()), (9, outside)], "slot 9"),
    ] {
        let error = engine
            .replace_individuals(&replacements)
            .unwrap_err()
            .to_string();
        assert!(error.contains(expected), "{error}");
        assert_eq!(
            engine.snapshot().unwrap(),
            before,
            "{expected}: nothing written"
        );
    }
    assert!(engine.individuals(&[32]).is_err());
}

#[test]
fn replacing_slots_on_cuda_should_equal_restoring_the_overwritten_snapshot_and_the_cpu() {
    let test =
        "replacing_slots_on_cuda_should_equal_restoring_the_overwritten_snapshot_and_the_cpu";
    let Some(gpu) = common::gpu_or_skip(test) else {
        return;
    };
    let fused = replace_then_run(
        "DeCuda, one-launch generation",
        || {
            let engine =
                DeCuda::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, &gpu).unwrap();
            assert!(engine.is_fused());
            engine
        },
        |engine, replacements| engine.replace_individuals(replacements).unwrap(),
        |engine, slots| engine.individuals(slots).unwrap(),
    );
    assert_eq!(fused, cpu_run(), "one-launch CUDA against the CPU");
    let host = replace_then_run(
        "DeCuda, host evaluation",
        || {
            let engine = DeCuda::new(params(), host_problem(), SEED, &gpu).unwrap();
            assert!(!engine.is_fused());
            engine
        },
        |engine, replacements| engine.replace_individuals(replacements).unwrap(),
        |engine, slots| engine.individuals(slots).unwrap(),
    );
    let cpu_host = replace_then_run(
        "DeCpu, host problem",
        || DeCpu::new(params(), host_problem(), SEED, 1).unwrap(),
        |engine, replacements| engine.replace_individuals(replacements).unwrap(),
        |engine, slots| engine.individuals(slots).unwrap(),
    );
    assert_eq!(host, cpu_host, "host-evaluated CUDA against the CPU");
    let mut engine =
        DeCuda::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, &gpu).unwrap();
    engine.step_many(3).unwrap();
    let before = engine.snapshot().unwrap();
    let valid = donors().pop().unwrap();
    let error = engine
        .replace_individuals(&[(1, valid.clone()), (1, valid)])
        .unwrap_err()
        .to_string();
    assert!(error.contains("slot 1 twice"), "{error}");
    assert_eq!(
        engine.snapshot().unwrap(),
        before,
        "nothing written on CUDA"
    );
}

#[test]
fn on_the_one_launch_path_every_slot_should_be_read_and_replaced_whichever_buffer_holds_it() {
    let test =
        "on_the_one_launch_path_every_slot_should_be_read_and_replaced_whichever_buffer_holds_it";
    let Some(gpu) = common::gpu_or_skip(test) else {
        return;
    };
    // Every slot, one twice: after a few generations some vectors live in the trial buffer (the winners'),
    // the others in the population buffer; an even and an odd count use either slot table.
    let mut all: Vec<usize> = (0..32).collect();
    all.push(13);
    let donors = donors();
    let replacements: Vec<(usize, DeIndividual)> = SLOTS.into_iter().zip(donors.clone()).collect();
    for generations in 1..=4 {
        let context = format!("{generations} generations");
        let mut engine =
            DeCuda::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, &gpu).unwrap();
        assert!(engine.is_fused());
        engine.step_many(generations).unwrap();
        let snapshot = engine.snapshot().unwrap();
        assert_eq!(
            engine.population_fitness().unwrap(),
            snapshot.fitness,
            "{context}"
        );
        let d = snapshot.dimension;
        for (&slot, individual) in all.iter().zip(engine.individuals(&all).unwrap()) {
            let expected = DeIndividual {
                vector: snapshot.population[slot * d..(slot + 1) * d].to_vec(),
                fitness: snapshot.fitness[slot],
                differential_weight: snapshot.differential_weights[slot],
                crossover_rate: snapshot.crossover_rates[slot],
            };
            assert_eq!(individual, expected, "{context}: slot {slot}");
        }
        engine.replace_individuals(&replacements).unwrap();
        assert_eq!(
            engine.individuals(&SLOTS).unwrap(),
            donors,
            "{context}: read right after the replacement"
        );
        let mut cpu = DeCpu::new(params(), DeRastrigin::new(DIMENSION).unwrap(), SEED, 1).unwrap();
        cpu.step_many(generations).unwrap();
        cpu.replace_individuals(&replacements).unwrap();
        assert_eq!(
            engine.progress().best_fitness.to_bits(),
            cpu.progress().best_fitness.to_bits(),
            "{context}: best after the replacement"
        );
        engine.step_many(5).unwrap();
        cpu.step_many(5).unwrap();
        assert_eq!(
            engine.snapshot().unwrap(),
            cpu.snapshot().unwrap(),
            "{context}: 5 generations later, CUDA against the CPU"
        );
    }
}
