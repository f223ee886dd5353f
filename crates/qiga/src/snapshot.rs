//! The whole state of a batch of QIGA runs, shared by the CPU and CUDA engines.

use evo_benchmarks::Knapsack;
use evo_core::{
    Bits, Error, InstanceDigest, ProblemIdentity, Result, RunFingerprint, snapshot_checks,
};
use serde::{Deserialize, Serialize};

use crate::params::{ALGORITHM, QigaParams, RotationAngles};

/// The problem part of every knapsack engine's fingerprint (QIGA and SGA): the instance's name, its item
/// count, and a digest of its weights, profits and capacity.
pub(crate) fn knapsack_identity(problem: &Knapsack) -> ProblemIdentity {
    let digest = InstanceDigest::new()
        .f32s(problem.weights())
        .f32s(problem.profits())
        .f64s(&[problem.capacity()])
        .finish();
    ProblemIdentity::new(problem.instance_name(), problem.len()).with_instance(digest)
}

/// The fingerprint of a batch run, shared by the QIGA and SGA engines of both backends: the first run's
/// seed, the parameters (the CUDA block size left out: results do not depend on it) and every run's seed
/// (and, for QIGA, angles) under the key `runs`.
pub(crate) fn batch_fingerprint(
    seed: u64,
    params: &impl Serialize,
    runs: &impl Serialize,
    problem: ProblemIdentity,
) -> Result<RunFingerprint> {
    let mut fingerprint =
        RunFingerprint::new(seed, params, problem)?.with_parameter("runs", runs)?;
    fingerprint.parameters.remove("block");
    Ok(fingerprint)
}

/// The QIGA fingerprint of runs `configs` on `problem`.
pub(crate) fn fingerprint(
    params: &QigaParams,
    configs: &[RunConfig],
    problem: ProblemIdentity,
) -> Result<RunFingerprint> {
    let seed = configs.first().map_or(0, |config| config.seed);
    batch_fingerprint(seed, params, &configs, problem)
}

/// The generation bound of the knapsack engines: the next generation's Philox step must fit 32 bits.
pub(crate) fn check_generation(algorithm: &'static str, generation: u64) -> Result<()> {
    snapshot_checks::at_most(
        algorithm,
        "generation",
        generation,
        u64::from(u32::MAX) - 1,
        "the next generation's Philox step is 32 bits",
    )
}

/// One run of a batch: its seed and its rotation angles (a batch may evaluate many parameter sets at once).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// The run's Philox seed.
    pub seed: u64,
    /// The run's θ1..θ5.
    pub angles: RotationAngles,
}

impl RunConfig {
    /// Run `r` of a batch from `base_seed` for each entry of `angles`: seed `base_seed + r` (wrapping), as
    /// `evo_rng::Philox::for_batch_run`.
    pub fn batch(base_seed: u64, angles: &[RotationAngles]) -> Vec<RunConfig> {
        angles
            .iter()
            .enumerate()
            .map(|(run, &angles)| RunConfig {
                seed: base_seed.wrapping_add(run as u64),
                angles,
            })
            .collect()
    }
}

/// The state of one run after a generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// Seed and angles.
    pub config: RunConfig,
    /// The qubit angles θ, individual-major: `theta[i·n + j]`.
    pub theta: Vec<f32>,
    /// The repaired observations of the last generation, packed as [`Bits`] rows of `⌈n/32⌉` words.
    pub observed: Vec<u32>,
    /// The profit of each repaired observation.
    pub profits: Vec<f64>,
    /// The global best-so-far b, packed as one [`Bits`] row.
    pub best: Vec<u32>,
    /// Its profit (−1 before the first generation).
    pub best_profit: f64,
}

/// The whole state of a batch of runs (a single run is a batch of one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QigaSnapshot {
    /// The last completed generation (0 = the initial observation).
    pub generation: u64,
    /// Quantum individuals per run.
    pub population: usize,
    /// Items (qubits per individual).
    pub items: usize,
    /// The runs.
    pub runs: Vec<RunState>,
}

impl RunState {
    /// The state before generation 0: every θ = π/4, nothing observed, best profit −1.
    pub(crate) fn initial(config: RunConfig, population: usize, items: usize) -> Self {
        let words = Bits::word_count(items);
        Self {
            config,
            theta: vec![crate::ops::INITIAL_ANGLE; population * items],
            observed: vec![0; population * words],
            profits: vec![0.0; population],
            best: vec![0; words],
            best_profit: -1.0,
        }
    }
}

impl QigaSnapshot {
    /// Objective evaluations so far over the whole batch: runs × population × (generation + 1).
    pub fn evaluations(&self) -> u64 {
        (self.runs.len() * self.population) as u64 * (self.generation + 1)
    }

    /// The index of the run with the highest best profit (the first one on ties), `None` for no runs.
    pub fn best_run(&self) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (r, run) in self.runs.iter().enumerate() {
            if best.is_none_or(|b| run.best_profit > self.runs[b].best_profit) {
                best = Some(r);
            }
        }
        best
    }

    /// The best profit of every run, in run order.
    pub fn best_profits(&self) -> Vec<f64> {
        self.runs.iter().map(|run| run.best_profit).collect()
    }

    /// Checks everything `restore` needs before taking the snapshot: the shape ([`check_shape`]), each run's
    /// seed and angles equal to the engine's (the seed rule of every engine: a snapshot of another seed is
    /// refused, never adopted), a generation whose successor fits the Philox step, finite angles θ and
    /// finite profits.
    ///
    /// [`check_shape`]: Self::check_shape
    pub(crate) fn check_values(
        &self,
        configs: &[RunConfig],
        population: usize,
        items: usize,
    ) -> Result<()> {
        self.check_shape(configs.len(), population, items)?;
        check_generation(ALGORITHM, self.generation)?;
        for (r, (run, config)) in self.runs.iter().zip(configs).enumerate() {
            snapshot_checks::equal(
                ALGORITHM,
                &format!("runs[{r}].config.seed"),
                run.config.seed,
                config.seed,
            )?;
            if run.config.angles != config.angles {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    format!("runs[{r}].config.angles"),
                    format!("{:?}", run.config.angles),
                    format!("{:?} (this engine's)", config.angles),
                ));
            }
            if let Some(j) = run.theta.iter().position(|theta| !theta.is_finite()) {
                return Err(Error::invalid_snapshot(
                    ALGORITHM,
                    format!("runs[{r}].theta[{j}]"),
                    run.theta[j],
                    "a finite angle",
                ));
            }
            snapshot_checks::finite(ALGORITHM, &format!("runs[{r}].profits"), &run.profits)?;
            snapshot_checks::finite(
                ALGORITHM,
                &format!("runs[{r}].best_profit"),
                &[run.best_profit],
            )?;
        }
        Ok(())
    }

    /// Checks that this snapshot has the shape an engine of `runs` runs × `population` × `items` expects.
    pub(crate) fn check_shape(&self, runs: usize, population: usize, items: usize) -> Result<()> {
        let shape = |what: &'static str, got: usize, want: usize| {
            if got == want {
                Ok(())
            } else {
                Err(Error::invalid_parameter(
                    ALGORITHM,
                    what,
                    got,
                    format!("{want} (the engine's shape)"),
                ))
            }
        };
        shape("snapshot run count", self.runs.len(), runs)?;
        shape("snapshot population", self.population, population)?;
        shape("snapshot item count", self.items, items)?;
        let words = Bits::word_count(items);
        for run in &self.runs {
            shape("snapshot θ length", run.theta.len(), population * items)?;
            shape(
                "snapshot observation words",
                run.observed.len(),
                population * words,
            )?;
            shape("snapshot profit count", run.profits.len(), population)?;
            shape("snapshot best words", run.best.len(), words)?;
        }
        Ok(())
    }
}
