//! The CUDA engine [`GaCuda`]: the paper's kernel pipeline (§3.2), a kernel for each of its steps, population
//! resident on the device; the host only launches kernels and reads back the best fitness (8 bytes) after each
//! [`GaCuda::advance`] (after every generation through [`Engine::step`]) for the executor's terminations.
//!
//! The kernels of one generation are recorded once into a CUDA graph ([`evo_gpu_runtime::Graph`]) and the
//! graph is replayed for every later generation: the same kernels with the same launch shapes in the same
//! order, submitted with one driver call instead of one per kernel (the host's launch cost, a few µs per
//! kernel, bounds this pipeline of small kernels). The generation number that the selection, crossover and
//! mutation draw with lives in a device counter that `ga_exchange_best_u32`, the generation's last kernel,
//! advances, so replays draw new numbers. [`GaCuda::set_graph_replay`] turns the replay off (one launch call
//! per kernel, the same results). A recording that fails (say, the evaluation needs a temporary buffer that
//! the device's pool no longer holds) runs that generation launch by launch and records at the next one; after
//! a second failure the engine stays launch by launch ([`GaCuda::graph_replay`] says false).
//!
//! | step | kernel | launch shape |
//! | --- | --- | --- |
//! | 4–5 tournament and copy | `ga_select_copy_u32` | block per slot, thread per word (each draws the champion) |
//! | 6 crossover | `ga_crossover_u32` | block per pair, thread per word |
//! | 7 mutation, elitism | `ga_mutate_elite_u32` | block per individual, thread per word (32 genes); elite rows copied |
//! | 2 decode (paper's functions) | `ga_decode_f32` | block per individual, thread per bit, half-warp shuffle tree over each 16-bit group |
//! | 2 evaluate (paper's functions) | evo-benchmarks `benchmarks_continuous_*` (Ridge: `benchmarks_continuous_prefix_squares`) | one launch; at the paper's sizes a block of the next power of two ≥ 32 of the terms per individual, a term per thread (Ridge: 8) |
//! | 2 evaluate ([`UserBits`](crate::UserBits)) | `evo_user_bits_fitness` in the user's module | thread per individual |
//! | 3 sort | evo-sort `sort_segments_bitonic_f64` | one block |
//! | 3 exchange, 8 best so far | `ga_exchange_best_u32` | block per individual, thread per word; block 0 also the best |
//!
//! Paper RNG mode replaces the first three by `ga_xor128_fill_u32` (step 1), `ga_tournament_paper_u32`,
//! `ga_copy_u32`, `ga_crossover_paper_u32`, `ga_mutate_paper_u32` and `ga_elite_u32`.
//!
//! Step 2 is the problem's [`BitEvaluator`] (evo-benchmarks' bit-string contract): the two rows above for the
//! paper's functions, the user's kernel for [`UserBits`](crate::UserBits), a user's own launches, or the
//! population copied to the host and back for [`HostEvaluated`](crate::HostEvaluated). A stream-ordered
//! evaluator is recorded into the generation's graph; a non-finite fitness it finds is reported after the
//! next read-back.
//!
//! Genes are bit-packed (32 per word), so the "thread per gene" kernels of the paper run a thread per word.
//! The elite rows are decoded and evaluated again with the offspring (one launch over all rows); evaluation
//! is deterministic, so their fitness is the kept value bit for bit, and the evaluation count leaves them
//! out as the CPU engine does.

mod batch;
mod fused;
pub mod launch;
mod paper_eval;
mod sizes;
pub(crate) mod user_eval;

pub use batch::GaBatchCuda;
pub use fused::{GaFusedBatchCuda, GaFusedCuda};

use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
use evo_core::{Bits, Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Graph, Profile};
use evo_sort::cuda::DevicePermutation;
use launch::GaKernelParams;

use crate::params::{ALGORITHM, COMPONENT, GaParams, GaRng};
use crate::snapshot::GaSnapshot;

/// The paper-faithful CUDA engine over any problem with a device evaluation of packed bit strings
/// ([`DeviceBitProblem`]): the paper's functions ([`PaperFunction`](crate::PaperFunction)), a user's CUDA
/// source ([`UserBits`](crate::UserBits)), a user's own kernels, or a host evaluation
/// ([`HostEvaluated`](crate::HostEvaluated)).
pub struct GaCuda {
    /// The recorded generation, which refers to the buffers below by address. Declared first, so that it is
    /// dropped first (fields drop in declaration order).
    graph: Option<Graph>,
    gpu: Gpu,
    params: GaParams,
    /// The problem's name and bit count, for the fingerprint.
    problem: ProblemIdentity,
    kernel: GaKernelParams,
    /// Step 2: the problem's evaluation of the packed rows.
    evaluator: Box<dyn BitEvaluator>,
    profile: Profile,
    generation: u64,
    evaluations: u64,
    best_fitness: f64,
    /// The population sorted best first (the state between generations).
    sorted: DeviceBuffer<u32>,
    sorted_fitness: DeviceBuffer<f64>,
    /// The population being built, then evaluated.
    next: DeviceBuffer<u32>,
    fitness: DeviceBuffer<f64>,
    champions: DeviceBuffer<u32>,
    order: DevicePermutation,
    best: DeviceBuffer<u32>,
    best_fitness_device: DeviceBuffer<f64>,
    /// The device step counter: the generation the next tournament, crossover and mutation produce
    /// (generation + 1 between generations; `ga_exchange_best_u32` advances it).
    step: DeviceBuffer<u32>,
    /// Paper RNG mode: the xor128 states (4 words per thread) and the generation's random array.
    paper: Option<PaperRng>,
    /// Whether generations replay a recorded graph.
    replay: bool,
    /// Recordings that failed (two turn the replay off).
    failed_recordings: u32,
}

struct PaperRng {
    states: DeviceBuffer<u32>,
    array: DeviceBuffer<u32>,
}

impl GaCuda {
    /// Builds the engine on `gpu` under the Exact profile and evaluates the initial population.
    ///
    /// Generations replay a recorded CUDA graph when the problem's evaluator is
    /// [stream-ordered](BitEvaluator::stream_ordered), and run launch by launch otherwise (a host
    /// evaluation).
    ///
    /// # Errors
    /// Parameter errors as the CPU engine; the errors of the problem's
    /// [`bit_evaluator`](DeviceBitProblem::bit_evaluator) (a user source that does not compile); a
    /// non-finite fitness; GPU errors (compilation, memory, launch).
    pub fn new<P: DeviceBitProblem + ?Sized>(
        params: GaParams,
        problem: &P,
        seed: u64,
        gpu: &Gpu,
    ) -> Result<Self> {
        Self::with_profile(params, problem, seed, gpu, Profile::Exact)
    }

    /// As [`new`](Self::new) with the evaluation compiled under `profile` (Fast: the paper's intrinsics;
    /// results then differ from the CPU engine's).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_profile<P: DeviceBitProblem + ?Sized>(
        params: GaParams,
        problem: &P,
        seed: u64,
        gpu: &Gpu,
        profile: Profile,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        params.check_problem(bits)?;
        let n = params.population();
        let words = Bits::word_count(bits);
        let mut kernel = GaKernelParams::for_bits(&params, bits, seed)?;
        let paper = match params.rng() {
            GaRng::Philox => None,
            GaRng::PaperXor128 { threads } => {
                kernel.array_len = params.paper_array_len(bits) as u64;
                kernel.xor_threads = threads;
                let rng = evo_rng::Philox::new(seed);
                let states: Vec<u32> = (0..threads)
                    .flat_map(|t| crate::ops::xor128_seed(&rng, t))
                    .collect();
                Some(PaperRng {
                    states: gpu.upload(&states)?,
                    array: gpu.alloc_zeroed(params.paper_array_len(bits))?,
                })
            }
        };
        let evaluator = problem.bit_evaluator(gpu)?;
        if evaluator.bit_count() != bits {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "evaluator bit count",
                format!("{} (problem `{}`)", evaluator.bit_count(), problem.name()),
                format!("the problem's bit count {bits}"),
            ));
        }
        let replay = evaluator.stream_ordered();
        let mut engine = Self {
            graph: None,
            gpu: gpu.clone(),
            problem: crate::snapshot::problem_identity(problem),
            kernel,
            evaluator,
            profile,
            generation: 0,
            evaluations: 0,
            best_fitness: f64::INFINITY,
            sorted: gpu.alloc_zeroed(n * words)?,
            sorted_fitness: gpu.alloc_zeroed(n)?,
            next: gpu.alloc_zeroed(n * words)?,
            fitness: gpu.alloc_zeroed(n)?,
            champions: gpu.alloc_zeroed(n)?,
            order: DevicePermutation::for_array(gpu, n)?,
            best: gpu.alloc_zeroed(words)?,
            best_fitness_device: gpu.upload(&[f64::INFINITY])?,
            step: gpu.alloc_zeroed(1)?,
            paper,
            replay,
            failed_recordings: 0,
            params,
        };
        let block = engine.params.block_size();
        launch::init(&engine.gpu, &mut engine.next, &engine.kernel, block)?;
        engine.evaluate_sort_record()?;
        engine.evaluator.check()?;
        engine.read_best()?;
        engine.evaluations = n as u64;
        Ok(engine)
    }

    /// Steps 2–3 and 8 on `next`: decode, evaluate, sort into `sorted`, update the best so far and advance
    /// the step counter. Queues work only.
    fn evaluate_sort_record(&mut self) -> Result<()> {
        let block = self.params.block_size();
        let gpu = &self.gpu;
        let settings = EvalSettings {
            profile: self.profile,
            block,
        };
        self.evaluator
            .evaluate(&self.next, &mut self.fitness, settings)?;
        evo_sort::cuda::sort_population(
            gpu,
            &self.fitness,
            &mut self.order,
            &mut self.sorted_fitness,
            block,
        )?;
        launch::exchange_best(
            gpu,
            &self.next,
            self.order.indices(),
            &self.sorted_fitness,
            &mut self.sorted,
            &mut self.best,
            &mut self.best_fitness_device,
            &mut self.step,
            &self.kernel,
            block,
        )
    }

    /// Reads the best fitness so far back (waits for the queued work); errors when it is not finite.
    fn read_best(&mut self) -> Result<()> {
        let mut best = [0.0f64];
        self.best_fitness_device.copy_to_host(&mut best)?;
        if !best[0].is_finite() {
            return Err(Error::NonFiniteFitness {
                problem: self.problem.name.clone(),
                individual: 0,
                value: best[0],
            });
        }
        self.best_fitness = best[0];
        Ok(())
    }

    /// Queues steps 4–7, elitism, then steps 2–3 and 8 on the offspring (the generation whose number the
    /// device step counter holds).
    fn enqueue_generation(&mut self) -> Result<()> {
        let block = self.params.block_size();
        let (gpu, p) = (&self.gpu, &self.kernel);
        match &mut self.paper {
            None => {
                launch::select_copy(gpu, &self.sorted, &mut self.next, &self.step, p, block)?;
                launch::crossover(gpu, &mut self.next, &self.step, p, block)?;
                launch::mutate_elite(gpu, &self.sorted, &mut self.next, &self.step, p, block)?;
            }
            Some(paper) => {
                // Step 1: the generation's random array.
                launch::xor128_fill(gpu, &mut paper.states, &mut paper.array, p, block)?;
                launch::tournament_paper(gpu, &paper.array, &mut self.champions, p, block)?;
                launch::copy(gpu, &self.sorted, &self.champions, &mut self.next, p, block)?;
                launch::crossover_paper(gpu, &paper.array, &mut self.next, p, block)?;
                if p.mutation_rate > 0.0 {
                    launch::mutate_paper(gpu, &paper.array, &mut self.next, p, block)?;
                }
                launch::elite(gpu, &self.sorted, &mut self.next, p, block)?;
            }
        }
        self.evaluate_sort_record()
    }

    /// Queues one generation: a replay of the recorded graph (recorded at the first call), or the launches
    /// one by one when replay is off.
    fn queue_generation(&mut self) -> Result<()> {
        if !self.replay {
            return self.enqueue_generation();
        }
        if self.graph.is_none() {
            // The evaluation's temporaries come from the pool, which the initial evaluation filled; the
            // recording keeps them for the graph's lifetime.
            let gpu = self.gpu.clone();
            match gpu.record_graph(|| self.enqueue_generation()) {
                Ok(graph) => self.graph = Some(graph),
                Err(_) => {
                    // A recording that could not be made (the pool lacked a temporary that another user
                    // took, or the driver refused the capture) ran nothing: this generation runs launch by
                    // launch, which refills the pool, and the next one records again; after a second
                    // failure the engine stays launch by launch (`graph_replay()` then says false). The
                    // results are the same either way.
                    self.failed_recordings += 1;
                    if self.failed_recordings >= 2 {
                        self.replay = false;
                    }
                    return self.enqueue_generation();
                }
            }
        }
        let graph = self
            .graph
            .as_ref()
            .unwrap_or_else(|| unreachable!("recorded above"));
        // SAFETY: the graph refers to this engine's buffers (never reallocated while the engine lives) and to
        // the temporaries the graph keeps.
        unsafe { graph.launch() }
    }

    /// Advances `generations` generations, queued back to back, then reads the best fitness back once
    /// (`generations` = 0 does nothing).
    ///
    /// # Errors
    /// A non-finite best fitness; GPU errors; more than 2^32 − 1 generations in all (the RNG step is 32 bits).
    pub fn advance(&mut self, generations: u32) -> Result<()> {
        if generations == 0 {
            return Ok(());
        }
        let last = self.generation + u64::from(generations);
        if last > u64::from(u32::MAX) {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "generation",
                last,
                format!("at most {} (the RNG step is 32 bits)", u32::MAX),
            ));
        }
        for _ in 0..generations {
            self.queue_generation()?;
        }
        self.evaluator.check()?;
        self.read_best()?;
        self.generation = last;
        self.evaluations +=
            u64::from(generations) * u64::from(self.kernel.population - self.kernel.elite);
        Ok(())
    }

    /// Whether generations replay a recorded CUDA graph (the default) or launch their kernels one by one.
    /// Both give the same results; the replay costs the host one driver call per generation. A problem whose
    /// evaluator is not [stream-ordered](BitEvaluator::stream_ordered) always runs launch by launch.
    pub fn set_graph_replay(&mut self, on: bool) {
        self.replay = on && self.evaluator.stream_ordered();
        self.failed_recordings = 0;
        if !on {
            self.graph = None;
        }
    }

    /// Whether generations replay a recorded CUDA graph (false after [`set_graph_replay(false)`], after two
    /// recordings failed, see the module docs, or for an evaluator that is not stream-ordered).
    ///
    /// [`set_graph_replay(false)`]: Self::set_graph_replay
    pub fn graph_replay(&self) -> bool {
        self.replay
    }

    /// The parameters.
    pub fn params(&self) -> &GaParams {
        &self.params
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

/// A batch of `steps` generations as the `u32` the engines' `advance` takes; more could never run, since
/// the RNG step is 32 bits.
fn generations_per_batch(steps: u64) -> Result<u32> {
    u32::try_from(steps).map_err(|_| {
        Error::invalid_parameter(
            COMPONENT,
            "generations per batch",
            steps,
            format!("at most {} (the RNG step is 32 bits)", u32::MAX),
        )
    })
}

impl Engine for GaCuda {
    type Solution = Bits;
    type Snapshot = GaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(self.kernel.seed, &self.params, self.problem.clone())
    }

    fn step(&mut self) -> Result<()> {
        self.advance(1)
    }

    /// The generations queued back to back with one read-back ([`GaCuda::advance`]). A batch past the
    /// 32-bit RNG step is refused before anything runs, leaving the state unchanged.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        self.advance(generations_per_batch(steps)?)
    }

    /// The non-elite rows are evaluated every generation.
    fn evaluations_per_step(&self) -> Option<u64> {
        Some((self.params.population() - self.params.elite()) as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.generation,
            evaluations: self.evaluations,
            best_fitness: self.best_fitness,
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        Ok((
            Bits::from_words(self.best.to_vec()?, self.kernel.bits as usize)?,
            self.best_fitness,
        ))
    }

    fn snapshot(&self) -> Result<GaSnapshot> {
        Ok(GaSnapshot {
            generation: self.generation,
            evaluations: self.evaluations,
            bits: self.kernel.bits as usize,
            population: self.sorted.to_vec()?,
            fitness: self.sorted_fitness.to_vec()?,
            best: self.best.to_vec()?,
            best_fitness: self.best_fitness,
            xor128: match &self.paper {
                None => Vec::new(),
                Some(paper) => paper
                    .states
                    .to_vec()?
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect(),
            },
        })
    }

    fn restore(&mut self, snapshot: &GaSnapshot) -> Result<()> {
        snapshot.check_values(
            &self.params,
            self.kernel.bits as usize,
            self.kernel.xor_threads as usize,
        )?;
        let next_step = u32::try_from(snapshot.generation + 1).map_err(|_| {
            Error::invalid_parameter(
                COMPONENT,
                "snapshot generation",
                snapshot.generation,
                format!("below {} (the RNG step is 32 bits)", u32::MAX),
            )
        })?;
        if let Some(paper) = &mut self.paper {
            let words: Vec<u32> = snapshot.xor128.iter().flatten().copied().collect();
            paper.states.copy_from_host(&words)?;
        }
        self.sorted.copy_from_host(&snapshot.population)?;
        self.sorted_fitness.copy_from_host(&snapshot.fitness)?;
        self.best.copy_from_host(&snapshot.best)?;
        self.best_fitness_device
            .copy_from_host(&[snapshot.best_fitness])?;
        self.step.copy_from_host(&[next_step])?;
        self.generation = snapshot.generation;
        self.evaluations = snapshot.evaluations;
        self.best_fitness = snapshot.best_fitness;
        Ok(())
    }
}
