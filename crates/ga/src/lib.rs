//! # evo-ga
//!
//! The binary genetic algorithm of Oiso, Matsumura, Yasuda, Ohkura, *Implementing genetic algorithms to CUDA
//! environment using data parallelization* (spec `ga.md`): one individual per CUDA block, one gene per
//! thread, every step of every generation on the GPU. A CPU engine ([`GaCpu`], rayon; one thread is the
//! paper's CPU baseline) and a CUDA engine ([`GaCuda`], the paper's kernel pipeline) produce identical
//! snapshots at every generation from the same seed (Exact profile).
//!
//! ## The algorithm (step numbers are used in the code's comments)
//!
//! 0. Initialisation: every bit of the N × L population uniform (stream GA_INIT, one Philox word per 32 bits).
//! 1. Paper RNG mode only ([`GaRng::PaperXor128`]): T xor128 generators fill this generation's array of
//!    random words `[mutation N·L | tournament k·N | crossover ⌈N/2⌉]`, thread t writing entries t, t + T, …
//!    (spec ga.md §4 decision 7); steps 4, 6 and 7 read their words from it. By default every draw is
//!    addressed Philox (decision 6) and no array exists.
//! 2. Decode and evaluate: 16 bits per variable, first bit most significant,
//!    x_i = f32(lo + (hi − lo)·k_i/65535), then f(x) (minimised).
//! 3. Sort the population best first by (fitness, index) — bitonic sort of the pairs and an exchange of the
//!    rows on the GPU, a comparison sort on the CPU; the same permutation, since the order is strict.
//! 4. Tournament: for every slot, draw `size` positions uniformly with replacement; the fittest (lowest
//!    position in the sorted population) is the champion (GA_TOURNAMENT, word j = draw j).
//! 5. Copy the champions into the next population.
//! 6. One-point crossover of the pairs (2k, 2k + 1): with probability p_c, the bits at positions
//!    ≥ c = 1 + ⌊u·(L − 1)⌋ are exchanged (GA_CROSSOVER, one sequence per pair).
//! 7. Bit mutation: bit g flips when u_g < p_m (GA_MUTATION, word g of the individual's sequence).
//! 8. Elitism: rows 0..e of the next population become the e best of the current one, unchanged, fitness
//!    kept. Then steps 2–3 on the new population and the best-so-far update.
//!
//! Step s of the random streams is the number of the generation being produced (initialisation is 0), so a
//! draw depends only on (seed, stream, generation, individual, word): engines, thread counts and block
//! sizes read identical numbers, and on this default path a checkpoint needs no RNG state (paper RNG mode
//! keeps its xor128 states in the snapshot).
//!
//! ## Parameters ([`GaParams`], Table 2 of the paper)
//!
//! | parameter | default | range |
//! | --- | --- | --- |
//! | population N | 256 | 2..=4096 |
//! | tournament size | 2 | 1..=N |
//! | elite size e | 1 | 0..N |
//! | crossover rate p_c (one-point) | 1.0 | [0, 1] |
//! | mutation rate p_m per bit | 1/L | [0, 1] |
//! | generations ([`run`]) | 5 000 (n = 32; the paper uses 10 000 at n = 128) | ≥ 1 |
//! | CUDA block size | 256 | power of two in 32..=1024 |
//! | RNG | Philox | Philox, or the paper's xor128 array with 1..=2^20 threads (then p_c must be 1) |
//!
//! ## Engines
//!
//! | engine | problems | notes |
//! | --- | --- | --- |
//! | [`GaCpu`] | any [`BinaryProblem`](evo_core::BinaryProblem) | rayon over individuals; `with_threads(.., 1)` is the paper's CPU |
//! | [`GaCuda`] | any [`DeviceBitProblem`]: the paper's eight functions ([`PaperFunction`]), your CUDA source ([`UserBits`]), your own kernels, a host evaluation ([`HostEvaluated`]) | the paper's pipeline, one kernel per step (7 per generation: tournament and copy, crossover, mutation with elitism, decode, evaluation, sort, exchange with the best so far), a generation's kernels replayed as one recorded CUDA graph; [`GaCuda::advance`] runs G generations per read-back (module [`cuda`]) |
//! | [`GaBatchCuda`] | the paper's eight functions | K runs (seeds s, s + 1, …) per launch; steps 4–8 and decoding fused in one kernel |
//! | [`GaFusedCuda`] | the paper's eight functions, n ≤ 1 024 | every step of G generations in ONE launch, population in shared memory |
//! | [`GaFusedBatchCuda`] | the same | K runs × G generations in one launch, block (or cluster of 8) per run |
//!
//! All of them give the same snapshots for the same seed (tests/cuda.rs and tests/fused.rs check every
//! generation of 200 on all eight functions). [`GaCpu`] and [`GaCuda`] implement [`Engine`](evo_core::Engine), so an
//! [`Executor`](evo_core::Executor) drives them with terminations, observers and checkpoints; a
//! [`GaSnapshot`] taken on one restores on the other.
//!
//! Paper RNG mode runs on [`GaCpu`] and [`GaCuda`] (the CPU fills the array exactly as the kernel does, so
//! the two stay bit-identical; the xor128 states are part of the snapshot); [`GaBatchCuda`] refuses it.
//!
//! ## The fused path ([`GaFusedCuda`], [`GaFusedBatchCuda`]; spec ga.md §7.1)
//!
//! One launch of `ga_fused_run_u32` runs G generations of K runs, one block per run, with both populations
//! (the current one and the one being built, 2·N·W words: 128 KiB at N = 256, n = 128) in dynamic shared
//! memory. Per generation, between block barriers:
//!
//! 1. steps 4 and 6: thread per slot draws its tournament champion, thread per pair its crossover point (or,
//!    with precomputed draws, reads them and the slot's first mutation entries, see below);
//! 2. steps 5–7 and 8 (elitism): thread per (slot, word), without a division per word, takes the champion's
//!    word, applies the pair's crossover (the same bit difference on both rows) and the mutation mask; elite
//!    slots copy the current best rows and keep their fitness;
//! 3. step 2: warp per offspring decodes its variables and evaluates the function with the canonical trees
//!    of `evo_core::reduce`: up to 128 leaves in registers (lane l combines leaves m·l … m·l + m − 1 as the
//!    tree's lowest levels do) and a butterfly of shuffles for the last five levels, larger trees level by
//!    level in shared memory first (Ridge: the segment summaries of `evo_benchmarks::prefix_squares`, leaves
//!    of 4 values per lane and a shuffle tree), so the
//!    f64 fitness has the CPU's bits (+ and × are commutative, so every lane of a butterfly holds the same
//!    bits);
//! 4. step 3: the rank of each offspring under the workspace order (fitness key, then lower index), counted
//!    by T = blockDim / N threads per offspring (a power of two up to 32) and summed by shuffles, gives the
//!    sorted order; no row moves: the offspring buffer becomes the current population and is read through
//!    the order (sorted position r is row `order[r]`); the exchange happens once, when the launch writes its
//!    state back;
//! 5. the best so far is updated.
//!
//! Only the final state returns to global memory, in the snapshot layout of the other engines, so snapshots
//! move freely between all engines and the [`Executor`](evo_core::Executor) checkpoints and resumes
//! [`GaFusedCuda`] (one generation per `step`; [`GaFusedCuda::advance`] runs G per launch).
//!
//! **Precomputed draws** ([`GaFusedBatchCuda::set_precomputed_draws`], [`GaFusedCuda::set_precomputed_draws`],
//! off by default). The spec fixes the mutation at one Philox word per bit (ga.md §4 items 5–6): 131 072
//! Philox blocks per generation at N = 256, n = 128, which one SM needs about 100 µs for, while the whole
//! GPU needs under 1 µs. The draws depend only on the seed, the step and the slot, never on the population,
//! so `ga_fused_draws_u32` computes the champions, the crossover points and the mutation masks of the next
//! G generations ahead (warp per run, generation and slot, over the whole GPU), and the fused kernel reads
//! them. The masks are stored sparse: per offspring the count of its non-zero mask words and the (word, mask)
//! pairs in word order (about one per offspring at the paper's rate 1/L); the fused kernel stages the count
//! and the first 4 pairs of each slot in shared memory with the champions, and the thread building word j
//! XORs the staged masks of word j (pairs past the 4th, frequent only at high rates, it reads from global
//! memory). Identical to the in-kernel draws by construction: the same `ga_op_*` functions make the same
//! words. [`GaFusedBatchCuda::advance`] splits G generations into launch pairs (draws, then fused) of at most
//! the buffers' generations; buffers take (N + ⌈N/2⌉ + N + 2·N·max(W, 4)) words per run and generation
//! (134 KiB at N = 256, n = 128). The draws launch runs before the fused one on the same stream (no
//! overlap; a producer running ahead on a second stream is not implemented).
//!
//! When to use it: many generations without host interaction (G per launch), and many independent runs
//! ([`GaFusedBatchCuda`], K blocks fill the GPU). For a single run, use precomputed draws: the block-per-run
//! form then does on its SM only the evaluation, the rank sort and the row building; with the transcendental
//! functions (Griewank, Rastrigin, Schwefel, Ackley: one f64 sine, cosine or square root per variable) the
//! clustered form, which spreads the evaluation over 8 SMs, is expected to be faster (`cargo xtask bench
//! --suite ga` times all four forms). The paper-faithful [`GaCuda`] remains the engine that mirrors the
//! paper's kernels. Limits: Philox RNG only, the paper's eight functions with n ≤ 1 024, both populations
//! within one block's shared memory (227 KiB on an H100).
//!
//! The clustered form (`GaFusedCuda::new_clustered`, `GaFusedBatchCuda::new_clustered`, kernel
//! `ga_fused_cluster_run_u32`, sm_90) spreads one run over a cluster of 8 blocks: each block builds and
//! evaluates 1/8 of the offspring (steps 1–3 above on its slice), the blocks exchange their slices through
//! distributed shared memory, and each sorts the whole population (step 4) itself. Use it for a single run or
//! few runs; for many runs the block-per-run form does less redundant work per run-generation.
//!
//! Not implemented: the accuracy of the Fast profile. Timing: `cargo xtask bench --suite ga`, or the examples
//! `per_generation` and `quality`.
//!
//! ## Your own problem on the GPU
//!
//! [`GaCuda`] evaluates step 2 through evo-benchmarks' device-evaluation contract for packed bit strings
//! ([`BitEvaluator`], [`DeviceBitProblem`]): given the engine's population on the device (`n` rows of
//! `⌈L/32⌉` words in the [`Bits`](evo_core::Bits) layout), fill a device buffer of `n` fitness values. Three
//! ways to give one, each with a CPU twin that [`GaCpu`] runs, so the two engines stay bit-identical:
//!
//! | way | type | on the GPU | CPU twin |
//! | --- | --- | --- | --- |
//! | 1 | [`UserBits`] | your `__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits)`, compiled by NVRTC, a thread per individual, recorded into the generation's CUDA graph | a `Fn(&Bits) -> f64` |
//! | 2 | your `impl DeviceBitProblem` | your own launches on the runtime's stream (`evo_gpu_runtime::Kernel`) | your `BinaryProblem::evaluate` |
//! | 3 | [`HostEvaluated`] (of any [`BinaryProblem`](evo_core::BinaryProblem), e.g. a [`BatchFn`] closure over the whole population) | the population copied to the host, evaluated there (rayon allowed), the fitness copied back | the same code |
//!
//! Compile errors come back as [`Error::KernelCompile`](evo_core::Error::KernelCompile) with NVRTC's log at
//! the user's own line numbers, a source without `evo_user_fitness` as
//! [`Error::MissingEntryPoint`](evo_core::Error::MissingEntryPoint), a NaN or infinite fitness as
//! [`Error::NonFiniteFitness`](evo_core::Error::NonFiniteFitness). The batched and fused engines
//! ([`GaBatchCuda`], [`GaFusedCuda`], [`GaFusedBatchCuda`]) keep the paper's functions inside their kernels.
//! `examples/user_bits.rs` runs max-cut all three ways (CPU twin, CUDA source, host callback):
//!
//! ```no_run
//! use evo_core::{Bits, Executor, Termination};
//! use evo_ga::{GaCuda, GaParams, UserBits};
//!
//! let source = r#"
//! __device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {
//!     double ones = 0.0;
//!     for (unsigned long long i = 0; i < n_bits; ++i) ones += (double)evo_bit(bits, i);
//!     return -ones;
//! }"#;
//! let problem = UserBits::new("onemax", 256, source, |bits: &Bits| -(bits.count_ones() as f64))?;
//! let gpu = evo_gpu_runtime::Gpu::open(0)?;
//! let engine = GaCuda::new(GaParams::new(), &problem, 7, &gpu)?;
//! let report = Executor::new(engine)
//!     .with_termination(Termination::new().with_max_generations(500))?
//!     .run()?;
//! println!("best {}", report.best_fitness);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! [`run`] and [`Run`] take any [`DeviceBitProblem`] (a [`BinaryProblem`](evo_core::BinaryProblem) without a
//! kernel goes in [`HostEvaluated`]) and run it on [`GaCuda`] when `Backend::Auto` finds a GPU; the report's
//! `backend_reason` says which backend ran and why.
//!
//! ## Examples
//!
//! Your own binary problem on the CPU (a closure-backed OneMax as a minimisation):
//!
//! ```
//! use evo_core::{BinaryProblem, Bits, Engine, Executor, Termination};
//! use evo_ga::{GaCpu, GaParams};
//!
//! struct Closure<F: Fn(&Bits) -> f64 + Sync>(usize, F);
//! impl<F: Fn(&Bits) -> f64 + Sync> BinaryProblem for Closure<F> {
//!     fn name(&self) -> &str { "onemax" }
//!     fn bit_count(&self) -> usize { self.0 }
//!     fn evaluate(&self, bits: &Bits) -> f64 { (self.1)(bits) }
//! }
//!
//! let problem = Closure(64, |bits: &Bits| -(bits.count_ones() as f64));
//! let params = GaParams::new().with_population(64)?;
//! let engine = GaCpu::new(params, problem, 42)?;
//! let report = Executor::new(engine)
//!     .with_termination(Termination::new().with_max_generations(300).with_target_fitness(-64.0)?)?
//!     .run()?;
//! assert!(report.best_fitness <= -60.0);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! A built-in function on the best backend available (the GPU when there is one):
//!
//! ```
//! use evo_benchmarks::ga_functions::GaFunction;
//! use evo_core::Backend;
//! use evo_ga::{GaParams, PaperFunction};
//!
//! let problem = PaperFunction::new(GaFunction::Rastrigin, 4)?;
//! let params = GaParams::new().with_population(32)?.with_generations(50)?;
//! let report = evo_ga::run(params, problem, 7, Backend::auto())?;
//! assert_eq!(report.generations, 50);
//! println!("best {} on {}", report.best_fitness, report.metadata["backend"]);
//! # Ok::<(), evo_core::Error>(())
//! ```

pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod host;
pub mod ops;
pub mod params;
mod problem;
mod run;
pub mod snapshot;
pub mod user;

pub use cpu::GaCpu;
pub use cuda::{GaBatchCuda, GaCuda, GaFusedBatchCuda, GaFusedCuda};
pub use evo_benchmarks::cuda::{
    BitEvaluator, DataLength, DeviceBitProblem, EvalSettings, UserData,
};
pub use host::{BatchFn, HostEvaluated};
pub use params::{GaParams, GaRng};
pub use problem::PaperFunction;
pub use run::{GaRun, Run, run};
pub use snapshot::GaSnapshot;
pub use user::UserBits;
