//! A user-written CUDA problem (ARCHITECTURE §5, way 2): the term is a CUDA device function in a string,
//! compiled by NVRTC and fused into the evaluation kernel, with a Rust twin for the CPU.
//!
//! Run: `cargo run -p evo-benchmarks --example user_function`. With a GPU it evaluates 8 individuals on both
//! backends and checks the bits; with NVRTC (no GPU needed) it also shows the error a broken source gives.

use evo_benchmarks::cuda::{CudaProblem, UserFunction};
use evo_core::math::cos_f64;
use evo_core::{Bounds, ContinuousProblem, Error};
use evo_gpu_runtime::{Gpu, Profile, nvrtc_present};

/// The term on the GPU: a weighted Rastrigin-like term with the portable cosine of `common/math.cuh`.
const CUDA_TERM: &str = r#"
__device__ double evo_user_term(unsigned long long i, double z)
{
    const double w = 1.0 + (double)(i % 7);
    return w * (z * z) - evo_cos_f64(3.0 * z);
}
"#;

/// The same term on the CPU, same operations in the same order.
fn cpu_term(i: usize, z: f64) -> f64 {
    let w = 1.0 + (i % 7) as f64;
    w * (z * z) - cos_f64(3.0 * z)
}

/// A source with a type error: NVRTC rejects it and the error carries its log.
const BROKEN_TERM: &str = r#"
__device__ double evo_user_term(unsigned long long i, double z)
{
    return z * undefined_name;
}
"#;

fn main() -> Result<(), Error> {
    let d = 100_000;
    let problem = UserFunction::new(
        "weighted-cosine",
        Bounds::uniform(d, -2.0, 2.0)?,
        CUDA_TERM,
        cpu_term,
    )?;
    let individuals = 8;
    let population: Vec<f32> = (0..individuals * d)
        .map(|k| (((k as f64) * 0.618_033_988_749_895).fract() * 4.0 - 2.0) as f32)
        .collect();
    let mut cpu = vec![0.0; individuals];
    problem.evaluate_checked(&population, &mut cpu)?;
    println!("CPU fitness: {cpu:?}");

    match Gpu::first_available()? {
        Some(gpu) => {
            let evaluator = problem.cuda_evaluator(&gpu)?;
            let mut on_gpu = vec![0.0; individuals];
            evaluator.evaluate_host(&population, &mut on_gpu, Profile::Exact, 256)?;
            println!("GPU fitness: {on_gpu:?}");
            let same = cpu
                .iter()
                .zip(&on_gpu)
                .all(|(c, g)| c.to_bits() == g.to_bits());
            println!("bit-identical: {same}");
            let broken = UserFunction::new(
                "broken",
                Bounds::uniform(d, -2.0, 2.0)?,
                BROKEN_TERM,
                cpu_term,
            )?;
            match broken.cuda_evaluator(&gpu) {
                Err(error @ Error::KernelCompile { .. }) => {
                    println!("broken source on the GPU:\n{error}")
                }
                Err(other) => return Err(other),
                Ok(_) => println!("unexpected: the broken source compiled"),
            }
        }
        None => println!("no CUDA device: GPU evaluation skipped"),
    }

    if nvrtc_present() {
        let broken = UserFunction::new(
            "broken",
            Bounds::uniform(d, -2.0, 2.0)?,
            BROKEN_TERM,
            cpu_term,
        )?;
        match broken.check_compiles(Profile::Exact, "sm_80") {
            Err(error @ Error::KernelCompile { .. }) => {
                println!("broken source, NVRTC only:\n{error}")
            }
            Err(other) => return Err(other),
            Ok(()) => println!("unexpected: the broken source compiled"),
        }
    } else {
        println!("no NVRTC: compile check skipped");
    }
    Ok(())
}
