//! `DeCpu`: the CPU engine (one thread or a rayon pool), the reference of the CUDA engine.

use crate::individual::{DeIndividual, check_replacements, check_slot};
use crate::local_search::{LocalSearch, ScheduleSearch, Scope};
use crate::ops::{
    best_index, binomial_takes_mutant, distinct_indices, exponential_length,
    exponential_takes_mutant, jde_adapt, mutate_best1, mutate_current_to_best1, mutate_rand1,
    paper_literal_takes_mutant, repair, trial_wins,
};
use crate::params::{ALGORITHM, Adaptation, Crossover, DeParams, Selection, Strategy};
use crate::problem::DeviceProblem;
use crate::snapshot::{self, DeSnapshot};
use evo_core::{Backend, ContinuousProblem, Engine, Error, Progress, Result, RunFingerprint};
use evo_rng::convert::uniform_in;
use evo_rng::{Philox, Stream};
use rayon::prelude::*;

/// The DE engine on the CPU. Trials are built and evaluated in parallel on the engine's rayon pool; each
/// vector's draws are addressed by (generation, vector), so the result does not depend on the thread count.
///
/// ```
/// use evo_de::{DeCpu, DeParams};
/// use evo_benchmarks::DeRastrigin;
/// use evo_core::{Engine, Executor, Termination};
///
/// let engine = DeCpu::new(DeParams::default(), DeRastrigin::new(16)?, 7, 1)?;
/// let report = Executor::new(engine)
///     .with_termination(Termination::new().with_max_generations(200))?
///     .run()?;
/// assert!(report.best_fitness < 100.0);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct DeCpu<P: ContinuousProblem> {
    params: DeParams,
    problem: P,
    /// The run's seed, for the fingerprint (the generator keeps only the derived key).
    seed: u64,
    rng: Philox,
    pool: rayon::ThreadPool,
    state: DeSnapshot,
    trials: Vec<f32>,
    trial_fitness: Vec<f64>,
    trial_weights: Vec<f32>,
    trial_rates: Vec<f32>,
    best: usize,
    local_search: Option<ScheduleSearch>,
}

/// The first coordinate of vector `i`: uniform in `[lower_j, upper_j]` from word `j` of (DeInit, 0, i)
/// (step 1 of Algorithm 1). Twin: `de_init_f32`.
pub(crate) fn initial_row(rng: &Philox, i: usize, lower: &[f32], upper: &[f32], row: &mut [f32]) {
    let words = rng.sequence(Stream::DeInit, 0, i as u32);
    for (j, x) in row.iter_mut().enumerate() {
        *x = uniform_in(words.word(j as u32), lower[j], upper[j]);
    }
}

/// Everything one trial needs: the generation's parents and the run's constants.
pub(crate) struct TrialContext<'a> {
    pub rng: &'a Philox,
    pub params: &'a DeParams,
    pub generation: u32,
    pub population: &'a [f32],
    pub weights: &'a [f32],
    pub rates: &'a [f32],
    pub best: usize,
    pub lower: &'a [f32],
    pub upper: &'a [f32],
}

impl TrialContext<'_> {
    /// Builds trial `i` into `trial` (steps 3.1–3.3) and returns the `(F, CR)` it used. Twin: `de_trial_f32`.
    pub(crate) fn build(&self, i: usize, trial: &mut [f32]) -> (f32, f32) {
        let d = trial.len();
        let m = (self.population.len() / d) as u32;
        let row = |k: usize| &self.population[k * d..(k + 1) * d];
        let index_words = self
            .rng
            .sequence(Stream::DeIndices, self.generation, i as u32);
        let [r1, r2, r3] = distinct_indices(
            [
                index_words.word(0),
                index_words.word(1),
                index_words.word(2),
            ],
            i as u32,
            m,
        );
        let (f, cr) = match self.params.adaptation() {
            Adaptation::Fixed => (self.weights[i], self.rates[i]),
            Adaptation::Jde => {
                let w = self.rng.sequence(Stream::DeJde, self.generation, i as u32);
                jde_adapt(
                    [w.word(0), w.word(1), w.word(2), w.word(3)],
                    self.weights[i],
                    self.rates[i],
                )
            }
        };
        let dimension = d as u32;
        let j_rand = self
            .rng
            .sequence(Stream::DeJrand, self.generation, i as u32)
            .below(0, dimension);
        let cross = self
            .rng
            .sequence(Stream::DeCross, self.generation, i as u32);
        let length = match self.params.crossover() {
            Crossover::Exponential => exponential_length(dimension, cr, |k| cross.uniform_f32(k)),
            Crossover::Binomial | Crossover::PaperLiteral => 0,
        };
        let (x, a, b, c, best) = (
            row(i),
            row(r1 as usize),
            row(r2 as usize),
            row(r3 as usize),
            row(self.best),
        );
        for (j, out) in trial.iter_mut().enumerate() {
            let ju = j as u32;
            let takes_mutant = match self.params.crossover() {
                Crossover::Binomial => binomial_takes_mutant(ju, j_rand, cross.uniform_f32(ju), cr),
                Crossover::PaperLiteral => {
                    paper_literal_takes_mutant(ju, j_rand, cross.uniform_f32(ju), cr)
                }
                Crossover::Exponential => exponential_takes_mutant(ju, j_rand, length, dimension),
            };
            *out = if takes_mutant {
                let mutant = match self.params.strategy() {
                    Strategy::Rand1 => mutate_rand1(a[j], b[j], c[j], f),
                    Strategy::Best1 => mutate_best1(best[j], a[j], b[j], f),
                    Strategy::CurrentToBest1 => {
                        mutate_current_to_best1(x[j], best[j], a[j], b[j], f)
                    }
                };
                repair(mutant, self.lower[j], self.upper[j])
            } else {
                x[j]
            };
        }
        (f, cr)
    }
}

/// A fresh state: the initial population (steps 1–2 are done by the caller's evaluation).
pub(crate) fn initial_state(params: &DeParams, dimension: usize) -> DeSnapshot {
    let m = params.population();
    DeSnapshot {
        generation: 0,
        evaluations: m as u64,
        population_size: m,
        dimension,
        population: vec![0.0; m * dimension],
        fitness: vec![0.0; m],
        differential_weights: vec![params.differential_weight(); m],
        crossover_rates: vec![params.crossover_rate(); m],
    }
}

/// Checks the problem's dimension and builds nothing: shared by both engines' constructors.
pub(crate) fn check_problem<P: ContinuousProblem>(problem: &P) -> Result<usize> {
    let dimension = problem.dimension();
    DeParams::check_dimension(dimension)?;
    if problem.bounds().dimension() != dimension {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "problem bounds",
            problem.bounds().dimension(),
            format!("of the problem's dimension {dimension}"),
        ));
    }
    Ok(dimension)
}

/// Checks user-given initial vectors (Min-Min seeding and the like).
pub(crate) fn check_initial_vectors(
    vectors: &[Vec<f32>],
    population: usize,
    dimension: usize,
) -> Result<()> {
    if vectors.len() > population {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "number of initial vectors",
            vectors.len(),
            format!("at most the population size {population}"),
        ));
    }
    if let Some(bad) = vectors.iter().position(|v| v.len() != dimension) {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "initial vector length",
            format!("{} (vector {bad})", vectors[bad].len()),
            format!("equal to the dimension {dimension}"),
        ));
    }
    Ok(())
}

impl<P: ContinuousProblem> DeCpu<P> {
    /// A CPU engine on `threads` rayon workers (0: one per core), with its initial population drawn and
    /// evaluated (steps 1–2).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a problem of dimension 0 or ≥ 2^31, [`Error::ThreadPool`], and a
    /// non-finite fitness.
    pub fn new(params: DeParams, problem: P, seed: u64, threads: usize) -> Result<Self> {
        let dimension = check_problem(&problem)?;
        let pool = evo_core::backend::thread_pool(threads)?;
        let m = params.population();
        let rng = Philox::new(seed);
        let mut state = initial_state(&params, dimension);
        {
            let (lower, upper) = (problem.bounds().lower(), problem.bounds().upper());
            pool.install(|| {
                state
                    .population
                    .par_chunks_mut(dimension)
                    .enumerate()
                    .for_each(|(i, row)| initial_row(&rng, i, lower, upper, row));
            });
        }
        let mut engine = Self {
            params,
            problem,
            seed,
            rng,
            pool,
            state,
            trials: vec![0.0; m * dimension],
            trial_fitness: vec![0.0; m],
            trial_weights: vec![0.0; m],
            trial_rates: vec![0.0; m],
            best: 0,
            local_search: None,
        };
        engine.evaluate_population()?;
        Ok(engine)
    }

    /// A CPU engine for a [`Backend::Cpu`].
    ///
    /// # Errors
    /// As [`DeCpu::new`]; [`Error::InvalidParameter`] for another backend.
    pub fn for_backend(params: DeParams, problem: P, seed: u64, backend: Backend) -> Result<Self> {
        match backend {
            Backend::Cpu { threads } => Self::new(params, problem, seed, threads),
            other => Err(Error::invalid_parameter(
                ALGORITHM,
                "backend of DeCpu",
                other,
                "cpu or cpu:<threads>",
            )),
        }
    }

    /// Replaces the first vectors of the initial population (before any step) with `vectors`, clamped into
    /// the box, and evaluates them: e.g. the Min-Min schedule
    /// ([`min_min_vector`](crate::min_min_vector)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] after the first step, for more vectors than `M` or a wrong length.
    pub fn with_initial_vectors(mut self, vectors: &[Vec<f32>]) -> Result<Self> {
        if self.state.generation != 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "initial vectors",
                format!("given at generation {}", self.state.generation),
                "given before the first step",
            ));
        }
        let d = self.state.dimension;
        check_initial_vectors(vectors, self.state.population_size, d)?;
        for (i, v) in vectors.iter().enumerate() {
            let row = &mut self.state.population[i * d..(i + 1) * d];
            row.copy_from_slice(v);
            self.problem.bounds().clamp(row);
        }
        self.evaluate_population()?;
        Ok(self)
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// The parameters.
    pub fn params(&self) -> &DeParams {
        &self.params
    }

    /// The local search, if one is on.
    pub fn local_search(&self) -> Option<LocalSearch> {
        self.local_search.as_ref().map(ScheduleSearch::settings)
    }

    /// The local search of the best vector (or of every vector) after every `period`-th generation (an
    /// extension beyond the paper, see [`local_search`](crate::local_search)), when due after the generation
    /// just completed. A panic of the problem's `evaluate` (which the search calls) is an error.
    fn search_locally(&mut self) -> Result<()> {
        let Some(search) = &self.local_search else {
            return Ok(());
        };
        let state = &mut self.state;
        if !search.settings().is_due(state.generation) {
            return Ok(());
        }
        let (d, generation) = (state.dimension, state.generation);
        let (problem, rng) = (&self.problem, &self.rng);
        let improve = |row: &mut [f32], fitness: &mut f64| {
            if let Some((vector, value)) =
                search.improve_vector(row, *fitness, |x| problem.evaluate(x), rng, generation)
            {
                row.copy_from_slice(&vector);
                *fitness = value;
            }
        };
        match search.settings().scope() {
            Scope::Best => {
                // The best only improves, so it stays the best. The kicks, if any, run on the engine's pool.
                let b = self.best;
                evo_core::catch_problem_panic(problem.name(), || {
                    self.pool.install(|| {
                        improve(
                            &mut state.population[b * d..(b + 1) * d],
                            &mut state.fitness[b],
                        );
                    });
                    Ok(())
                })?;
            }
            Scope::All => {
                // Each vector's search reads and writes only its own row and fitness: the result does not
                // depend on the thread count. Twin: one block per vector of `de_local_search_etc_f32`, then
                // `de_best_index_f64`.
                evo_core::catch_problem_panic(problem.name(), || {
                    self.pool.install(|| {
                        state
                            .population
                            .par_chunks_mut(d)
                            .zip(state.fitness.par_iter_mut())
                            .for_each(|(row, fitness)| improve(row, fitness));
                    });
                    Ok(())
                })?;
                self.best = best_index(&state.fitness);
            }
        }
        Ok(())
    }

    fn evaluate_population(&mut self) -> Result<()> {
        let (problem, state, pool) = (&self.problem, &mut self.state, &self.pool);
        evo_core::catch_problem_panic(problem.name(), || {
            pool.install(|| problem.evaluate_checked(&state.population, &mut state.fitness))
        })?;
        self.best = best_index(&self.state.fitness);
        Ok(())
    }
}

impl<P: DeviceProblem> DeCpu<P> {
    /// Turns on the opt-in local search of ETC schedules (an extension beyond the paper, off by default;
    /// see [`local_search`](crate::local_search)): after every `period`-th generation, best-improvement
    /// moves and swaps on the best vector's schedule (on every vector's with [`Scope::All`]). Twin: [`DeCuda::with_local_search`](crate::DeCuda::with_local_search).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a problem that is not ETC scheduling or one beyond the search's
    /// size limits.
    pub fn with_local_search(mut self, search: LocalSearch) -> Result<Self> {
        self.local_search = Some(ScheduleSearch::for_problem(&self.problem, search)?);
        Ok(self)
    }
}

/// Reading and replacing single slots (an island's migrants; see [`DeIndividual`]).
impl<P: ContinuousProblem> DeCpu<P> {
    /// The fitness of every slot, to minimise.
    ///
    /// # Errors
    /// None on the CPU; the signature is [`DeCuda::population_fitness`](crate::DeCuda::population_fitness)'s.
    pub fn population_fitness(&self) -> Result<Vec<f64>> {
        Ok(self.state.fitness.clone())
    }

    /// The individuals in `slots`, in that order.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a slot not below `M`.
    pub fn individuals(&self, slots: &[usize]) -> Result<Vec<DeIndividual>> {
        let state = &self.state;
        let d = state.dimension;
        slots
            .iter()
            .map(|&slot| {
                check_slot(state.population_size, slot)?;
                Ok(DeIndividual {
                    vector: state.population[slot * d..(slot + 1) * d].to_vec(),
                    fitness: state.fitness[slot],
                    differential_weight: state.differential_weights[slot],
                    crossover_rate: state.crossover_rates[slot],
                })
            })
            .collect()
    }

    /// Puts each individual into its slot and finds the best again: the engine is then as
    /// [`restore`](Engine::restore) of its snapshot with those slots overwritten leaves it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a slot not below `M` or named twice, or an individual that `restore`
    /// would refuse (its dimension, a coordinate outside the bounds, a non-finite fitness, `F_i` outside
    /// [0, 2], `CR_i` outside [0, 1]); nothing is written then.
    pub fn replace_individuals(&mut self, replacements: &[(usize, DeIndividual)]) -> Result<()> {
        check_replacements(self.state.population_size, &self.problem, replacements)?;
        let state = &mut self.state;
        let d = state.dimension;
        for (slot, individual) in replacements {
            state.population[slot * d..(slot + 1) * d].copy_from_slice(&individual.vector);
            state.fitness[*slot] = individual.fitness;
            state.differential_weights[*slot] = individual.differential_weight;
            state.crossover_rates[*slot] = individual.crossover_rate;
        }
        self.best = best_index(&self.state.fitness);
        Ok(())
    }
}

impl<P: ContinuousProblem> Engine for DeCpu<P> {
    type Solution = Vec<f32>;
    type Snapshot = DeSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        snapshot::fingerprint(
            self.seed,
            &self.params,
            &self.problem,
            self.local_search.as_ref().map(ScheduleSearch::settings),
        )
    }

    /// One generation: all trials from the same parents (steps 3.1–3.3), their evaluation, the merge (3.4).
    fn step(&mut self) -> Result<()> {
        let generation = u32::try_from(self.state.generation).map_err(|_| {
            Error::invalid_parameter(
                ALGORITHM,
                "generation",
                self.state.generation,
                "below 2^32 (the Philox step word)",
            )
        })?;
        let d = self.state.dimension;
        let context = TrialContext {
            rng: &self.rng,
            params: &self.params,
            generation,
            population: &self.state.population,
            weights: &self.state.differential_weights,
            rates: &self.state.crossover_rates,
            best: self.best,
            lower: self.problem.bounds().lower(),
            upper: self.problem.bounds().upper(),
        };
        let (trials, weights, rates) = (
            &mut self.trials,
            &mut self.trial_weights,
            &mut self.trial_rates,
        );
        let (problem, trial_fitness) = (&self.problem, &mut self.trial_fitness);
        self.pool.install(|| {
            trials
                .par_chunks_mut(d)
                .zip(weights.par_iter_mut().zip(rates.par_iter_mut()))
                .enumerate()
                .for_each(|(i, (trial, (f, cr)))| (*f, *cr) = context.build(i, trial));
            evo_core::catch_problem_panic(problem.name(), || {
                problem.evaluate_checked(trials, trial_fitness)
            })
        })?;
        let accept_equal = self.params.selection() == Selection::BetterOrEqual;
        let state = &mut self.state;
        for i in 0..state.population_size {
            if trial_wins(self.trial_fitness[i], state.fitness[i], accept_equal) {
                state.population[i * d..(i + 1) * d]
                    .copy_from_slice(&self.trials[i * d..(i + 1) * d]);
                state.fitness[i] = self.trial_fitness[i];
                state.differential_weights[i] = self.trial_weights[i];
                state.crossover_rates[i] = self.trial_rates[i];
            }
        }
        state.generation += 1;
        state.evaluations += state.population_size as u64;
        self.best = best_index(&state.fitness);
        self.search_locally()
    }

    /// Every generation evaluates the population once (local-search evaluations are incremental and not
    /// counted), so the executor can batch exactly up to an evaluation limit.
    fn evaluations_per_step(&self) -> Option<u64> {
        Some(self.state.population_size as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.state.generation,
            evaluations: self.state.evaluations,
            best_fitness: self.state.fitness[self.best],
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        let d = self.state.dimension;
        Ok((
            self.state.population[self.best * d..(self.best + 1) * d].to_vec(),
            self.state.fitness[self.best],
        ))
    }

    fn snapshot(&self) -> Result<DeSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &DeSnapshot) -> Result<()> {
        snapshot.check_values(self.state.population_size, &self.problem)?;
        self.state = snapshot.clone();
        self.best = best_index(&self.state.fitness);
        Ok(())
    }
}
