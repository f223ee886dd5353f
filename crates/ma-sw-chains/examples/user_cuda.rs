//! Your own problem on the GPU with MA-SW-Chains: Ackley written as CUDA source, two sums per individual
//! (of x² and of cos 2πx) combined at the end, with the same function in Rust as its CPU twin (written with
//! `evo_core::math`, whose functions give the same bits as `evo_exp_f64`/`evo_cos_f64` on the device).
//!
//! ```text
//! cargo run --release -p evo-ma-sw-chains --example user_cuda
//! ```
//!
//! Without a GPU, `Backend::auto()` runs on the CPU (the report says which backend ran).

use evo_benchmarks::cuda::{UserData, UserProblem, UserTwin};
use evo_core::math::{cos_f64, exp_f64};
use evo_core::{Backend, Bounds};
use evo_ma_sw_chains::MaParams;

const ACKLEY: &str = r#"
// Two values per coordinate: t[0] goes to the first sum, t[1] to the second.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double z = (double)x[i];
    t[0] = z * z;
    t[1] = evo_cos_f64(6.283185307179586 * z);
}

// The fitness from the two sums.
__device__ double evo_user_combine(const double* sums, unsigned long long d, const EvoUserData& data)
{
    const double n = (double)d;
    const double a = evo_exp_f64(-0.2 * sqrt(sums[0] / n));
    const double b = evo_exp_f64(sums[1] / n);
    return (20.0 - 20.0 * a) + (2.718281828459045 - b);
}
"#;

/// The CPU twin: the same operations in the same order.
struct Ackley;

impl UserTwin for Ackley {
    fn terms(&self, i: usize, x: &[f32], _data: &UserData, t: &mut [f64]) {
        let z = f64::from(x[i]);
        t[0] = z * z;
        t[1] = cos_f64(2.0 * std::f64::consts::PI * z);
    }

    fn combine(&self, sums: &[f64], dimension: usize, _data: &UserData) -> f64 {
        let n = dimension as f64;
        let a = exp_f64(-0.2 * (sums[0] / n).sqrt());
        let b = exp_f64(sums[1] / n);
        (20.0 - 20.0 * a) + (std::f64::consts::E - b)
    }
}

fn main() -> evo_core::Result<()> {
    let problem = UserProblem::new(
        "ackley",
        Bounds::uniform(1000, -32.0, 32.0)?,
        ACKLEY,
        Ackley,
    )?
    .with_combined_sums(2)?;
    let params = MaParams::new().with_max_evaluations(100_000)?;
    let report = evo_ma_sw_chains::run(params, &problem, 1, Backend::auto())?;
    println!(
        "{} on {}: best fitness {:.6e} after {} evaluations",
        report.algorithm,
        report.metadata.get("backend").map_or("?", String::as_str),
        report.best_fitness,
        report.evaluations
    );
    Ok(())
}
