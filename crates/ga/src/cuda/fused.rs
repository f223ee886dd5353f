//! The fused CUDA path (spec ga.md §7.1): every step of many generations in ONE launch of
//! `ga_fused_run_u32`, one block per run with the bit-packed population in shared memory.
//!
//! Per generation the block runs, between barriers (step numbers of the crate docs):
//! 4 and 6, the champions of the N slots and the crossover points of the pairs (thread per slot / pair);
//! 5–7 and elitism, thread per (slot, word): the champion's word, crossed with the partner's, mutated, or the
//! elite row unchanged; 2, warp per offspring: decoding and the function's canonical trees (evo_core::reduce),
//! up to 128 leaves in registers finished by a shuffle butterfly, so the f64 fitness has the CPU's bits; 3, the
//! rank of every offspring under the workspace order (key, then lower index) gives the sorted order, and the
//! offspring buffer becomes the current population read through that order (no row moves); 8, the best so
//! far. Only the launch's last state goes back to global memory, sorted.
//!
//! [`GaFusedBatchCuda`] advances K runs (seeds s, s + 1, …; spec rng.md §6.2), a grid of K blocks, by G
//! generations per launch; [`GaFusedCuda`] is one run behind the [`Engine`] trait (one generation per
//! [`Engine::step`], or [`GaFusedCuda::advance`] for G per launch). Both give the snapshots of [`GaCpu`]
//! (crate::GaCpu) bit for bit, at every generation and for every G.
//!
//! Precomputed draws (`set_precomputed_draws(G)`): before each fused launch of up to G generations,
//! `ga_fused_draws_u32` computes the champions, crossover points and sparse mutation masks of those
//! generations over the whole GPU, and the fused kernel reads them instead of running Philox on its own SM
//! (see the crate docs). The same results bit for bit.
//!
//! The clustered form (`new_clustered`, kernel `ga_fused_cluster_run_u32`) spreads one run over a cluster
//! of 8 blocks (8 SMs): each block keeps 1/8 of the rows, builds, evaluates and ranks those offspring (the
//! parents' words read from the blocks holding them through distributed shared memory, each fitness, key and
//! sorted position pushed to every block), with two cluster barriers per generation and no bulk exchange.
//!
//! Limits: Philox RNG only (the paper's xor128 array is GaCpu / GaCuda only); the paper's eight functions with
//! at most 1 024 variables; the two populations must fit one block's shared memory (N = 256, n = 128 takes
//! 178 KiB of the H100's 227 KiB with 1024 threads and precomputed draws; a block of a cluster keeps two
//! slices of N/8 rows, 59 KiB).

use evo_core::{
    BinaryProblem, Bits, Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint,
};
use evo_gpu_runtime::{DeviceBuffer, Gpu};

use super::launch::{self, FusedDraws, GaFusedParams};
use crate::params::{ALGORITHM, COMPONENT, GaParams, GaRng};
use crate::problem::PaperFunction;
use crate::snapshot::GaSnapshot;

/// K runs of the GA on one GPU, G generations per launch (see the module docs).
pub struct GaFusedBatchCuda {
    gpu: Gpu,
    params: GaParams,
    kernel: GaFusedParams,
    block: u32,
    clustered: bool,
    generation: u64,
    runs: usize,
    sorted: DeviceBuffer<u32>,
    sorted_fitness: DeviceBuffer<f64>,
    best: DeviceBuffer<u32>,
    best_fitness: DeviceBuffer<f64>,
    status: DeviceBuffer<u32>,
    draws: FusedDraws,
}

impl GaFusedBatchCuda {
    /// Starts `runs` runs (seeds `base_seed`, `base_seed + 1`, …) on `gpu` and builds, evaluates and sorts
    /// their initial populations in one launch (Exact profile).
    ///
    /// # Errors
    /// Parameter errors as the CPU engine; [`Error::InvalidParameter`] for paper RNG mode, 0 runs, more than
    /// 1 024 variables or a population that does not fit shared memory; GPU errors.
    pub fn new(
        params: GaParams,
        problem: &PaperFunction,
        base_seed: u64,
        runs: usize,
        gpu: &Gpu,
    ) -> Result<Self> {
        Self::build(params, problem, base_seed, runs, gpu, false)
    }

    /// As [`new`](Self::new), each run on a cluster of [`FUSED_CLUSTER`](launch::FUSED_CLUSTER) blocks
    /// (8 SMs, sm_90 and later): every block builds and evaluates its slice of the offspring, the blocks
    /// exchange their slices through distributed shared memory and each sorts the whole population. The same
    /// results as [`new`](Self::new); faster for few runs, slower per run-generation for many.
    ///
    /// # Errors
    /// As [`new`](Self::new); [`Error::InvalidParameter`] below compute capability 9.0.
    pub fn new_clustered(
        params: GaParams,
        problem: &PaperFunction,
        base_seed: u64,
        runs: usize,
        gpu: &Gpu,
    ) -> Result<Self> {
        Self::build(params, problem, base_seed, runs, gpu, true)
    }

    fn build(
        params: GaParams,
        problem: &PaperFunction,
        base_seed: u64,
        runs: usize,
        gpu: &Gpu,
        clustered: bool,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        params.check_problem(bits)?;
        if params.rng() != GaRng::Philox {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "RNG of the fused engine",
                format!("{:?}", params.rng()),
                "Philox (the paper's xor128 array is implemented in GaCpu and GaCuda only)",
            ));
        }
        if runs == 0 || runs > i32::MAX as usize {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "runs",
                runs,
                "1..=2^31-1",
            ));
        }
        if clustered && gpu.info().compute_capability.0 < 9 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "device of the clustered fused engine",
                gpu.info().arch(),
                "compute capability 9.0 or later (thread block clusters)",
            ));
        }
        let n = params.population();
        let words = Bits::word_count(bits);
        let kernel = GaFusedParams::for_runs(&params, problem, base_seed, runs)?;
        let block = launch::fused_block(gpu, params.block_size(), clustered)?;
        let mut batch = Self {
            gpu: gpu.clone(),
            kernel,
            block,
            clustered,
            generation: 0,
            runs,
            sorted: gpu.alloc_zeroed(runs * n * words)?,
            sorted_fitness: gpu.alloc_zeroed(runs * n)?,
            best: gpu.alloc_zeroed(runs * words)?,
            best_fitness: gpu.upload(&vec![f64::INFINITY; runs])?,
            status: gpu.alloc_zeroed(runs)?,
            draws: FusedDraws::new(gpu, 0, runs, n, words)?,
            params,
        };
        batch.launch(true, 0)?;
        Ok(batch)
    }

    /// Precomputed draws: with `generations > 0`, every later [`advance`](Self::advance) first computes the
    /// champions, crossover points and mutation masks of up to `generations` generations of every run with
    /// `ga_fused_draws_u32` (warp per run, generation and slot, over the whole GPU), then the fused kernel reads
    /// them instead of running Philox itself: two launches per `generations` generations, the same results
    /// bit for bit. Takes per run and generation (N + ⌈N/2⌉ + N + 2 N max(W, 4)) words of device memory
    /// (134 KiB at N = 256, n = 128). `0` returns to drawing inside the fused kernel.
    ///
    /// Worth it when few runs leave most of the GPU idle (one run: the fused kernel's Philox work, 131 072
    /// blocks per generation at n = 128, otherwise runs on one SM, or 8 with clusters); with many runs the
    /// fused kernels already fill the GPU and the buffers only cost memory.
    ///
    /// # Errors
    /// GPU errors (allocation); [`Error::InvalidParameter`] when the buffers would exceed 2^31 words.
    pub fn set_precomputed_draws(&mut self, generations: u32) -> Result<()> {
        let (n, w) = (self.params.population(), self.kernel.words as usize);
        let words = (generations as usize)
            .checked_mul(self.runs)
            .and_then(|slots| slots.checked_mul(n * launch::fused_entry_capacity(w) * 2))
            .filter(|&words| words <= i32::MAX as usize);
        if words.is_none() {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "precomputed draw generations",
                generations,
                "buffers of at most 2^31 words (runs × generations × N × 2 max(W, 4))",
            ));
        }
        self.draws = FusedDraws::new(&self.gpu, generations, self.runs, n, w)?;
        Ok(())
    }

    /// Generations per launch pair of the precomputed draws (0: drawn inside the fused kernel).
    pub fn precomputed_draws(&self) -> u32 {
        self.draws.generations()
    }

    fn launch(&mut self, initialise: bool, generations: u32) -> Result<()> {
        let capacity = self.draws.generations();
        if generations == 0 || capacity == 0 {
            return self.launch_chunk(initialise, self.generation, generations);
        }
        let mut done = 0u32;
        while done < generations {
            let chunk = (generations - done).min(capacity);
            self.launch_chunk(
                initialise && done == 0,
                self.generation + u64::from(done),
                chunk,
            )?;
            done += chunk;
        }
        Ok(())
    }

    /// One fused launch of `generations` generations after generation `after` (with precomputed draws
    /// preceded by the draws launch for the same steps).
    fn launch_chunk(&mut self, initialise: bool, after: u64, generations: u32) -> Result<()> {
        let mut p = self.kernel;
        p.initialise = u32::from(initialise);
        p.generations = generations;
        p.draws = self.draws.generations();
        p.first_step = if generations == 0 {
            0
        } else {
            u32::try_from(after + 1)
                .ok()
                .filter(|first| first.checked_add(generations - 1).is_some())
                .ok_or_else(|| {
                    Error::invalid_parameter(
                        COMPONENT,
                        "generation",
                        after + u64::from(generations),
                        format!("at most {} (the RNG step is 32 bits)", u32::MAX),
                    )
                })?
        };
        if p.draws > 0 && generations > 0 {
            launch::fused_draws(&self.gpu, &mut self.draws, &p)?;
        }
        launch::fused_run(
            &self.gpu,
            &mut self.sorted,
            &mut self.sorted_fitness,
            &mut self.best,
            &mut self.best_fitness,
            &mut self.status,
            &self.draws,
            &p,
            self.runs,
            self.block,
            self.clustered,
        )
    }

    /// Advances every run by `generations` generations in one launch (nothing is read back).
    ///
    /// # Errors
    /// GPU errors; more than 2^32 − 1 generations in all.
    pub fn advance(&mut self, generations: u32) -> Result<()> {
        if generations == 0 {
            return Ok(());
        }
        self.launch(false, generations)?;
        self.generation += u64::from(generations);
        Ok(())
    }

    /// Generations completed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The number of runs K.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The threads per block the kernel runs with (the parameters' block size, halved while the kernel's
    /// registers do not allow it).
    pub fn block_size(&self) -> u32 {
        self.block
    }

    /// The parameters.
    pub fn params(&self) -> &GaParams {
        &self.params
    }

    /// Waits for the queued launches to finish.
    ///
    /// # Errors
    /// GPU errors.
    pub fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize()
    }

    /// Errors when a fitness of some run was not finite since the start (the CPU engine's error).
    ///
    /// # Errors
    /// [`Error::NonFiniteFitness`]; GPU errors.
    pub fn check_finite(&self) -> Result<()> {
        let status = self.status.to_vec()?;
        match status.iter().position(|&s| s != 0) {
            None => Ok(()),
            Some(run) => Err(Error::NonFiniteFitness {
                problem: format!(
                    "GA function on the GPU ({} variables), fused run {run}",
                    self.kernel.variables
                ),
                individual: 0,
                value: f64::NAN,
            }),
        }
    }

    /// The best fitness so far of every run.
    ///
    /// # Errors
    /// GPU errors.
    pub fn best_fitness(&self) -> Result<Vec<f64>> {
        self.best_fitness.to_vec()
    }

    fn check_run(&self, run: usize) -> Result<()> {
        if run < self.runs {
            Ok(())
        } else {
            Err(Error::invalid_parameter(
                COMPONENT,
                "run",
                run,
                format!("below {}", self.runs),
            ))
        }
    }

    fn evaluations(&self) -> u64 {
        let n = self.params.population() as u64;
        n + self.generation * (n - self.params.elite() as u64)
    }

    /// The state of run `run`: the same type and, for the same seed, the same value as the other engines'
    /// snapshots.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `run ≥ K`; GPU errors.
    pub fn snapshot(&self, run: usize) -> Result<GaSnapshot> {
        self.check_run(run)?;
        let (n, w) = (self.params.population(), self.kernel.words as usize);
        let population = self.sorted.to_vec()?[run * n * w..(run + 1) * n * w].to_vec();
        let fitness = self.sorted_fitness.to_vec()?[run * n..(run + 1) * n].to_vec();
        let best = self.best.to_vec()?[run * w..(run + 1) * w].to_vec();
        let best_fitness = self.best_fitness.to_vec()?[run];
        Ok(GaSnapshot {
            generation: self.generation,
            evaluations: self.evaluations(),
            bits: self.kernel.bits as usize,
            population,
            fitness,
            best,
            best_fitness,
            xor128: Vec::new(),
        })
    }

    /// Replaces the state of every run with `snapshots` (one per run, all at the same generation).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the count, the shapes or the generations disagree; GPU errors.
    pub fn restore(&mut self, snapshots: &[GaSnapshot]) -> Result<()> {
        if snapshots.len() != self.runs {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "snapshots",
                snapshots.len(),
                format!("one per run ({})", self.runs),
            ));
        }
        let generation = snapshots[0].generation;
        let (mut population, mut fitness, mut best, mut best_fitness) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for snapshot in snapshots {
            snapshot.check_values(&self.params, self.kernel.bits as usize, 0)?;
            if snapshot.generation != generation {
                return Err(Error::invalid_parameter(
                    COMPONENT,
                    "snapshot generation",
                    snapshot.generation,
                    format!("{generation}, as the first run's"),
                ));
            }
            population.extend_from_slice(&snapshot.population);
            fitness.extend_from_slice(&snapshot.fitness);
            best.extend_from_slice(&snapshot.best);
            best_fitness.push(snapshot.best_fitness);
        }
        self.sorted.copy_from_host(&population)?;
        self.sorted_fitness.copy_from_host(&fitness)?;
        self.best.copy_from_host(&best)?;
        self.best_fitness.copy_from_host(&best_fitness)?;
        self.generation = generation;
        Ok(())
    }
}

/// One run of the fused path behind the [`Engine`] trait: [`Engine::step`] is one launch of one generation
/// (and reads back the best fitness, 8 bytes); [`advance`](Self::advance) runs G generations in one launch.
pub struct GaFusedCuda {
    batch: GaFusedBatchCuda,
    /// The problem's name and bit count, for the fingerprint.
    problem: ProblemIdentity,
    best_fitness: f64,
}

impl GaFusedCuda {
    /// Builds the engine on `gpu` (Exact profile) and evaluates the initial population.
    ///
    /// # Errors
    /// As [`GaFusedBatchCuda::new`].
    pub fn new(params: GaParams, problem: &PaperFunction, seed: u64, gpu: &Gpu) -> Result<Self> {
        Self::start(
            GaFusedBatchCuda::new(params, problem, seed, 1, gpu)?,
            problem,
        )
    }

    /// As [`new`](Self::new), the run spread over a cluster of 8 blocks
    /// ([`GaFusedBatchCuda::new_clustered`]); the same results.
    ///
    /// # Errors
    /// As [`GaFusedBatchCuda::new_clustered`].
    pub fn new_clustered(
        params: GaParams,
        problem: &PaperFunction,
        seed: u64,
        gpu: &Gpu,
    ) -> Result<Self> {
        Self::start(
            GaFusedBatchCuda::new_clustered(params, problem, seed, 1, gpu)?,
            problem,
        )
    }

    fn start(batch: GaFusedBatchCuda, problem: &PaperFunction) -> Result<Self> {
        let mut engine = Self {
            batch,
            problem: crate::snapshot::problem_identity(problem),
            best_fitness: f64::INFINITY,
        };
        engine.read_best()?;
        Ok(engine)
    }

    fn read_best(&mut self) -> Result<()> {
        self.batch.check_finite()?;
        self.best_fitness = self.batch.best_fitness()?[0];
        Ok(())
    }

    /// `generations` generations in one launch, then reads back the best fitness.
    ///
    /// # Errors
    /// GPU errors; a non-finite fitness; more than 2^32 − 1 generations in all.
    pub fn advance(&mut self, generations: u32) -> Result<()> {
        self.batch.advance(generations)?;
        self.read_best()
    }

    /// The parameters.
    pub fn params(&self) -> &GaParams {
        self.batch.params()
    }

    /// The threads per block the kernel runs with.
    pub fn block_size(&self) -> u32 {
        self.batch.block_size()
    }

    /// Precomputed draws for up to `generations` generations per launch pair (see
    /// [`GaFusedBatchCuda::set_precomputed_draws`]; 0: off, the default).
    ///
    /// # Errors
    /// As [`GaFusedBatchCuda::set_precomputed_draws`].
    pub fn set_precomputed_draws(&mut self, generations: u32) -> Result<()> {
        self.batch.set_precomputed_draws(generations)
    }
}

impl Engine for GaFusedCuda {
    type Solution = Bits;
    type Snapshot = GaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(
            self.batch.kernel.seed,
            &self.batch.params,
            self.problem.clone(),
        )
    }

    fn step(&mut self) -> Result<()> {
        self.advance(1)
    }

    /// The generations in one launch, then one read-back ([`GaFusedCuda::advance`]). A batch past the
    /// 32-bit RNG step is refused before anything runs, leaving the state unchanged.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        self.advance(super::generations_per_batch(steps)?)
    }

    /// The non-elite rows are evaluated every generation.
    fn evaluations_per_step(&self) -> Option<u64> {
        let params = self.batch.params();
        Some((params.population() - params.elite()) as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.batch.generation,
            evaluations: self.batch.evaluations(),
            best_fitness: self.best_fitness,
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        Ok((
            Bits::from_words(self.batch.best.to_vec()?, self.batch.kernel.bits as usize)?,
            self.best_fitness,
        ))
    }

    fn snapshot(&self) -> Result<GaSnapshot> {
        self.batch.snapshot(0)
    }

    fn restore(&mut self, snapshot: &GaSnapshot) -> Result<()> {
        self.batch.restore(std::slice::from_ref(snapshot))?;
        self.best_fitness = snapshot.best_fitness;
        Ok(())
    }
}
