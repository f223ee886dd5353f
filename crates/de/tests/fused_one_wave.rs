//! The one-launch generation in the shapes the plan picks so that every block is resident at once (one wave):
//! the built-in Rastrigin with 4 or 8 coordinates per thread where blocks of `D/2` threads would take two
//! waves, and a user's Rastrigin (CUDA source with its Rust twin) in halved blocks. CPU and CUDA snapshots
//! are equal bit for bit after single generations and after generations queued back to back (the launches
//! then overlap: Programmatic Dependent Launch), for every strategy, with jDE, and with the exponential
//! crossover. Skips (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use evo_benchmarks::DeRastrigin;
use evo_benchmarks::cuda::{UserData, UserProblem, UserTwin};
use evo_core::math::cos_f64;
use evo_core::{Bounds, Engine};
use evo_de::cuda::launch::{
    FusedProblem, RESIDENT_THREADS_PER_MULTIPROCESSOR, fused_plan, user_plan,
};
use evo_de::{Adaptation, Crossover, DeCpu, DeCuda, DeParams, DeSnapshot, DeviceProblem, Strategy};
use evo_gpu_runtime::Gpu;

const SEED: u64 = 31;

/// Rastrigin as user CUDA source: one term per coordinate.
const RASTRIGIN_SOURCE: &str = "__device__ void evo_user_terms(unsigned long long i, const float* x, \
     unsigned long long d, const EvoUserData& data, double* t)\n{\n    const double z = (double)x[i];\n    \
     t[0] = z * z + (10.0 - 10.0 * evo_cos_f64(6.283185307179586 * z));\n}\n";

/// The Rust twin of [`RASTRIGIN_SOURCE`].
#[derive(Clone, Copy, Debug)]
struct RastriginTwin;

impl UserTwin for RastriginTwin {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let z = f64::from(x[i]);
        t[0] = z * z + (10.0 - 10.0 * cos_f64(std::f64::consts::TAU * z));
    }
}

fn user_rastrigin(dimension: usize) -> UserProblem<RastriginTwin> {
    UserProblem::new(
        "rastrigin",
        Bounds::uniform(dimension, -5.12, 5.12).unwrap(),
        RASTRIGIN_SOURCE,
        RastriginTwin,
    )
    .unwrap()
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

/// The parameter variants: the paper's DE/rand/1/bin, DE/best/1 with jDE, current-to-best with the
/// exponential crossover.
fn variants(population: usize) -> Vec<DeParams> {
    let base = DeParams::default().with_population(population).unwrap();
    vec![
        base.clone(),
        base.clone()
            .with_strategy(Strategy::Best1)
            .with_adaptation(Adaptation::Jde),
        base.with_strategy(Strategy::CurrentToBest1)
            .with_crossover(Crossover::Exponential),
    ]
}

/// Runs `problem` on both engines with `params`: 3 single generations, then 6 queued back to back.
fn lockstep<P: DeviceProblem>(gpu: &Gpu, params: &DeParams, problem: impl Fn() -> P, label: &str) {
    let mut cpu = DeCpu::new(params.clone(), problem(), SEED, 0).unwrap();
    let mut on_gpu = DeCuda::new(params.clone(), problem(), SEED, gpu).unwrap();
    assert!(on_gpu.is_fused(), "{label}: not fused");
    for (done, batch) in [(0u64, 1u64), (1, 1), (2, 1), (3, 6)] {
        for _ in 0..batch {
            cpu.step().unwrap();
        }
        on_gpu.step_many(batch).unwrap();
        let (a, b) = (cpu.snapshot().unwrap(), on_gpu.snapshot().unwrap());
        if let Some(difference) = first_difference(&a, &b) {
            panic!("{label}, after generation {}: {difference}", done + batch);
        }
        assert_eq!(
            cpu.progress().best_fitness.to_bits(),
            on_gpu.progress().best_fitness.to_bits(),
            "{label}"
        );
    }
}

#[test]
fn built_in_rastrigin_in_one_wave_should_match_cpu() {
    let Some(gpu) = common::gpu_or_skip("built_in_rastrigin_in_one_wave_should_match_cpu") else {
        return;
    };
    let sms = gpu.info().multiprocessors;
    let resident = RESIDENT_THREADS_PER_MULTIPROCESSOR * sms as usize;
    // Populations of 1024 and 4096 whose blocks of D/2 threads would need more than the resident threads:
    // D a multiple of 4, not one (the last chunk of 4 coordinates short), and below one tile; beside each its
    // (block, items) on 132 multiprocessors (an H100 SXM or an H200).
    for (m, d, shape) in [
        (1024, 512, (128, 4)),
        (1024, 1024, (128, 8)),
        (1024, 510, (128, 4)),
        (4096, 100, (32, 4)),
    ] {
        let plan = fused_plan(FusedProblem::Rastrigin, m, d, 256, sms).unwrap();
        if plan.items > 2 {
            assert!(m * plan.block as usize <= resident, "{m} × {d}: {plan:?}");
        }
        if sms == 132 {
            assert_eq!((plan.block, plan.items), shape, "{m} × {d}");
        }
        for params in variants(m) {
            let label = format!("built-in {m} × {d}, {plan:?}, {params:?}");
            lockstep(&gpu, &params, || DeRastrigin::new(d).unwrap(), &label);
        }
    }
}

#[test]
fn user_rastrigin_in_one_wave_should_match_cpu() {
    let Some(gpu) = common::gpu_or_skip("user_rastrigin_in_one_wave_should_match_cpu") else {
        return;
    };
    let sms = gpu.info().multiprocessors;
    let resident = RESIDENT_THREADS_PER_MULTIPROCESSOR * sms as usize;
    // Beside each its (block, items) on 132 multiprocessors: one term per thread where the blocks fit, blocks
    // halved where they would not.
    for (m, d, shape) in [
        (1024, 512, (128, 4)),
        (1024, 300, (128, 4)),
        (64, 128, (128, 1)),
    ] {
        let plan = user_plan(m, d, d, 256, sms);
        assert!(
            m * plan.block as usize <= resident || plan.block == 32,
            "{m} × {d}: {plan:?}"
        );
        if sms == 132 {
            assert_eq!((plan.block, plan.items), shape, "{m} × {d}");
        }
        for params in variants(m) {
            let label = format!("user {m} × {d}, {plan:?}, {params:?}");
            lockstep(&gpu, &params, || user_rastrigin(d), &label);
        }
    }
}
