//! `QigaCuda`: the CUDA engine, the paper's layout (one block per independent run, threads over the genes),
//! many runs per launch, each with its own seed and rotation angles. State stays on the device; snapshots
//! copy it to the host in the [`QigaSnapshot`] form the CPU engine uses. During a launch each run's state
//! lives in its block's shared memory when it fits ([`launch::shared_layout`]), else in global memory; both
//! layouts give the CPU engine's bits.

pub mod exact;
pub mod launch;
pub mod sga;

use evo_benchmarks::Knapsack;
use evo_core::{Bits, Engine, Error, ProblemIdentity, Progress, Result, RunFingerprint};
use evo_gpu_runtime::Gpu;

use crate::cpu::{best_of, next_generation};
use crate::params::{ALGORITHM, QigaParams};
use crate::snapshot::{QigaSnapshot, RunConfig, RunState};
use launch::{DeviceState, run_generations};

/// The QIGA on one GPU: one run or a batch of runs (each with its own seed and angles).
///
/// Built engines have already done generation 0; [`step`](Engine::step) runs one generation of every run in
/// one launch, [`run_generations`](Self::run_generations) many in one launch (the paper's whole evolution
/// inside one kernel).
pub struct QigaCuda {
    gpu: Gpu,
    params: QigaParams,
    /// The knapsack instance's identity, for the fingerprint.
    problem: ProblemIdentity,
    capacity: f64,
    configs: Vec<RunConfig>,
    generation: u64,
    state: DeviceState,
}

impl QigaCuda {
    /// One run with `params`' angles and Philox seed `seed` on `gpu`.
    ///
    /// # Errors
    /// As [`batch`](Self::batch).
    pub fn new(params: &QigaParams, problem: &Knapsack, seed: u64, gpu: &Gpu) -> Result<Self> {
        let run = RunConfig {
            seed,
            angles: params.angles(),
        };
        Self::batch(params, problem, vec![run], gpu)
    }

    /// A batch of runs, each with its own seed and angles (`params`' angles are not used).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty batch; device allocation, compile and launch errors.
    pub fn batch(
        params: &QigaParams,
        problem: &Knapsack,
        runs: Vec<RunConfig>,
        gpu: &Gpu,
    ) -> Result<Self> {
        if runs.is_empty() {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "number of runs in a batch",
                0,
                "at least 1",
            ));
        }
        let (population, items) = (params.population(), problem.len());
        let count = runs.len();
        let seeds: Vec<u64> = runs.iter().map(|run| run.seed).collect();
        let angles: Vec<f32> = runs.iter().flat_map(|run| run.angles.angles()).collect();
        // The initial b: empty with profit −1 (the paper), or the greedy seed, computed on the host as the CPU
        // engine does.
        let (seed_best, seed_profit) = params.options().initial_best(problem);
        let seed_bytes = unpack(&seed_best, items);
        let state = DeviceState {
            weights: gpu.upload(problem.weights())?,
            profits: gpu.upload(problem.profits())?,
            order: gpu.upload(problem.ratio_order())?,
            seeds: gpu.upload(&seeds)?,
            angles: gpu.upload(&angles)?,
            // θ is set to INITIAL_ANGLE by the generation-0 launch below (initial_theta), not filled and
            // uploaded from the host.
            theta: gpu.alloc(count * population * items)?,
            // Written whole by the generation-0 launch below.
            observed: gpu.alloc(count * population * items)?,
            fitness: gpu.alloc_zeroed(count * population)?,
            // The paper's empty b is a zeroed buffer, not 1 byte per item and run copied from the host.
            best: if seed_bytes.iter().all(|&bit| bit == 0) {
                gpu.alloc_zeroed(count * items)?
            } else {
                gpu.upload(&seed_bytes.repeat(count))?
            },
            best_profit: gpu.upload(&vec![seed_profit; count])?,
            initial_theta: true,
            exact_sums: exact::sums_are_exact(problem.weights())
                && exact::sums_are_exact(problem.profits()),
        };
        let mut engine = Self {
            gpu: gpu.clone(),
            params: params.clone(),
            problem: crate::snapshot::knapsack_identity(problem),
            capacity: problem.capacity(),
            configs: runs,
            generation: 0,
            state,
        };
        run_generations(
            gpu,
            &engine.params,
            engine.capacity,
            &mut engine.state,
            0,
            1,
        )?;
        Ok(engine)
    }

    /// Runs `count` more generations of every run in one launch.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] past `u32::MAX` generations; launch errors.
    pub fn run_generations(&mut self, count: u32) -> Result<()> {
        let first = next_generation(self.generation)?;
        run_generations(
            &self.gpu,
            &self.params,
            self.capacity,
            &mut self.state,
            first,
            count,
        )?;
        self.generation += u64::from(count);
        Ok(())
    }

    /// The best profit of every run, in run order (one small copy).
    ///
    /// # Errors
    /// When the device copy fails.
    pub fn best_profits(&self) -> Result<Vec<f64>> {
        self.state.best_profit.to_vec()
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

/// Packs rows of 0/1 bytes into [`Bits`] rows.
pub(crate) fn pack(bytes: &[u8], items: usize) -> Vec<u32> {
    let words = Bits::word_count(items);
    let rows = bytes.len() / items;
    let mut packed = vec![0u32; rows * words];
    for (r, row) in bytes.chunks(items).enumerate() {
        for (j, &bit) in row.iter().enumerate() {
            if bit != 0 {
                packed[r * words + j / 32] |= 1 << (j % 32);
            }
        }
    }
    packed
}

/// Unpacks [`Bits`] rows into 0/1 bytes.
pub(crate) fn unpack(packed: &[u32], items: usize) -> Vec<u8> {
    let words = Bits::word_count(items);
    packed
        .chunks(words)
        .flat_map(|row| (0..items).map(move |j| ((row[j / 32] >> (j % 32)) & 1) as u8))
        .collect()
}

impl Engine for QigaCuda {
    type Solution = Bits;
    type Snapshot = QigaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(&self.params, &self.configs, self.problem.clone())
    }

    fn step(&mut self) -> Result<()> {
        self.run_generations(1)
    }

    fn progress(&self) -> Progress {
        // The best profits live on the device; a failed copy reads as "nothing evaluated yet" (+inf).
        let best = self
            .best_profits()
            .ok()
            .and_then(|profits| profits.into_iter().reduce(f64::max));
        Progress {
            generation: self.generation,
            evaluations: (self.configs.len() * self.params.population()) as u64
                * (self.generation + 1),
            best_fitness: best.map_or(f64::INFINITY, |profit| -profit),
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        best_of(&self.snapshot()?)
    }

    fn snapshot(&self) -> Result<QigaSnapshot> {
        let (population, items) = (self.params.population(), self.state.weights.len());
        let theta = self.state.theta.to_vec()?;
        let observed = pack(&self.state.observed.to_vec()?, items);
        let fitness = self.state.fitness.to_vec()?;
        let best = pack(&self.state.best.to_vec()?, items);
        let best_profit = self.state.best_profit.to_vec()?;
        let words = Bits::word_count(items);
        let genes = population * items;
        let runs = self
            .configs
            .iter()
            .enumerate()
            .map(|(r, &config)| RunState {
                config,
                theta: theta[r * genes..(r + 1) * genes].to_vec(),
                observed: observed[r * population * words..(r + 1) * population * words].to_vec(),
                profits: fitness[r * population..(r + 1) * population].to_vec(),
                best: best[r * words..(r + 1) * words].to_vec(),
                best_profit: best_profit[r],
            })
            .collect();
        Ok(QigaSnapshot {
            generation: self.generation,
            population,
            items,
            runs,
        })
    }

    fn restore(&mut self, snapshot: &QigaSnapshot) -> Result<()> {
        let items = self.state.weights.len();
        snapshot.check_values(&self.configs, self.params.population(), items)?;
        let flat = |f: &dyn Fn(&RunState) -> Vec<u8>| -> Vec<u8> {
            snapshot.runs.iter().flat_map(f).collect()
        };
        let theta: Vec<f32> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.theta.iter().copied())
            .collect();
        let fitness: Vec<f64> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.profits.iter().copied())
            .collect();
        let best_profit: Vec<f64> = snapshot.runs.iter().map(|r| r.best_profit).collect();
        let seeds: Vec<u64> = snapshot.runs.iter().map(|r| r.config.seed).collect();
        let angles: Vec<f32> = snapshot
            .runs
            .iter()
            .flat_map(|r| r.config.angles.angles())
            .collect();
        self.state.theta.copy_from_host(&theta)?;
        self.state.initial_theta = false;
        self.state
            .observed
            .copy_from_host(&flat(&|r| unpack(&r.observed, items)))?;
        self.state.fitness.copy_from_host(&fitness)?;
        self.state
            .best
            .copy_from_host(&flat(&|r| unpack(&r.best, items)))?;
        self.state.best_profit.copy_from_host(&best_profit)?;
        self.state.seeds.copy_from_host(&seeds)?;
        self.state.angles.copy_from_host(&angles)?;
        self.configs = snapshot.runs.iter().map(|r| r.config).collect();
        self.generation = snapshot.generation;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{pack, unpack};

    #[test]
    fn packing_round_trips_rows_of_any_length() {
        for items in [1usize, 31, 32, 33, 250] {
            let bytes: Vec<u8> = (0..3 * items)
                .map(|k| ((k * 7 + k / 5) % 3 == 0) as u8)
                .collect();
            let packed = pack(&bytes, items);
            assert_eq!(packed.len(), 3 * items.div_ceil(32));
            assert_eq!(unpack(&packed, items), bytes);
        }
    }
}
