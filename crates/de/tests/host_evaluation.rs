//! The CUDA engine's host evaluation (a Rust problem evaluated on the host while the rest of DE runs on the
//! device) at a size whose trials reach the host in several chunks: the run equals the CPU engine's bit for
//! bit, also with vectors long enough that the trial kernel cuts each over several blocks, and a non-finite
//! fitness names the same individual as on the CPU. Skips (printing SKIPPED) without a
//! GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod host_rastrigin;

use evo_core::{Bounds, Engine, Error};
use evo_de::{Adaptation, DeCpu, DeCuda, DeParams, DeSnapshot, DeviceProblem, FnProblem, Strategy};
use evo_gpu_runtime::Gpu;
use host_rastrigin::rastrigin;

/// 64 vectors of 4096 coordinates: 1 MiB of trials per generation, copied to the host in more than one chunk.
const POPULATION: usize = 64;
const DIMENSION: usize = 4096;
const SEED: u64 = 11;

fn params() -> DeParams {
    DeParams::default().with_population(POPULATION).unwrap()
}

fn bounds() -> Bounds {
    Bounds::uniform(DIMENSION, -5.12, 5.12).unwrap()
}

/// The first differing value of two snapshots, bit for bit, or `None`.
fn first_difference(cpu: &DeSnapshot, gpu: &DeSnapshot) -> Option<String> {
    let f32s = [
        ("population", &cpu.population, &gpu.population),
        (
            "differential weight",
            &cpu.differential_weights,
            &gpu.differential_weights,
        ),
        ("crossover rate", &cpu.crossover_rates, &gpu.crossover_rates),
    ];
    for (what, a, b) in f32s {
        if let Some(i) = (0..a.len().max(b.len()))
            .find(|&i| a.get(i).map(|v| v.to_bits()) != b.get(i).map(|v| v.to_bits()))
        {
            return Some(format!(
                "{what}[{i}]: CPU {:?}, CUDA {:?}",
                a.get(i),
                b.get(i)
            ));
        }
    }
    let (a, b) = (&cpu.fitness, &gpu.fitness);
    (0..a.len().max(b.len()))
        .find(|&i| a.get(i).map(|v| v.to_bits()) != b.get(i).map(|v| v.to_bits()))
        .map(|i| format!("fitness[{i}]: CPU {:?}, CUDA {:?}", a.get(i), b.get(i)))
}

#[test]
fn a_host_problem_in_several_chunks_should_match_cpu() {
    let Some(gpu) = common::gpu_or_skip("a_host_problem_in_several_chunks_should_match_cpu") else {
        return;
    };
    let problem = || FnProblem::new("rastrigin", bounds(), rastrigin);
    // Single steps, then generations queued back to back.
    lockstep(
        &gpu,
        &params(),
        problem,
        &[(0, 1), (1, 1), (2, 1), (3, 7), (10, 10)],
    );
}

/// Runs `problem` from `params` on the CPU engine and on the CUDA engine's host evaluation side by side: for
/// each `(generations done, batch)` of `batches`, `batch` CPU steps against one `step_many(batch)`, then the
/// snapshots and the best fitness compared bit for bit.
fn lockstep<P: DeviceProblem>(
    gpu: &Gpu,
    params: &DeParams,
    problem: impl Fn() -> P,
    batches: &[(u64, u64)],
) {
    let mut cpu = DeCpu::new(params.clone(), problem(), SEED, 0).unwrap();
    let mut on_gpu = DeCuda::new(params.clone(), problem(), SEED, gpu).unwrap();
    assert!(!on_gpu.is_fused());
    for &(generation, batch) in batches {
        for _ in 0..batch {
            cpu.step().unwrap();
        }
        on_gpu.step_many(batch).unwrap();
        let (a, b) = (cpu.snapshot().unwrap(), on_gpu.snapshot().unwrap());
        assert_eq!(a.generation, b.generation);
        if let Some(difference) = first_difference(&a, &b) {
            panic!("after generation {}: {difference}", generation + batch);
        }
        assert_eq!(
            cpu.progress().best_fitness.to_bits(),
            on_gpu.progress().best_fitness.to_bits()
        );
    }
}

#[test]
fn long_vectors_cut_over_several_blocks_should_match_cpu() {
    let Some(gpu) = common::gpu_or_skip("long_vectors_cut_over_several_blocks_should_match_cpu")
    else {
        return;
    };
    // 8 vectors of 65 536 coordinates: the trial kernel builds each in 32 slices, one block each. jDE and
    // current-to-best/1 make every slice read the best vector and draw the vector's own F and CR.
    let dimension = 65_536;
    let params = DeParams::default()
        .with_population(8)
        .unwrap()
        .with_strategy(Strategy::CurrentToBest1)
        .with_adaptation(Adaptation::Jde);
    let problem = || {
        FnProblem::new(
            "rastrigin",
            Bounds::uniform(dimension, -5.12, 5.12).unwrap(),
            rastrigin,
        )
    };
    lockstep(&gpu, &params, problem, &[(0, 1), (1, 1), (2, 8), (10, 30)]);
}

#[test]
fn a_non_finite_fitness_names_the_individual_the_cpu_names() {
    let Some(gpu) = common::gpu_or_skip("a_non_finite_fitness_names_the_individual_the_cpu_names")
    else {
        return;
    };
    // The first coordinate of a vector of the initial population's last chunk marks it.
    let initial = DeCpu::new(
        params(),
        FnProblem::new("rastrigin", bounds(), rastrigin),
        SEED,
        0,
    )
    .unwrap()
    .snapshot()
    .unwrap();
    let marked = 50;
    let mark = initial.population[marked * DIMENSION].to_bits();
    let poisoned = || {
        FnProblem::new("poisoned", bounds(), move |x: &[f32]| {
            if x[0].to_bits() == mark {
                f64::NAN
            } else {
                rastrigin(x)
            }
        })
    };
    let individual = |error: Error| match error {
        Error::NonFiniteFitness {
            problem,
            individual,
            value,
        } => {
            assert_eq!(problem, "poisoned");
            assert!(value.is_nan());
            individual
        }
        other => panic!("expected NonFiniteFitness, got {other}"),
    };
    let on_cpu = individual(DeCpu::new(params(), poisoned(), SEED, 0).err().unwrap());
    let on_gpu = individual(DeCuda::new(params(), poisoned(), SEED, &gpu).err().unwrap());
    assert_eq!(on_cpu, marked);
    assert_eq!(on_gpu, marked);
}

#[test]
fn of_several_non_finite_fitnesses_the_lowest_row_is_named_as_on_the_cpu() {
    let Some(gpu) = common::gpu_or_skip(
        "of_several_non_finite_fitnesses_the_lowest_row_is_named_as_on_the_cpu",
    ) else {
        return;
    };
    // Rows in both chunks and in several pieces are non-finite; the pieces run on many threads in any
    // order, and the error must still name the lowest row, as the CPU engine's check does.
    let initial = DeCpu::new(
        params(),
        FnProblem::new("rastrigin", bounds(), rastrigin),
        SEED,
        0,
    )
    .unwrap()
    .snapshot()
    .unwrap();
    let marked = [60usize, 41, 9, 33];
    let marks: Vec<u32> = marked
        .iter()
        .map(|&row| initial.population[row * DIMENSION].to_bits())
        .collect();
    let poisoned = || {
        let marks = marks.clone();
        FnProblem::new("poisoned", bounds(), move |x: &[f32]| {
            if marks.contains(&x[0].to_bits()) {
                f64::INFINITY
            } else {
                rastrigin(x)
            }
        })
    };
    let individual = |error: Error| match error {
        Error::NonFiniteFitness { individual, .. } => individual,
        other => panic!("expected NonFiniteFitness, got {other}"),
    };
    let on_cpu = individual(DeCpu::new(params(), poisoned(), SEED, 0).err().unwrap());
    assert_eq!(on_cpu, 9);
    for _ in 0..5 {
        let on_gpu = individual(DeCuda::new(params(), poisoned(), SEED, &gpu).err().unwrap());
        assert_eq!(on_gpu, on_cpu);
    }
}
