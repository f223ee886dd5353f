//! # evo-de
//!
//! Differential evolution after Krömer, Snášel, Platoš, Abraham, *Many-threaded implementation of
//! differential evolution for the CUDA platform* (GECCO'11), with the paper's two problems — independent-task
//! scheduling on ETC matrices and Rastrigin — and, beyond the paper, DE/best/1, DE/current-to-best/1,
//! exponential crossover and jDE self-adaptation. Spec: `shared/spec/de.md`.
//!
//! ## Algorithm 1 (the numbered steps the code refers to)
//!
//! 1. Initialise the population of `M` vectors: coordinate `j` of vector `i` uniform in `[lower_j, upper_j]`
//!    from word `j` of the Philox sequence (`DeInit`, step 0, individual `i`).
//! 2. Evaluate every vector.
//! 3. Until the termination holds, build a whole offspring population from the same parents
//!    (generation-synchronous, the paper's GPU design), then merge it one-to-one:
//!    1. mutation ([`Strategy`]): DE/rand/1 `v = x_r1 + F·(x_r2 − x_r3)` with `r1, r2, r3` mutually distinct
//!       and `≠ i` (three words of `DeIndices`, rng.md §5.3); DE/best/1 `v = x_best + F·(x_r1 − x_r2)`;
//!       DE/current-to-best/1 `v = x_i + F·(x_best − x_i) + F·(x_r1 − x_r2)`;
//!    2. range repair: clamp every coordinate into the box (NaN → lower limit);
//!    3. crossover with `x_i` ([`Crossover`]): binomial (coordinate `j` from `v` when `j = j_rand` or
//!       `u_j < CR`), the paper's literal reading, or exponential (`L` consecutive coordinates from `j_rand`);
//!       `j_rand` from `DeJrand`, `u_j` from word `j` of `DeCross`;
//!    4. evaluate the trial; it replaces `x_i` when strictly better ([`Selection`]). Under jDE
//!       ([`Adaptation::Jde`]) the trial's `F_i', CR_i'` (four words of `DeJde`) are kept when it wins.
//!
//! Every random word is addressed by (seed; stream, step = generation, individual = vector), so the CPU loop
//! and any GPU grid draw the same numbers.
//!
//! ## Parameters
//!
//! [`DeParams`], validated by `with_*` setters: population `M = 64` (4 ..= 2^31), `F = 0.5` ([0, 2]),
//! `CR = 0.9` ([0, 1]) — the paper gives neither (spec §3) —, DE/rand/1, binomial crossover, strictly-better
//! selection, fixed `F` and `CR`, CUDA block size 256 (results do not depend on it). For ETC scheduling a low
//! `CR` (≈ 0.005–0.02, a few tasks moved per trial) works far better than 0.9.
//!
//! A configuration can also be written as one line of text, `strategy/F/CR/crossover/adaptation[+eq]`
//! ([`DeConfig`], e.g. `rand1/0.5/0.005/bin/fixed`), which configuration searches use.
//!
//! ## Engines
//!
//! | | CPU ([`DeCpu`]) | CUDA ([`DeCuda`]) |
//! | --- | --- | --- |
//! | threads | a rayon pool (1 thread or all cores), one vector per task | one block per vector, one thread per coordinate (block-stride loop, so `D` up to 2^31 − 1; 10^7 needs 2·M·D·4 bytes); the four-launch path's trial kernel gives a few long vectors several blocks each (binomial and paper-literal crossover) so that they still fill the GPU |
//! | generation | build, evaluate, select | Rastrigin, ETC (≤ 32 machines, ≤ 2048 tasks) and a user's CUDA source: one launch (`de_generation_f32`: trial, fused evaluation, selection into a double-buffered population, best vector by the last block; see below for user sources); other problems: four launches |
//! | state | host vectors | population, fitness, `F_i`, `CR_i` resident on the device; [`Engine::step`](evo_core::Engine::step) reads 16 bytes back, [`DeCuda::step_many`] once per batch |
//! | evaluation | the problem's `evaluate_batch` (rayon) | evo-benchmarks' GPU evaluation, the ETC kernel, or the host for closures ([`DeviceProblem`]) |
//!
//! Both implement [`evo_core::Engine`] with one snapshot type ([`DeSnapshot`]), and under the Exact profile
//! they hold identical snapshots at every generation (checked by the equivalence suite for 500 generations).
//! The [`evo_core::Executor`] runs either to any termination — generations, evaluations, wall time (the paper
//! reports the best after 30 s), target, stagnation, Ctrl-C — with observers and checkpoints (resume is bit
//! for bit, on either backend).
//!
//! ## Scheduling a user's ETC matrix
//!
//! The ETC problem, file loader, generator, Min-Min and Sufferage come from [`evo_benchmarks::scheduling`];
//! the problem minimises the paper's fitness or, with
//! [`EtcObjective::Makespan`](evo_benchmarks::scheduling::EtcObjective::Makespan), the makespan.
//! [`DeCpu::with_heuristic_seeds`] (and its CUDA twin) puts the [`Heuristic`] schedules in the first rows of
//! the initial population; [`min_min_vector`] encodes the Min-Min schedule for
//! [`DeCpu::with_initial_vectors`].
//!
//! ```
//! use evo_benchmarks::scheduling::{EtcInstance, EtcProblem};
//! use evo_core::{Executor, Termination};
//! use evo_de::{DeCpu, DeParams, min_min_vector};
//!
//! // 6 tasks on 3 machines, task-major: ETC[t][j] = times[3 t + j].
//! let times = vec![
//!     4.0, 8.0, 9.0, 2.0, 3.0, 7.0, 6.0, 1.0, 5.0, //
//!     3.0, 3.5, 4.0, 9.0, 2.0, 2.5, 5.0, 6.0, 1.5,
//! ];
//! let problem = EtcProblem::new(EtcInstance::new("mine", 6, 3, times)?, 0.75)?;
//! let seed = min_min_vector(&problem);
//! let params = DeParams::default().with_population(16)?.with_crossover_rate(0.2)?;
//! let engine = DeCpu::new(params, problem.clone(), 42, 1)?.with_initial_vectors(&[seed])?;
//! let report = Executor::new(engine)
//!     .with_termination(Termination::new().with_max_evaluations(2_000))?
//!     .run()?;
//! let schedule = problem.schedule_of(&report.best);
//! let min_min = evo_benchmarks::scheduling::min_min(problem.instance());
//! assert!(problem.instance().makespan(&schedule)? <= min_min.makespan + 1e-9 || report.best_fitness
//!     <= problem.instance().fitness(&min_min.schedule, 0.75)?);
//! println!("fitness {} with machines {schedule:?}", report.best_fitness);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## Optimizing a user's CPU closure
//!
//! [`run`] picks the engine from a [`Backend`](evo_core::Backend); a [`FnProblem`] runs on either (on the
//! GPU, the trials are copied to the host and evaluated with rayon).
//!
//! ```
//! use evo_core::{Backend, Bounds, Termination};
//! use evo_de::{DeParams, FnProblem, run};
//!
//! let rosenbrock = FnProblem::new("rosenbrock", Bounds::uniform(4, -2.0, 2.0)?, |x: &[f32]| {
//!     x.windows(2)
//!         .map(|w| {
//!             let (a, b) = (f64::from(w[0]), f64::from(w[1]));
//!             100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2)
//!         })
//!         .sum()
//! });
//! let termination = Termination::new().with_max_generations(600);
//! let report = run(DeParams::default().with_population(32)?, rosenbrock, 7, Backend::cpu(), termination)?;
//! assert!(report.best_fitness < 1.0, "{}", report.best_fitness);
//! # Ok::<(), evo_core::Error>(())
//! ```
//!
//! ## A user's problem as CUDA source
//!
//! Which contract a user's CUDA source implements decides how DE fuses it into its one-launch generation
//! (both compiled by NVRTC into a DE module of the user's own, cached like every user module, and both
//! bit-identical to the CPU engine under the Exact profile):
//!
//! | contract | fused how |
//! | --- | --- |
//! | a separable term, evo-benchmarks' `UserFunction` (`evo_user_term(i, z)`, fitness = the canonical pairwise sum of the `D` terms) | the built-in Rastrigin's path ([`TermFusion`]): each term computed from the trial's value in a register as the thread builds it, float4 tiles for long vectors, the same canonical tree, long vectors split over several blocks; the built-in's time per generation |
//! | terms that see the whole vector, evo-benchmarks' `UserProblem` (`evo_user_terms(i, x, d, data, t)`: neighbour-coupled terms, several sums combined, data arrays) | the generic path ([`UserFusion`]): the trial written, a barrier, the terms read back from shared memory (or global memory beyond 8192 coordinates) and summed by the canonical tree; one block per vector |
//!
//! A `UserFunction` wrapped in [`DeviceEvaluated`] takes the four launches instead (its benchmarks module
//! evaluates the trials). A compile error in either source is
//! [`Error::KernelCompile`](evo_core::Error::KernelCompile) with NVRTC's log and the user's line numbers,
//! from [`DeCuda::new`].
//!
//! ## Beyond the paper: local search of ETC schedules
//!
//! Off by default: [`DeCpu::with_local_search`] and [`DeCuda::with_local_search`] take a [`LocalSearch`]
//! (period, moves) and, every `period` generations, improve the best vector's schedule by best-improvement
//! task moves and makespan-machine swaps ([`local_search`] gives the steps), or every vector's with
//! [`LocalSearch::with_scope`]`(`[`Scope::All`]`)` (on the GPU one block per vector in one launch);
//! bit-identical on both engines, refused on problems other than ETC scheduling. In [`DeConfig`]'s text: a
//! `+ls<period>x<moves>` suffix, `+ls<period>x<moves>all` for every vector. [`LocalSearch::with_kicks`]
//! (`+ls<period>x<moves>k<kicks>x<kick moves>`) makes the search of the best an iterated local search: after
//! the search, `kicks` copies of its schedule perturbed by random task moves are searched too and the best
//! candidate is kept when strictly better (on the GPU one block per kick). For the makespan,
//! [`LocalSearch::with_neighbourhood`]`(`[`Neighbourhood::AnyPair`]`)` also swaps tasks between any two
//! machines and accepts the same makespan with less flowtime, [`Neighbourhood::Balance`] and
//! [`Neighbourhood::MakespanBalance`] (the makespan machine's swaps only, the cheaper) accept the same
//! makespan with more even loads (a lower sum of squared loads), and [`LocalSearch::with_iterations`] runs
//! perturb-and-descend iterations on each candidate, keeping every result that is not worse.
//! The equivalence suite checks both scopes, the kicks, the neighbourhoods and the iterations against the
//! CPU engine; Table 1 figures with the
//! local search are in `docs/results/de.md#local-search`.
//!
//! Not in this version: the paper mode with cuRAND XORWOW batches (spec §3 item 7) and batched independent
//! runs in one launch (spec §3 item 10); the Fast profile is available ([`DeCuda::with_profile`]) but not
//! measured.

pub mod config;
pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
pub mod individual;
pub mod local_search;
pub mod ops;
pub mod params;
pub mod problem;
mod run;
pub mod scheduling;
pub mod snapshot;

pub use config::{DeConfig, ParseConfigError};
pub use cpu::DeCpu;
pub use cuda::DeCuda;
pub use individual::DeIndividual;
pub use local_search::{LocalSearch, Neighbourhood, ScheduleSearch, Scope};
pub use params::{Adaptation, Crossover, DeParams, Selection, Strategy};
pub use problem::{
    DeviceEvaluated, DeviceEvaluation, DeviceProblem, FnProblem, FusedEvaluation, HostEvaluated,
    TermFusion, UserFusion,
};
pub use run::{DeRun, Run, run};
pub use scheduling::{Heuristic, encode_schedule, heuristic_vectors, min_min_vector};
pub use snapshot::DeSnapshot;
