//! # evo-qiga
//!
//! The quantum-inspired genetic algorithm of Han & Kim (CEC 2000) on the 0/1 knapsack, as Nowotniak &
//! Kucharski implemented and tuned it on GPUs (*GPU-based tuning of quantum-inspired genetic algorithm for a
//! combinatorial optimization problem*): a CPU engine ([`QigaCpu`]) and a CUDA engine that compute the same
//! thing bit for bit under the Exact profile, with many independent runs (each with its own rotation angles)
//! per engine.
//!
//! ## The algorithm (spec qiga.md §2; code comments refer to these step numbers)
//!
//! A quantum individual is `n` qubits, qubit `j` stored as an angle θ_j with α = cos θ, β = sin θ, so the
//! probability of observing 1 is sin²θ. A run keeps 10 such individuals and one global best b.
//!
//! 1. t = 0; every θ = π/4; best profit = −1.
//! 2. **Observe**: x_ij = 0 if u < cos²θ_ij, else 1, u uniform in (0, 1] (Philox word `j` of the sequence
//!    (QigaObserve, t, i) of the run's seed).
//! 3. **Repair** every x_i in place by the index-order repair of `evo_benchmarks::Knapsack` (kept).
//! 4. **Evaluate** f(x_i) = Σ p_j x_ij (f64, index order).
//! 5. **Store best**: the generation's best (first on ties) replaces b when strictly better.
//! 6. For t = 1..T: 2, 3, 4, 7, 5.
//! 7. **Update**: flag_i = f(x_i) ≥ f(b) (b of the previous generations); every qubit turns by
//!    θ ← θ + s·Δ, Δ = LUT[x_j][b_j][flag] (the five tunable angles θ1..θ5, [`RotationAngles`]) and
//!    s = SIGN[x_j][b_j][flag][quadrant of θ] (the paper's Table 2; [`ops`]).
//!
//! ## Parameters
//!
//! [`QigaParams`]: population 10 (1..=64), rotation angles (original Han & Kim or any set in
//! [0, 0.349] rad), the meaning of the sign table's ±1 cells ([`SignChoice`]), the quadrant rule
//! ([`QuadrantRule`]), 500 generations for [`run`], CUDA block size 256.
//!
//! ## Example: one run on your knapsack
//!
//! ```
//! use evo_benchmarks::Knapsack;
//! use evo_core::Backend;
//! use evo_qiga::QigaParams;
//!
//! // Capacity 12; items (weight, profit).
//! let knapsack = Knapsack::new("mine", 12.0, vec![3.0, 4.0, 5.0, 6.0, 2.0], vec![8.0, 9.0, 10.0, 11.0, 7.0])?;
//! let params = QigaParams::default().with_generations(50)?;
//! let report = evo_qiga::run(&params, &knapsack, 7, Backend::cpu())?;
//! // Fitness is minus the profit of the repaired best selection.
//! let profit = -report.best_fitness;
//! assert!(profit >= 26.0 && profit <= 30.0);
//! assert_eq!(report.evaluations, 10 * 51);
//! # Ok::<(), evo_core::Error>(())
//! ```
//! (A file in the format of the paper's instances loads with `Knapsack::from_file`.)

pub mod cpu;
pub mod cuda;
pub mod meta;
pub mod ops;
pub mod params;
pub mod sga;
pub mod snapshot;

pub use cpu::QigaCpu;
pub use cuda::QigaCuda;
pub use cuda::sga::SgaCuda;
pub use params::{MAX_ANGLE, QigaParams, QuadrantRule, RotationAngles, SignChoice};
pub use sga::{SgaCpu, SgaParams, SgaSnapshot};
pub use snapshot::{QigaSnapshot, RunConfig, RunState};

use evo_benchmarks::Knapsack;
use evo_core::{Backend, Bits, Executor, Report, Result, Termination};

/// One QIGA run of `params.generations()` generations after the initial one, from Philox seed `seed`, with
/// `params`' angles, on `backend` (`Backend::Auto` picks the GPU when there is one).
///
/// # Errors
/// Whatever building or stepping the engine reports (no GPU for `Backend::Cuda`, a device failure).
pub fn run(
    params: &QigaParams,
    problem: &Knapsack,
    seed: u64,
    backend: Backend,
) -> Result<Report<Bits>> {
    let termination = Termination::new().with_max_generations(params.generations());
    match evo_gpu_runtime::resolve_backend(backend)? {
        Backend::Cpu { threads } => {
            let engine = QigaCpu::new(params, problem, seed, threads)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", Backend::Cpu { threads })
                .with_metadata("seed", seed)
                .with_metadata("problem", problem.instance_name())
                .run()
        }
        Backend::Cuda { device } => {
            let gpu = evo_gpu_runtime::Gpu::open(device)?;
            let engine = QigaCuda::new(params, problem, seed, &gpu)?;
            Executor::new(engine)
                .with_termination(termination)?
                .with_metadata("backend", Backend::Cuda { device })
                .with_metadata("device", &gpu.info().name)
                .with_metadata("profile", "exact")
                .with_metadata("seed", seed)
                .with_metadata("problem", problem.instance_name())
                .run()
        }
        Backend::Auto => Err(evo_core::Error::NoGpu {
            reason: "Backend::Auto was not resolved".into(),
        }),
    }
}
