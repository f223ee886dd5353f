//! [`MaCpu`]: the CPU engine. Vector work runs on a rayon pool over aligned chunks of variables (1 thread
//! or many give the same bits: every operation is per variable, and sums use the canonical tree).

use crate::cycle::{ChainMeta, HostState, Workspace};
use crate::ops::{self, SwOutcome, SwState};
use crate::params::{ALGORITHM, MaParams, check_dimension};
use crate::plan::ChildPlan;
use crate::snapshot::{Chain, MaSnapshot};
use evo_core::reduce::pairwise_sum_by;
use evo_core::{
    ContinuousProblem, Engine, Error, Progress, Result, RunFingerprint, check_fitness,
    snapshot_checks,
};
use evo_rng::{Philox, Stream};
use rayon::prelude::*;

/// Variables per rayon task; a multiple of 4 so a task owns whole RNG lanes.
const CHUNK: usize = 1 << 14;

/// The vectors of the CPU engine.
struct CpuWorkspace<'p, P: ContinuousProblem + ?Sized> {
    problem: &'p P,
    rng: Philox,
    dimension: usize,
    blx_alpha: f32,
    mutation_range: f32,
    population: Vec<f32>,
    children: Vec<f32>,
    bias: Vec<f32>,
    ls_point: Vec<f32>,
    ls_bias: Vec<f32>,
    probe: Vec<f32>,
}

impl<P: ContinuousProblem + ?Sized> CpuWorkspace<'_, P> {
    /// One whole vector's fitness (the MA evaluates one individual at a time, so this is its batch); a
    /// panic of the problem's code is [`Error::ProblemPanicked`].
    fn evaluate(&self, x: &[f32], individual: usize) -> Result<f64> {
        let name = self.problem.name();
        evo_core::catch_problem_panic(name, || {
            check_fitness(name, individual, self.problem.evaluate(x))
        })
    }

    fn row(&self, slot: usize) -> &[f32] {
        &self.population[slot * self.dimension..(slot + 1) * self.dimension]
    }

    /// Evaluates the probe `clip(x ± (b + ρ·n))` of LS iteration `iteration` (into `probe`).
    fn ls_probe(&mut self, iteration: u32, rho: f32, forward: bool) -> Result<f64> {
        let sequence = self.rng.sequence(Stream::MaSwNoise, iteration, 0);
        let bounds = self.problem.bounds();
        let (lower, upper) = (bounds.lower(), bounds.upper());
        let (x, b) = (&self.ls_point, &self.ls_bias);
        for_chunks(&mut self.probe, |first, chunk| {
            for (j, lane) in chunk.chunks_mut(4).enumerate() {
                let base = first + 4 * j;
                let normals = sequence.normals4((base / 4) as u32);
                for (q, gene) in lane.iter_mut().enumerate() {
                    let i = base + q;
                    let t = ops::sw_move(b[i], rho, normals[q]);
                    *gene = ops::sw_probe(x[i], t, forward, lower[i], upper[i]);
                }
            }
        });
        self.evaluate(&self.probe, 0)
    }

    /// Updates the bias after iteration `iteration` and, on a success, moves the LS point to the probe.
    fn ls_update(&mut self, iteration: u32, rho: f32, outcome: SwOutcome) {
        let sequence = self.rng.sequence(Stream::MaSwNoise, iteration, 0);
        for_chunks(&mut self.ls_bias, |first, chunk| {
            for (j, lane) in chunk.chunks_mut(4).enumerate() {
                let base = first + 4 * j;
                let normals = sequence.normals4((base / 4) as u32);
                for (q, bias) in lane.iter_mut().enumerate() {
                    let t = ops::sw_move(*bias, rho, normals[q]);
                    *bias = ops::sw_bias(*bias, t, outcome);
                }
            }
        });
        if outcome != SwOutcome::Failure {
            std::mem::swap(&mut self.ls_point, &mut self.probe);
        }
    }
}

/// Runs `f(first_variable, chunk)` over aligned chunks of `values` in parallel.
fn for_chunks(values: &mut [f32], f: impl Fn(usize, &mut [f32]) + Sync) {
    values
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| f(c * CHUNK, chunk));
}

impl<P: ContinuousProblem + ?Sized> Workspace for CpuWorkspace<'_, P> {
    fn init_rows(&mut self, rows: &[u32], stream: Stream, step: u32) -> Result<Vec<f64>> {
        let d = self.dimension;
        let bounds = self.problem.bounds();
        let (lower, upper) = (bounds.lower(), bounds.upper());
        let mut fitness = Vec::with_capacity(rows.len());
        for &row in rows {
            let sequence = self.rng.sequence(stream, step, row);
            let genes = &mut self.population[row as usize * d..(row as usize + 1) * d];
            for_chunks(genes, |first, chunk| {
                for (k, gene) in chunk.iter_mut().enumerate() {
                    let i = first + k;
                    *gene = ops::init_gene(lower[i], upper[i], sequence.uniform_f32(i as u32));
                }
            });
            fitness.push(self.evaluate(self.row(row as usize), row as usize)?);
        }
        Ok(fitness)
    }

    fn squared_distances(&mut self, pairs: &[(u32, u32)]) -> Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|&(a, b)| {
                let (x, y) = (self.row(a as usize), self.row(b as usize));
                pairwise_sum_by(self.dimension, |i| ops::distance_term(x[i], y[i]))
            })
            .collect())
    }

    fn make_children(&mut self, plans: &[ChildPlan]) -> Result<Vec<f64>> {
        let d = self.dimension;
        let bounds = self.problem.bounds();
        let (lower, upper) = (bounds.lower(), bounds.upper());
        let mut children = std::mem::take(&mut self.children);
        for (k, plan) in plans.iter().enumerate() {
            let sequence = self.rng.sequence(Stream::MaCrossover, plan.counter, 0);
            let mother = self.row(plan.mother as usize);
            let father = self.row(plan.father as usize);
            let (alpha, range) = (self.blx_alpha, self.mutation_range);
            let mutation = plan.mutation;
            for_chunks(&mut children[k * d..(k + 1) * d], |first, chunk| {
                for (j, gene) in chunk.iter_mut().enumerate() {
                    let i = first + j;
                    let u = sequence.uniform_f32(i as u32);
                    let mut v = ops::blx_gene(mother[i], father[i], alpha, lower[i], upper[i], u);
                    if let Some(m) = mutation
                        && m.gene as usize == i
                    {
                        v = ops::bga_gene(v, lower[i], upper[i], range, m.s, m.plus);
                    }
                    *gene = v;
                }
            });
        }
        self.children = children;
        plans
            .iter()
            .enumerate()
            .map(|(k, _)| self.evaluate(&self.children[k * d..(k + 1) * d], k))
            .collect()
    }

    fn adopt_child(&mut self, child: usize, slot: usize) -> Result<()> {
        let d = self.dimension;
        self.population[slot * d..(slot + 1) * d]
            .copy_from_slice(&self.children[child * d..(child + 1) * d]);
        Ok(())
    }

    fn ls_begin(&mut self, slot: usize, resume_bias: bool) -> Result<()> {
        let d = self.dimension;
        self.ls_point
            .copy_from_slice(&self.population[slot * d..(slot + 1) * d]);
        if resume_bias {
            self.ls_bias
                .copy_from_slice(&self.bias[slot * d..(slot + 1) * d]);
        } else {
            self.ls_bias.iter_mut().for_each(|b| *b = 0.0);
        }
        Ok(())
    }

    fn solis_wets(&mut self, state: &mut SwState) -> Result<()> {
        while state.active != 0 {
            let iteration = state.iteration;
            let rho = state.rho;
            let forward = self.ls_probe(iteration, rho, true)?;
            ops::sw_decide(state, forward, || self.ls_probe(iteration, rho, false))?;
            if let Some(outcome) = ops::sw_outcome(state.pending) {
                self.ls_update(iteration, state.move_rho, outcome);
            }
        }
        Ok(())
    }

    fn ls_write_back(&mut self, slot: usize) -> Result<()> {
        let d = self.dimension;
        self.population[slot * d..(slot + 1) * d].copy_from_slice(&self.ls_point);
        self.bias[slot * d..(slot + 1) * d].copy_from_slice(&self.ls_bias);
        Ok(())
    }
}

/// The CPU engine of MA-SW-Chains: one [`step`](Engine::step) is one memetic cycle (an SSGA phase of n_frec
/// evaluations and one Solis–Wets application of I_str evaluations).
///
/// ```
/// use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
/// use evo_core::Engine;
/// use evo_ma_sw_chains::{MaCpu, MaParams};
///
/// let problem = ShiftedProblem::new(ShiftedFunction::SumSquares, 50)?;
/// let params = MaParams::new().with_max_evaluations(5_000)?;
/// let mut engine = MaCpu::new(params, &problem, 7, 1)?;
/// let start = engine.progress().best_fitness;
/// while engine.progress().evaluations < 5_000 {
///     engine.step()?;
/// }
/// assert!(engine.progress().best_fitness < start);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct MaCpu<'p, P: ContinuousProblem + ?Sized> {
    params: MaParams,
    seed: u64,
    pool: rayon::ThreadPool,
    workspace: CpuWorkspace<'p, P>,
    host: HostState,
}

impl<'p, P: ContinuousProblem + ?Sized> MaCpu<'p, P> {
    /// Builds the engine on a pool of `threads` rayon threads (0 = one per core) and initialises the
    /// population (spec step 2; N evaluations).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for D = 0 or a population larger than the budget allows; a thread pool
    /// failure; a non-finite fitness.
    pub fn new(params: MaParams, problem: &'p P, seed: u64, threads: usize) -> Result<Self> {
        let d = problem.dimension();
        check_dimension(d)?;
        let n = params.population();
        let k = params.children_per_step();
        let pool = evo_core::backend::thread_pool(threads)?;
        let mut workspace = CpuWorkspace {
            problem,
            rng: Philox::new(seed),
            dimension: d,
            blx_alpha: params.blx_alpha(),
            mutation_range: params.mutation_range(),
            population: vec![0.0; n * d],
            children: vec![0.0; k * d],
            bias: vec![0.0; n * d],
            ls_point: vec![0.0; d],
            ls_bias: vec![0.0; d],
            probe: vec![0.0; d],
        };
        let host = pool.install(|| HostState::initialise(&mut workspace, n))?;
        Ok(Self {
            params,
            seed,
            pool,
            workspace,
            host,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &MaParams {
        &self.params
    }
}

impl<P: ContinuousProblem + ?Sized> Engine for MaCpu<'_, P> {
    type Solution = Vec<f32>;
    type Snapshot = MaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(self.seed, &self.params, self.workspace.problem)
    }

    fn step(&mut self) -> Result<()> {
        let Self {
            params,
            pool,
            workspace,
            host,
            ..
        } = self;
        let d = workspace.dimension as u32;
        let rng = workspace.rng.clone();
        pool.install(|| host.cycle(workspace, params, &rng, d))
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.host.cycles,
            evaluations: self.host.evaluations,
            best_fitness: self.host.best_fitness(),
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        let slot = crate::plan::best_slot(&self.host.fitness);
        Ok((self.workspace.row(slot).to_vec(), self.host.fitness[slot]))
    }

    fn snapshot(&self) -> Result<MaSnapshot> {
        let d = self.workspace.dimension;
        Ok(snapshot_of(
            &self.host,
            self.seed,
            d,
            self.workspace.population.clone(),
            |slot| self.workspace.bias[slot * d..(slot + 1) * d].to_vec(),
        ))
    }

    fn restore(&mut self, snapshot: &MaSnapshot) -> Result<()> {
        let d = self.workspace.dimension;
        let host = host_of(snapshot, self.seed, d, self.params.population())?;
        snapshot.check_values(self.workspace.problem.bounds())?;
        self.workspace
            .population
            .copy_from_slice(&snapshot.population);
        for (slot, chain) in snapshot.chains.iter().enumerate() {
            if let Some(chain) = chain {
                self.workspace.bias[slot * d..(slot + 1) * d].copy_from_slice(&chain.bias);
            }
        }
        self.host = host;
        Ok(())
    }
}

/// Assembles a snapshot from the host state, the population and each chained slot's bias.
pub fn snapshot_of(
    host: &HostState,
    seed: u64,
    dimension: usize,
    population: Vec<f32>,
    mut bias_of: impl FnMut(usize) -> Vec<f32>,
) -> MaSnapshot {
    let chains = host
        .chains
        .iter()
        .enumerate()
        .map(|(slot, chain)| {
            chain.map(|c| Chain {
                rho: c.rho,
                successes: c.successes,
                failures: c.failures,
                bias: bias_of(slot),
            })
        })
        .collect();
    MaSnapshot {
        seed,
        dimension,
        population,
        fitness: host.fitness.clone(),
        non_improved: host.non_improved.clone(),
        chains,
        evaluations: host.evaluations,
        cycles: host.cycles,
        children: host.children,
        ls_iterations: host.ls_iterations,
        restarts: host.restarts,
    }
}

/// Checks a snapshot's shape against an engine and returns its host state.
pub fn host_of(
    snapshot: &MaSnapshot,
    seed: u64,
    dimension: usize,
    population: usize,
) -> Result<HostState> {
    let mismatch = |name: &'static str, value: usize, allowed: usize| {
        Err(Error::invalid_parameter(
            ALGORITHM,
            name,
            value,
            format!("{allowed} (this engine's)"),
        ))
    };
    snapshot_checks::equal(ALGORITHM, "seed", snapshot.seed, seed)?;
    if snapshot.dimension != dimension {
        return mismatch("snapshot dimension", snapshot.dimension, dimension);
    }
    let n = snapshot.fitness.len();
    if n != population {
        return mismatch("snapshot population", n, population);
    }
    if snapshot.population.len() != n * dimension {
        return mismatch("snapshot genes", snapshot.population.len(), n * dimension);
    }
    if snapshot.non_improved.len() != n || snapshot.chains.len() != n {
        return mismatch("snapshot slot counters", snapshot.chains.len(), n);
    }
    for chain in snapshot.chains.iter().flatten() {
        if chain.bias.len() != dimension {
            return mismatch("snapshot bias length", chain.bias.len(), dimension);
        }
    }
    Ok(HostState {
        fitness: snapshot.fitness.clone(),
        non_improved: snapshot.non_improved.clone(),
        chains: snapshot
            .chains
            .iter()
            .map(|c| {
                c.as_ref().map(|c| ChainMeta {
                    rho: c.rho,
                    successes: c.successes,
                    failures: c.failures,
                })
            })
            .collect(),
        evaluations: snapshot.evaluations,
        cycles: snapshot.cycles,
        children: snapshot.children,
        ls_iterations: snapshot.ls_iterations,
        restarts: snapshot.restarts,
    })
}
