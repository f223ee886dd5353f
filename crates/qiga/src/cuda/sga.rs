//! `SgaCuda`: the SGA baseline on one GPU (kernel `qiga_sga_run_generations`), one block per run.

use evo_benchmarks::Knapsack;
use evo_core::{Bits, Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::qiga;
use evo_rng::Stream;

use super::{pack, unpack};
use crate::cpu::next_generation;
use crate::options::{LocalSearch, Repair};
use crate::sga::params::SGA;
use crate::sga::{SgaParams, SgaRunState, SgaSnapshot};

/// Threads per block of the SGA kernel (results do not depend on it).
pub const SGA_BLOCK: u32 = 128;

/// Scalar arguments of `qiga_sga_run_generations`; mirrors `QigaSgaParams` in `kernels/cuda/qiga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct SgaRunParams {
    /// Capacity C.
    pub capacity: f64,
    /// P_c.
    pub crossover_rate: f32,
    /// P_m.
    pub mutation_rate: f32,
    /// Runs (blocks).
    pub runs: u32,
    /// Items n.
    pub items: u32,
    /// Individuals per run.
    pub population: u32,
    /// The launch's first generation (0: initialise).
    pub first_generation: u32,
    /// Generations run by the launch.
    pub generations: u32,
    /// `Stream::SgaInit`.
    pub init_stream: u32,
    /// `Stream::SgaSelection`.
    pub selection_stream: u32,
    /// `Stream::SgaCrossover`.
    pub crossover_stream: u32,
    /// `Stream::SgaMutation`.
    pub mutation_stream: u32,
    /// 0: the index-order repair; 1: the greedy repair.
    pub repair: u32,
    /// 1: individual 0 of generation 0 becomes the uploaded best (the greedy seed).
    pub greedy_seed: u32,
    /// 1: step 6 improves the new leader by the swap-window local search.
    pub local_search: u32,
}
const _: () = assert!(size_of::<SgaRunParams>() == 64);
// SAFETY: repr(C), plain numbers only, the layout of `QigaSgaParams` (64 bytes, asserted on both sides).
unsafe impl KernelParams for SgaRunParams {}

/// The SGA baseline on one GPU: a batch of runs (run r of base seed s has seed s + r), state on the device.
pub struct SgaCuda {
    gpu: Gpu,
    params: SgaParams,
    /// The knapsack instance's identity, for the fingerprint.
    problem: ProblemIdentity,
    capacity: f64,
    generation: u64,
    seeds_host: Vec<u64>,
    weights: DeviceBuffer<f32>,
    profits: DeviceBuffer<f32>,
    /// The items in profit/weight order, read by the greedy repair and the local search.
    order: DeviceBuffer<u32>,
    seeds: DeviceBuffer<u64>,
    individuals: DeviceBuffer<u8>,
    next: DeviceBuffer<u8>,
    fitness: DeviceBuffer<f64>,
    next_fitness: DeviceBuffer<f64>,
    cumulative: DeviceBuffer<f64>,
    best: DeviceBuffer<u8>,
    best_profit: DeviceBuffer<f64>,
}

impl SgaCuda {
    /// `runs` runs from `base_seed`, generation 0 done.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no runs or more than `2^31 − 1`; device errors.
    pub fn batch(
        params: &SgaParams,
        problem: &Knapsack,
        base_seed: u64,
        runs: usize,
        gpu: &Gpu,
    ) -> Result<Self> {
        if runs == 0 || runs > i32::MAX as usize {
            return Err(Error::invalid_parameter(
                SGA,
                "number of runs",
                runs,
                "in 1 ..= 2^31 − 1",
            ));
        }
        let (population, items) = (params.population(), problem.len());
        let seeds_host: Vec<u64> = (0..runs as u64)
            .map(|r| base_seed.wrapping_add(r))
            .collect();
        let genes = runs * population * items;
        // The best so far starts empty with profit −1, or at the greedy seed, which generation 0 copies into
        // individual 0 (the CPU engine's initial_run).
        let options = params.options();
        let (seed_best, seed_profit) = if options.greedy_seed {
            let (row, profit) = options.initial_best(problem);
            (unpack(&row, items), profit)
        } else {
            (vec![0u8; items], -1.0)
        };
        let mut engine = Self {
            gpu: gpu.clone(),
            params: params.clone(),
            problem: crate::snapshot::knapsack_identity(problem),
            capacity: problem.capacity(),
            generation: 0,
            weights: gpu.upload(problem.weights())?,
            profits: gpu.upload(problem.profits())?,
            order: gpu.upload(problem.ratio_order())?,
            seeds: gpu.upload(&seeds_host)?,
            seeds_host,
            individuals: gpu.alloc_zeroed(genes)?,
            next: gpu.alloc_zeroed(genes)?,
            fitness: gpu.alloc_zeroed(runs * population)?,
            next_fitness: gpu.alloc_zeroed(runs * population)?,
            cumulative: gpu.alloc_zeroed(runs * population)?,
            best: gpu.upload(&seed_best.repeat(runs))?,
            best_profit: gpu.upload(&vec![seed_profit; runs])?,
        };
        engine.launch(0, 1)?;
        Ok(engine)
    }

    /// Runs `count` more generations of every run in one launch.
    ///
    /// # Errors
    /// Past `u32::MAX` generations; launch errors.
    pub fn run_generations(&mut self, count: u32) -> Result<()> {
        let first = next_generation(self.generation)?;
        self.launch(first, count)?;
        self.generation += u64::from(count);
        Ok(())
    }

    /// The best profit of every run.
    ///
    /// # Errors
    /// When the copy fails.
    pub fn best_profits(&self) -> Result<Vec<f64>> {
        self.best_profit.to_vec()
    }

    fn launch(&mut self, first: u32, count: u32) -> Result<()> {
        if first.checked_add(count).is_none() {
            return Err(Error::invalid_parameter(
                SGA,
                "generation range",
                format!("{first} + {count}"),
                "below 2^32",
            ));
        }
        let site = LaunchSite::new(SGA, qiga::SGA_RUN_GENERATIONS);
        let runs = site.to_u32("runs", self.seeds_host.len())?;
        let options = self.params.options();
        let p = SgaRunParams {
            capacity: self.capacity,
            crossover_rate: self.params.crossover_rate(),
            mutation_rate: self.params.mutation_rate(),
            runs,
            items: site.to_u32("items", self.weights.len())?,
            population: site.to_u32("population", self.params.population())?,
            first_generation: first,
            generations: count,
            init_stream: Stream::SgaInit.id(),
            selection_stream: Stream::SgaSelection.id(),
            crossover_stream: Stream::SgaCrossover.id(),
            mutation_stream: Stream::SgaMutation.id(),
            repair: match options.repair {
                Repair::IndexOrder => 0,
                Repair::Greedy => 1,
            },
            greedy_seed: u32::from(options.greedy_seed),
            local_search: match options.local_search {
                LocalSearch::Off => 0,
                LocalSearch::SwapWindow => 1,
            },
        };
        let kernel = site.kernel(&self.gpu, Profile::Exact)?;
        // SAFETY: the arguments follow `qiga_sga_run_generations`' parameter list; every buffer was allocated
        // for `runs` runs × population × items by `batch` (`order` for the items), and block `run < runs`
        // stays within its slice.
        unsafe {
            kernel
                .launch()
                .input(&self.weights)
                .input(&self.profits)
                .input(&self.order)
                .input(&self.seeds)
                .output(&mut self.individuals)
                .output(&mut self.next)
                .output(&mut self.fitness)
                .output(&mut self.next_fitness)
                .output(&mut self.cumulative)
                .output(&mut self.best)
                .output(&mut self.best_profit)
                .params(&p)
                .run(LaunchConfig::linear(runs, SGA_BLOCK, 0))
        }
    }
}

impl Engine for SgaCuda {
    type Solution = Bits;
    type Snapshot = SgaSnapshot;

    fn algorithm(&self) -> &'static str {
        SGA
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::sga::fingerprint(&self.params, &self.seeds_host, self.problem.clone())
    }

    fn step(&mut self) -> Result<()> {
        self.run_generations(1)
    }

    fn progress(&self) -> Progress {
        let best = self
            .best_profits()
            .ok()
            .and_then(|profits| profits.into_iter().reduce(f64::max));
        Progress {
            generation: self.generation,
            evaluations: (self.seeds_host.len() * self.params.population()) as u64
                * (self.generation + 1),
            best_fitness: best.map_or(f64::INFINITY, |profit| -profit),
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        let snapshot = self.snapshot()?;
        let profits = snapshot.best_profits();
        let mut r = 0;
        for (i, &p) in profits.iter().enumerate() {
            if p > profits[r] {
                r = i;
            }
        }
        let run = &snapshot.runs[r];
        Ok((
            Bits::from_words(run.best.clone(), snapshot.items)?,
            -run.best_profit,
        ))
    }

    fn snapshot(&self) -> Result<SgaSnapshot> {
        let (population, items) = (self.params.population(), self.weights.len());
        let words = Bits::word_count(items);
        let individuals = pack(&self.individuals.to_vec()?, items);
        let fitness = self.fitness.to_vec()?;
        let best = pack(&self.best.to_vec()?, items);
        let best_profit = self.best_profit.to_vec()?;
        let runs = self
            .seeds_host
            .iter()
            .enumerate()
            .map(|(r, &seed)| SgaRunState {
                seed,
                individuals: individuals[r * population * words..(r + 1) * population * words]
                    .to_vec(),
                profits: fitness[r * population..(r + 1) * population].to_vec(),
                best: best[r * words..(r + 1) * words].to_vec(),
                best_profit: best_profit[r],
            })
            .collect();
        Ok(SgaSnapshot {
            generation: self.generation,
            population,
            items,
            runs,
        })
    }

    fn restore(&mut self, snapshot: &SgaSnapshot) -> Result<()> {
        let (population, items) = (self.params.population(), self.weights.len());
        let words = Bits::word_count(items);
        let fits = snapshot.runs.len() == self.seeds_host.len()
            && snapshot.population == population
            && snapshot.items == items
            && snapshot.runs.iter().all(|run| {
                run.individuals.len() == population * words
                    && run.profits.len() == population
                    && run.best.len() == words
            });
        if !fits {
            return Err(Error::invalid_parameter(
                SGA,
                "snapshot shape",
                format!(
                    "{} runs × {} × {}",
                    snapshot.runs.len(),
                    snapshot.population,
                    snapshot.items
                ),
                "the engine's shape",
            ));
        }
        snapshot.check_values(&self.seeds_host)?;
        let individuals: Vec<u8> = snapshot
            .runs
            .iter()
            .flat_map(|run| unpack(&run.individuals, items))
            .collect();
        let best: Vec<u8> = snapshot
            .runs
            .iter()
            .flat_map(|run| unpack(&run.best, items))
            .collect();
        let fitness: Vec<f64> = snapshot
            .runs
            .iter()
            .flat_map(|run| run.profits.iter().copied())
            .collect();
        let best_profit: Vec<f64> = snapshot.runs.iter().map(|run| run.best_profit).collect();
        self.seeds_host = snapshot.runs.iter().map(|run| run.seed).collect();
        self.seeds.copy_from_host(&self.seeds_host)?;
        self.individuals.copy_from_host(&individuals)?;
        self.best.copy_from_host(&best)?;
        self.fitness.copy_from_host(&fitness)?;
        self.best_profit.copy_from_host(&best_profit)?;
        self.generation = snapshot.generation;
        Ok(())
    }
}
