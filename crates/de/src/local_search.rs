//! An opt-in memetic step for ETC scheduling, **an extension beyond the paper** (off by default, so the
//! paper-faithful runs are unchanged): every `period` generations, a best-improvement local search on the
//! schedule of the population's best vector.
//!
//! Steps (the CUDA twin `de_local_search_etc_f32` in `kernels/cuda/de_local_search.cuh` follows them in the
//! same order; step 4 only with kicks or iterations, step 5 only with iterations):
//!
//! 1. Decode the best vector to its schedule `s_t` with the truncation encoding
//!    ([`EtcProblem::machine_of`]), and compute the machine loads `L_j` and the flowtime `F` with the
//!    canonical pairwise trees of the fitness (so they start equal to the evaluation's).
//! 2. Up to `max_moves` times: evaluate every candidate's exact new fitness `λ·makespan + (1 − λ)·F/m` from
//!    the current loads —
//!    - every single-task move `t → j` (`j ≠ s_t`), candidate index `t·m + j`;
//!    - every swap of a task `a` on the makespan machine `p` (the largest load, ties to the lower machine)
//!      with a task `b` on another machine, candidate index `n·m + a·n + b` ([`Neighbourhood::MakespanMachine`],
//!      the default); with [`Neighbourhood::AnyPair`] every swap of two tasks `a < b` on different machines
//!      instead, candidate index `n·m + a·n + b`;
//!
//!    the new makespan is the largest of the two changed loads and the largest other load (from the three
//!    largest loads), `L_from − ETC[t][from]`, `L_to + ETC[t][to]` and `F + (ETC[t][to] − ETC[t][from])`
//!    in this order of operations ([`move_effect`], [`swap_effect`]). The best candidate (value by
//!    `total_cmp`, then the lower index) is applied to the loads, the flowtime and the schedule only if it
//!    is strictly better than the current value; otherwise the search stops. With
//!    [`Neighbourhood::AnyPair`] the candidates are ranked by value, then new flowtime (`total_cmp`), then
//!    index, and the best is applied when (value, flowtime) is lexicographically below the current pair:
//!    under the makespan alone, moves and swaps that keep the maximum but lower the total work count as
//!    progress (each accepted candidate lowers the pair, so the descent cannot cycle). With
//!    [`Neighbourhood::Balance`] the candidates are those of [`Neighbourhood::AnyPair`], and the second key
//!    is the change of the sum of squared loads of the two changed machines ([`squares_change`]), the
//!    current schedule's being 0: candidates that keep the fitness and even the loads count as progress.
//!    [`Neighbourhood::MakespanBalance`] ranks and accepts the same way among the candidates of
//!    [`Neighbourhood::MakespanMachine`].
//! 3. If anything moved: the tasks whose machine changed get the centre `s_t + 0.5` of their machine's
//!    interval, the vector is evaluated with the problem's own fitness, and it replaces the best vector (and
//!    its fitness) only when strictly better than before. The loads of step 2 are updated incrementally, so
//!    they may differ from the exact sums in the last bits; the stored fitness is always the evaluation's.
//! 4. With kicks ([`LocalSearch::with_kicks`], `K` kicks of `k` moves; off by default, an iterated local
//!    search): let `S₀` be the schedule after step 2 (a local optimum of the neighbourhood unless the move
//!    cap stopped it). Kick `r` (`r = 0 … K − 1`) copies `S₀`, applies `k` random task moves ([`kick`]: move
//!    `j` takes task `t = below(w_2j, n)` to machine `q = below(w_2j+1, m − 1)`, `q + 1` when `q ≥ s_t`, so
//!    the task always changes machine) and searches the copy with step 2. The words `w` are those of the
//!    Philox address (`DeInit`, step = the generation after which the search runs, individual = `r`)
//!    ([`kick_words`]); `DeInit` draws the initial population at step 0 only and searches run after
//!    generation `g ≥ 1`, so no other draw reads them, and both engines draw the same numbers. The `K + 1`
//!    candidates (`S₀` as candidate 0, kick `r` as candidate `r + 1`) are valued exactly
//!    ([`ScheduleSearch::schedule_value`], the evaluation's trees); the lowest (value by `total_cmp`, then
//!    the lower candidate) goes through step 3 in place of `S₀`, so it replaces the vector only when
//!    strictly better than its fitness. The kicks accept no worse schedule: each search restarts from the
//!    current best, which the DE generations in between may also have improved. On the GPU the kicked
//!    search is two launches of `de_local_search_etc_f32`: `K + 1` blocks (block `r` searches `S₀`, the
//!    same in every block, then kick `r − 1` for `r ≥ 1`) write their candidates to a scratch buffer, and one
//!    block picks the winner and writes it; the CPU runs the kicks on the engine's rayon pool, each from
//!    `S₀` and its own words, so neither result depends on the thread count. Kicks need [`Scope::Best`] and
//!    at least two machines. With iterations and no kicks, `K = 0`: the one candidate is `S₀`.
//! 5. With iterations ([`LocalSearch::with_iterations`], `I` iterations of `k'` moves; off by default), every
//!    candidate `c` of step 4, once searched, is improved further before it is valued: `I` times, a copy of
//!    the candidate gets `k'` random task moves ([`kick`], iteration `i` with the words of the individual
//!    `K + i·(K + 1) + c` of (`DeInit`, step), [`iteration_individual`], which no kick reads), is searched
//!    with step 2, and replaces the candidate when its exact value is not worse (`total_cmp` not greater),
//!    so the chain drifts across equal makespans. The candidate's value is its last kept exact value. On the
//!    GPU the iterations run inside each candidate's block of the kicks launch.
//!
//! With [`Scope::Best`] (the default) the search improves the best vector only; it stays the best (its
//! fitness only decreases), so the best index is unchanged. With [`Scope::All`] every vector is searched,
//! each independently from its own schedule and fitness (the same steps; on the GPU one block per vector in
//! one launch), each replaced only when strictly better; the best index is then recomputed over the whole
//! population (value by `total_cmp`, then the lower index, as after a generation). The search
//! keeps no state: the generation counter says when it runs (after generation `g` when `g` is a multiple of
//! the period), so snapshots, checkpoints and cross-backend restores work as without it. Its candidate
//! evaluations are incremental (O(1) each) and are not counted in the engine's `evaluations`, which counts
//! DE's trials.

use crate::params::ALGORITHM;
use evo_benchmarks::scheduling::EtcProblem;
use evo_core::reduce::pairwise_sum_by;
use evo_core::{Error, Result};
use evo_rng::Philox;
use rayon::prelude::*;

#[path = "local_search_ops.rs"]
mod ops;
#[path = "local_search_settings.rs"]
mod settings;

pub use ops::{
    Effect, candidate_value, iteration_individual, kick, kick_step, kick_words, larger,
    largest_other, ls_fitness, move_effect, squares_change, swap_effect, top_three,
};
pub use settings::{
    LocalSearch, MAX_ITERATIONS, MAX_KICK_MOVES, MAX_KICKS, MAX_MACHINES, MAX_TASKS, Neighbourhood,
    Scope,
};

/// The local search of an [`EtcProblem`] (see the module docs).
#[derive(Clone, Debug)]
pub struct ScheduleSearch {
    problem: EtcProblem,
    settings: LocalSearch,
}

/// A candidate of one round of the descent: its value, its second ranking key
/// ([`ScheduleSearch::secondary`]) and its index.
#[derive(Clone, Copy)]
struct Candidate {
    value: f64,
    secondary: f64,
    index: u64,
}

impl Candidate {
    /// Whether `self` ranks before `other`: value, then secondary key (`total_cmp`), then the lower index.
    /// Twin: `de_ls_keep`.
    fn ranks_before(&self, other: &Candidate) -> bool {
        self.value
            .total_cmp(&other.value)
            .then(self.secondary.total_cmp(&other.secondary))
            .then(self.index.cmp(&other.index))
            .is_lt()
    }

    /// Whether applying `self` improves on the state valued `current`: (value, secondary key)
    /// lexicographically lower.
    fn improves_on(&self, current: &Candidate) -> bool {
        self.value
            .total_cmp(&current.value)
            .then(self.secondary.total_cmp(&current.secondary))
            .is_lt()
    }
}

/// The loads, flowtime and schedule the search improves.
struct State {
    schedule: Vec<u32>,
    loads: Vec<f64>,
    flowtime: f64,
}

impl ScheduleSearch {
    /// The search `settings` on `problem`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for more than [`MAX_TASKS`] tasks or [`MAX_MACHINES`] machines, or kicks
    /// or iterations with [`Scope::All`] or on one machine.
    pub fn new(problem: &EtcProblem, settings: LocalSearch) -> Result<Self> {
        let instance = problem.instance();
        if instance.tasks() > MAX_TASKS {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search task count",
                instance.tasks(),
                format!("at most {MAX_TASKS}"),
            ));
        }
        if instance.machines() > MAX_MACHINES {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search machine count",
                instance.machines(),
                format!("at most {MAX_MACHINES}"),
            ));
        }
        if settings.restarts() && settings.scope() != Scope::Best {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kicks and iterations",
                format!(
                    "{} kicks, {} iterations",
                    settings.kicks(),
                    settings.iterations()
                ),
                "none unless the scope is the best vector (Scope::Best)",
            ));
        }
        if settings.restarts() && instance.machines() < 2 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search machine count with kicks or iterations",
                instance.machines(),
                "at least 2 (a kick moves tasks to another machine)",
            ));
        }
        Ok(Self {
            problem: problem.clone(),
            settings,
        })
    }

    /// The search `settings` on an engine's problem: refused unless it is an ETC scheduling problem
    /// ([`DeviceProblem::scheduling`](crate::DeviceProblem::scheduling)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the problem when it is not ETC scheduling; as [`ScheduleSearch::new`].
    pub fn for_problem<P: crate::DeviceProblem>(
        problem: &P,
        settings: LocalSearch,
    ) -> Result<Self> {
        match problem.scheduling() {
            Some(etc) => Self::new(etc, settings),
            None => Err(Error::invalid_parameter(
                ALGORITHM,
                "local search problem",
                problem.name(),
                "an ETC scheduling problem (EtcProblem); the local search works on schedules",
            )),
        }
    }

    /// The settings.
    pub fn settings(&self) -> LocalSearch {
        self.settings
    }

    /// The problem.
    pub fn problem(&self) -> &EtcProblem {
        &self.problem
    }

    fn time(&self, task: usize, machine: u32) -> f64 {
        let m = self.problem.instance().machines();
        f64::from(self.problem.instance().etc()[task * m + machine as usize])
    }

    /// The effect of moving task `t` from its machine to `to` (the same operations when valued and applied).
    fn move_of(&self, state: &State, t: usize, to: u32) -> Effect {
        let from = state.schedule[t];
        let loads = [state.loads[from as usize], state.loads[to as usize]];
        let times = [self.time(t, from), self.time(t, to)];
        move_effect(loads, times, state.flowtime)
    }

    /// The effect of swapping tasks `a` and `b` between their machines (valued and applied alike).
    fn swap_of(&self, state: &State, a: usize, b: usize) -> Effect {
        let (p, k) = (state.schedule[a], state.schedule[b]);
        swap_effect(
            [state.loads[p as usize], state.loads[k as usize]],
            [
                self.time(a, p),
                self.time(a, k),
                self.time(b, p),
                self.time(b, k),
            ],
            state.flowtime,
        )
    }

    /// Step 2 on `schedule` (every entry below `m`): applies at most `max_moves` strictly improving moves
    /// or swaps in place and returns how many it applied.
    pub fn improve(&self, schedule: &mut [u32]) -> u32 {
        let instance = self.problem.instance();
        let (n, m) = (instance.tasks(), instance.machines() as u32);
        let lambda = self.problem.lambda();
        let flowtime = pairwise_sum_by(n, |t| self.time(t, schedule[t]));
        let mut state = State {
            loads: instance.loads(schedule),
            schedule: schedule.to_vec(),
            flowtime,
        };
        let mut applied = 0;
        while applied < self.settings.max_moves() {
            let top = top_three(&state.loads);
            let longest = state.loads.iter().fold(0.0, |a, &b| larger(a, b));
            let current = Candidate {
                value: ls_fitness(lambda, longest, state.flowtime, m),
                secondary: self.current_secondary(state.flowtime),
                index: u64::MAX,
            };
            let Some(best) = self.best_candidate(&state, &top) else {
                break;
            };
            if !best.improves_on(&current) {
                break;
            }
            self.apply(&mut state, best.index);
            applied += 1;
        }
        schedule.copy_from_slice(&state.schedule);
        applied
    }

    /// The second ranking key of a candidate that takes two machines from `loads` to the loads and
    /// flowtime of `effect`: the new flowtime with [`Neighbourhood::AnyPair`], the change of the sum of
    /// squared loads ([`squares_change`]) with [`Neighbourhood::Balance`] and
    /// [`Neighbourhood::MakespanBalance`], 0 (the same for every candidate) otherwise. Twin: `de_ls_secondary`.
    fn secondary(&self, loads: [f64; 2], effect: Effect) -> f64 {
        match self.settings.neighbourhood() {
            Neighbourhood::MakespanMachine => 0.0,
            Neighbourhood::AnyPair => effect.flowtime,
            Neighbourhood::Balance | Neighbourhood::MakespanBalance => {
                squares_change(loads, effect)
            }
        }
    }

    /// The second key of the current schedule of flowtime `flowtime`, which a candidate's must be below
    /// when their values tie: the flowtime with [`Neighbourhood::AnyPair`], 0 otherwise (no change of the
    /// sum of squares). Twin: `sh.current2` of `de_ls_improve`.
    fn current_secondary(&self, flowtime: f64) -> f64 {
        match self.settings.neighbourhood() {
            Neighbourhood::AnyPair => flowtime,
            Neighbourhood::MakespanMachine
            | Neighbourhood::Balance
            | Neighbourhood::MakespanBalance => 0.0,
        }
    }

    /// The best candidate (value, then secondary key, then lower index), `None` when there is none (one
    /// machine).
    fn best_candidate(&self, state: &State, top: &[(f64, u32); 3]) -> Option<Candidate> {
        let instance = self.problem.instance();
        let (n, m) = (instance.tasks(), instance.machines() as u32);
        let lambda = self.problem.lambda();
        let mut best: Option<Candidate> = None;
        let mut keep = |changed: [u32; 2], effect: Effect, index: u64| {
            let loads = changed.map(|k| state.loads[k as usize]);
            let candidate = Candidate {
                value: candidate_value(lambda, m, top, changed, effect),
                secondary: self.secondary(loads, effect),
                index,
            };
            if best.is_none_or(|b| candidate.ranks_before(&b)) {
                best = Some(candidate);
            }
        };
        for (t, &from) in state.schedule.iter().enumerate() {
            for to in (0..m).filter(|&to| to != from) {
                let effect = self.move_of(state, t, to);
                keep([from, to], effect, t as u64 * u64::from(m) + u64::from(to));
            }
        }
        let moves = n as u64 * u64::from(m);
        if !self.settings.neighbourhood().any_pair() {
            let p = top[0].1;
            for (a, _) in state.schedule.iter().enumerate().filter(|&(_, &s)| s == p) {
                for (b, &k) in state.schedule.iter().enumerate().filter(|&(_, &s)| s != p) {
                    let effect = self.swap_of(state, a, b);
                    keep([p, k], effect, moves + a as u64 * n as u64 + b as u64);
                }
            }
        } else {
            for (a, &p) in state.schedule.iter().enumerate() {
                for (b, &k) in state.schedule.iter().enumerate().skip(a + 1) {
                    if k != p {
                        let effect = self.swap_of(state, a, b);
                        keep([p, k], effect, moves + a as u64 * n as u64 + b as u64);
                    }
                }
            }
        }
        best
    }

    /// Applies candidate `index` with the same operations that valued it.
    fn apply(&self, state: &mut State, index: u64) {
        let (n, m) = (
            self.problem.instance().tasks() as u64,
            self.problem.instance().machines() as u64,
        );
        if index < n * m {
            let (t, to) = ((index / m) as usize, (index % m) as u32);
            let from = state.schedule[t];
            let effect = self.move_of(state, t, to);
            state.loads[from as usize] = effect.first;
            state.loads[to as usize] = effect.second;
            state.flowtime = effect.flowtime;
            state.schedule[t] = to;
        } else {
            let q = index - n * m;
            let (a, b) = ((q / n) as usize, (q % n) as usize);
            let (p, k) = (state.schedule[a], state.schedule[b]);
            let effect = self.swap_of(state, a, b);
            state.loads[p as usize] = effect.first;
            state.loads[k as usize] = effect.second;
            state.flowtime = effect.flowtime;
            state.schedule[a] = k;
            state.schedule[b] = p;
        }
    }

    /// The exact fitness of `schedule`, with the evaluation's trees ([`EtcProblem`]'s fitness of any
    /// vector that decodes to it). Twin: step 3 of `de_local_search_etc_f32`, `de_ls_exact_value`.
    pub fn schedule_value(&self, schedule: &[u32]) -> f64 {
        let instance = self.problem.instance();
        instance
            .objectives_unchecked(schedule)
            .fitness(self.problem.lambda(), instance.machines())
    }

    /// Step 5 on candidate `candidate` (`schedule`, searched) of the search with Philox step word `step`:
    /// the iterations in place, and the candidate's exact value.
    fn iterate(&self, schedule: &mut Vec<u32>, rng: &Philox, step: u32, candidate: u32) -> f64 {
        let machines = self.problem.instance().machines() as u32;
        let mut value = self.schedule_value(schedule);
        for i in 0..self.settings.iterations() {
            let mut trial = schedule.clone();
            let individual = iteration_individual(self.settings.kicks(), i, candidate);
            kick(
                &mut trial,
                machines,
                &kick_words(rng, step, individual),
                self.settings.iteration_moves(),
            );
            self.improve(&mut trial);
            let trial_value = self.schedule_value(&trial);
            // Not worse: equal values are kept, so the chain can cross a plateau of the makespan.
            if !trial_value.total_cmp(&value).is_gt() {
                *schedule = trial;
                value = trial_value;
            }
        }
        value
    }

    /// Steps 4–5 on the searched schedule `searched` of the search after generation `generation`: every
    /// candidate (candidate 0 `searched`, candidate `r + 1` kick `r` searched), iterated, with its exact
    /// value.
    fn candidates(&self, searched: &[u32], rng: &Philox, generation: u64) -> Vec<(Vec<u32>, f64)> {
        let (step, machines) = (
            kick_step(generation),
            self.problem.instance().machines() as u32,
        );
        // Each candidate reads only the searched schedule and its own words: the result does not depend on
        // the thread count. Twin: one block per candidate of `de_local_search_etc_f32`'s kicks phase.
        (0..=self.settings.kicks())
            .into_par_iter()
            .map(|c| {
                let mut schedule = searched.to_vec();
                if c > 0 {
                    kick(
                        &mut schedule,
                        machines,
                        &kick_words(rng, step, c - 1),
                        self.settings.kick_moves(),
                    );
                    self.improve(&mut schedule);
                }
                let value = self.iterate(&mut schedule, rng, step, c);
                (schedule, value)
            })
            .collect()
    }

    /// Steps 1–5 on `vector` of fitness `fitness`, searched after generation `generation` of the run of
    /// `rng` (the kicks' random words): the improved vector and its fitness by `evaluate` (the engine's
    /// evaluation of the problem), or `None` when nothing moved or the evaluation is not strictly better.
    /// Twin: `de_local_search_etc_f32` (with kicks or iterations its kicks phase, `K + 1` blocks, then its
    /// pick phase).
    pub fn improve_vector(
        &self,
        vector: &[f32],
        fitness: f64,
        evaluate: impl Fn(&[f32]) -> f64,
        rng: &Philox,
        generation: u64,
    ) -> Option<(Vec<f32>, f64)> {
        let decoded = self.problem.schedule_of(vector);
        let mut schedule = decoded.clone();
        self.improve(&mut schedule);
        if self.settings.restarts() {
            // Step 4: the searched schedule is candidate 0, kick k candidate k + 1; the lowest value wins,
            // ties to the lower candidate.
            let mut best: Option<(Vec<u32>, f64)> = None;
            for (candidate, value) in self.candidates(&schedule, rng, generation) {
                if best
                    .as_ref()
                    .is_none_or(|(_, b)| value.total_cmp(b).is_lt())
                {
                    best = Some((candidate, value));
                }
            }
            if let Some((winner, _)) = best {
                schedule = winner;
            }
        }
        if schedule == decoded {
            return None;
        }
        let improved: Vec<f32> = vector
            .iter()
            .zip(&schedule)
            .map(|(&x, &s)| {
                if self.problem.machine_of(x) == s {
                    x
                } else {
                    s as f32 + 0.5
                }
            })
            .collect();
        let value = evaluate(&improved);
        value
            .total_cmp(&fitness)
            .is_lt()
            .then_some((improved, value))
    }
}

#[cfg(test)]
#[path = "local_search_tests.rs"]
mod tests;
