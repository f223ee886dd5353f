//! `QigaBitsCuda`: QIGA on a [`DeviceBitProblem`] on one GPU. Each generation is the observation kernel,
//! the optional repairer, the problem's [`BitEvaluator`] and the update kernel, all on the runtime's stream;
//! the state stays on the device and snapshots copy it in the [`QigaSnapshot`] form the CPU engine uses.

use evo_benchmarks::cuda::{BitEvaluator, DeviceBitProblem, EvalSettings};
use evo_core::{Bits, Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{Gpu, Profile};

use super::launch::{BitsState, observe, update};
use super::repair::{BitRepair, RowRepairer, check_repair_length};
use super::{check_params, identity, repair_fingerprint};
use crate::cpu::{best_of, next_generation};
use crate::params::{ALGORITHM, QigaParams};
use crate::snapshot::{QigaSnapshot, RunConfig, RunState};

/// QIGA on a bit-string problem on one GPU (crate docs, "QIGA on your bit-string problem"): the same
/// snapshots as [`QigaBitsCpu`](super::QigaBitsCpu) when the problem's evaluator and the repair's device
/// half give their CPU twins' bits (the Exact profile).
///
/// Built engines have already done generation 0; [`step`](Engine::step) runs one generation of every run,
/// [`run_generations`](Self::run_generations) many with one read-back.
pub struct QigaBitsCuda {
    gpu: Gpu,
    params: QigaParams,
    problem: ProblemIdentity,
    repair: Option<String>,
    bits: usize,
    configs: Vec<RunConfig>,
    generation: u64,
    evaluator: Box<dyn BitEvaluator>,
    repairer: Option<Box<dyn RowRepairer>>,
    state: BitsState,
}

impl QigaBitsCuda {
    /// One run without a repair, with `params`' angles and Philox seed `seed`, on `gpu`.
    ///
    /// # Errors
    /// As [`batch`](Self::batch).
    pub fn new<P: DeviceBitProblem + ?Sized>(
        params: &QigaParams,
        problem: &P,
        seed: u64,
        gpu: &Gpu,
    ) -> Result<Self> {
        let run = RunConfig {
            seed,
            angles: params.angles(),
        };
        Self::batch(params, problem, None, vec![run], gpu)
    }

    /// A batch of runs, each with its own seed and angles (`params`' angles are not used), every observation
    /// repaired by `repair`'s device half when one is given.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty batch, knapsack options in `params`, a problem of 0 bits or
    /// more genes than a 32-bit index reaches, an evaluator or a repair of another bit count; what building
    /// the evaluator or the repairer reports ([`Error::KernelCompile`] with NVRTC's log,
    /// [`Error::MissingEntryPoint`]); [`Error::NonFiniteFitness`] from generation 0; device errors.
    pub fn batch<P: DeviceBitProblem + ?Sized>(
        params: &QigaParams,
        problem: &P,
        repair: Option<&dyn BitRepair>,
        runs: Vec<RunConfig>,
        gpu: &Gpu,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        check_params(params, problem.name(), bits, runs.len())?;
        if let Some(repair) = repair {
            check_repair_length(repair, problem.name(), bits)?;
        }
        let evaluator = problem.bit_evaluator(gpu)?;
        if evaluator.bit_count() != bits {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "evaluator bit count",
                format!(
                    "{} (the evaluator of `{}`)",
                    evaluator.bit_count(),
                    problem.name()
                ),
                format!("{bits}, the problem's bit count"),
            ));
        }
        let repairer = repair.map(|r| r.device_repairer(gpu)).transpose()?;
        let (count, population, words) = (runs.len(), params.population(), Bits::word_count(bits));
        let seeds: Vec<u64> = runs.iter().map(|run| run.seed).collect();
        let angles: Vec<f32> = runs.iter().flat_map(|run| run.angles.angles()).collect();
        let state = BitsState {
            seeds: gpu.upload(&seeds)?,
            angles: gpu.upload(&angles)?,
            theta: gpu.upload(&vec![crate::ops::INITIAL_ANGLE; count * population * bits])?,
            rows: gpu.alloc_zeroed(count * population * words)?,
            fitness: gpu.alloc_zeroed(count * population)?,
            best: gpu.alloc_zeroed(count * words)?,
            // No b yet: the first generation's best always replaces it.
            best_fitness: gpu.upload(&vec![f64::INFINITY; count])?,
        };
        let mut engine = Self {
            gpu: gpu.clone(),
            params: params.clone(),
            problem: identity(problem.name(), bits),
            repair: repair.map(|r| r.name().to_string()),
            bits,
            configs: runs,
            generation: 0,
            evaluator,
            repairer,
            state,
        };
        engine.generation_on_device(0)?;
        engine.evaluator.check()?;
        Ok(engine)
    }

    /// Runs `count` more generations of every run, then asks the evaluator what it found on the device.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] past `u32::MAX` generations; the evaluator's and repairer's errors
    /// ([`Error::NonFiniteFitness`] naming the problem and the row); launch errors.
    pub fn run_generations(&mut self, count: u32) -> Result<()> {
        let first = next_generation(self.generation)?;
        if first.checked_add(count).is_none() {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "generation range",
                format!("{first} + {count}"),
                "generation indices below 2^32",
            ));
        }
        for generation in first..first + count {
            self.generation_on_device(generation)?;
            self.generation = u64::from(generation);
        }
        self.evaluator.check()
    }

    /// Generation `generation` of every run, queued on the stream: observe, repair, evaluate, update.
    fn generation_on_device(&mut self, generation: u32) -> Result<()> {
        let settings = EvalSettings {
            profile: Profile::Exact,
            block: self.params.block_size(),
        };
        observe(
            &self.gpu,
            &self.params,
            self.bits,
            &mut self.state,
            generation,
        )?;
        if let Some(repairer) = &mut self.repairer {
            repairer.repair(&mut self.state.rows, settings)?;
        }
        self.evaluator
            .evaluate(&self.state.rows, &mut self.state.fitness, settings)?;
        update(
            &self.gpu,
            &self.params,
            self.bits,
            &mut self.state,
            generation,
        )
    }

    /// The best fitness of every run, in run order (one small copy).
    ///
    /// # Errors
    /// When the device copy fails.
    pub fn best_fitnesses(&self) -> Result<Vec<f64>> {
        self.state.best_fitness.to_vec()
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

impl Engine for QigaBitsCuda {
    type Solution = Bits;
    type Snapshot = QigaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        let fingerprint =
            crate::snapshot::fingerprint(&self.params, &self.configs, self.problem.clone())?;
        repair_fingerprint(fingerprint, self.repair.as_deref())
    }

    fn step(&mut self) -> Result<()> {
        self.run_generations(1)
    }

    fn progress(&self) -> Progress {
        // The best values live on the device; a failed copy reads as "nothing evaluated yet" (+inf).
        let best = self
            .best_fitnesses()
            .ok()
            .and_then(|values| values.into_iter().reduce(f64::min));
        Progress {
            generation: self.generation,
            evaluations: (self.configs.len() * self.params.population()) as u64
                * (self.generation + 1),
            best_fitness: best.unwrap_or(f64::INFINITY),
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        best_of(&self.snapshot()?)
    }

    fn snapshot(&self) -> Result<QigaSnapshot> {
        let (population, bits) = (self.params.population(), self.bits);
        let words = Bits::word_count(bits);
        let theta = self.state.theta.to_vec()?;
        let rows = self.state.rows.to_vec()?;
        let fitness = self.state.fitness.to_vec()?;
        let best = self.state.best.to_vec()?;
        let best_fitness = self.state.best_fitness.to_vec()?;
        let genes = population * bits;
        let runs = self
            .configs
            .iter()
            .enumerate()
            .map(|(r, &config)| RunState {
                config,
                theta: theta[r * genes..(r + 1) * genes].to_vec(),
                observed: rows[r * population * words..(r + 1) * population * words].to_vec(),
                // The snapshot holds the score QIGA maximises, minus the fitness (as the CPU engine).
                profits: fitness[r * population..(r + 1) * population]
                    .iter()
                    .map(|f| -f)
                    .collect(),
                best: best[r * words..(r + 1) * words].to_vec(),
                best_profit: -best_fitness[r],
            })
            .collect();
        Ok(QigaSnapshot {
            generation: self.generation,
            population,
            items: bits,
            runs,
        })
    }

    fn restore(&mut self, snapshot: &QigaSnapshot) -> Result<()> {
        snapshot.check_values(&self.configs, self.params.population(), self.bits)?;
        let theta: Vec<f32> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.theta.iter().copied())
            .collect();
        let rows: Vec<u32> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.observed.iter().copied())
            .collect();
        let fitness: Vec<f64> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.profits.iter().map(|p| -p))
            .collect();
        let best: Vec<u32> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.best.iter().copied())
            .collect();
        let best_fitness: Vec<f64> = snapshot.runs.iter().map(|r| -r.best_profit).collect();
        self.state.theta.copy_from_host(&theta)?;
        self.state.rows.copy_from_host(&rows)?;
        self.state.fitness.copy_from_host(&fitness)?;
        self.state.best.copy_from_host(&best)?;
        self.state.best_fitness.copy_from_host(&best_fitness)?;
        self.generation = snapshot.generation;
        Ok(())
    }
}
