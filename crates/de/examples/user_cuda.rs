//! Your own problem on the GPU with DE: Rosenbrock written as CUDA source (each term reads a coordinate and
//! its neighbour), with the same function in Rust as its CPU twin, so that the CPU and the GPU runs give the
//! same result bit for bit.
//!
//! ```text
//! cargo run --release -p evo-de --example user_cuda
//! ```
//!
//! Without a GPU, `Backend::auto()` runs on the CPU (the report says which backend ran).

use evo_benchmarks::cuda::{Terms, UserData, UserProblem, UserTwin};
use evo_core::{Backend, Bounds, Termination};
use evo_de::DeParams;

/// The fitness is the sum of D − 1 terms; term `i` sees the whole row `x` and reads `x[i]` and `x[i + 1]`.
const ROSENBROCK: &str = r#"
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t)
{
    const double a = (double)x[i];
    const double b = (double)x[i + 1];
    const double r = b - a * a;
    t[0] = 100.0 * (r * r) + (1.0 - a) * (1.0 - a);
}
"#;

/// The CPU twin: the same operations in the same order.
#[derive(Clone)]
struct Rosenbrock;

impl UserTwin for Rosenbrock {
    fn terms(&self, i: usize, x: &[f32], _data: &UserData, t: &mut [f64]) {
        let a = f64::from(x[i]);
        let b = f64::from(x[i + 1]);
        let r = b - a * a;
        t[0] = 100.0 * (r * r) + (1.0 - a) * (1.0 - a);
    }
}

fn main() -> evo_core::Result<()> {
    let problem = UserProblem::new(
        "rosenbrock",
        Bounds::uniform(64, -5.0, 10.0)?,
        ROSENBROCK,
        Rosenbrock,
    )?
    .with_terms(Terms::DimensionMinus(1))?;
    let params = DeParams::default().with_population(256)?;
    let termination = Termination::new().with_max_generations(3000);
    let report = evo_de::run(params, problem, 1, Backend::auto(), termination)?;
    println!(
        "{} on {}: best fitness {:.6e} after {} generations ({} evaluations)",
        report.algorithm,
        report.metadata.get("backend").map_or("?", String::as_str),
        report.best_fitness,
        report.generations,
        report.evaluations
    );
    println!("first coordinates: {:?}", &report.best[..4]);
    Ok(())
}
