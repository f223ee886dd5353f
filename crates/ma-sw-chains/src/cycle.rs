//! The memetic cycle (spec steps 2–15), written once over a [`Workspace`] that each backend implements.
//!
//! The host keeps the scalars (fitness, counters, chain ρ and counters) and makes every decision; the
//! workspace holds the vectors (population, children, bias vectors, the LS point) and does the vector work.
//! Both engines run this same code, so they differ only in the workspace operations, each of which has an
//! exact CPU twin. The module is public so that other crates can run the same cycle over their own vector
//! storage (`evo_distributed`'s dimension split keeps each individual's variables in slices on several GPUs):
//! a [`Workspace`] whose operations give the CPU engine's numbers gives the CPU engine's snapshots.

use crate::ops::{SwState, improved_enough};
use crate::params::MaParams;
use crate::plan::{self, ChildPlan};
use evo_core::Result;
/// The random-number types of the cycle's signatures, for workspaces outside this crate.
pub use evo_rng::{Philox, Stream};

/// The vector state and work of one backend.
pub trait Workspace {
    /// Fills the given rows with uniform genes (sequence (`stream`, `step`, individual = row), word j =
    /// gene j) and evaluates them; returns their fitness in the same order.
    fn init_rows(&mut self, rows: &[u32], stream: Stream, step: u32) -> Result<Vec<f64>>;
    /// The squared Euclidean distances of the given slot pairs (f64, canonical tree).
    fn squared_distances(&mut self, pairs: &[(u32, u32)]) -> Result<Vec<f64>>;
    /// Writes child k of `plans` into row k of the children area and evaluates them.
    fn make_children(&mut self, plans: &[ChildPlan]) -> Result<Vec<f64>>;
    /// Copies child `child` into population slot `slot`.
    fn adopt_child(&mut self, child: usize, slot: usize) -> Result<()>;
    /// Starts an LS from slot `slot`: the LS point is its row, the bias its stored chain's (or zeros).
    fn ls_begin(&mut self, slot: usize, resume_bias: bool) -> Result<()>;
    /// Runs Solis–Wets (spec step 14) from the LS point until `state.active` clears: per iteration the
    /// probes `clip(x ± (b + ρ·n))`, the decision [`sw_decide`](crate::ops::sw_decide) and the update of
    /// the bias and, on a success, of the LS point. Leaves the final state in `state`.
    fn solis_wets(&mut self, state: &mut SwState) -> Result<()>;
    /// Writes the LS point into slot `slot` and the LS bias into the slot's chain storage.
    fn ls_write_back(&mut self, slot: usize) -> Result<()>;
}

/// The scalars of a chain (its bias lives in the workspace).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainMeta {
    /// The step size ρ.
    pub rho: f32,
    /// Consecutive successes.
    pub successes: u32,
    /// Consecutive failures.
    pub failures: u32,
}

/// The host-side state (the scalars of [`MaSnapshot`](crate::MaSnapshot)).
#[derive(Clone, Debug, PartialEq)]
pub struct HostState {
    /// The fitness of each slot.
    pub fitness: Vec<f64>,
    /// Per slot, the LS applications that did not improve it enough.
    pub non_improved: Vec<u32>,
    /// Per slot, its chain's scalars.
    pub chains: Vec<Option<ChainMeta>>,
    /// Evaluations spent.
    pub evaluations: u64,
    /// Memetic cycles done.
    pub cycles: u64,
    /// Children made (the crossover draws' step counter).
    pub children: u32,
    /// Solis–Wets iterations done (the noise's step counter).
    pub ls_iterations: u32,
    /// Restarts done.
    pub restarts: u32,
}

impl HostState {
    /// Spec step 2: a fresh population, evaluated.
    pub fn initialise(workspace: &mut impl Workspace, n: usize) -> Result<Self> {
        let rows: Vec<u32> = (0..n as u32).collect();
        let fitness = workspace.init_rows(&rows, Stream::MaInit, 0)?;
        Ok(Self {
            fitness,
            non_improved: vec![0; n],
            chains: vec![None; n],
            evaluations: n as u64,
            cycles: 0,
            children: 0,
            ls_iterations: 0,
            restarts: 0,
        })
    }

    /// The best fitness in the population (the best so far: nothing ever replaces a slot by a worse point
    /// except a restart, which keeps the best).
    pub fn best_fitness(&self) -> f64 {
        self.fitness[plan::best_slot(&self.fitness)]
    }

    /// One memetic cycle (spec steps 7–13); does nothing once the budget is spent.
    pub fn cycle(
        &mut self,
        workspace: &mut impl Workspace,
        params: &MaParams,
        rng: &Philox,
        dimension: u32,
    ) -> Result<()> {
        let budget = params.max_evaluations();
        if self.evaluations >= budget {
            return Ok(());
        }
        // Step 7; the initial evaluations are charged to the first phase (step 2).
        let mut phase = params.ssga_evaluations();
        if self.cycles == 0 {
            phase = phase.saturating_sub(self.fitness.len() as u64);
        }
        let phase = phase.min(budget - self.evaluations);
        self.ssga_phase(workspace, params, rng, dimension, phase)?;
        if self.evaluations < budget {
            self.local_search(workspace, params, rng, dimension)?;
        }
        self.cycles += 1;
        Ok(())
    }

    fn ssga_phase(
        &mut self,
        workspace: &mut impl Workspace,
        params: &MaParams,
        rng: &Philox,
        dimension: u32,
        evaluations: u64,
    ) -> Result<()> {
        let n = self.fitness.len() as u32;
        let mut done = 0u64;
        while done < evaluations {
            let count = (params.children_per_step() as u64).min(evaluations - done) as usize;
            let mut plans = plan::draw_children(
                rng,
                self.children,
                count,
                n,
                params.nam_candidates() as u32,
                dimension,
                params.mutation_probability(),
            );
            let pairs: Vec<(u32, u32)> = plans
                .iter()
                .flat_map(|p| p.candidates.iter().map(move |&c| (p.mother, c)))
                .collect();
            let distances = workspace.squared_distances(&pairs)?;
            let nam = params.nam_candidates();
            for (k, child) in plans.iter_mut().enumerate() {
                child.father =
                    plan::pick_father(&child.candidates, &distances[k * nam..(k + 1) * nam]);
            }
            let child_fitness = workspace.make_children(&plans)?;
            // Step 6 (decision 3): the best N of the N + k survive; an adopted slot loses its chain.
            for (child, slot) in plan::replacements(&self.fitness, &child_fitness) {
                workspace.adopt_child(child, slot)?;
                self.fitness[slot] = child_fitness[child];
                self.chains[slot] = None;
                self.non_improved[slot] = 0;
            }
            self.children += count as u32;
            self.evaluations += count as u64;
            done += count as u64;
        }
        Ok(())
    }

    /// Decision 1: ρ0 of a fresh chain, `ρ_init` or (option) min(ρ_init, ½·‖x − y‖₂/D) over the nearest other
    /// member y at non-zero distance (distances in f64 with the canonical tree, so both backends agree).
    fn initial_rho(
        &self,
        workspace: &mut impl Workspace,
        params: &MaParams,
        slot: usize,
        dimension: u32,
    ) -> Result<f32> {
        if !params.rho_half_nearest() {
            return Ok(params.rho_init());
        }
        let pairs: Vec<(u32, u32)> = (0..self.fitness.len() as u32)
            .filter(|&other| other as usize != slot)
            .map(|other| (slot as u32, other))
            .collect();
        let nearest = workspace
            .squared_distances(&pairs)?
            .into_iter()
            .filter(|&d| d > 0.0)
            .min_by(f64::total_cmp);
        Ok(match nearest {
            Some(squared) => {
                // A half distance that rounds to 0 in f32 would freeze the chain: keep ρ_init then.
                let half = (0.5 * squared.sqrt() / f64::from(dimension)) as f32;
                if half > 0.0 {
                    half.min(params.rho_init())
                } else {
                    params.rho_init()
                }
            }
            None => params.rho_init(),
        })
    }

    fn local_search(
        &mut self,
        workspace: &mut impl Workspace,
        params: &MaParams,
        rng: &Philox,
        dimension: u32,
    ) -> Result<()> {
        // Step 8.
        let (slot, s_ls_empty) =
            plan::choose_ls(rng, self.cycles as u32, &self.fitness, &self.non_improved);
        let best_before = self.best_fitness();
        // Step 9.
        let stored = self.chains[slot];
        let mut chain = match stored {
            Some(chain) => chain,
            None => ChainMeta {
                rho: self.initial_rho(workspace, params, slot, dimension)?,
                successes: 0,
                failures: 0,
            },
        };
        workspace.ls_begin(slot, stored.is_some())?;
        // Step 10: Solis–Wets for I_str evaluations (fewer when the budget ends first).
        let start = self.fitness[slot];
        let limit = params
            .ls_intensity()
            .min(params.max_evaluations() - self.evaluations);
        let mut state = SwState::start(
            start,
            chain.rho,
            chain.successes,
            chain.failures,
            limit as u32, // ≤ I_str ≤ 2^32 − 1 (MaParams::with_ls_intensity)
            self.ls_iterations,
            (params.success_limit(), params.failure_limit()),
            (params.rho_expand(), params.rho_contract()),
        );
        workspace.solis_wets(&mut state)?;
        self.ls_iterations = state.iteration;
        self.evaluations += u64::from(state.used);
        let current = state.current;
        chain = ChainMeta {
            rho: state.rho,
            successes: state.successes,
            failures: state.failures,
        };
        // Steps 11–12.
        if improved_enough(start, current, params.min_improvement()) {
            workspace.ls_write_back(slot)?;
            self.fitness[slot] = current;
            self.chains[slot] = Some(chain);
        } else {
            self.non_improved[slot] += 1;
            self.chains[slot] = None;
        }
        // Step 13.
        let best_after = self.best_fitness();
        let stalled = !improved_enough(best_before, best_after, params.min_improvement());
        if params.restart() && s_ls_empty && stalled {
            self.restart(workspace, params)?;
        }
        Ok(())
    }

    /// Step 13: every slot but the best is drawn again and evaluated; all chains and counters are cleared.
    /// Skipped when fewer than N − 1 evaluations are left (decision: a restart is never cut short).
    fn restart(&mut self, workspace: &mut impl Workspace, params: &MaParams) -> Result<()> {
        let n = self.fitness.len();
        if params.max_evaluations() - self.evaluations < (n - 1) as u64 {
            return Ok(());
        }
        let best = plan::best_slot(&self.fitness);
        let rows: Vec<u32> = (0..n as u32).filter(|&i| i as usize != best).collect();
        let fitness = workspace.init_rows(&rows, Stream::MaRestart, self.restarts)?;
        for (&row, f) in rows.iter().zip(fitness) {
            self.fitness[row as usize] = f;
        }
        self.chains.iter_mut().for_each(|c| *c = None);
        self.non_improved.iter_mut().for_each(|c| *c = 0);
        self.evaluations += rows.len() as u64;
        self.restarts += 1;
        Ok(())
    }
}
