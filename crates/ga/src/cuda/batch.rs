//! [`GaBatchCuda`]: K independent runs of the GA advanced together, each generation in four launches for all
//! runs: a fused kernel (tournament, copy, crossover, mutation, elitism and decoding), the evaluation, the
//! segmented bitonic sort and exchange, and the best-so-far update. Run r uses seed `base_seed + r`
//! (spec rng.md §6.2), so run r equals a [`GaCpu`](crate::GaCpu) or [`GaCuda`](super::GaCuda) run with that
//! seed bit for bit. No host round trip happens between generations.
//!
//! Runs are grouped by ⌊65 535 / N⌋ (255 at N = 256) because the evaluator takes at most 65 535 rows per
//! launch; each group costs its own launches.

use evo_benchmarks::cuda::{CudaEvaluator, CudaProblem};
use evo_benchmarks::ga_functions::GaProblem;
use evo_core::{BinaryProblem, Bits, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use evo_sort::cuda::DevicePermutation;

use super::launch::{self, GaKernelParams};
use super::sizes::kernel_u32;
use crate::params::{COMPONENT, GaParams};
use crate::problem::PaperFunction;
use crate::snapshot::GaSnapshot;

/// The most rows the evaluator takes per launch.
const MAX_ROWS_PER_GROUP: usize = 65_535;

struct Group {
    first_run: usize,
    runs: usize,
    sorted: DeviceBuffer<u32>,
    sorted_fitness: DeviceBuffer<f64>,
    next: DeviceBuffer<u32>,
    fitness: DeviceBuffer<f64>,
    decoded: DeviceBuffer<f32>,
    order: DevicePermutation,
    best: DeviceBuffer<u32>,
    best_fitness: DeviceBuffer<f64>,
}

/// K runs of the GA on one GPU (see the module docs).
pub struct GaBatchCuda {
    gpu: Gpu,
    params: GaParams,
    kernel: GaKernelParams,
    base_seed: u64,
    evaluator: CudaEvaluator,
    profile: Profile,
    generation: u64,
    runs: usize,
    groups: Vec<Group>,
}

impl GaBatchCuda {
    /// Starts `runs` runs (seeds `base_seed`, `base_seed + 1`, …) on `gpu` and evaluates their initial
    /// populations (Exact profile).
    ///
    /// # Errors
    /// Parameter errors; [`Error::InvalidParameter`] when `runs` is 0; GPU errors.
    pub fn new(
        params: GaParams,
        problem: &PaperFunction,
        base_seed: u64,
        runs: usize,
        gpu: &Gpu,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        params.check_problem(bits)?;
        if params.rng() != crate::params::GaRng::Philox {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "RNG of the batched engine",
                format!("{:?}", params.rng()),
                "Philox (the paper's xor128 array is implemented in GaCpu and GaCuda only)",
            ));
        }
        if runs == 0 {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "runs",
                runs,
                "at least 1",
            ));
        }
        let n = params.population();
        let words = Bits::word_count(bits);
        let (lo, hi) = problem.range();
        let kernel = GaKernelParams::for_run(&params, problem, base_seed)?;
        let per_group = (MAX_ROWS_PER_GROUP / n).max(1);
        let mut groups = Vec::new();
        let mut first_run = 0;
        while first_run < runs {
            let k = per_group.min(runs - first_run);
            groups.push(Group {
                first_run,
                runs: k,
                sorted: gpu.alloc_zeroed(k * n * words)?,
                sorted_fitness: gpu.alloc_zeroed(k * n)?,
                next: gpu.alloc_zeroed(k * n * words)?,
                fitness: gpu.alloc_zeroed(k * n)?,
                decoded: gpu.alloc_zeroed(k * n * problem.variables())?,
                order: DevicePermutation::identity(gpu, k, n)?,
                best: gpu.alloc_zeroed(k * words)?,
                best_fitness: gpu.upload(&vec![f64::INFINITY; k])?,
            });
            first_run += k;
        }
        let evaluator = GaProblem::with_range(problem.function(), problem.variables(), lo, hi)?
            .cuda_evaluator(gpu)?;
        let mut batch = Self {
            gpu: gpu.clone(),
            params,
            kernel,
            base_seed,
            evaluator,
            profile: Profile::Exact,
            generation: 0,
            runs,
            groups,
        };
        batch.advance(0)?;
        Ok(batch)
    }

    /// One generation of every group: `step` 0 builds the initial populations.
    fn advance(&mut self, step: u32) -> Result<()> {
        let block = self.params.block_size();
        for group in &mut self.groups {
            let mut p = self.kernel;
            p.step = step;
            p.seed = self.base_seed.wrapping_add(group.first_run as u64);
            p.runs = kernel_u32("runs per group", group.runs)?;
            launch::batch_reproduce(
                &self.gpu,
                &group.sorted,
                &mut group.next,
                &mut group.decoded,
                &p,
                block,
            )?;
            self.evaluator.evaluate(
                &group.decoded,
                &mut group.fitness,
                self.profile,
                block.clamp(128, 256),
            )?;
            evo_sort::cuda::sort_segments(
                &self.gpu,
                &group.fitness,
                &mut group.order,
                &mut group.sorted_fitness,
                block,
            )?;
            evo_sort::cuda::exchange_rows(
                &self.gpu,
                &group.next,
                &group.order,
                &mut group.sorted,
                p.words as usize,
                block,
            )?;
            launch::batch_best(
                &self.gpu,
                &group.sorted,
                &group.sorted_fitness,
                &mut group.best,
                &mut group.best_fitness,
                &p,
                block,
            )?;
        }
        Ok(())
    }

    /// Advances every run by one generation (launches only; nothing is read back).
    ///
    /// # Errors
    /// GPU errors; more than 2^32 − 1 generations.
    pub fn step(&mut self) -> Result<()> {
        let step = u32::try_from(self.generation + 1).map_err(|_| {
            Error::invalid_parameter(
                COMPONENT,
                "generation",
                self.generation + 1,
                format!("at most {} (the RNG step is 32 bits)", u32::MAX),
            )
        })?;
        self.advance(step)?;
        self.generation += 1;
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

    /// Waits for the queued generations to finish.
    ///
    /// # Errors
    /// GPU errors.
    pub fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize()
    }

    /// The best fitness so far of every run.
    ///
    /// # Errors
    /// GPU errors.
    pub fn best_fitness(&self) -> Result<Vec<f64>> {
        let mut all = Vec::with_capacity(self.runs);
        for group in &self.groups {
            all.extend(group.best_fitness.to_vec()?);
        }
        Ok(all)
    }

    /// The state of run `run`, the same type (and, for the same seed, the same value) as the single-run
    /// engines' snapshots.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `run ≥ K`; GPU errors.
    pub fn snapshot(&self, run: usize) -> Result<GaSnapshot> {
        let group = self
            .groups
            .iter()
            .find(|g| (g.first_run..g.first_run + g.runs).contains(&run))
            .ok_or_else(|| {
                Error::invalid_parameter(COMPONENT, "run", run, format!("below {}", self.runs))
            })?;
        let local = run - group.first_run;
        let (n, w) = (self.params.population(), self.kernel.words as usize);
        let population = group.sorted.to_vec()?[local * n * w..(local + 1) * n * w].to_vec();
        let fitness = group.sorted_fitness.to_vec()?[local * n..(local + 1) * n].to_vec();
        let best = group.best.to_vec()?[local * w..(local + 1) * w].to_vec();
        let best_fitness = group.best_fitness.to_vec()?[local];
        let per_generation = (n - self.params.elite()) as u64;
        Ok(GaSnapshot {
            generation: self.generation,
            evaluations: n as u64 + self.generation * per_generation,
            bits: self.kernel.bits as usize,
            population,
            fitness,
            best,
            best_fitness,
            xor128: Vec::new(),
        })
    }
}
