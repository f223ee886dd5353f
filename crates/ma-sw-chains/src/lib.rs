//! # evo-ma-sw-chains
//!
//! MA-SW-Chains, the memetic algorithm with Solis–Wets local-search chains, for problems of up to 10^8
//! variables: Lastra, Molina, Benítez, *A high performance memetic algorithm for extremely
//! high-dimensional problems*, Information Sciences 293 (2015), following the reference implementation
//! librealea (spec `ma-sw-chains.md`).
//!
//! # Algorithm (the numbered steps that code comments refer to)
//!
//! 1. Minimisation over a box `[a_i, b_i]`; every candidate is clipped to the box; comparisons are strict.
//! 2. Initialisation: each gene uniform in `[a_i, b_i]`; the N evaluations are charged to the first SSGA
//!    phase.
//! 3. SSGA mating: a uniform mother and n_ass = 3 distinct candidates; the father is the candidate farthest
//!    from the mother (negative assortative mating; ties: first drawn).
//! 4. BLX-α (α = 0.5), one child: each gene uniform in `[l − I, h + I] ∩ [a_i, b_i]`, `I = α(h − l)`.
//! 5. BGA mutation with probability 0.125: one gene moves by `±0.1(b_i − a_i)·Σ α_k 2^{−k}`.
//! 6. Replacement: children per crossover step (20, the paper's GPU variant) are made from the same
//!    population and the best N of the N + 20 survive (1 child per step = replace the worst if strictly
//!    better); an overwritten slot loses its chain.
//! 7. Memetic cycle: n_frec = ⌊r·I_str/(1 − r)⌋ = 500 SSGA evaluations, then
//! 8. c_LS = the best individual never failed by an LS (S_LS), or a uniform one if S_LS is empty;
//! 9. its stored chain (ρ, bias, counters) is resumed, or a fresh one started (ρ0 = 0.2);
//! 10. Solis–Wets for I_str = 500 evaluations;
//! 11. "Improved enough": the new fitness is lower by at least 1e-9;
//! 12. if so, the result and the chain are stored in place; otherwise the individual leaves S_LS and its
//!     chain is deleted;
//! 13. restart: when S_LS was empty and the population's best did not improve, every individual but the
//!     best is drawn again.
//! 14. Solis–Wets iteration: `d ~ N(0, ρ²)^D`; `x' = clip(x + b + d)`; if better accept, `b ← 0.2b + 0.4(d+b)`;
//!     else `x'' = clip(x − b − d)`, if better accept, `b ← b − 0.4(d + b)`; else `b ← b/2`. Five
//!     successes double ρ, three failures halve it.
//! 15. ρ has no lower bound and is never reset.
//!
//! The run stops as soon as the evaluation budget is spent, even inside a local search.
//!
//! # Parameters
//!
//! See [`MaParams`] (defaults and allowed ranges).
//!
//! # Randomness
//!
//! Every draw is addressed (`evo_rng::Philox`, stream `Ma*`): the initial population by (step 0, individual
//! = slot, word = variable); a child's draws by (step = global child index); the Solis–Wets noise by (step =
//! global LS iteration, lane = variable div 4, four normals per counter), so the backward probe regenerates
//! d instead of storing it; c_LS by (step = cycle); a restart by (step = restart index, individual = slot).
//!
//! # Example: 10^6 variables on the best backend
//!
//! ```no_run
//! use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
//! use evo_core::Backend;
//! use evo_ma_sw_chains::{MaParams, run};
//!
//! let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000_000)?;
//! let params = MaParams::new().with_max_evaluations(500_000)?;
//! let report = run(params, &problem, 42, Backend::auto())?;
//! println!("best {} after {} evaluations in {:.1} s", report.best_fitness, report.evaluations, report.wall_time_s);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! The same as a program: `cargo run --release -p evo-ma-sw-chains --example million` (auto backend).
//!
//! # Your own problem on the GPU
//!
//! [`MaCuda`] (and [`run`]) accept any [`DeviceRealProblem`](evo_benchmarks::cuda::DeviceRealProblem), the
//! real-vector device-evaluation contract of `evo_benchmarks::cuda`: the built-in problems; a
//! [`UserProblem`](evo_benchmarks::cuda::UserProblem), whose terms are your CUDA source (terms that read
//! neighbours, several sums combined at the end, read-only data arrays) compiled by NVRTC, with a Rust twin
//! for the CPU engine and identical snapshots under the Exact profile; or your own
//! [`RealEvaluator`](evo_benchmarks::cuda::RealEvaluator), which launches your kernels on the engine's
//! device population. `cargo run --release -p evo-ma-sw-chains --example user_cuda` runs Ackley written as
//! CUDA source.
//!
//! # Backends
//!
//! [`MaCpu`] runs the vector work on a rayon pool (1 thread or many give the same bits); [`MaCuda`] keeps the
//! population, the children area, the chain biases and the LS point on the device and runs the same cycle
//! (`cycle.rs`) with the kernels of `kernels/cuda/ma.cu`; under the Exact profile both give identical
//! snapshots after every cycle. A CUDA run checks its memory need ([`memory::device_bytes`]) against the
//! free device memory before it allocates anything.
//!
//! The CUDA engine's Solis–Wets loop is device-resident: the decisions inside an application are made on the
//! device by the twin of [`ops::sw_decide`], one launch of `ma_sw_step_f32` (decide, apply, next probes)
//! plus one evaluation call per group of 1–2 iterations, and the host enqueues groups in batches, reading the
//! state back 1–8 times (typically 4–6) per application of 500 evaluations ([`cuda`] module docs).
//!
//! Not implemented: a probe kernel fused with the evaluation (the evaluation stays evo-benchmarks' kernels,
//! launched once per group for all probe rows), a persistent kernel or CUDA graph for the LS loop (the
//! runtime has no graph capture); the paper's cuRAND XORWOW mode; a CUDA engine for problems without a GPU
//! evaluation (use [`MaCpu`]).
//!
//! # Modules
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`params`] | [`MaParams`] |
//! | [`ops`] | the scalar operators, twins of `kernels/cuda/ma.cu` |
//! | [`plan`] | the host decisions shared by both engines (draws, father, replacement, c_LS) |
//! | [`snapshot`] | [`MaSnapshot`], [`Chain`] |
//! | [`cpu`] | [`MaCpu`] |
//! | [`cuda`] | [`MaCuda`], with `cuda::launch` (one typed launch function per kernel) and `cuda::slice` (the launches of a dimension slice) |
//! | [`cycle`] | the memetic cycle over a [`cycle::Workspace`], shared by both engines and by `evo_distributed`'s dimension split |
//! | [`memory`] | the CUDA layout (block, tile, probe rows) and the memory need, checked before allocating |

pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod cycle;
pub mod memory;
pub mod ops;
pub mod params;
pub mod plan;
mod run;
pub mod snapshot;

pub use cpu::MaCpu;
pub use cuda::MaCuda;
pub use params::MaParams;
pub use run::{MaRun, Run, run};
pub use snapshot::{Chain, MaSnapshot};
