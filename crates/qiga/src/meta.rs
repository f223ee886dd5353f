//! Meta-optimisation of the five rotation angles, as the paper (its §3–4; spec qiga.md §6): an outer
//! real-coded EA whose fitness is the mean final best of many QIGA runs, each outer generation's runs
//! evaluated in one batch (on the GPU: one launch per device, over every device of a
//! [`DevicePool`]).
//!
//! 1. **Initialise** P = 10 genomes; gene k of genome i is uniform in [0, 0.349] (word k of (MetaInit, 0, i)).
//! 2. **Evaluate** every genome: f̃ = mean over R = 50 QIGA runs of the best profit after 500 generations ×
//!    10 individuals. Run k of candidate c in outer generation g uses seed `seed + 1 + g·2^32 + c·R + k`
//!    (fresh seeds every generation).
//! 3. For g = 1..G (G = 50):
//!    1. **Rank selection**: sort by f̃ (best first, lower index on ties); slot s picks rank q with
//!       probability ∝ P − q (linear ranking, u = uniform f64 of (MetaSelection, g, s)).
//!    2. **One-point crossover** of pairs (2k, 2k+1) with P_c = 0.9 (word 0 of (MetaCrossover, g, k)) at
//!       a point in 1..=4 (word 1): genes from the point on are swapped.
//!    3. **Gaussian mutation**: gene k of genome i, with probability P_m = 0.066 (uniform k of
//!       (MetaMutation, g, i)), gains σ·N(0, 1) (σ = 5° = 0.0873 rad; normal 8 + k of the same sequence), then
//!       is clamped to [0, 0.349].
//!    4. **Evaluate** (step 2).
//!    5. **Elitism of one**: the previous generation's best replaces the new worst when better.
//! 4. Result: the best genome ever seen and its f̃, and each generation's best and mean f̃.
//!
//! Rank selection and elitism follow pyevolve's `GSimpleGA` defaults, which Nowotniak's driver used; the
//! paper does not name them (spec qiga.md §6 item 4).
//!
//! ```
//! use evo_benchmarks::Knapsack;
//! use evo_qiga::meta::{CpuEvaluator, MetaParams, meta_optimise};
//!
//! let knapsack = Knapsack::generate(40, 1)?;
//! // A small meta-optimisation: 4 genomes, 2 outer generations, 3 runs of 30 generations per genome.
//! let params = MetaParams::default()
//!     .with_population(4)?
//!     .with_generations(2)?
//!     .with_runs_per_candidate(3)?
//!     .with_inner_generations(30)?;
//! let result = meta_optimise(&params, &knapsack, 5, &CpuEvaluator::new(0))?;
//! assert_eq!(result.history.len(), 3);
//! println!("best angles {:?}, mean best profit {}", result.best.angles(), result.best_fitness);
//! # Ok::<(), evo_core::Error>(())
//! ```
//! On GPUs, pass `GpuEvaluator::new(DevicePool::all()?)` instead (`cargo run --release -p evo-qiga --example
//! meta` runs the paper's full setting).

use evo_benchmarks::Knapsack;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DevicePool, Gpu};
use evo_rng::{Philox, Stream};
use serde::{Deserialize, Serialize};

use crate::cpu::QigaCpu;
use crate::cuda::QigaCuda;
use crate::params::{MAX_ANGLE, QigaParams, RotationAngles};
use crate::snapshot::RunConfig;

/// The name errors give.
const META: &str = "QIGA meta-optimisation";

/// The outer EA's parameters (defaults: the paper's).
///
/// | parameter | default | allowed |
/// | --- | --- | --- |
/// | population | 10 | 2 ..= 1000 |
/// | outer generations | 50 | 0 ..= 10^6 |
/// | crossover probability | 0.9 | [0, 1] |
/// | mutation probability per gene | 0.066 | [0, 1] |
/// | mutation σ | 5° = 0.0873 rad | [0, 0.349] |
/// | QIGA runs per candidate | 50 | 1 ..= 10^6 |
/// | QIGA generations per run | 500 | as [`QigaParams::with_generations`] |
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaParams {
    population: usize,
    generations: u32,
    crossover_rate: f32,
    mutation_rate: f32,
    sigma: f32,
    runs_per_candidate: usize,
    inner: QigaParams,
}

impl Default for MetaParams {
    fn default() -> Self {
        Self {
            population: 10,
            generations: 50,
            crossover_rate: 0.9,
            mutation_rate: 0.066,
            sigma: (5.0 * std::f64::consts::PI / 180.0) as f32,
            runs_per_candidate: 50,
            inner: QigaParams::default(),
        }
    }
}

fn check_range<T: PartialOrd + std::fmt::Display + Copy>(
    name: &'static str,
    value: T,
    low: T,
    high: T,
) -> Result<()> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            META,
            name,
            value,
            format!("in [{low}, {high}]"),
        ))
    }
}

impl MetaParams {
    /// Sets the outer population.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `2 ..= 1000`.
    pub fn with_population(mut self, population: usize) -> Result<Self> {
        check_range("population size", population, 2, 1000)?;
        self.population = population;
        Ok(self)
    }

    /// Sets the number of outer generations after the initial one.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `0 ..= 10^6`.
    pub fn with_generations(mut self, generations: u32) -> Result<Self> {
        check_range("number of generations", generations, 0, 1_000_000)?;
        self.generations = generations;
        Ok(self)
    }

    /// Sets the crossover probability.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `[0, 1]`.
    pub fn with_crossover_rate(mut self, rate: f32) -> Result<Self> {
        check_range("crossover probability", rate, 0.0, 1.0)?;
        self.crossover_rate = rate;
        Ok(self)
    }

    /// Sets the per-gene mutation probability.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `[0, 1]`.
    pub fn with_mutation_rate(mut self, rate: f32) -> Result<Self> {
        check_range("mutation probability", rate, 0.0, 1.0)?;
        self.mutation_rate = rate;
        Ok(self)
    }

    /// Sets the mutation's standard deviation σ (radians).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `[0, 0.349]`.
    pub fn with_sigma(mut self, sigma: f32) -> Result<Self> {
        check_range("mutation σ (rad)", sigma, 0.0, MAX_ANGLE)?;
        self.sigma = sigma;
        Ok(self)
    }

    /// Sets the QIGA runs averaged per candidate.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless in `1 ..= 10^6`.
    pub fn with_runs_per_candidate(mut self, runs: usize) -> Result<Self> {
        check_range("runs per candidate", runs, 1, 1_000_000)?;
        self.runs_per_candidate = runs;
        Ok(self)
    }

    /// Sets the generations of each QIGA run.
    ///
    /// # Errors
    /// As [`QigaParams::with_generations`].
    pub fn with_inner_generations(mut self, generations: u64) -> Result<Self> {
        self.inner = self.inner.with_generations(generations)?;
        Ok(self)
    }

    /// Sets the inner QIGA's other parameters (population, sign choice, quadrant rule, block size,
    /// generations; its angles are what is tuned and are ignored).
    pub fn with_inner(mut self, inner: QigaParams) -> Self {
        self.inner = inner;
        self
    }

    /// The inner QIGA's parameters.
    pub fn inner(&self) -> &QigaParams {
        &self.inner
    }
}

/// Evaluates the candidates of one outer generation: the final best profit of every run of `runs`.
pub trait MetaEvaluator {
    /// The final best profit of each run, in order, after `params.generations()` generations.
    ///
    /// # Errors
    /// Whatever the engines report.
    fn final_bests(
        &self,
        params: &QigaParams,
        problem: &Knapsack,
        runs: Vec<RunConfig>,
    ) -> Result<Vec<f64>>;
}

/// Inner runs on the CPU (one rayon batch per outer generation).
pub struct CpuEvaluator {
    threads: usize,
}

impl CpuEvaluator {
    /// On `threads` threads (0 = all cores).
    pub fn new(threads: usize) -> Self {
        Self { threads }
    }
}

impl MetaEvaluator for CpuEvaluator {
    fn final_bests(
        &self,
        params: &QigaParams,
        problem: &Knapsack,
        runs: Vec<RunConfig>,
    ) -> Result<Vec<f64>> {
        let mut engine = QigaCpu::batch(params, problem, runs, self.threads)?;
        for _ in 0..params.generations() {
            evo_core::Engine::step(&mut engine)?;
        }
        Ok(engine.state().best_profits())
    }
}

/// Inner runs on every GPU of a pool: the runs are cut into one contiguous share per device and each share
/// runs all its generations in one launch.
pub struct GpuEvaluator {
    pool: DevicePool,
}

impl GpuEvaluator {
    /// Over the devices of `pool`.
    pub fn new(pool: DevicePool) -> Self {
        Self { pool }
    }
}

/// All generations of `runs` on `gpu` in one launch after generation 0; the final bests.
fn gpu_share(
    gpu: &Gpu,
    params: &QigaParams,
    problem: &Knapsack,
    runs: Vec<RunConfig>,
) -> Result<Vec<f64>> {
    let mut engine = QigaCuda::batch(params, problem, runs, gpu)?;
    let generations = u32::try_from(params.generations()).map_err(|_| {
        Error::invalid_parameter(
            META,
            "inner generations",
            params.generations(),
            "below 2^32",
        )
    })?;
    engine.run_generations(generations)?;
    engine.best_profits()
}

impl MetaEvaluator for GpuEvaluator {
    fn final_bests(
        &self,
        params: &QigaParams,
        problem: &Knapsack,
        runs: Vec<RunConfig>,
    ) -> Result<Vec<f64>> {
        let share = runs.len().div_ceil(self.pool.len().max(1)).max(1);
        let jobs: Vec<Vec<RunConfig>> = runs.chunks(share).map(<[RunConfig]>::to_vec).collect();
        let results = self
            .pool
            .run(jobs, |gpu, job| gpu_share(gpu, params, problem, job))?;
        Ok(results.into_iter().flatten().collect())
    }
}

/// One outer generation in the history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaGeneration {
    /// The outer generation (0 = initial).
    pub generation: u32,
    /// Every genome and its meta-fitness, in population order.
    pub population: Vec<(RotationAngles, f64)>,
    /// The best meta-fitness of the generation.
    pub best: f64,
    /// The mean meta-fitness of the generation.
    pub mean: f64,
}

/// The outcome of a meta-optimisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetaResult {
    /// The best angles seen.
    pub best: RotationAngles,
    /// Their meta-fitness (mean final best profit).
    pub best_fitness: f64,
    /// Every generation.
    pub history: Vec<MetaGeneration>,
}

/// Runs the meta-optimisation (module docs) from `seed` with `evaluator` for the inner runs.
///
/// # Errors
/// Whatever the evaluator reports.
pub fn meta_optimise(
    params: &MetaParams,
    problem: &Knapsack,
    seed: u64,
    evaluator: &dyn MetaEvaluator,
) -> Result<MetaResult> {
    let rng = Philox::new(seed);
    let size = params.population;
    // Step 1.
    let mut genomes: Vec<[f32; 5]> = (0..size)
        .map(|i| {
            let sequence = rng.sequence(Stream::MetaInit, 0, i as u32);
            std::array::from_fn(|k| {
                evo_rng::convert::uniform_in(sequence.word(k as u32), 0.0, MAX_ANGLE)
            })
        })
        .collect();
    let mut fitness = evaluate(params, problem, seed, 0, &genomes, evaluator)?;
    let mut history = vec![record(0, &genomes, &fitness)?];
    for g in 1..=params.generations {
        let ranked = ranking(&fitness);
        // Step 3.1: linear-ranking selection.
        let weights: f64 = (1..=size).map(|w| w as f64).sum();
        let mut next: Vec<[f32; 5]> = (0..size)
            .map(|slot| {
                let u = rng
                    .sequence(Stream::MetaSelection, g, slot as u32)
                    .uniform_f64(0);
                let target = u * weights;
                let mut cumulative = 0.0;
                let mut pick = ranked[size - 1];
                for (q, &index) in ranked.iter().enumerate() {
                    cumulative += (size - q) as f64;
                    if cumulative > target {
                        pick = index;
                        break;
                    }
                }
                genomes[pick]
            })
            .collect();
        // Step 3.2: one-point crossover.
        for pair in 0..size / 2 {
            let sequence = rng.sequence(Stream::MetaCrossover, g, pair as u32);
            if sequence.uniform_f32(0) < params.crossover_rate {
                let point = 1 + sequence.below(1, 4) as usize;
                let (a, b) = (next[2 * pair], next[2 * pair + 1]);
                next[2 * pair][point..].copy_from_slice(&b[point..]);
                next[2 * pair + 1][point..].copy_from_slice(&a[point..]);
            }
        }
        // Step 3.3: Gaussian mutation, clamped to the range.
        for (i, genome) in next.iter_mut().enumerate() {
            let sequence = rng.sequence(Stream::MetaMutation, g, i as u32);
            for (k, gene) in genome.iter_mut().enumerate() {
                if sequence.uniform_f32(k as u32) < params.mutation_rate {
                    *gene = (*gene + params.sigma * sequence.normal_f32(8 + k as u32))
                        .clamp(0.0, MAX_ANGLE);
                }
            }
        }
        // Step 3.4.
        let mut next_fitness = evaluate(params, problem, seed, g, &next, evaluator)?;
        // Step 3.5: elitism of one.
        let elite = ranked[0];
        let worst = ranking(&next_fitness)[size - 1];
        if fitness[elite] > next_fitness[worst] {
            next[worst] = genomes[elite];
            next_fitness[worst] = fitness[elite];
        }
        genomes = next;
        fitness = next_fitness;
        history.push(record(g, &genomes, &fitness)?);
    }
    let mut best = (history[0].population[0].0, f64::NEG_INFINITY);
    for generation in &history {
        for &(angles, f) in &generation.population {
            if f > best.1 {
                best = (angles, f);
            }
        }
    }
    Ok(MetaResult {
        best: best.0,
        best_fitness: best.1,
        history,
    })
}

/// Indices sorted by meta-fitness, best first, lower index on ties.
fn ranking(fitness: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..fitness.len()).collect();
    order.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]).then(a.cmp(&b)));
    order
}

/// Step 2 for every genome of generation `g`: one batch of `population × R` runs.
fn evaluate(
    params: &MetaParams,
    problem: &Knapsack,
    seed: u64,
    g: u32,
    genomes: &[[f32; 5]],
    evaluator: &dyn MetaEvaluator,
) -> Result<Vec<f64>> {
    let per = params.runs_per_candidate;
    let mut runs = Vec::with_capacity(genomes.len() * per);
    for (c, genome) in genomes.iter().enumerate() {
        let angles = RotationAngles::new(*genome)?;
        for k in 0..per {
            let index = (u64::from(g) << 32) + (c * per + k) as u64;
            runs.push(RunConfig {
                seed: seed.wrapping_add(1).wrapping_add(index),
                angles,
            });
        }
    }
    let bests = evaluator.final_bests(&params.inner, problem, runs)?;
    Ok(bests
        .chunks(per)
        .map(|chunk| chunk.iter().sum::<f64>() / per as f64)
        .collect())
}

fn record(g: u32, genomes: &[[f32; 5]], fitness: &[f64]) -> Result<MetaGeneration> {
    let population = genomes
        .iter()
        .zip(fitness)
        .map(|(genome, &f)| Ok((RotationAngles::new(*genome)?, f)))
        .collect::<Result<Vec<_>>>()?;
    Ok(MetaGeneration {
        generation: g,
        best: fitness.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean: fitness.iter().sum::<f64>() / fitness.len() as f64,
        population,
    })
}
