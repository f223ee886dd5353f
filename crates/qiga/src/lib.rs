//! # evo-qiga
//!
//! The quantum-inspired genetic algorithm of Han & Kim (CEC 2000) on the 0/1 knapsack (and on any bit-string
//! problem of yours, module [`bits`]), as Nowotniak & Kucharski implemented and tuned it on GPUs
//! (*GPU-based tuning of quantum-inspired genetic algorithm for a combinatorial optimization problem*, "the
//! paper"): a CPU engine ([`QigaCpu`]) and a CUDA engine
//! ([`QigaCuda`]) that compute the same thing bit for bit under the Exact profile, each running a batch of
//! independent runs, every run with its own seed and its own rotation angles (so one launch evaluates many
//! parameter sets); the paper's SGA baseline ([`SgaCpu`], [`SgaCuda`]); and the paper's GPU
//! meta-optimisation of the rotation angles ([`meta`]), spread over every visible GPU by `DevicePool`.
//!
//! | concept | CPU | CUDA |
//! | --- | --- | --- |
//! | one QIGA run or a batch | [`QigaCpu::new`], [`QigaCpu::batch`] (rayon over runs) | [`QigaCuda::new`], [`QigaCuda::batch`] (one block per run, threads over the genes) |
//! | many generations at once | `Executor` / [`step`](evo_core::Engine::step) | [`QigaCuda::run_generations`]: one launch |
//! | state | [`QigaSnapshot`] (shared: a snapshot of either restores on the other) | the same, copied from the device |
//! | SGA baseline | [`SgaCpu`] | [`SgaCuda`] |
//! | meta-optimisation | [`meta::CpuEvaluator`] | [`meta::GpuEvaluator`] over a `DevicePool` |
//! | scalar operators | [`ops`] | `kernels/cuda/qiga.cu`, same names and order |
//! | knapsack options | [`options`], [`local_search`] | `qiga_run_generations_options`, `qiga_greedy_repair_evaluate`, `qiga_local_search` |
//! | your bit-string problem | [`QigaBitsCpu`] (the problem's Rust evaluation) | [`QigaBitsCuda`]: `qiga_bits_observe`, your repair and evaluation, `qiga_bits_update` |
//!
//! ## The algorithm (spec qiga.md §2; code comments refer to these step numbers)
//!
//! A quantum individual is `n` qubits, qubit `j` stored as an angle θ_j with α = cos θ, β = sin θ, so the
//! probability of observing 1 is sin²θ. A run keeps 10 such individuals and one global best b.
//!
//! 1. t = 0; every θ = π/4; best profit = −1.
//! 2. **Observe**: x_ij = 0 if u < cos²θ_ij, else 1, u uniform in (0, 1] (Philox word `j` of the sequence
//!    (QigaObserve, t, i) of the run's seed; cos from the portable `evo_core::math`).
//! 3. **Repair** every x_i in place by the index-order repair of `evo_benchmarks::Knapsack` (kept).
//! 4. **Evaluate** f(x_i) = Σ p_j x_ij (f64, index order).
//! 5. **Store best**: the generation's best (first on ties) replaces b when strictly better.
//! 6. For t = 1..T: 2, 3, 4, 7, 5 (T = 500: 5 010 evaluations per run).
//! 7. **Update**: flag_i = f(x_i) ≥ f(b) (b of the previous generations); every qubit turns by
//!    θ ← θ + s·Δ, Δ = LUT\[x_j\]\[b_j\]\[flag\] (the five tunable angles θ1..θ5, [`RotationAngles`]) and
//!    s = SIGN\[x_j\]\[b_j\]\[flag\]\[quadrant of θ\] (the paper's Table 2; [`ops`]).
//!
//! **Knapsack options** (issue 33; [`options`], all off by default and in every paper preset, which then run
//! the paper's kernel and code unchanged): step 3 by the greedy repair in profit/weight order
//! ([`Repair::Greedy`]); b seeded with the greedy solution before step 1 (`greedy_seed`); and a step 5′ that
//! improves b by 1-flip / swap moves near the profit/weight break each time step 5 replaces it
//! ([`LocalSearch::SwapWindow`], [`local_search`]). [`KnapsackOptions::PRACTICAL`] turns all three on.
//!
//! Randomness: run r of a batch from base seed s uses `Philox::for_batch_run(s, r)` (seed s + r).
//!
//! ## Parameters
//!
//! [`QigaParams`]: population 10 (1..=64), rotation angles ([`RotationAngles::ORIGINAL`], Han & Kim's, or
//! any set in [0, 0.349] rad, e.g. [`RotationAngles::TUNED`], the paper's Table 3), the meaning of the sign
//! table's ±1 cells ([`SignChoice`]), the quadrant rule ([`QuadrantRule`]), 500 generations for [`run`],
//! CUDA block size 256. [`SgaParams`]: population 100, 50 generations, P_c 0.65, P_m 0.05.
//! [`meta::MetaParams`]: population 10, 50 generations, P_c 0.9, σ = 5°, P_m 0.066, 50 runs per genome.
//!
//! Not implemented: the paper's cuRAND XORWOW "paper mode" of the random numbers (spec qiga.md §3); the
//! MF2 meta-criterion (spec §6 item 7).
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
//! // Backend::auto() would pick the GPU when there is one; the result is the same bit for bit.
//! let report = evo_qiga::run(&params, &knapsack, 7, Backend::cpu())?;
//! // Fitness is minus the profit of the repaired best selection.
//! let profit = -report.best_fitness;
//! assert!(profit >= 26.0 && profit <= 30.0);
//! assert_eq!(report.evaluations, 10 * 51);
//! # Ok::<(), evo_core::Error>(())
//! ```
//! A file in the format of the paper's instances loads with `Knapsack::from_file`; the example
//! `cargo run --release -p evo-qiga --example knapsack -- <file>` runs the tuned QIGA on one.
//!
//! ## Example: a batch of runs with different angles, and checkpoints
//!
//! ```
//! use evo_benchmarks::Knapsack;
//! use evo_core::{Engine, Executor, Termination};
//! use evo_qiga::{QigaCpu, QigaParams, RotationAngles, RunConfig};
//!
//! let knapsack = Knapsack::generate(100, 3)?;
//! let runs = RunConfig::batch(42, &[RotationAngles::ORIGINAL, RotationAngles::TUNED]);
//! let engine = QigaCpu::batch(&QigaParams::default(), &knapsack, runs, 0)?;
//! // On a GPU: QigaCuda::batch(&params, &knapsack, runs, &gpu)? and engine.run_generations(500)?.
//! let mut executor = Executor::new(engine).with_termination(Termination::new().with_max_generations(100))?;
//! let report = executor.run()?;
//! let per_run = executor.engine().state().best_profits();
//! assert_eq!(per_run.len(), 2);
//! assert_eq!(-report.best_fitness, per_run[0].max(per_run[1]));
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## QIGA on your bit-string problem
//!
//! [`QigaBitsCpu`] and [`QigaBitsCuda`] run the same steps on any bit-string problem of `L` bits (module
//! [`bits`]): step 3 is an optional [`BitRepair`] ([`KnapsackRepair`] is the paper's), step 4 the problem's
//! fitness, minimised (QIGA maximises minus it). The CUDA engine takes the device-evaluation contract GA's
//! takes ([`DeviceBitProblem`]) in its three ways: CUDA source with a Rust twin ([`UserBits`]), your own
//! kernel behind a [`BitEvaluator`], or a host closure ([`HostEvaluated`] around a [`BatchFn`]); with a twin
//! that gives the device's bits, CPU and CUDA snapshots are identical. [`run_bits`] picks the backend and
//! records why; a problem with no device evaluation goes through [`run_bits_host_only`], where
//! `Backend::Cuda` is an error and `Backend::Auto` says in the report that it ran on the CPU and why.
//!
//! ```
//! use evo_core::{Backend, Bits};
//! use evo_qiga::{BatchFn, HostEvaluated, QigaParams, run_bits};
//!
//! // Way 3: a closure over the whole population (rows of ⌈40/32⌉ = 2 words): minus the ones.
//! let onemax = HostEvaluated::new(BatchFn::new("onemax", 40, |rows: &[u32], fitness: &mut [f64]| {
//!     for (row, f) in rows.chunks_exact(2).zip(fitness.iter_mut()) {
//!         *f = -f64::from(row[0].count_ones() + row[1].count_ones());
//!     }
//! })?);
//! let params = QigaParams::default().with_generations(50)?;
//! let report = run_bits(&params, onemax, None, 3, Backend::cpu())?;
//! assert!(report.best_fitness <= -30.0);
//! # Ok::<(), evo_core::Error>(())
//! ```
//! `cargo run --release -p evo-qiga --example user_bits` runs max-cut of a random graph written as CUDA
//! source with its Rust twin, on the GPU when there is one.
//!
//! ## Example: meta-optimisation
//!
//! See [`meta`] (a small run on the CPU) and `cargo run --release -p evo-qiga --example meta`, which runs the
//! paper's setting on every visible GPU (`docs/results/qiga.md#meta-optimisation`).

mod ask_tell;
pub mod bits;
pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod local_search;
pub mod meta;
pub mod ops;
pub mod options;
pub mod params;
mod run;
pub mod sga;
pub mod snapshot;

pub use ask_tell::QigaAskTell;
pub use bits::{
    BatchFn, BitEvaluator, BitRepair, DeviceBitProblem, EvalSettings, HostEvaluated, HostRepairer,
    KnapsackRepair, QigaBitsCpu, QigaBitsCuda, RowRepairer, UserBits, run_bits, run_bits_host_only,
};
pub use cpu::QigaCpu;
pub use cuda::QigaCuda;
pub use cuda::sga::SgaCuda;
pub use options::{KnapsackOptions, LocalSearch, Repair};
pub use params::{MAX_ANGLE, QigaParams, QuadrantRule, RotationAngles, SignChoice};
pub use run::run;
pub use sga::{SgaCpu, SgaParams, SgaSnapshot};
pub use snapshot::{QigaSnapshot, RunConfig, RunState};
