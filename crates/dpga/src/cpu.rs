//! `DpgaCpu`: the CPU engine (one thread or a rayon pool). Every draw is addressed by (stream, generation,
//! individual), so the result does not depend on the thread count.

use crate::ops::{
    self, Evaluation, adapt_target_distance, cut_points, distance_to_main, evaluate_constraints,
    main_cmp, mean_vector, random_bit, reserve_cmp, reserve_fitness, swaps_bit, tournament,
};
use crate::params::{ALGORITHM, DpgaParams, Initialisation};
use crate::snapshot::DpgaSnapshot;
use evo_core::{Backend, ConstrainedProblem, Engine, Error, Progress, Result, RunFingerprint};
use evo_rng::{Philox, Sequence, Stream};
use rayon::prelude::*;
use std::cmp::Ordering;

/// The DPGA engine on the CPU (spec §2 steps 1–10; the stop of step 10 belongs to the
/// [`Executor`](evo_core::Executor)'s [`Termination`](evo_core::Termination)).
///
/// Random-number addresses (`Philox::new(seed)`, step = generation unless said otherwise):
///
/// | draw | stream | individual |
/// | --- | --- | --- |
/// | initial main candidate `k` (step 0) | `DpgaInit` | `k` (draw number) |
/// | initial reserve member `i` (step 1) | `DpgaInit` | `i` |
/// | parents of main pair `p` | `DpgaTournamentMain` | `p` |
/// | parents of reserve pair `p` | `DpgaTournamentReserve` | `p` |
/// | crossover of main / reserve pair `p` | `DpgaCross` | `p` / `m/2 + p` |
/// | crossover of crossbred pair `k` | `DpgaCrossbreed` | `k` |
/// | mutation of main / reserve / crossbred child `c` | `DpgaMutate` | `c` / `m + c` / `m + n + c` |
///
/// A crossover sequence uses word 0 for the `P_c` decision, words 1–2 for the cut points and words 3… for
/// uniform crossover's bits; a mutation sequence uses word `j` for bit `j`.
pub struct DpgaCpu<P: ConstrainedProblem> {
    params: DpgaParams,
    problem: P,
    /// The run's seed, for the fingerprint and the seed rule of `restore`.
    seed: u64,
    rng: Philox,
    pool: rayon::ThreadPool,
    state: DpgaSnapshot,
}

/// The constants of one generation's breeding.
struct Breeding<'a> {
    rng: &'a Philox,
    generation: u32,
    length: usize,
    crossover: crate::params::Crossover,
    crossover_rate: f32,
    mutation_rate: f32,
}

impl Breeding<'_> {
    /// Crossover with probability `P_c` (else copies), then per-bit flip mutation of both children.
    fn breed(
        &self,
        parents: (&[u8], &[u8]),
        cross: Sequence,
        children: (&mut [u8], &mut [u8]),
        first_child: u32,
    ) {
        let (a, b) = parents;
        let (ca, cb) = children;
        ca.copy_from_slice(a);
        cb.copy_from_slice(b);
        if cross.uniform_f32(0) < self.crossover_rate {
            let cuts = cut_points(self.crossover, self.length, cross.word(1), cross.word(2));
            let uniform = self.crossover == crate::params::Crossover::Uniform;
            for j in 0..self.length {
                // Only uniform crossover reads a word per 32 bits; the cut-point operators need none.
                let word = if uniform {
                    cross.word(3 + (j / 32) as u32)
                } else {
                    0
                };
                if swaps_bit(self.crossover, j, cuts, word) {
                    std::mem::swap(&mut ca[j], &mut cb[j]);
                }
            }
        }
        for (c, child) in [ca, cb].into_iter().enumerate() {
            self.mutate(child, first_child + c as u32);
        }
    }

    fn mutate(&self, child: &mut [u8], index: u32) {
        if self.mutation_rate <= 0.0 {
            return;
        }
        let words = self
            .rng
            .sequence(Stream::DpgaMutate, self.generation, index);
        for (lane, bits) in child.chunks_mut(4).enumerate() {
            let block = words.block(lane as u32);
            for (bit, &w) in bits.iter_mut().zip(&block) {
                if evo_rng::convert::uniform_f32(w) < self.mutation_rate {
                    *bit ^= 1;
                }
            }
        }
    }
}

/// The indices `0..len` in the order `cmp`, cut to `count`.
fn best_indices(len: usize, count: usize, cmp: impl Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_unstable_by(|&a, &b| cmp(a, b));
    order.truncate(count);
    order
}

/// Fills `row` with uniform bits from `words`.
fn random_row(words: Sequence, row: &mut [u8]) {
    for (w, chunk) in row.chunks_mut(32).enumerate() {
        let word = words.word(w as u32);
        for (j, bit) in chunk.iter_mut().enumerate() {
            *bit = random_bit(word, j);
        }
    }
}

impl<P: ConstrainedProblem> DpgaCpu<P> {
    /// A CPU engine on `threads` rayon workers (0: one per core), with M0 and R0 drawn (spec §2 item 2).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for inconsistent parameters or a problem of dimension 0 (or with bounds of
    /// another dimension) and [`Error::ThreadPool`]. A non-finite objective or constraint value is no error: the
    /// point gets [`Evaluation::non_finite`], the worst value under both comparators.
    pub fn new(params: DpgaParams, problem: P, seed: u64, threads: usize) -> Result<Self> {
        params.check_relations()?;
        let dimension = problem.dimension();
        if dimension == 0 || problem.bounds().dimension() != dimension {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "problem dimension",
                format!("{dimension} (bounds of {})", problem.bounds().dimension()),
                "at least 1, equal to the bounds' dimension",
            ));
        }
        let length = dimension * params.bits_per_variable() as usize;
        let pool = evo_core::backend::thread_pool(threads)?;
        let (m, n) = (params.main_size(), params.reserve_size());
        let state = DpgaSnapshot {
            seed,
            generation: 0,
            evaluations: 0,
            length,
            main: Vec::new(),
            main_values: Vec::new(),
            reserve: vec![0; n * length],
            target_distance: params.initial_target_distance(),
            best: vec![0; length],
            best_value: Evaluation {
                objective: f64::INFINITY,
                violation: f64::INFINITY,
                satisfied: 0,
                feasible: false,
            },
            encoding: params.encoding(),
        };
        let mut engine = Self {
            params,
            problem,
            seed,
            rng: Philox::new(seed),
            pool,
            state,
        };
        engine.initialise_main()?;
        let rng = &engine.rng;
        let reserve = &mut engine.state.reserve;
        engine.pool.install(|| {
            reserve
                .par_chunks_mut(length)
                .enumerate()
                .for_each(|(i, row)| random_row(rng.sequence(Stream::DpgaInit, 1, i as u32), row));
        });
        debug_assert_eq!(engine.state.main_values.len(), m);
        engine.update_best();
        Ok(engine)
    }

    /// A CPU engine for a [`Backend::Cpu`].
    ///
    /// # Errors
    /// As [`DpgaCpu::new`]; [`Error::InvalidParameter`] for another backend.
    pub fn for_backend(
        params: DpgaParams,
        problem: P,
        seed: u64,
        backend: Backend,
    ) -> Result<Self> {
        match backend {
            Backend::Cpu { threads } => Self::new(params, problem, seed, threads),
            other => Err(Error::invalid_parameter(
                ALGORITHM,
                "backend of DpgaCpu",
                other,
                "cpu or cpu:<threads> (the CUDA engine is evo_dpga::DpgaCuda)",
            )),
        }
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// The parameters.
    pub fn params(&self) -> &DpgaParams {
        &self.params
    }

    /// The evaluation (objective, violation, satisfied count) of the best individual so far.
    pub fn best_evaluation(&self) -> Evaluation {
        self.state.best_value
    }

    /// The current target distance δ.
    pub fn target_distance(&self) -> f64 {
        self.state.target_distance
    }

    /// The decoded variables of a bit string.
    pub fn decode(&self, bits: &[u8]) -> Vec<f32> {
        let bounds = self.problem.bounds();
        ops::decode(
            bits,
            self.params.bits_per_variable() as usize,
            self.params.encoding(),
            bounds.lower(),
            bounds.upper(),
        )
    }

    /// Decodes and evaluates row-major bit strings in parallel (each row into its own slot).
    fn evaluate_rows(&self, rows: &[u8]) -> Result<Vec<Evaluation>> {
        let problem = &self.problem;
        let tolerance = problem.equality_tolerance();
        evo_core::catch_problem_panic(problem.name(), || {
            Ok(self.pool.install(|| {
                rows.par_chunks(self.state.length)
                    .map(|row| {
                        let x = self.decode(row);
                        let mut inequality = vec![0.0; problem.inequality_count()];
                        let mut equality = vec![0.0; problem.equality_count()];
                        let objective = problem.evaluate(&x, &mut inequality, &mut equality);
                        // A non-finite objective or constraint gives the worst value
                        // (ops::evaluate_constraints).
                        evaluate_constraints(objective, &inequality, &equality, tolerance)
                    })
                    .collect()
            }))
        })
    }

    /// Step 2: M0 = the m best drawn candidates under the comparator, drawing batches of `m` until `m`
    /// feasible ones are among them or `init_max_draws` were drawn (one batch for random init).
    fn initialise_main(&mut self) -> Result<()> {
        let (m, length) = (self.params.main_size(), self.state.length);
        let handling = self.params.constraint_handling();
        let max_draws = match self.params.initialisation() {
            Initialisation::Feasible => self.params.init_max_draws(),
            Initialisation::Random => m as u64,
        };
        let mut kept: Vec<u8> = Vec::new();
        let mut kept_values: Vec<Evaluation> = Vec::new();
        let mut kept_draws: Vec<u64> = Vec::new();
        let mut draws = 0u64;
        while draws < max_draws && kept_values.iter().filter(|v| v.feasible).count() < m {
            let batch = (max_draws - draws).min(m as u64) as usize;
            let mut rows = vec![0u8; batch * length];
            let rng = &self.rng;
            self.pool.install(|| {
                rows.par_chunks_mut(length)
                    .enumerate()
                    .for_each(|(i, row)| {
                        let k = (draws + i as u64) as u32;
                        random_row(rng.sequence(Stream::DpgaInit, 0, k), row);
                    })
            });
            let values = self.evaluate_rows(&rows)?;
            kept.extend_from_slice(&rows);
            kept_values.extend_from_slice(&values);
            kept_draws.extend((0..batch as u64).map(|i| draws + i));
            draws += batch as u64;
            let order = best_indices(kept_values.len(), m, |a, b| {
                main_cmp(
                    handling,
                    (&kept_values[a], kept_draws[a] as usize),
                    (&kept_values[b], kept_draws[b] as usize),
                )
            });
            kept = order
                .iter()
                .flat_map(|&i| kept[i * length..(i + 1) * length].to_vec())
                .collect();
            kept_values = order.iter().map(|&i| kept_values[i]).collect();
            kept_draws = order.iter().map(|&i| kept_draws[i]).collect();
        }
        self.state.main = kept;
        self.state.main_values = kept_values;
        self.state.evaluations = draws;
        Ok(())
    }

    /// Replaces the best-so-far with the best of M when it is strictly better (ties keep the old one).
    fn update_best(&mut self) {
        let handling = self.params.constraint_handling();
        let values = &self.state.main_values;
        let best = best_indices(values.len(), 1, |a, b| {
            main_cmp(handling, (&values[a], a), (&values[b], b))
        })[0];
        if main_cmp(handling, (&values[best], 0), (&self.state.best_value, 1)) == Ordering::Less {
            let length = self.state.length;
            self.state.best_value = values[best];
            self.state.best = self.state.main[best * length..(best + 1) * length].to_vec();
        }
    }

    /// `f_r` of every row against the mean vector `mean` and target distance δ.
    fn reserve_fitness_of(&self, rows: &[u8], mean: &[f64]) -> Vec<f64> {
        let delta = self.state.target_distance;
        rows.chunks(self.state.length)
            .map(|row| reserve_fitness(distance_to_main(row, mean), delta))
            .collect()
    }
}

fn row(rows: &[u8], i: usize, length: usize) -> &[u8] {
    &rows[i * length..(i + 1) * length]
}

impl<P: ConstrainedProblem> Engine for DpgaCpu<P> {
    type Solution = Vec<f32>;
    type Snapshot = DpgaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(self.seed, &self.params, &self.problem)
    }

    /// One generation: spec §2 items 4–9.
    fn step(&mut self) -> Result<()> {
        let generation = u32::try_from(self.state.generation).map_err(|_| {
            Error::invalid_parameter(
                ALGORITHM,
                "generation",
                self.state.generation,
                "below 2^32 (the Philox step word)",
            )
        })?;
        let (m, n, length) = (
            self.params.main_size(),
            self.params.reserve_size(),
            self.state.length,
        );
        let handling = self.params.constraint_handling();
        let k = self.params.tournament_size();
        let breeding = Breeding {
            rng: &self.rng,
            generation,
            length,
            crossover: self.params.crossover(),
            crossover_rate: self.params.crossover_rate(),
            mutation_rate: self.params.mutation_rate(length),
        };
        let mean = mean_vector(&self.state.main, length);
        let reserve_fr = self.reserve_fitness_of(&self.state.reserve, &mean);
        let (main, main_values, reserve) = (
            &self.state.main,
            &self.state.main_values,
            &self.state.reserve,
        );

        // Step 4: inbreeding of M by tournaments under the comparator.
        let mut offspring_main = vec![0u8; m * length];
        let rng = &self.rng;
        self.pool.install(|| {
            offspring_main
                .par_chunks_mut(2 * length)
                .enumerate()
                .for_each(|(p, pair)| {
                    let words = rng.sequence(Stream::DpgaTournamentMain, generation, p as u32);
                    let better = |a: usize, b: usize| {
                        main_cmp(handling, (&main_values[a], a), (&main_values[b], b))
                    };
                    let pa = tournament((0..k as u32).map(|j| words.word(j)), m as u32, better);
                    let pb = tournament(
                        (k as u32..2 * k as u32).map(|j| words.word(j)),
                        m as u32,
                        better,
                    );
                    let (ca, cb) = pair.split_at_mut(length);
                    breeding.breed(
                        (row(main, pa, length), row(main, pb, length)),
                        rng.sequence(Stream::DpgaCross, generation, p as u32),
                        (ca, cb),
                        2 * p as u32,
                    );
                });
        });
        let offspring_main_values = self.evaluate_rows(&offspring_main)?;

        // Step 5: inbreeding of R by tournaments on f_r.
        let mut offspring_reserve = vec![0u8; n * length];
        self.pool.install(|| {
            offspring_reserve
                .par_chunks_mut(2 * length)
                .enumerate()
                .for_each(|(p, pair)| {
                    let words = rng.sequence(Stream::DpgaTournamentReserve, generation, p as u32);
                    let better =
                        |a: usize, b: usize| reserve_cmp((reserve_fr[a], a), (reserve_fr[b], b));
                    let pa = tournament((0..k as u32).map(|j| words.word(j)), n as u32, better);
                    let pb = tournament(
                        (k as u32..2 * k as u32).map(|j| words.word(j)),
                        n as u32,
                        better,
                    );
                    let (ca, cb) = pair.split_at_mut(length);
                    breeding.breed(
                        (row(reserve, pa, length), row(reserve, pb, length)),
                        rng.sequence(Stream::DpgaCross, generation, (m / 2 + p) as u32),
                        (ca, cb),
                        (m + 2 * p) as u32,
                    );
                });
        });
        let offspring_reserve_fr = self.reserve_fitness_of(&offspring_reserve, &mean);

        // Step 6: crossbreeding of the best |C|/2 of O_m with the best |C|/2 of O_r.
        let crossbred_size = self.params.crossbreed_size();
        let half = crossbred_size / 2;
        let best_main = best_indices(m, half, |a, b| {
            main_cmp(
                handling,
                (&offspring_main_values[a], a),
                (&offspring_main_values[b], b),
            )
        });
        let best_reserve = best_indices(n, half, |a, b| {
            reserve_cmp((offspring_reserve_fr[a], a), (offspring_reserve_fr[b], b))
        });
        let mut crossbred = vec![0u8; crossbred_size * length];
        self.pool.install(|| {
            crossbred
                .par_chunks_mut(2 * length)
                .enumerate()
                .for_each(|(p, pair)| {
                    let (ca, cb) = pair.split_at_mut(length);
                    breeding.breed(
                        (
                            row(&offspring_main, best_main[p], length),
                            row(&offspring_reserve, best_reserve[p], length),
                        ),
                        rng.sequence(Stream::DpgaCrossbreed, generation, p as u32),
                        (ca, cb),
                        (m + n + 2 * p) as u32,
                    );
                });
        });
        let crossbred_values = self.evaluate_rows(&crossbred)?;

        // Step 7: M_{t+1} = the e_M best of M_t ∪ the best m − e_M of I_m = O_m ∪ C.
        let main_elites = self.params.main_elites();
        let elites = best_indices(m, main_elites, |a, b| {
            main_cmp(handling, (&main_values[a], a), (&main_values[b], b))
        });
        let candidate_main = |i: usize| -> (&[u8], &Evaluation) {
            if i < m {
                (row(&offspring_main, i, length), &offspring_main_values[i])
            } else {
                (row(&crossbred, i - m, length), &crossbred_values[i - m])
            }
        };
        let chosen = best_indices(m + crossbred_size, m - main_elites, |a, b| {
            main_cmp(handling, (candidate_main(a).1, a), (candidate_main(b).1, b))
        });
        let mut next_main = Vec::with_capacity(m * length);
        let mut next_values = Vec::with_capacity(m);
        for &e in &elites {
            next_main.extend_from_slice(row(main, e, length));
            next_values.push(main_values[e]);
        }
        for &c in &chosen {
            let (bits, value) = candidate_main(c);
            next_main.extend_from_slice(bits);
            next_values.push(*value);
        }
        let crossbred_survivors = chosen.iter().filter(|&&c| c >= m).count();
        let inbred_survivors = chosen.len() - crossbred_survivors;

        // Step 8: R_{t+1} = the e_R best of R_t ∪ the best n − e_R of I_r = O_r ∪ C, by f_r against M_{t+1}.
        let next_mean = mean_vector(&next_main, length);
        let reserve_fr = self.reserve_fitness_of(reserve, &next_mean);
        let offspring_reserve_fr = self.reserve_fitness_of(&offspring_reserve, &next_mean);
        let crossbred_fr = self.reserve_fitness_of(&crossbred, &next_mean);
        let reserve_elites = best_indices(n, self.params.reserve_elites(), |a, b| {
            reserve_cmp((reserve_fr[a], a), (reserve_fr[b], b))
        });
        let candidate_reserve = |i: usize| -> (&[u8], f64) {
            if i < n {
                (row(&offspring_reserve, i, length), offspring_reserve_fr[i])
            } else {
                (row(&crossbred, i - n, length), crossbred_fr[i - n])
            }
        };
        let chosen_reserve = best_indices(n + crossbred_size, n - reserve_elites.len(), |a, b| {
            reserve_cmp((candidate_reserve(a).1, a), (candidate_reserve(b).1, b))
        });
        let mut next_reserve = Vec::with_capacity(n * length);
        for &e in &reserve_elites {
            next_reserve.extend_from_slice(row(reserve, e, length));
        }
        for &c in &chosen_reserve {
            next_reserve.extend_from_slice(candidate_reserve(c).0);
        }

        // Step 9: δ adaptation (skipped when there are no crossbred children to compare with).
        if crossbred_size > 0 {
            self.state.target_distance = adapt_target_distance(
                self.state.target_distance,
                self.params.distance_learning_rate(),
                crossbred_survivors as f64 / crossbred_size as f64,
                inbred_survivors as f64 / m as f64,
                self.params.target_distance_range(),
            );
        }
        self.state.main = next_main;
        self.state.main_values = next_values;
        self.state.reserve = next_reserve;
        self.state.generation += 1;
        self.state.evaluations += (m + crossbred_size) as u64;
        self.update_best();
        Ok(())
    }

    /// The best fitness is the best-so-far's objective when it is feasible and `+inf` until a feasible point
    /// is found (an infeasible objective is no achievement).
    fn progress(&self) -> Progress {
        let best = &self.state.best_value;
        Progress {
            generation: self.state.generation,
            evaluations: self.state.evaluations,
            best_fitness: if best.feasible {
                best.objective
            } else {
                f64::INFINITY
            },
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        Ok((self.decode(&self.state.best), self.progress().best_fitness))
    }

    fn snapshot(&self) -> Result<DpgaSnapshot> {
        Ok(self.state.clone())
    }

    fn restore(&mut self, snapshot: &DpgaSnapshot) -> Result<()> {
        snapshot.check_shape(
            self.params.main_size(),
            self.params.reserve_size(),
            self.state.length,
            self.params.encoding(),
        )?;
        snapshot.check_values(self.seed, self.params.main_size())?;
        self.state = snapshot.clone();
        Ok(())
    }
}
