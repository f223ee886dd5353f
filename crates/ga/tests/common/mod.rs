//! Helpers shared by the GA integration tests: the GPU gate, the bit-for-bit snapshot comparison, lockstep
//! runs against the CPU engine, an executor checkpoint-and-resume check, and the "other parameters" preset.

// Each test binary uses a different subset of these helpers; helpers unwrap too: a failure there is a failed
// test, not a user-facing path.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Debug;
use std::io::Write;

use evo_core::{Checkpointing, Engine, Executor, Termination};
use evo_ga::{GaParams, GaSnapshot};
use evo_gpu_runtime::Gpu;

/// The first CUDA device; `None` (printing SKIPPED) without one, a panic under `EVO_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            let _ = writeln!(std::io::stderr().lock(), "SKIPPED (no CUDA device): {test}");
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

/// Panics at the first difference, naming the generation, the row, the word or fitness, and both values
/// with their bits.
pub fn assert_same(context: &str, cpu: &GaSnapshot, gpu: &GaSnapshot) {
    let g = cpu.generation;
    assert_eq!(
        (cpu.generation, cpu.evaluations),
        (gpu.generation, gpu.evaluations),
        "{context}: counters"
    );
    let w = cpu.words();
    for (k, (a, b)) in cpu.population.iter().zip(&gpu.population).enumerate() {
        assert_eq!(
            a,
            b,
            "{context}: generation {g}, individual {}, word {}: cpu {a:#010x}, gpu {b:#010x}",
            k / w,
            k % w
        );
    }
    for (i, (a, b)) in cpu.fitness.iter().zip(&gpu.fitness).enumerate() {
        assert_eq!(
            a.to_bits(),
            b.to_bits(),
            "{context}: generation {g}, fitness of individual {i}: cpu {a:e} ({:#018x}), gpu {b:e} ({:#018x})",
            a.to_bits(),
            b.to_bits()
        );
    }
    assert_eq!(
        cpu.best, gpu.best,
        "{context}: generation {g}, best individual"
    );
    assert_eq!(
        cpu.best_fitness.to_bits(),
        gpu.best_fitness.to_bits(),
        "{context}: generation {g}, best fitness"
    );
    assert!(
        cpu.bit_identical(gpu),
        "{context}: generation {g}, snapshot"
    );
}

/// `generations` steps of `engine`.
pub fn steps(engine: &mut impl Engine, generations: u64) {
    for _ in 0..generations {
        engine.step().unwrap();
    }
}

/// Compares `gpu` with `cpu` (both at the same generation) now and after each of `generations` single steps:
/// the whole snapshot and the progress.
pub fn assert_lockstep(
    context: &str,
    cpu: &mut impl Engine<Snapshot = GaSnapshot>,
    gpu: &mut impl Engine<Snapshot = GaSnapshot>,
    generations: u64,
) {
    assert_same(context, &cpu.snapshot().unwrap(), &gpu.snapshot().unwrap());
    for _ in 0..generations {
        cpu.step().unwrap();
        gpu.step().unwrap();
        assert_same(context, &cpu.snapshot().unwrap(), &gpu.snapshot().unwrap());
        assert_eq!(cpu.progress(), gpu.progress(), "{context}: progress");
    }
}

/// Executor checkpoint and resume: an engine from `make` runs `stop` generations writing a checkpoint every
/// `every`, a fresh one resumes from that file to `total`; it must end exactly as `uninterrupted` run to
/// `total` generations (best, its fitness bits, evaluations). The checkpoint lives in a temporary folder
/// named after `name` and the process.
pub fn assert_resume_matches<W, E>(
    name: &str,
    uninterrupted: W,
    make: impl Fn() -> E,
    stop: u64,
    total: u64,
    every: u64,
) where
    W: Engine,
    E: Engine<Solution = W::Solution>,
    W::Solution: PartialEq + Debug,
{
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let path = dir.join("ga.json");
    let whole = Executor::new(uninterrupted)
        .with_termination(Termination::new().with_max_generations(total))
        .unwrap()
        .run()
        .unwrap();
    Executor::new(make())
        .with_termination(Termination::new().with_max_generations(stop))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, every).unwrap())
        .run()
        .unwrap();
    let resumed = Executor::new(make())
        .with_termination(Termination::new().with_max_generations(total))
        .unwrap()
        .with_checkpointing(Checkpointing::new(&path, every).unwrap())
        .resume_if_present()
        .unwrap()
        .run()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(resumed.generations, total);
    assert_eq!(resumed.best, whole.best);
    assert_eq!(resumed.best_fitness.to_bits(), whole.best_fitness.to_bits());
    assert_eq!(resumed.evaluations, whole.evaluations);
}

/// Parameters away from the paper's: odd N = 37, tournament 3, two elites, p_c = 0.7, p_m = 0.01, blocks of
/// 64 threads.
pub fn other_params() -> GaParams {
    GaParams::new()
        .with_population(37)
        .unwrap()
        .with_tournament_size(3)
        .unwrap()
        .with_elite(2)
        .unwrap()
        .with_crossover_rate(0.7)
        .unwrap()
        .with_mutation_rate(0.01)
        .unwrap()
        .with_block_size(64)
        .unwrap()
}
