//! The simple GA baseline the paper compares the QIGA with (its §4; spec qiga.md §7): binary strings,
//! roulette-wheel selection on profit, one-point crossover, per-bit mutation, the same index-order repair
//! (kept), elitism of one. CPU engine [`SgaCpu`] (batches of runs over rayon) and CUDA engine
//! [`SgaCuda`](crate::SgaCuda) (one block per run, kernel `qiga_sga_run_generations`), equal bit for bit.
//!
//! One generation t ≥ 1 of a run:
//! 1. **Select** slot s: [`ops::roulette_pick`] with u = uniform f64 of (SgaSelection, t, s).
//! 2. **Cross** pair k (slots 2k, 2k+1) when u < P_c (word 0 of (SgaCrossover, t, k)) at
//!    [`ops::crossover_point`] (word 1).
//! 3. **Mutate** bit j of slot i when u < P_m (word j of (SgaMutation, t, i)).
//! 4. **Repair and evaluate** every child (kept).
//! 5. **Elitism**: the previous generation's best (first on ties) replaces the new worst (first on ties)
//!    when strictly better.
//! 6. **Best so far**: the generation's best replaces the run's best when strictly better.
//!
//! Generation 0: bits uniform (word w of (SgaInit, 0, i) is bits 32w..32w+31 of individual i), repaired
//! and evaluated.
//!
//! The knapsack options of [`SgaParams`] (each off by default): the repair of generation 0 and step 4 by
//! [`Repair`](crate::Repair); with the greedy seed, individual 0 of generation 0 is replaced after the repair
//! by the seed (`KnapsackOptions`' initial best) and the best so far starts there; with the local search, step 6
//! improves the new leader in place (its row and profit in the population) before it becomes the best so far.

mod ask_tell;
pub mod ops;
pub mod params;

pub use ask_tell::SgaAskTell;
pub use params::SgaParams;

use evo_benchmarks::Knapsack;
use evo_core::backend::thread_pool;
use evo_core::{Bits, Engine, Error, Progress, Result, RunFingerprint, snapshot_checks};
use evo_rng::{Philox, Stream};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::options::KnapsackOptions;
use params::SGA;

/// The state of one SGA run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SgaRunState {
    /// The run's Philox seed.
    pub seed: u64,
    /// The population, packed [`Bits`] rows.
    pub individuals: Vec<u32>,
    /// Their profits.
    pub profits: Vec<f64>,
    /// The best so far, one packed row.
    pub best: Vec<u32>,
    /// Its profit.
    pub best_profit: f64,
}

/// The state of a batch of SGA runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SgaSnapshot {
    /// The last completed generation (0 = the initial population).
    pub generation: u64,
    /// Individuals per run.
    pub population: usize,
    /// Items.
    pub items: usize,
    /// The runs.
    pub runs: Vec<SgaRunState>,
}

impl SgaSnapshot {
    /// Checks the values `restore` takes, after the shape: each run's seed equal to the engine's (the seed
    /// rule of every engine: another seed is refused, never adopted), a generation whose successor fits the
    /// Philox step, and finite profits.
    pub(crate) fn check_values(&self, seeds: &[u64]) -> Result<()> {
        crate::snapshot::check_generation(SGA, self.generation)?;
        for (r, (run, &seed)) in self.runs.iter().zip(seeds).enumerate() {
            snapshot_checks::equal(SGA, &format!("runs[{r}].seed"), run.seed, seed)?;
            snapshot_checks::finite(SGA, &format!("runs[{r}].profits"), &run.profits)?;
            snapshot_checks::finite(SGA, &format!("runs[{r}].best_profit"), &[run.best_profit])?;
        }
        Ok(())
    }

    /// The best profit of every run.
    pub fn best_profits(&self) -> Vec<f64> {
        self.runs.iter().map(|run| run.best_profit).collect()
    }
}

/// The SGA baseline on the CPU: a batch of independent runs (run r of base seed s has seed s + r).
pub struct SgaCpu {
    problem: Knapsack,
    params: SgaParams,
    state: SgaSnapshot,
    pool: rayon::ThreadPool,
}

impl SgaCpu {
    /// `runs` runs from `base_seed` (run r: seed `base_seed + r`), generation 0 done, on `threads` threads.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no runs; [`Error::ThreadPool`].
    pub fn batch(
        params: &SgaParams,
        problem: &Knapsack,
        base_seed: u64,
        runs: usize,
        threads: usize,
    ) -> Result<Self> {
        if runs == 0 {
            return Err(Error::invalid_parameter(
                SGA,
                "number of runs",
                0,
                "at least 1",
            ));
        }
        let (population, items) = (params.population(), problem.len());
        let pool = thread_pool(threads)?;
        let options = params.options();
        let seed = options.greedy_seed.then(|| options.initial_best(problem));
        let states = pool.install(|| {
            (0..runs)
                .into_par_iter()
                .map(|r| {
                    let run_seed = base_seed.wrapping_add(r as u64);
                    initial_run(run_seed, population, problem, options, seed.as_ref())
                })
                .collect()
        });
        Ok(Self {
            problem: problem.clone(),
            params: params.clone(),
            state: SgaSnapshot {
                generation: 0,
                population,
                items,
                runs: states,
            },
            pool,
        })
    }

    /// The state.
    pub fn state(&self) -> &SgaSnapshot {
        &self.state
    }
}

/// Generation 0 of one run; `greedy` is the greedy seed's row and profit when that option is on.
fn initial_run(
    seed: u64,
    population: usize,
    problem: &Knapsack,
    options: KnapsackOptions,
    greedy: Option<&(Vec<u32>, f64)>,
) -> SgaRunState {
    let words = Bits::word_count(problem.len());
    let mut individuals = initial_rows(seed, population, words);
    let mut profits: Vec<f64> = individuals
        .chunks_mut(words)
        .map(|row| options.repair_evaluate(problem, row))
        .collect();
    let (mut best, mut best_profit) = (vec![0; words], -1.0);
    if let Some((row, profit)) = greedy {
        individuals[..words].copy_from_slice(row);
        profits[0] = *profit;
        best.copy_from_slice(row);
        best_profit = *profit;
    }
    let mut run = SgaRunState {
        seed,
        individuals,
        profits,
        best,
        best_profit,
    };
    keep_best_with(&mut run, words, |row, profit| {
        options.improve_best(problem, row, profit)
    });
    run
}

/// Generation 0's bits: word w of (SgaInit, 0, i) is bits 32w..32w+31 of individual i.
fn initial_rows(seed: u64, population: usize, words: usize) -> Vec<u32> {
    let rng = Philox::new(seed);
    let mut individuals = vec![0u32; population * words];
    for (i, row) in individuals.chunks_mut(words).enumerate() {
        let sequence = rng.sequence(Stream::SgaInit, 0, i as u32);
        for (w, word) in row.iter_mut().enumerate() {
            *word = sequence.word(w as u32);
        }
    }
    individuals
}

/// Step 6: the generation's best (first on ties) replaces the best so far when strictly better.
fn keep_best(run: &mut SgaRunState, words: usize) {
    keep_best_with(run, words, |_, profit| profit);
}

/// Step 6 with `improve` (the local search, or the identity) applied in place to the leader's row and
/// profit before it replaces the best so far.
fn keep_best_with(
    run: &mut SgaRunState,
    words: usize,
    improve: impl FnOnce(&mut [u32], f64) -> f64,
) {
    let leader = first_max(&run.profits);
    if run.profits[leader] > run.best_profit {
        let row = &mut run.individuals[leader * words..(leader + 1) * words];
        let profit = improve(row, run.profits[leader]);
        run.profits[leader] = profit;
        run.best_profit = profit;
        run.best.copy_from_slice(row);
    }
}

fn first_max(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

fn first_min(values: &[f64]) -> usize {
    let mut worst = 0;
    for (i, &v) in values.iter().enumerate() {
        if v < values[worst] {
            worst = i;
        }
    }
    worst
}

/// One generation of one run (steps 1–6 of the module docs).
fn sga_generation(run: &mut SgaRunState, t: u32, params: &SgaParams, problem: &Knapsack) {
    let words = Bits::word_count(problem.len());
    let options = params.options();
    let mut next = breed(run, t, params, problem.len());
    // Step 4: repair and evaluation.
    let profits = next
        .chunks_mut(words)
        .map(|row| options.repair_evaluate(problem, row))
        .collect();
    survive_with(run, next, profits, words, |row, profit| {
        options.improve_best(problem, row, profit)
    });
}

/// Steps 1–3 of generation `t` of `run` on strings of `items` bits: the children, not yet evaluated.
fn breed(run: &SgaRunState, t: u32, params: &SgaParams, items: usize) -> Vec<u32> {
    let words = Bits::word_count(items);
    let population = run.profits.len();
    let rng = Philox::new(run.seed);
    let mut cumulative = Vec::with_capacity(population);
    let mut total = 0.0f64;
    for &p in &run.profits {
        total += p;
        cumulative.push(total);
    }
    // Step 1: selection.
    let mut next = vec![0u32; population * words];
    for (slot, row) in next.chunks_mut(words).enumerate() {
        let u = rng
            .sequence(Stream::SgaSelection, t, slot as u32)
            .uniform_f64(0);
        let parent = ops::roulette_pick(&cumulative, u);
        row.copy_from_slice(&run.individuals[parent * words..(parent + 1) * words]);
    }
    // Step 2: one-point crossover of consecutive pairs.
    for pair in 0..population / 2 {
        let sequence = rng.sequence(Stream::SgaCrossover, t, pair as u32);
        if sequence.uniform_f32(0) < params.crossover_rate()
            && let Some(point) = ops::crossover_point(sequence.word(1), items)
        {
            let (first, second) =
                next[2 * pair * words..(2 * pair + 2) * words].split_at_mut(words);
            ops::swap_tails(first, second, point);
        }
    }
    // Step 3: mutation.
    for (i, row) in next.chunks_mut(words).enumerate() {
        let sequence = rng.sequence(Stream::SgaMutation, t, i as u32);
        for j in 0..items {
            if sequence.uniform_f32(j as u32) < params.mutation_rate() {
                row[j / 32] ^= 1 << (j % 32);
            }
        }
    }
    next
}

/// Steps 5–6 once the children `next` have their `profits`: elitism of one, then the best so far.
fn survive(run: &mut SgaRunState, next: Vec<u32>, profits: Vec<f64>, words: usize) {
    survive_with(run, next, profits, words, |_, profit| profit);
}

/// [`survive`] with step 6's `improve` (as [`keep_best_with`]).
fn survive_with(
    run: &mut SgaRunState,
    mut next: Vec<u32>,
    mut profits: Vec<f64>,
    words: usize,
    improve: impl FnOnce(&mut [u32], f64) -> f64,
) {
    // Step 5: elitism of one.
    let elite = first_max(&run.profits);
    let worst = first_min(&profits);
    if run.profits[elite] > profits[worst] {
        next[worst * words..(worst + 1) * words]
            .copy_from_slice(&run.individuals[elite * words..(elite + 1) * words]);
        profits[worst] = run.profits[elite];
    }
    run.individuals = next;
    run.profits = profits;
    keep_best_with(run, words, improve);
}

/// The SGA fingerprint of runs with `seeds` on `problem`, shared by [`SgaCpu`] and `SgaCuda`.
pub(crate) fn fingerprint(
    params: &SgaParams,
    seeds: &[u64],
    problem: evo_core::ProblemIdentity,
) -> Result<RunFingerprint> {
    let seed = seeds.first().copied().unwrap_or(0);
    crate::snapshot::batch_fingerprint(seed, params, &seeds, problem)
}

impl Engine for SgaCpu {
    type Solution = Bits;
    type Snapshot = SgaSnapshot;

    fn algorithm(&self) -> &'static str {
        SGA
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        let seeds: Vec<u64> = self.state.runs.iter().map(|run| run.seed).collect();
        fingerprint(
            &self.params,
            &seeds,
            crate::snapshot::knapsack_identity(&self.problem),
        )
    }

    fn step(&mut self) -> Result<()> {
        let t = crate::cpu::next_generation(self.state.generation)?;
        let (params, problem) = (&self.params, &self.problem);
        let runs = &mut self.state.runs;
        self.pool.install(|| {
            runs.par_iter_mut()
                .for_each(|run| sga_generation(run, t, params, problem));
        });
        self.state.generation = u64::from(t);
        Ok(())
    }

    fn progress(&self) -> Progress {
        let best = self
            .state
            .runs
            .iter()
            .map(|run| run.best_profit)
            .reduce(f64::max);
        Progress {
            generation: self.state.generation,
            evaluations: (self.state.runs.len() * self.state.population) as u64
                * (self.state.generation + 1),
            best_fitness: best.map_or(f64::INFINITY, |profit| -profit),
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        let profits = self.state.best_profits();
        let r = first_max(&profits);
        let run = &self.state.runs[r];
        Ok((
            Bits::from_words(run.best.clone(), self.state.items)?,
            -run.best_profit,
        ))
    }

    fn snapshot(&self) -> Result<SgaSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &SgaSnapshot) -> Result<()> {
        let words = Bits::word_count(self.state.items);
        let fits = snapshot.runs.len() == self.state.runs.len()
            && snapshot.population == self.state.population
            && snapshot.items == self.state.items
            && snapshot.runs.iter().all(|run| {
                run.individuals.len() == snapshot.population * words
                    && run.profits.len() == snapshot.population
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
                format!(
                    "{} runs × {} × {} (the engine's shape)",
                    self.state.runs.len(),
                    self.state.population,
                    self.state.items
                ),
            ));
        }
        let seeds: Vec<u64> = self.state.runs.iter().map(|run| run.seed).collect();
        snapshot.check_values(&seeds)?;
        self.state = snapshot.clone();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LocalSearch, Repair};
    use evo_benchmarks::knapsack::KnapsackClass;

    fn problem() -> Knapsack {
        Knapsack::generate_class(KnapsackClass::WeaklyCorrelated, 100, 1000, 7).unwrap()
    }

    fn bit(row: &[u32], j: usize) -> bool {
        (row[j / 32] >> (j % 32)) & 1 == 1
    }

    fn weight(problem: &Knapsack, row: &[u32]) -> f64 {
        (0..problem.len())
            .filter(|&j| bit(row, j))
            .map(|j| f64::from(problem.weights()[j]))
            .sum()
    }

    fn with(options: KnapsackOptions) -> SgaParams {
        SgaParams::default()
            .with_population(20)
            .unwrap()
            .with_options(options)
    }

    #[test]
    fn the_paper_options_stay_out_of_the_serialised_params() {
        let paper = serde_json::to_string(&SgaParams::default()).unwrap();
        assert!(!paper.contains("options"));
        let practical = with(KnapsackOptions::PRACTICAL);
        let text = serde_json::to_string(&practical).unwrap();
        assert!(text.contains("options"));
        assert_eq!(serde_json::from_str::<SgaParams>(&text).unwrap(), practical);
    }

    #[test]
    fn the_greedy_repair_leaves_no_left_out_item_that_fits() {
        let problem = problem();
        let options = KnapsackOptions {
            repair: Repair::Greedy,
            ..KnapsackOptions::PAPER
        };
        let mut engine = SgaCpu::batch(&with(options), &problem, 3, 4, 1).unwrap();
        engine.step().unwrap();
        let words = Bits::word_count(problem.len());
        for run in &engine.state().runs {
            for row in run.individuals.chunks(words) {
                let w = weight(&problem, row);
                assert!(w <= problem.capacity());
                for j in (0..problem.len()).filter(|&j| !bit(row, j)) {
                    assert!(w + f64::from(problem.weights()[j]) > problem.capacity());
                }
            }
        }
    }

    #[test]
    fn the_greedy_seed_is_individual_0_of_generation_0() {
        let problem = problem();
        let options = KnapsackOptions {
            greedy_seed: true,
            ..KnapsackOptions::PAPER
        };
        let (greedy, packing) = problem.greedy_solution();
        let engine = SgaCpu::batch(&with(options), &problem, 3, 4, 1).unwrap();
        for run in &engine.state().runs {
            assert_eq!(run.individuals[..greedy.len()], greedy[..]);
            assert_eq!(run.profits[0], packing.profit);
            assert!(run.best_profit >= packing.profit);
        }
    }

    #[test]
    fn the_local_search_improves_the_new_best_in_place() {
        let problem = problem();
        let options = KnapsackOptions {
            local_search: LocalSearch::SwapWindow,
            ..KnapsackOptions::PAPER
        };
        let mut engine = SgaCpu::batch(&with(options), &problem, 3, 4, 1).unwrap();
        engine.step().unwrap();
        let plain = SgaCpu::batch(&with(KnapsackOptions::PAPER), &problem, 3, 4, 1).unwrap();
        let words = Bits::word_count(problem.len());
        for (run, paper) in engine.state().runs.iter().zip(&plain.state().runs) {
            // The best is a local optimum of the search and sits in the population with its profit.
            let mut again = run.best.clone();
            assert_eq!(
                crate::local_search::improve(&problem, &mut again),
                run.best_profit
            );
            assert_eq!(again, run.best);
            let leader = first_max(&run.profits);
            assert_eq!(
                run.individuals[leader * words..(leader + 1) * words],
                run.best[..]
            );
            assert_eq!(run.profits[leader], run.best_profit);
            assert!(run.best_profit >= paper.best_profit);
        }
    }
}
