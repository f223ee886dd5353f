//! `QigaCpu`: the CPU engine, a batch of independent runs spread over a rayon pool (one run per task; a
//! run's own work is serial, as one CUDA block's is sequenced by barriers).

use evo_benchmarks::Knapsack;
use evo_core::backend::thread_pool;
use evo_core::{Bits, Engine, Error, Progress, Result, RunFingerprint};
use evo_rng::{Philox, Stream};
use rayon::prelude::*;

use crate::ops;
use crate::params::{ALGORITHM, QigaParams, SignChoice};
use crate::snapshot::{QigaSnapshot, RunConfig, RunState};

/// The QIGA on the CPU: one run, or a batch of runs each with its own seed and rotation angles.
///
/// Built engines have already done generation 0 (observe, repair, evaluate, store best); each
/// [`step`](Engine::step) does one more generation of every run.
pub struct QigaCpu {
    problem: Knapsack,
    params: QigaParams,
    state: QigaSnapshot,
    pool: rayon::ThreadPool,
}

impl QigaCpu {
    /// One run with `params`' angles and Philox seed `seed`, on `threads` CPU threads (0 = all cores).
    ///
    /// # Errors
    /// [`Error::ThreadPool`] when the threads cannot start.
    pub fn new(params: &QigaParams, problem: &Knapsack, seed: u64, threads: usize) -> Result<Self> {
        let run = RunConfig {
            seed,
            angles: params.angles(),
        };
        Self::batch(params, problem, vec![run], threads)
    }

    /// A batch of runs, each with its own seed and angles (`params`' angles are not used).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty batch, [`Error::ThreadPool`] when the threads cannot start.
    pub fn batch(
        params: &QigaParams,
        problem: &Knapsack,
        runs: Vec<RunConfig>,
        threads: usize,
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
        let (seed_best, seed_profit) = params.options().initial_best(problem);
        let state = QigaSnapshot {
            generation: 0,
            population,
            items,
            runs: runs
                .into_iter()
                .map(|config| RunState {
                    best: seed_best.clone(),
                    best_profit: seed_profit,
                    ..RunState::initial(config, population, items)
                })
                .collect(),
        };
        let mut engine = Self {
            problem: problem.clone(),
            params: params.clone(),
            state,
            pool: thread_pool(threads)?,
        };
        engine.advance(0);
        Ok(engine)
    }

    /// The state (the same value [`snapshot`](Engine::snapshot) returns, without the copy).
    pub fn state(&self) -> &QigaSnapshot {
        &self.state
    }

    /// Runs generation `generation` of every run.
    fn advance(&mut self, generation: u32) {
        let (problem, params) = (&self.problem, &self.params);
        let runs = &mut self.state.runs;
        self.pool.install(|| {
            runs.par_iter_mut()
                .for_each(|run| run_generation(run, generation, problem, params));
        });
        self.state.generation = u64::from(generation);
    }
}

/// One generation of one run (spec qiga.md §2): observe (step 2), repair and evaluate (3–4), update (7, not
/// in generation 0), store best (5). Twin: the generation loop of `qiga_run_generations` in `qiga.cu`.
pub(crate) fn run_generation(
    run: &mut RunState,
    generation: u32,
    problem: &Knapsack,
    params: &QigaParams,
) {
    let items = problem.len();
    observe(run, generation, items);
    // Steps 3–4: repair and evaluate each individual in place.
    let words = Bits::word_count(items);
    for (row, profit) in run.observed.chunks_mut(words).zip(run.profits.iter_mut()) {
        *profit = params.options().repair_evaluate(problem, row);
    }
    update_and_store_best(run, generation, items, params, |best, profit| {
        params.options().improve_best(problem, best, profit)
    });
}

/// Step 2: observes every qubit of every individual of `run` into its packed rows. Twins: step 2 of
/// `qiga_generations` and `qiga_bits_observe` in `qiga.cu`.
pub(crate) fn observe(run: &mut RunState, generation: u32, items: usize) {
    let words = Bits::word_count(items);
    let rng = Philox::new(run.config.seed);
    for i in 0..run.profits.len() {
        let sequence = rng.sequence(Stream::QigaObserve, generation, i as u32);
        let theta = &run.theta[i * items..(i + 1) * items];
        let row = &mut run.observed[i * words..(i + 1) * words];
        row.fill(0);
        for (lane, chunk) in theta.chunks(4).enumerate() {
            let block = sequence.block(lane as u32);
            for (k, &angle) in chunk.iter().enumerate() {
                if ops::observe(angle, evo_rng::convert::uniform_f32(block[k])) {
                    let j = 4 * lane + k;
                    row[j / 32] |= 1 << (j % 32);
                }
            }
        }
    }
}

/// Steps 7 and 5 after the evaluation of `run.profits` (the score QIGA maximises): rotate towards b (not in
/// generation 0), then let the generation's best (first on ties) replace b when strictly better, `improve`
/// giving b's score after the replacement (step 5′ of the knapsack options, or the score unchanged). Twins:
/// steps 7 and 5 of `qiga_generations` and `qiga_bits_update` in `qiga.cu`.
pub(crate) fn update_and_store_best(
    run: &mut RunState,
    generation: u32,
    items: usize,
    params: &QigaParams,
    improve: impl FnOnce(&mut [u32], f64) -> f64,
) {
    let words = Bits::word_count(items);
    let population = run.profits.len();
    // Step 7: rotate towards b, judged against the best of the previous generations.
    if generation > 0 {
        let rng = Philox::new(run.config.seed);
        let angles = run.config.angles.angles();
        for i in 0..population {
            let flag = run.profits[i] >= run.best_profit;
            let signs = rng.sequence(Stream::QigaSign, generation, i as u32);
            let row = &run.observed[i * words..(i + 1) * words];
            for j in 0..items {
                let sign_word = match params.sign_choice() {
                    SignChoice::Random => signs.word(j as u32),
                    SignChoice::Plus => 0,
                };
                let theta = &mut run.theta[i * items + j];
                *theta = ops::rotate(
                    *theta,
                    bit(row, j),
                    bit(&run.best, j),
                    flag,
                    &angles,
                    sign_word,
                    params.sign_choice(),
                    params.quadrant_rule(),
                );
            }
        }
    }
    // Step 5: the generation's best (first on ties) replaces b when strictly better.
    let mut leader = 0;
    for i in 1..population {
        if run.profits[i] > run.profits[leader] {
            leader = i;
        }
    }
    if run.profits[leader] > run.best_profit {
        run.best
            .copy_from_slice(&run.observed[leader * words..(leader + 1) * words]);
        // Step 5′ (an option, module `options`): improve the new b.
        run.best_profit = improve(&mut run.best, run.profits[leader]);
    }
}

fn bit(row: &[u32], j: usize) -> bool {
    (row[j / 32] >> (j % 32)) & 1 == 1
}

/// The next generation's index as a Philox step, or an error past `u32::MAX` generations.
pub(crate) fn next_generation(generation: u64) -> Result<u32> {
    u32::try_from(generation + 1).map_err(|_| {
        Error::invalid_parameter(
            ALGORITHM,
            "generation count",
            generation + 1,
            "at most 2^32 − 1 (the Philox step is a u32)",
        )
    })
}

/// The Engine view of a snapshot: progress of the whole batch.
pub(crate) fn progress_of(state: &QigaSnapshot) -> Progress {
    let best = state
        .best_run()
        .map_or(f64::INFINITY, |r| -state.runs[r].best_profit);
    Progress {
        generation: state.generation,
        evaluations: state.evaluations(),
        best_fitness: best,
    }
}

/// The best solution of the whole batch and its fitness (minus its profit).
pub(crate) fn best_of(state: &QigaSnapshot) -> Result<(Bits, f64)> {
    let r = state.best_run().ok_or_else(|| {
        Error::invalid_parameter(ALGORITHM, "number of runs in a batch", 0, "at least 1")
    })?;
    let run = &state.runs[r];
    Ok((
        Bits::from_words(run.best.clone(), state.items)?,
        -run.best_profit,
    ))
}

impl Engine for QigaCpu {
    type Solution = Bits;
    type Snapshot = QigaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        let configs: Vec<RunConfig> = self.state.runs.iter().map(|run| run.config).collect();
        crate::snapshot::fingerprint(
            &self.params,
            &configs,
            crate::snapshot::knapsack_identity(&self.problem),
        )
    }

    fn step(&mut self) -> Result<()> {
        let generation = next_generation(self.state.generation)?;
        self.advance(generation);
        Ok(())
    }

    fn progress(&self) -> Progress {
        progress_of(&self.state)
    }

    fn best(&self) -> Result<(Bits, f64)> {
        best_of(&self.state)
    }

    fn snapshot(&self) -> Result<QigaSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &QigaSnapshot) -> Result<()> {
        let configs: Vec<RunConfig> = self.state.runs.iter().map(|run| run.config).collect();
        snapshot.check_values(&configs, self.params.population(), self.problem.len())?;
        self.state = snapshot.clone();
        Ok(())
    }
}
