//! [`GaCpu`]: the GA on the CPU, one generation per [`Engine::step`], parallel over individuals with rayon
//! (one thread is the paper's CPU baseline). Step numbers refer to the crate docs.

use evo_core::{BinaryProblem, Bits, Engine, Error, Progress, Result, RunFingerprint};
use evo_rng::Philox;
use rayon::prelude::*;

use crate::ops;
pub use crate::params::ALGORITHM;
use crate::params::{COMPONENT, GaParams, GaRng};
use crate::snapshot::{self, GaSnapshot};

/// The GA on the CPU over any [`BinaryProblem`].
pub struct GaCpu<P: BinaryProblem> {
    problem: P,
    params: GaParams,
    /// The run's seed, for the fingerprint (the generator keeps only the derived key).
    seed: u64,
    rng: Philox,
    mutation_rate: f32,
    pool: Option<rayon::ThreadPool>,
    state: GaSnapshot,
}

/// The draws of one generation, shared by the CPU steps (the kernels receive the same numbers).
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    pub population: usize,
    pub words: usize,
    pub bits: u32,
}

impl<P: BinaryProblem + Send> GaCpu<P> {
    /// Builds the engine and evaluates the random initial population (steps 0–2) on the current rayon pool.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the problem has fewer than 2 bits; a non-finite fitness.
    pub fn new(params: GaParams, problem: P, seed: u64) -> Result<Self> {
        Self::build(params, problem, seed, None)
    }

    /// As [`new`](Self::new), on a pool of `threads` threads (0: one per core; 1: the paper's baseline).
    ///
    /// # Errors
    /// As [`new`](Self::new); [`Error::ThreadPool`] when the threads cannot start.
    pub fn with_threads(params: GaParams, problem: P, seed: u64, threads: usize) -> Result<Self> {
        let pool = evo_core::backend::thread_pool(threads)?;
        Self::build(params, problem, seed, Some(pool))
    }

    fn build(
        params: GaParams,
        problem: P,
        seed: u64,
        pool: Option<rayon::ThreadPool>,
    ) -> Result<Self> {
        let bits = problem.bit_count();
        params.check_problem(bits)?;
        let mutation_rate = params.mutation_rate(bits) as f32;
        let rng = Philox::new(seed);
        let (params_rng, rng_for_seeds) = (params.rng(), rng.clone());
        let shape = Shape {
            population: params.population(),
            words: Bits::word_count(bits),
            bits: bits as u32,
        };
        let mut engine = Self {
            problem,
            params,
            seed,
            rng,
            mutation_rate,
            pool,
            state: GaSnapshot {
                generation: 0,
                evaluations: 0,
                bits,
                population: Vec::new(),
                fitness: Vec::new(),
                best: vec![0; shape.words],
                best_fitness: f64::INFINITY,
                xor128: match params_rng {
                    GaRng::Philox => Vec::new(),
                    GaRng::PaperXor128 { threads } => (0..threads)
                        .map(|t| ops::xor128_seed(&rng_for_seeds, t))
                        .collect(),
                },
            },
        };
        engine.in_pool(|engine| engine.initialise(shape))?;
        Ok(engine)
    }

    fn in_pool<R: Send>(&mut self, work: impl FnOnce(&mut Self) -> R + Send) -> R {
        match self.pool.take() {
            Some(pool) => {
                let result = pool.install(|| work(self));
                self.pool = Some(pool);
                result
            }
            None => work(self),
        }
    }

    fn shape(&self) -> Shape {
        Shape {
            population: self.params.population(),
            words: self.state.words(),
            bits: self.state.bits as u32,
        }
    }

    /// Steps 1–2 on the initial population, then the sort (step 3).
    fn initialise(&mut self, shape: Shape) -> Result<()> {
        let rng = &self.rng;
        let mut population = vec![0u32; shape.population * shape.words];
        population
            .par_chunks_mut(shape.words)
            .enumerate()
            .for_each(|(i, row)| {
                for (j, word) in row.iter_mut().enumerate() {
                    *word = ops::init_word(rng, i as u32, j as u32, shape.bits);
                }
            });
        let mut fitness = vec![0.0; shape.population];
        evo_core::catch_problem_panic(self.problem.name(), || {
            self.problem.evaluate_checked(&population, &mut fitness)
        })?;
        self.state.evaluations = shape.population as u64;
        self.sort_and_record(population, fitness, shape)
    }

    /// Step 3 (sort, best first) and step 8 (best so far).
    fn sort_and_record(
        &mut self,
        population: Vec<u32>,
        fitness: Vec<f64>,
        shape: Shape,
    ) -> Result<()> {
        let sorted = evo_sort::cpu::sort_population(&fitness)?;
        self.state.population = evo_sort::cpu::exchange_rows(
            &population,
            &sorted.order,
            shape.words,
            shape.population,
        )?;
        self.state.fitness = sorted.sorted;
        if self.state.fitness[0] < self.state.best_fitness {
            self.state.best_fitness = self.state.fitness[0];
            self.state
                .best
                .copy_from_slice(&self.state.population[..shape.words]);
        }
        Ok(())
    }

    /// Steps 4–7 and the evaluation of the offspring.
    fn generation(&mut self) -> Result<()> {
        let shape = self.shape();
        let step = u32::try_from(self.state.generation + 1).map_err(|_| {
            Error::invalid_parameter(
                COMPONENT,
                "generation",
                self.state.generation + 1,
                format!("at most {} (the RNG step is 32 bits)", u32::MAX),
            )
        })?;
        let (n, w) = (shape.population, shape.words);
        let tournament_size = self.params.tournament_size() as u32;
        let crossover_rate = self.params.crossover_rate() as f32;
        let mutation_rate = self.mutation_rate;

        // Step 1 (paper RNG mode only): this generation's array of random words.
        let paper = match self.params.rng() {
            GaRng::Philox => None,
            GaRng::PaperXor128 { .. } => {
                let mut array = vec![0u32; self.params.paper_array_len(shape.bits as usize)];
                ops::xor128_fill(&mut self.state.xor128, &mut array);
                Some(array)
            }
        };
        let rng = &self.rng;
        let sorted = &self.state.population;
        let l = shape.bits as usize;
        let k = tournament_size as usize;
        let (tournament_words, crossover_words) = (n * l, n * l + k * n);

        // Steps 4 (tournament) and 5 (copy of the champions).
        let mut next = vec![0u32; n * w];
        next.par_chunks_mut(w).enumerate().for_each(|(slot, row)| {
            let champion = match &paper {
                None => ops::tournament(rng, step, slot as u32, n as u32, tournament_size),
                Some(array) => {
                    let first = tournament_words + k * slot;
                    ops::tournament_from_words(&array[first..first + k], n as u32)
                }
            } as usize;
            row.copy_from_slice(&sorted[champion * w..(champion + 1) * w]);
        });

        // Step 6: one-point crossover of the pairs (2k, 2k + 1); an odd last individual has no partner.
        next.par_chunks_exact_mut(2 * w)
            .enumerate()
            .for_each(|(pair, rows)| {
                let point = match &paper {
                    None => {
                        ops::crossover_point(rng, step, pair as u32, shape.bits, crossover_rate)
                    }
                    Some(array) => Some(ops::crossover_point_from_word(
                        array[crossover_words + pair],
                        shape.bits,
                    )),
                };
                if let Some(c) = point {
                    let (first, second) = rows.split_at_mut(w);
                    for (j, (a, b)) in first.iter_mut().zip(second.iter_mut()).enumerate() {
                        (*a, *b) = ops::crossover_word(*a, *b, j as u32, c);
                    }
                }
            });

        // Step 7: bit mutation.
        if mutation_rate > 0.0 {
            next.par_chunks_mut(w).enumerate().for_each(|(i, row)| {
                for (j, word) in row.iter_mut().enumerate() {
                    *word ^= match &paper {
                        None => ops::mutation_mask(
                            rng,
                            step,
                            i as u32,
                            j as u32,
                            shape.bits,
                            mutation_rate,
                        ),
                        Some(array) => {
                            let first = i * l + 32 * j;
                            let last = (first + 32).min((i + 1) * l);
                            ops::mutation_mask_from_words(
                                &array[first..last],
                                j as u32,
                                shape.bits,
                                mutation_rate,
                            )
                        }
                    };
                }
            });
        }

        // Elitism: rows 0..e are the current best e, unchanged; their fitness is kept, not recomputed.
        let elite = self.params.elite();
        next[..elite * w].copy_from_slice(&sorted[..elite * w]);
        let mut fitness = vec![0.0; n];
        fitness[..elite].copy_from_slice(&self.state.fitness[..elite]);
        evo_core::catch_problem_panic(self.problem.name(), || {
            self.problem
                .evaluate_checked(&next[elite * w..], &mut fitness[elite..])
        })?;
        self.state.evaluations += (n - elite) as u64;
        self.state.generation += 1;
        self.sort_and_record(next, fitness, shape)
    }

    /// The parameters.
    pub fn params(&self) -> &GaParams {
        &self.params
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }
}

impl<P: BinaryProblem + Send> Engine for GaCpu<P> {
    type Solution = Bits;
    type Snapshot = GaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        snapshot::fingerprint(
            self.seed,
            &self.params,
            snapshot::problem_identity(&self.problem),
        )
    }

    fn step(&mut self) -> Result<()> {
        self.in_pool(|engine| engine.generation())
    }

    /// The non-elite rows are evaluated every generation.
    fn evaluations_per_step(&self) -> Option<u64> {
        Some((self.params.population() - self.params.elite()) as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.state.generation,
            evaluations: self.state.evaluations,
            best_fitness: self.state.best_fitness,
        }
    }

    fn best(&self) -> Result<(Bits, f64)> {
        Ok((
            Bits::from_words(self.state.best.clone(), self.state.bits)?,
            self.state.best_fitness,
        ))
    }

    fn snapshot(&self) -> Result<GaSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &GaSnapshot) -> Result<()> {
        snapshot.check_values(&self.params, self.state.bits, self.state.xor128.len())?;
        self.state = snapshot.clone();
        Ok(())
    }
}
