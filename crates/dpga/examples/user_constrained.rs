//! Your own constrained design problem on the GPU: the pressure vessel (minimise the cost of a cylindrical
//! vessel with hemispherical heads, holding at least 750 ft³, with shell and head thick enough for the
//! pressure), written once as CUDA source (way 1: compiled by NVRTC, evaluated on the device) with its Rust
//! twin, and once as a plain Rust problem evaluated on the host (way 3: the DPGA on the GPU, the evaluation on
//! the host). The CPU engine runs the twin; with the same seed all three runs end in the same state.
//!
//! ```text
//! cargo run --release -p evo-dpga --example user_constrained
//! ```

use evo_core::{Bounds, ConstrainedProblem, Engine, Executor, Report, Termination};
use evo_dpga::{DpgaCpu, DpgaCuda, DpgaParams, HostConstrained, UserConstrained};
use evo_gpu_runtime::Gpu;

const GENERATIONS: u64 = 1000;
const SEED: u64 = 2024;

/// x = (T_s, T_h, R, L): shell and head thickness, inner radius and length (inches).
const SOURCE: &str = r#"
__device__ double evo_user_constrained(const double* x, double* g, double* h) {
    const double pi = 3.141592653589793;
    const double ts = x[0], th = x[1], r = x[2], l = x[3];
    g[0] = -ts + 0.0193 * r;                                       // shell thick enough
    g[1] = -th + 0.00954 * r;                                      // heads thick enough
    g[2] = -pi * r * r * l - 4.0 / 3.0 * pi * r * r * r + 1296000.0; // volume at least 1 296 000 in³
    g[3] = l - 240.0;                                              // at most 240 in long
    return 0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r;
}
"#;

/// The same cost and constraints in Rust, the same operations in the same order.
fn vessel(x: &[f64], g: &mut [f64]) -> f64 {
    let pi = std::f64::consts::PI;
    let (ts, th, r, l) = (x[0], x[1], x[2], x[3]);
    g[0] = -ts + 0.0193 * r;
    g[1] = -th + 0.00954 * r;
    g[2] = -pi * r * r * l - 4.0 / 3.0 * pi * r * r * r + 1_296_000.0;
    g[3] = l - 240.0;
    0.6224 * ts * r * l + 1.7781 * th * r * r + 3.1661 * ts * ts * l + 19.84 * ts * ts * r
}

fn bounds() -> evo_core::Result<Bounds> {
    Bounds::new(
        vec![0.0625, 0.0625, 10.0, 10.0],
        vec![6.1875, 6.1875, 200.0, 200.0],
    )
}

/// The vessel as an ordinary Rust problem, for the host path.
struct Vessel(Bounds);

impl ConstrainedProblem for Vessel {
    fn name(&self) -> &str {
        "pressure-vessel"
    }
    fn dimension(&self) -> usize {
        4
    }
    fn bounds(&self) -> &Bounds {
        &self.0
    }
    fn inequality_count(&self) -> usize {
        4
    }
    fn equality_count(&self) -> usize {
        0
    }
    fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
        let wide: Vec<f64> = x.iter().copied().map(f64::from).collect();
        vessel(&wide, g)
    }
}

fn run<E: Engine<Solution = Vec<f32>>>(
    label: &str,
    engine: E,
) -> evo_core::Result<Report<Vec<f32>>> {
    let report = Executor::new(engine)
        .with_termination(Termination::new().with_max_generations(GENERATIONS))?
        .run()?;
    println!(
        "{label:<24} cost {:>10.3} at {:?} after {} generations ({:.3} s)",
        report.best_fitness, report.best, report.generations, report.wall_time_s
    );
    Ok(report)
}

fn main() -> evo_core::Result<()> {
    let params = DpgaParams::default().with_bits_per_variable(16)?;

    // Way 1: CUDA source on the device, the Rust twin on the CPU.
    let problem = UserConstrained::new(
        "pressure_vessel",
        bounds()?,
        4,
        0,
        SOURCE,
        |x: &[f64], g: &mut [f64], _h: &mut [f64]| vessel(x, g),
    )?;
    let cpu = run(
        "CPU (Rust twin)",
        DpgaCpu::new(params.clone(), problem.clone(), SEED, 1)?,
    )?;

    let Some(gpu) = Gpu::first_available()? else {
        println!("no CUDA device: the GPU runs are skipped");
        return Ok(());
    };
    let device = run(
        "GPU (CUDA source)",
        DpgaCuda::for_problem(params.clone(), &problem, SEED, &gpu)?,
    )?;

    // Way 3: the problem's Rust evaluate on the host, the rest of the DPGA on the GPU.
    let host = run(
        "GPU (host evaluation)",
        DpgaCuda::for_problem(params, &HostConstrained::new(Vessel(bounds()?)), SEED, &gpu)?,
    )?;

    let same = |a: &Report<Vec<f32>>, b: &Report<Vec<f32>>| {
        a.best == b.best && a.best_fitness.to_bits() == b.best_fitness.to_bits()
    };
    println!(
        "CPU and GPU runs identical: {}",
        same(&cpu, &device) && same(&cpu, &host)
    );
    Ok(())
}
