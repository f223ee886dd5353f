//! # evo-dpga
//!
//! The dual-population genetic algorithm (DPGA) for constrained problems, with maximum constraint
//! satisfaction (MCSM), on the CPU and on CUDA GPUs, with many independent runs per launch.
//!
//! Sources: Umbarkar et al., *CUDA C dual-population GA for constrained optimization* (fragment: procedure
//! DPGA_MCSM, Table II); Park & Ryu, *A Dual-Population Genetic Algorithm for Adaptive Diversity Control*,
//! IEEE TEC 14(6), 2010, and *Adjusting population distance for dual-population genetic algorithm*, AI 2007
//! (the reserve population and its distance-based fitness); Deb, *An efficient constraint handling method for
//! genetic algorithms*, CMAME 186 (2000) (the alternative comparator). The crate follows
//! `shared/spec/dpga.md`, which resolves the fragment's inconsistencies and reconstructs the reserve fitness.
//!
//! ## The algorithm (spec §2; code comments refer to these numbers)
//!
//! 1. **Encoding**: each variable is `b` bits, most significant first, `x = lo + (hi − lo)·k/(2^b − 1)`;
//!    `k` is the bits read as a reflected Gray code ([`Encoding::Gray`], the default) or as plain binary
//!    ([`Encoding::Binary`]: the paper's and spec §2's encoding, used by [`DpgaParams::paper`]). The paper
//!    (and spec §2 item 1) decode plain binary; Gray is this crate's departure: with binary, neighbouring
//!    grid points can be many bit flips apart, and on g01 every run stalls at x10–x12 = 2.929595 (k = 30719 =
//!    `0x077FF`), 3 or more simultaneous flips from any better feasible point (0/25 runs within 1e-4 of −15);
//!    Gray-coded, neighbours are one flip apart and 25/25 runs reach −15 ± 1e-4 (docs/results/dpga.md).
//! 2. **Init**: M0 = the `m` best of uniform candidates drawn in batches of `m` until `m` feasible ones
//!    are among them or `init_max_draws` were drawn (every draw is an evaluation); R0 = `n` uniform strings.
//! 3. **Sizes**: `|C| = 2·round(crossbreed_rate·m/2)`, `e_M = ⌈elitism_rate·m⌉`, `e_R = ⌈elitism_rate·n⌉`.
//! 4. **Inbreeding of M**: `m/2` pairs chosen by tournaments under the comparator; crossover with
//!    probability `P_c` (else copies), per-bit flip mutation with probability `p_m`; evaluate O_m.
//! 5. **Inbreeding of R**: the same, tournaments on the reserve fitness `f_r`; O_r is not evaluated.
//! 6. **Crossbreeding**: the best `|C|/2` of O_m (comparator) paired with the best `|C|/2` of O_r (`f_r`),
//!    crossover and mutation → C; evaluate C. `I_m = O_m ∪ C`, `I_r = O_r ∪ C`.
//! 7. **Survival of M**: the `e_M` best of M_t and the best `m − e_M` of I_m.
//! 8. **Survival of R**: `f_r` against the new M; the `e_R` best of R_t and the best `n − e_R` of I_r.
//! 9. **Target distance**: `δ ← clamp(δ + η·(s_C − s_I), δ_min, δ_max)` where `s_C` (`s_I`) is the
//!    fraction of C (of O_m) that entered M_{t+1}; skipped when `|C| = 0`.
//! 10. **Stop**: the [`Executor`](evo_core::Executor)'s [`Termination`](evo_core::Termination) (CEC 2006:
//!     `with_max_evaluations(500_000)` and `with_target_fitness(f* + 1e-4)`).
//!
//! Evaluations per generation: `m + |C|` (140 with the defaults).
//!
//! **Comparator** (spec §3). Constraint `j` holds when `g_j ≤ 0` or `|h_j| ≤ ε` (the problem's equality
//! tolerance, 1e-4 for CEC 2006); `V = Σ max(0, g_j) + Σ_{|h_j| > ε} |h_j|`. MCSM: more satisfied
//! constraints first; equal counts with all satisfied → lower objective; otherwise lower `V`, then lower
//! objective. Deb's rules ([`ConstraintHandling::Deb`]): feasible beats infeasible; feasible by objective,
//! infeasible by `V`. Both end with the lower index, so every order is total.
//!
//! **Non-finite values**: an objective, constraint value or violation sum that is NaN or ±∞ (CEC 2006 g14:
//! `x_i·ln(x_i/S)` is `0·(−∞)` at `x_i = 0`; g20: `0/0` when x1..x12 or x13..x24 are all 0 — the box keeps 0 as
//! lower bound, as the CEC reference code does, and a grid decodes to exactly `lo` when all bits give k = 0)
//! gives the point [`Evaluation::non_finite`]: objective and violation `f64::MAX`, no constraint satisfied.
//! That is the worst value under both comparators, so such points lose every tournament and selection and
//! the run goes on (no error); the CPU and CUDA engines do the same (`ops::evaluate_constraints` and its
//! twin). They are not counted.
//!
//! **Reserve fitness** (spec §4): with `m̄_k` the frequency of allele 1 at bit `k` in M,
//! `d(M, x) = (1/L) Σ_k |x_k − m̄_k|` (the mean Hamming distance from `x` to M, per bit) and
//! `f_r(x) = 1 − |δ − d(M, x)|`, maximised.
//!
//! ## Backends
//!
//! | engine | backend | problems | runs | state |
//! | --- | --- | --- | --- | --- |
//! | [`DpgaCpu`] | CPU, one thread or a rayon pool | any [`evo_core::ConstrainedProblem`] | one | host |
//! | [`DpgaCuda`] | one CUDA device, Exact profile | `new`: CEC 2006 g01–g24 ([`evo_benchmarks::Cec2006Problem`], fused); `for_problem`: any [`DeviceConstrainedProblem`] | one | device |
//! | [`DpgaBatchCuda`] | one CUDA device, Exact profile | as [`DpgaCuda`] | K ≤ 65 535 (run `r` from seed `seed + r`) | device |
//!
//! Every draw is addressed by (seed, stream, generation, individual, word) (table in [`cpu::DpgaCpu`]), so
//! neither the thread count nor the launch shape changes a bit: under the Exact profile the CUDA engines'
//! snapshots equal the CPU engine's at every generation, run `r` of a batch equals a [`DpgaCpu`] of seed
//! `seed + r`, and a [`DpgaSnapshot`] (which holds the run's seed) restores on either backend, into an engine
//! created from any seed (evo-equivalence `tests/tests/dpga.rs`).
//! [`run()`] picks the engine from a [`evo_core::Backend`] (its docs say what `Auto` takes and why).
//!
//! **The CUDA engine** ([`cuda`]; kernels in `kernels/cuda/dpga.cu`, each operator the twin of the function
//! of [`ops`] with the same name): both populations, their offspring, the crossbred children, δ and the best
//! so far of every run stay on the device. A generation is a fixed pipeline of launches over all K runs:
//! block per (pair, run) for inbreeding and crossbreeding (thread 0 draws the tournaments and cut points, the
//! threads stride over the bits for crossover and mutation), thread per (run, row) to decode and evaluate
//! (the CEC 2006 formulas of `kernels/common/problems/cec2006.cuh`, shared with evo-benchmarks' evaluator)
//! and for the reserve fitness, warp per (candidate, run) for the selections (each candidate's rank under the
//! total order is the number of candidates before it, an exact integer sum over the lanes, which equals the
//! CPU's sort-then-truncate), block per (row, run) to gather the next populations, block per run for δ and
//! the best so far (a block reduction: the minimum under a total order is unique): 18 launches per
//! generation. The host reads back one buffer per generation, three numbers and a status word per run (for
//! [`evo_core::Engine::progress`] and a guard status, set only if a twin let a non-finite value through),
//! and one counter per run per batch of the feasible initialisation.
//!
//! ```no_run
//! use evo_benchmarks::Cec2006Problem;
//! use evo_dpga::{DpgaBatchCuda, DpgaParams};
//! use evo_gpu_runtime::Gpu;
//!
//! let gpu = Gpu::open(0)?;
//! let g01 = Cec2006Problem::new(1)?;
//! // 25 runs (seeds 7..=31) in the same launches, to the CEC 2006 budget of 500 000 evaluations.
//! let mut batch = DpgaBatchCuda::new(DpgaParams::default(), &g01, 7, 25, &gpu)?;
//! while batch.progress(0).evaluations + 140 <= 500_000 {
//!     batch.step()?;
//! }
//! let errors: Vec<f64> = batch
//!     .progress_all()
//!     .iter()
//!     .map(|p| p.best_fitness - g01.best_known_value())
//!     .collect();
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## Your own problem on the GPU
//!
//! The CUDA engines evaluate through evo-benchmarks' constrained contract
//! ([`ConstrainedEvaluator`]): the engine decodes its bit strings
//! into `f32` points on the device, the problem's evaluator writes each point's objective and `m + q`
//! constraint values, and the engine ranks them (violation, satisfied count, the comparator) exactly as
//! [`DpgaCpu`] ranks the same values. A [`DeviceConstrainedProblem`] gives the evaluator, in three ways:
//!
//! | way | type | the evaluation |
//! | --- | --- | --- |
//! | 1, CUDA source | [`UserConstrained`] | your `__device__ double evo_user_constrained(const double* x, double* g, double* h)`, compiled by NVRTC, a thread per point; a Rust twin for the CPU |
//! | 2, your kernels | your `impl DeviceConstrainedProblem` | your launches on the runtime's stream over the device points (evo-benchmarks' `cuda::constrained` docs) |
//! | 3, host callback | [`HostConstrained`] | any [`evo_core::ConstrainedProblem`]'s Rust `evaluate`, on the host over the whole population (rayon) |
//!
//! [`Cec2006Problem`](evo_benchmarks::Cec2006Problem) implements the contract too; [`DpgaCuda::new`] keeps its
//! formulas fused into the engine's evaluation launch, and [`DpgaCuda::for_problem`] gives the same bits
//! through the contract. Under the Exact profile a twin computing the same IEEE operations in the same order
//! gives identical CPU and CUDA snapshots (`tests/tests/user_constrained.rs` of evo-equivalence: the pressure
//! vessel and the welded beam, 200 generations). Bad input is a typed error: source that does not compile
//! ([`evo_core::Error::KernelCompile`], NVRTC's log with your line numbers), no `evo_user_constrained`
//! ([`evo_core::Error::MissingEntryPoint`]), an evaluator whose dimension or constraint counts differ from the
//! problem's ([`evo_core::Error::InvalidParameter`]), a NaN or infinite value from your CUDA source
//! ([`evo_core::Error::NonFiniteFitness`] naming the problem and the row). The example
//! `cargo run --release -p evo-dpga --example user_constrained` runs the pressure vessel all three ways.
//!
//! ## Parameters ([`DpgaParams`])
//!
//! | parameter | default | range |
//! | --- | --- | --- |
//! | main population `m` | 128 | even, ≥ 2 |
//! | reserve population `n` | 128 | even, ≥ 2 |
//! | bits per variable `b` | 20 | 1..=32 |
//! | encoding | Gray (`paper()`: binary) | Gray, binary |
//! | crossover rate `P_c` | 0.8 | [0, 1] |
//! | mutation rate `p_m` (per bit) | 1/L (`paper()`: 0.09) | [0, 1] |
//! | elitism rate | 0.1 | [0, 1] |
//! | crossbreed rate | 0.1 | [0, 1] (`|C|/2 ≤ n`) |
//! | tournament size | 2 | 1..=min(64, m, n) |
//! | crossover | one-point | one-point, two-point, uniform |
//! | constraint handling | MCSM | MCSM, Deb |
//! | initialisation | feasible | feasible, random |
//! | `init_max_draws` | 50 000 | ≥ m, < 2^32 |
//! | δ0, η, δ_min, δ_max | 0.5, 0.1, 0.05, 0.95 | 0 ≤ δ_min ≤ δ0 ≤ δ_max ≤ 1, η ≥ 0 |
//!
//! Setters return [`evo_core::Error::InvalidParameter`] with the range, e.g.
//! "DPGA: crossover rate must be in [0, 1], got 1.5".
//!
//! ## Reporting
//!
//! The engine's best fitness is the objective of the best individual found so far under the comparator
//! when that individual is feasible, and `+inf` while no feasible point has been found.
//! [`DpgaCpu::best_evaluation`] gives its objective, violation and satisfied count.
//!
//! **Equality-constrained problems.** An equality `h_j = 0` holds only within the tolerance ε (1e-4 for CEC
//! 2006) on a grid of `2^b` points per variable: with binary encoding, the CPU measurements (25 runs × 500 000
//! evaluations, docs/results/dpga.md) never found a feasible point of g05, g17, g21 or g22 (best stays
//! `+inf`; MCSM still drives the violation down), and g03, g11, g13–g15, g20 and g23 vary. Nothing here
//! relaxes ε over the run (no ε-constrained method) and the real-coded option is absent (below), so on such
//! problems read [`DpgaCpu::best_evaluation`]'s violation and satisfied count, not only the best fitness.
//!
//! ## Example: a user's own constrained problem
//!
//! ```
//! use evo_core::{Bounds, ConstrainedProblem, Executor, Termination};
//! use evo_dpga::{DpgaCpu, DpgaParams};
//!
//! /// Minimise x + y subject to x·y ≥ 1 (g = 1 − x·y ≤ 0) in [0, 4]²; the optimum is 2 at (1, 1).
//! struct Hyperbola { bounds: Bounds }
//!
//! impl ConstrainedProblem for Hyperbola {
//!     fn name(&self) -> &str { "hyperbola" }
//!     fn dimension(&self) -> usize { 2 }
//!     fn bounds(&self) -> &Bounds { &self.bounds }
//!     fn inequality_count(&self) -> usize { 1 }
//!     fn equality_count(&self) -> usize { 0 }
//!     fn evaluate(&self, x: &[f32], g: &mut [f64], _h: &mut [f64]) -> f64 {
//!         let (a, b) = (f64::from(x[0]), f64::from(x[1]));
//!         g[0] = 1.0 - a * b;
//!         a + b
//!     }
//! }
//!
//! let problem = Hyperbola { bounds: Bounds::uniform(2, 0.0, 4.0)? };
//! let params = DpgaParams::default().with_main_size(32)?.with_reserve_size(32)?;
//! let engine = DpgaCpu::new(params, problem, 42, 1)?;
//! let report = Executor::new(engine)
//!     .with_termination(Termination::new().with_max_generations(100))?
//!     .run()?;
//! assert!(report.best_fitness >= 2.0 - 1e-3 && report.best_fitness < 2.1);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## Not implemented
//!
//! - fusing a user's evaluation into the decoding: [`DpgaCuda::for_problem`] launches decode, evaluation and
//!   summary separately (three launches where CEC 2006's `new` has one), and the host path's copies are not
//!   overlapped with the device's work;
//! - the Fast profile: the CUDA engines compile under Exact only (the CEC 2006 formulas under Fast would
//!   differ from the CPU's in the last bits and break the equivalence);
//! - spec §5's warp-per-individual evaluation with lanes over the constraints and its per-run bitonic sort:
//!   the engine evaluates one individual per thread (sequential sums, the CPU's order) and selects by rank
//!   counting (exact, O(N²) per run with N ≤ m + |C|);
//! - stopping runs of a batch individually: every run of a [`DpgaBatchCuda`] steps until the caller stops
//!   (the caller reads each run's progress, e.g. the generation at which it reached the target);
//! - a count of the non-finite evaluations (they are ranked last, not reported);
//! - the real-coded option (f32 genes, SBX and polynomial mutation; spec §2 items 1 and 4);
//! - the CEC 2006 suite runner and the paper's Table III reproduction (spec §6) in this crate (they belong
//!   to the bench harness, `xtask`).

pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
mod host;
pub mod ops;
pub mod params;
mod run;
pub mod snapshot;
mod user;

pub use cpu::DpgaCpu;
pub use cuda::{DpgaBatchCuda, DpgaCuda};
pub use evo_benchmarks::cuda::{
    ConstrainedEvaluator, DataLength, DeviceConstrainedProblem, EvalSettings, UserData,
};
pub use host::HostConstrained;
pub use ops::Evaluation;
pub use params::{ALGORITHM, ConstraintHandling, Crossover, DpgaParams, Encoding, Initialisation};
pub use run::{DpgaRun, Run, run};
pub use snapshot::DpgaSnapshot;
pub use user::{MAX_USER_CONSTRAINED_SIZE, USER_CONSTRAINED_FUNCTION, UserConstrained};
