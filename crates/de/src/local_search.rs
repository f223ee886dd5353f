//! An opt-in memetic step for ETC scheduling, **an extension beyond the paper** (off by default, so the
//! paper-faithful runs are unchanged): every `period` generations, a best-improvement local search on the
//! schedule of the population's best vector.
//!
//! Steps (the CUDA twin `de_local_search_etc_f32` in `kernels/cuda/de.cu` follows them in the same order;
//! step 4 only with kicks):
//!
//! 1. Decode the best vector to its schedule `s_t` with the truncation encoding
//!    ([`EtcProblem::machine_of`]), and compute the machine loads `L_j` and the flowtime `F` with the
//!    canonical pairwise trees of the fitness (so they start equal to the evaluation's).
//! 2. Up to `max_moves` times: evaluate every candidate's exact new fitness `λ·makespan + (1 − λ)·F/m` from
//!    the current loads —
//!    - every single-task move `t → j` (`j ≠ s_t`), candidate index `t·m + j`;
//!    - every swap of a task `a` on the makespan machine `p` (the largest load, ties to the lower machine)
//!      with a task `b` on another machine, candidate index `n·m + a·n + b`;
//!
//!    the new makespan is the largest of the two changed loads and the largest other load (from the three
//!    largest loads), `L_from − ETC[t][from]`, `L_to + ETC[t][to]` and `F + (ETC[t][to] − ETC[t][from])`
//!    in this order of operations ([`move_effect`], [`swap_effect`]). The best candidate (value by
//!    `total_cmp`, then the lower index) is applied to the loads, the flowtime and the schedule only if it
//!    is strictly better than the current value; otherwise the search stops.
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
//!    at least two machines.
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
use evo_rng::{Philox, Sequence, Stream};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The most tasks the local search accepts (the CUDA kernel keeps the schedule in shared memory).
pub const MAX_TASKS: usize = 4096;
/// The most machines the local search accepts (one byte per task in the kernel's schedule).
pub const MAX_MACHINES: usize = 256;
/// The most kicks one search tries ([`LocalSearch::with_kicks`]; on the GPU one block each).
pub const MAX_KICKS: u32 = 1024;
/// The most random moves of one kick ([`LocalSearch::with_kicks`]).
pub const MAX_KICK_MOVES: u32 = 256;

/// Which vectors one local search improves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// The population's best vector (the default).
    #[default]
    Best,
    /// Every vector, each searched independently; the best index is recomputed afterwards.
    All,
}

/// When, how long and on which vectors the local search runs. Validated by [`LocalSearch::new`].
///
/// ```
/// use evo_de::{LocalSearch, Scope};
/// let search = LocalSearch::new(500, 64)?;
/// assert_eq!((search.period(), search.max_moves()), (500, 64));
/// assert_eq!(search.scope(), Scope::Best);
/// assert_eq!(search.with_scope(Scope::All).scope(), Scope::All);
/// let error = LocalSearch::new(0, 64).unwrap_err();
/// assert_eq!(error.to_string(), "DE: local search period must be at least 1 generation, got 0");
/// # Ok::<(), evo_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LocalSearch {
    period: u32,
    max_moves: u32,
    /// Absent in settings written before the scope existed: those searched the best vector.
    #[serde(default)]
    scope: Scope,
    /// Perturbed restarts per search, 0 for none (absent in settings written before kicks existed).
    #[serde(default)]
    kicks: u32,
    /// Random task moves of one kick (0 when `kicks` is 0).
    #[serde(default)]
    kick_moves: u32,
}

impl LocalSearch {
    /// A local search of the best vector after every `period`-th generation, applying at most `max_moves`
    /// improving moves ([`LocalSearch::with_scope`] widens it to every vector).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `period` or `max_moves` is 0.
    pub fn new(period: u32, max_moves: u32) -> Result<Self> {
        if period == 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search period",
                period,
                "at least 1 generation",
            ));
        }
        if max_moves == 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search moves",
                max_moves,
                "at least 1",
            ));
        }
        Ok(Self {
            period,
            max_moves,
            scope: Scope::Best,
            kicks: 0,
            kick_moves: 0,
        })
    }

    /// The same search on the vectors of `scope`.
    pub fn with_scope(self, scope: Scope) -> Self {
        Self { scope, ..self }
    }

    /// The same search followed by `kicks` perturbed restarts of `kick_moves` random task moves each (an
    /// iterated local search, step 4 of the module docs); `kicks` 0 turns them off. Kicks need
    /// [`Scope::Best`] and at least two machines ([`ScheduleSearch::new`] checks both).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `kicks` exceeds [`MAX_KICKS`], or `kicks` is positive and
    /// `kick_moves` is 0 or exceeds [`MAX_KICK_MOVES`].
    pub fn with_kicks(self, kicks: u32, kick_moves: u32) -> Result<Self> {
        if kicks > MAX_KICKS {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kicks",
                kicks,
                format!("at most {MAX_KICKS}"),
            ));
        }
        if kicks > 0 && !(1..=MAX_KICK_MOVES).contains(&kick_moves) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kick moves",
                kick_moves,
                format!("1 ..= {MAX_KICK_MOVES}"),
            ));
        }
        let kick_moves = if kicks == 0 { 0 } else { kick_moves };
        Ok(Self {
            kicks,
            kick_moves,
            ..self
        })
    }

    /// Perturbed restarts per search (0: none).
    pub fn kicks(&self) -> u32 {
        self.kicks
    }

    /// Random task moves of one kick (0 without kicks).
    pub fn kick_moves(&self) -> u32 {
        self.kick_moves
    }

    /// Generations between two searches.
    pub fn period(&self) -> u32 {
        self.period
    }

    /// The most moves (or swaps) one search applies.
    pub fn max_moves(&self) -> u32 {
        self.max_moves
    }

    /// Which vectors one search improves.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Whether the search runs once `generations` generations are complete.
    pub(crate) fn is_due(&self, generations: u64) -> bool {
        generations > 0 && generations.is_multiple_of(u64::from(self.period))
    }
}

/// The three largest loads: value descending, ties to the lower machine; missing entries are
/// `(−∞, u32::MAX)`. Twin: `de_ls_top_three`.
pub fn top_three(loads: &[f64]) -> [(f64, u32); 3] {
    let mut top = [(f64::NEG_INFINITY, u32::MAX); 3];
    for (k, &v) in loads.iter().enumerate() {
        let entry = (v, k as u32);
        if v > top[0].0 {
            top = [entry, top[0], top[1]];
        } else if v > top[1].0 {
            top = [top[0], entry, top[1]];
        } else if v > top[2].0 {
            top[2] = entry;
        }
    }
    top
}

/// The largest of `top` on a machine other than `a` and `b`; `−∞` when there is none. Twin:
/// `de_ls_largest_other`.
pub fn largest_other(top: &[(f64, u32); 3], a: u32, b: u32) -> f64 {
    top.iter()
        .find(|&&(_, k)| k != u32::MAX && k != a && k != b)
        .map_or(f64::NEG_INFINITY, |&(v, _)| v)
}

/// The larger of two loads (`b` when strictly larger). Twin: `de_ls_larger`.
pub fn larger(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// `λ·makespan + (1 − λ)·(flowtime/m)`, the order of operations of the ETC fitness. Twin: `de_ls_fitness`.
pub fn ls_fitness(lambda: f64, makespan: f64, flowtime: f64, machines: u32) -> f64 {
    lambda * makespan + (1.0 - lambda) * (flowtime / f64::from(machines))
}

/// What a candidate changes: the two machines' new loads and the new flowtime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    /// The new load of the first machine (the task's own machine; for a swap, the makespan machine).
    pub first: f64,
    /// The new load of the second machine.
    pub second: f64,
    /// The new flowtime.
    pub flowtime: f64,
}

/// Moving a task from `from` (load `loads[0]`, time `times[0]`) to `to` (`loads[1]`, `times[1]`):
/// `L_from − t_from`, `L_to + t_to`, `F + (t_to − t_from)`. Twin: `de_ls_move_effect`.
pub fn move_effect(loads: [f64; 2], times: [f64; 2], flowtime: f64) -> Effect {
    Effect {
        first: loads[0] - times[0],
        second: loads[1] + times[1],
        flowtime: flowtime + (times[1] - times[0]),
    }
}

/// Swapping task `a` on machine `p` with task `b` on machine `k`: `times = [ETC[a][p], ETC[a][k],
/// ETC[b][p], ETC[b][k]]`, `loads = [L_p, L_k]`: `(L_p − a_p) + b_p`, `(L_k − b_k) + a_k`,
/// `F + ((a_k − a_p) + (b_p − b_k))`. Twin: `de_ls_swap_effect`.
pub fn swap_effect(loads: [f64; 2], times: [f64; 4], flowtime: f64) -> Effect {
    let [a_p, a_k, b_p, b_k] = times;
    Effect {
        first: (loads[0] - a_p) + b_p,
        second: (loads[1] - b_k) + a_k,
        flowtime: flowtime + ((a_k - a_p) + (b_p - b_k)),
    }
}

/// The fitness after a candidate that changes machines `first` and `second`: the makespan is the larger of
/// the other machines' largest load (from `top`), the two new loads, and 0. Twin: `de_ls_value`.
pub fn candidate_value(
    lambda: f64,
    machines: u32,
    top: &[(f64, u32); 3],
    changed: [u32; 2],
    effect: Effect,
) -> f64 {
    let rest = largest_other(top, changed[0], changed[1]);
    let makespan = larger(larger(larger(0.0, rest), effect.first), effect.second);
    ls_fitness(lambda, makespan, effect.flowtime, machines)
}

/// The local search of an [`EtcProblem`] (see the module docs).
#[derive(Clone, Debug)]
pub struct ScheduleSearch {
    problem: EtcProblem,
    settings: LocalSearch,
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
    /// [`Error::InvalidParameter`] for more than [`MAX_TASKS`] tasks or [`MAX_MACHINES`] machines.
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
        if settings.kicks() > 0 && settings.scope() != Scope::Best {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kicks",
                settings.kicks(),
                "0 unless the scope is the best vector (Scope::Best)",
            ));
        }
        if settings.kicks() > 0 && instance.machines() < 2 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search machine count with kicks",
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
        while applied < self.settings.max_moves {
            let top = top_three(&state.loads);
            let longest = state.loads.iter().fold(0.0, |a, &b| larger(a, b));
            let current = ls_fitness(lambda, longest, state.flowtime, m);
            let Some((value, index)) = self.best_candidate(&state, &top) else {
                break;
            };
            if !value.total_cmp(&current).is_lt() {
                break;
            }
            self.apply(&mut state, index);
            applied += 1;
        }
        schedule.copy_from_slice(&state.schedule);
        applied
    }

    /// The best candidate (value, then lower index), `None` when there is none (one machine).
    fn best_candidate(&self, state: &State, top: &[(f64, u32); 3]) -> Option<(f64, u64)> {
        let instance = self.problem.instance();
        let (n, m) = (instance.tasks(), instance.machines() as u32);
        let lambda = self.problem.lambda();
        let mut best: Option<(f64, u64)> = None;
        let mut keep = |value: f64, index: u64| {
            if best.is_none_or(|(v, _)| value.total_cmp(&v).is_lt()) {
                best = Some((value, index));
            }
        };
        for (t, &from) in state.schedule.iter().enumerate() {
            for to in (0..m).filter(|&to| to != from) {
                let effect = self.move_of(state, t, to);
                let value = candidate_value(lambda, m, top, [from, to], effect);
                keep(value, t as u64 * u64::from(m) + u64::from(to));
            }
        }
        let p = top[0].1;
        let moves = n as u64 * u64::from(m);
        for (a, _) in state.schedule.iter().enumerate().filter(|&(_, &s)| s == p) {
            for (b, &k) in state.schedule.iter().enumerate().filter(|&(_, &s)| s != p) {
                let effect = self.swap_of(state, a, b);
                let value = candidate_value(lambda, m, top, [p, k], effect);
                keep(value, moves + a as u64 * n as u64 + b as u64);
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

    /// Step 4 on the searched schedule `searched` of the search after generation `generation`: every
    /// kick's schedule searched, with its exact value (none when the settings have no kicks).
    fn kicked(&self, searched: &[u32], rng: &Philox, generation: u64) -> Vec<(Vec<u32>, f64)> {
        let (step, machines) = (
            kick_step(generation),
            self.problem.instance().machines() as u32,
        );
        // Each kick reads only the searched schedule and its own words: the result does not depend on the
        // thread count. Twin: one block per kick of `de_local_search_etc_f32`'s kicks phase.
        (0..self.settings.kicks)
            .into_par_iter()
            .map(|k| {
                let mut schedule = searched.to_vec();
                kick(
                    &mut schedule,
                    machines,
                    &kick_words(rng, step, k),
                    self.settings.kick_moves,
                );
                self.improve(&mut schedule);
                let value = self.schedule_value(&schedule);
                (schedule, value)
            })
            .collect()
    }

    /// Steps 1–4 on `vector` of fitness `fitness`, searched after generation `generation` of the run of
    /// `rng` (the kicks' random words): the improved vector and its fitness by `evaluate` (the engine's
    /// evaluation of the problem), or `None` when nothing moved or the evaluation is not strictly better.
    /// Twin: `de_local_search_etc_f32` (with kicks its kicks phase, `K + 1` blocks, then its pick phase).
    pub fn improve_vector(
        &self,
        vector: &[f32],
        fitness: f64,
        evaluate: impl Fn(&[f32]) -> f64,
        rng: &Philox,
        generation: u64,
    ) -> Option<(Vec<f32>, f64)> {
        let mut schedule = self.problem.schedule_of(vector);
        let mut changed = self.improve(&mut schedule) > 0;
        if self.settings.kicks > 0 {
            // Step 4: the searched schedule is candidate 0, kick k candidate k + 1; the lowest value wins,
            // ties to the lower candidate.
            let mut best = self.schedule_value(&schedule);
            for (kicked, value) in self.kicked(&schedule, rng, generation) {
                if value.total_cmp(&best).is_lt() {
                    (schedule, best) = (kicked, value);
                    changed = true;
                }
            }
        }
        if !changed {
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

/// The Philox step word of the kicks of the search after generation `generation`: the generation,
/// saturated at `u32::MAX` (the engines refuse to step past 2^32 generations).
pub fn kick_step(generation: u64) -> u32 {
    u32::try_from(generation).unwrap_or(u32::MAX)
}

/// The random words of kick `k` of the search with step word `step`: (`DeInit`, `step`, `k`). `DeInit`
/// draws the initial population at step 0 only and searches run after generations ≥ 1, so the two never
/// read the same words.
pub fn kick_words(rng: &Philox, step: u32, k: u32) -> Sequence {
    rng.sequence(Stream::DeInit, step, k)
}

/// A kick: `moves` random task moves on `schedule` (`machines ≥ 2`); move `j` takes task
/// `t = below(word 2j, n)` to machine `r = below(word 2j + 1, m − 1)`, skipping the task's own machine
/// (`r + 1` when `r ≥ s_t`), so every move changes a machine. Twin: `de_ls_kick`.
pub fn kick(schedule: &mut [u32], machines: u32, words: &Sequence, moves: u32) {
    let n = schedule.len() as u32;
    for j in 0..moves {
        let t = words.below(2 * j, n) as usize;
        let r = words.below(2 * j + 1, machines - 1);
        schedule[t] = if r >= schedule[t] { r + 1 } else { r };
    }
}

#[cfg(test)]
#[path = "local_search_tests.rs"]
mod tests;
