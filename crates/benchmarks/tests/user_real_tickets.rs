//! On the GPU: a user real-vector row of more than 256 tiles (its last block sums the tile sums in passes of
//! 256) gives the twin's bits, and one evaluator evaluated again and again with other row counts keeps its
//! per-row tickets right (each launch leaves them at zero for the next; more rows grow them). Skips without a
//! GPU; fails under `EVO_REQUIRE_GPU=1` when the GPU path breaks.

use evo_benchmarks::cuda::{
    DeviceRealProblem, EvalSettings, Terms, UserData, UserProblem, UserRealParams, UserTwin,
};
use evo_core::{Bounds, ContinuousProblem};
use evo_gpu_runtime::{Gpu, Profile};

/// Genes per row: the terms read them over and over.
const GENES: usize = 4;
/// Terms per row: 586 tiles of 2048, padded to 1024 tile sums, four passes of 256 in the last block.
const TERMS: usize = 1_200_000;

/// Term i: gene i mod 4 times a weight from -500 to 500 that depends on i, so that another order of the
/// additions rounds differently.
const SOURCE: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double weight = (double)((i * 2654435761ull) % 1000003ull) * 1e-3 - 500.0;
    t[0] = (double)x[i & 3ull] * weight;
}
"#;

/// The Rust twin of [`SOURCE`].
struct Weighted;

impl UserTwin for Weighted {
    fn terms(&self, i: usize, x: &[f32], _: &UserData, t: &mut [f64]) {
        let weight = ((i as u64 * 2_654_435_761) % 1_000_003) as f64 * 1e-3 - 500.0;
        t[0] = f64::from(x[i & 3]) * weight;
    }
}

/// `rows` rows of genes in [-1, 1], different in every row and call (`salt`).
fn population(rows: usize, salt: usize) -> Vec<f32> {
    (0..rows * GENES)
        .map(|k| {
            let h = ((k + 7 * salt) as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            (h as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

#[test]
fn a_row_of_more_than_256_tiles_and_repeated_evaluations_should_give_the_twins_bits() {
    let test = "a_row_of_more_than_256_tiles_and_repeated_evaluations_should_give_the_twins_bits";
    let Some(gpu) = Gpu::first_available().unwrap() else {
        assert!(
            !std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1"),
            "{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one"
        );
        eprintln!("SKIPPED (no CUDA device): {test}");
        return;
    };
    let shape = UserRealParams::new(GENES as u64, TERMS as u64, 1);
    assert_eq!(
        (shape.tiles, shape.finish_leaves, shape.finish_items),
        (586, 256, 4)
    );
    let problem = UserProblem::new(
        "weighted",
        Bounds::uniform(GENES, -1.0, 1.0).unwrap(),
        SOURCE,
        Weighted,
    )
    .and_then(|p| p.with_terms(Terms::Count(TERMS)))
    .unwrap();
    let evaluator = problem.real_evaluator(&gpu).unwrap();
    let settings = EvalSettings {
        profile: Profile::Exact,
        block: 256,
    };
    // Fewer rows, more rows (the tickets grow), fewer again: every launch must start from zero tickets.
    for (call, rows) in [3usize, 7, 3, 1, 7].into_iter().enumerate() {
        let x = population(rows, call);
        let device_x = gpu.upload(&x).unwrap();
        let mut fitness = gpu.alloc::<f64>(rows).unwrap();
        evaluator
            .evaluate(&device_x, &mut fitness, settings)
            .unwrap();
        let on_gpu = fitness.to_vec().unwrap();
        for (r, row) in x.chunks_exact(GENES).enumerate() {
            let cpu = problem.evaluate(row);
            assert_eq!(
                on_gpu[r].to_bits(),
                cpu.to_bits(),
                "call {call}, {rows} rows: row {r}: GPU {} CPU {cpu}",
                on_gpu[r]
            );
        }
    }
}
