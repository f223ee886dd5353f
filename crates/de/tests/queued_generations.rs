//! Generations queued without a read-back (`queue_generations`, then `read_back`), two engines of one device
//! queued back to back on its stream and waited for once, equal `step_many` bit for bit, on the one-launch
//! path and on the host-evaluation path. Skips (printing SKIPPED) without a GPU; fails instead under
//! `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use evo_benchmarks::DeRastrigin;
use evo_core::{Bounds, Engine};
use evo_de::{Adaptation, DeCuda, DeParams, DeviceProblem, FnProblem};
use evo_gpu_runtime::Gpu;

fn params() -> DeParams {
    DeParams::default()
        .with_population(48)
        .unwrap()
        .with_adaptation(Adaptation::Jde)
}

fn sphere(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
}

/// Engines from seeds 1 and 2: stepped with `step_many`, and queued back to back then read back, in
/// batches of 1, 7 and 0 generations; equal snapshots, progress and best after every batch.
fn queued_equals_stepped<P: DeviceProblem + Clone>(context: &str, gpu: &Gpu, problem: &P) {
    let build = |seed| DeCuda::new(params(), problem.clone(), seed, gpu).unwrap();
    let mut stepped = [build(1), build(2)];
    let mut queued = [build(1), build(2)];
    for batch in [1u64, 7, 0, 7] {
        for engine in &mut stepped {
            engine.step_many(batch).unwrap();
        }
        for engine in &mut queued {
            engine.queue_generations(batch).unwrap();
        }
        for engine in &mut queued {
            engine.read_back().unwrap();
        }
        for (a, b) in stepped.iter().zip(&queued) {
            assert_eq!(
                a.snapshot().unwrap(),
                b.snapshot().unwrap(),
                "{context}: batch {batch}"
            );
            assert_eq!(a.progress(), b.progress(), "{context}: batch {batch}");
            assert_eq!(
                a.best().unwrap(),
                b.best().unwrap(),
                "{context}: batch {batch}"
            );
        }
    }
}

#[test]
fn queued_generations_read_back_once_should_equal_step_many() {
    let Some(gpu) = common::gpu_or_skip("queued_generations_read_back_once_should_equal_step_many")
    else {
        return;
    };
    queued_equals_stepped("one-launch path", &gpu, &DeRastrigin::new(20).unwrap());
    let bounds = Bounds::uniform(20, -5.0, 5.0).unwrap();
    let host = FnProblem::new("sphere", bounds, sphere as fn(&[f32]) -> f64);
    queued_equals_stepped("host evaluation", &gpu, &host);
}
