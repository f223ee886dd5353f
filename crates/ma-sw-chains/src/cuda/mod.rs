//! [`MaCuda`]: the CUDA engine. The state (population, children area, chain biases, LS point) stays on the
//! device; the host keeps the N fitness values and the chain scalars and runs the same cycle as
//! [`MaCpu`](crate::MaCpu) (`cycle.rs`), so every decision is made from the same numbers.
//!
//! Every evaluation goes through the problem's [`RealEvaluator`], built-ins and user problems alike (Solis–Wets
//! moves every coordinate, so no problem has a one-coordinate delta path); the engine tells it that it checks
//! the fitness itself ([`RealEvaluator::engine_checks_fitness`]), so an evaluation only queues its launches.
//!
//! Per crossover step: the NAM distances (2 kernels), the K children (one kernel over a 2D grid of lanes
//! × children), their evaluation (evo-benchmarks' kernels), and a row copy per adopted child. Individuals
//! never move (index-based replacement: an adopted child is copied into the evicted slot).
//!
//! Solis–Wets runs device-resident: the chain's scalars travel to the device once per application
//! ([`SwState`], 88 bytes, in two slots) and every decision inside it (accept/reject, bias update, success and
//! failure counters, ρ) is made on the device by `ma_sw_decide_one`, the twin of
//! [`ops::sw_decide`](crate::ops::sw_decide). A group of L iterations (the look-ahead, 2 up to
//! [`LOOKAHEAD_MAX_VARIABLES`], 1 above; [`MaCuda::set_sw_lookahead`]) is two enqueued calls with no host
//! wait: the problem's evaluation of every probe row in one call, then `ma_sw_step_f32`, in which every
//! thread makes the group's decisions from the probe fitness and the state slot it reads (thread 0 writes
//! the result to the other slot), applies them to its lane of the point and the bias, and writes the next
//! group's probes. With L = 1 the rows are `clip(x ± (b + ρn))` of iteration k (the backward probe
//! evaluated speculatively, counted only when used); with L = 2 also the forward and backward probes of
//! iteration k + 1 for each of the three outcomes of k (8 rows; the point, bias and ρ each outcome leads to
//! are computed per lane, the counters' effect on ρ from the state), so one group decides two iterations and
//! only the rows of the branch taken count as evaluations. The host enqueues ⌈⌈remaining/2⌉/L⌉ groups at a
//! time (⌈remaining/2⌉ is a lower bound on the iterations still to come, since one spends 1 or 2
//! evaluations) and reads the state back after each batch, then one iteration per evaluation left once at
//! most 8 are left: 4–6 round trips per application of 500 evaluations at a typical 1.6–1.8 evaluations per
//! iteration (1 when every iteration fails, at most 8 when every forward probe succeeds), instead of one per
//! evaluation.

pub mod launch;
pub mod slice;

use crate::cpu::{host_of, snapshot_of};
use crate::cycle::{HostState, Workspace};
use crate::memory::device_bytes;
pub use crate::memory::{LOOKAHEAD_MAX_VARIABLES, default_lookahead};
use crate::ops::{SW_NONE, SwState};
use crate::params::{ALGORITHM, MaParams, check_dimension};
use crate::plan::ChildPlan;
use crate::snapshot::MaSnapshot;
use evo_benchmarks::cuda::{DeviceRealProblem, EvalSettings, RealEvaluator};
use evo_core::{Engine, Error, Progress, Result, RunFingerprint, check_fitness};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use evo_rng::{Philox, Stream};
use launch::{ChildGpu, MaKernelParams, TILE_VARIABLES};

/// The evaluator's block size.
const EVAL_BLOCK: u32 = 256;

/// What the engine asks of every evaluation: its profile and [`EVAL_BLOCK`].
fn eval_settings(profile: Profile) -> EvalSettings {
    EvalSettings {
        profile,
        block: EVAL_BLOCK,
    }
}

/// Below this many evaluations left in a Solis–Wets application, one iteration is enqueued per evaluation.
const SW_TAIL: u32 = 8;

struct CudaWorkspace {
    gpu: Gpu,
    evaluator: Box<dyn RealEvaluator>,
    name: String,
    profile: Profile,
    rng: Philox,
    seed: u64,
    dimension: usize,
    blx_alpha: f32,
    mutation_range: f32,
    lower: DeviceBuffer<f32>,
    upper: DeviceBuffer<f32>,
    population: DeviceBuffer<f32>,
    children: DeviceBuffer<f32>,
    bias: DeviceBuffer<f32>,
    ls_point: DeviceBuffer<f32>,
    ls_bias: DeviceBuffer<f32>,
    probes: DeviceBuffer<f32>,
    population_fitness: DeviceBuffer<f64>,
    children_fitness: DeviceBuffer<f64>,
    probe_fitness: DeviceBuffer<f64>,
    sw_state: DeviceBuffer<SwState>,
    /// Solis–Wets iterations per launch group (1 or 2).
    lookahead: u32,
    partials: DeviceBuffer<f64>,
    distances: DeviceBuffer<f64>,
}

impl CudaWorkspace {
    fn params(&self) -> MaKernelParams {
        MaKernelParams {
            seed: self.seed,
            dimension: self.dimension as u64,
            ..MaKernelParams::default()
        }
    }

    /// The step kernel reading state slot `slot`: decides the group whose probes were evaluated since the
    /// last step, applies it, and writes the next group's probes (while the application is active).
    fn sw_step(&mut self, params: MaKernelParams, slot: u32) -> Result<()> {
        launch::sw_step(
            &self.gpu,
            &mut self.ls_point,
            &mut self.ls_bias,
            &mut self.probes,
            &self.lower,
            &self.upper,
            &self.probe_fitness,
            &mut self.sw_state,
            MaKernelParams {
                count: slot,
                ..params
            },
            self.profile,
        )
    }
}

impl Workspace for CudaWorkspace {
    fn init_rows(&mut self, rows: &[u32], stream: Stream, step: u32) -> Result<Vec<f64>> {
        let device_rows = self.gpu.upload(rows)?;
        let params = MaKernelParams {
            stream: stream.id(),
            step,
            ..self.params()
        };
        let slots = self.population_fitness.len();
        launch::init_rows(
            &self.gpu,
            &mut self.population,
            &device_rows,
            &self.lower,
            &self.upper,
            params,
            slots,
            self.profile,
        )?;
        self.evaluator.evaluate(
            &self.population,
            &mut self.population_fitness,
            eval_settings(self.profile),
        )?;
        let all = self.population_fitness.to_vec()?;
        rows.iter()
            .map(|&row| check_fitness(&self.name, row as usize, all[row as usize]))
            .collect()
    }

    fn squared_distances(&mut self, pairs: &[(u32, u32)]) -> Result<Vec<f64>> {
        let flat: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        let device_pairs = self.gpu.upload(&flat)?;
        let params = self.params();
        launch::squared_distances(
            &self.gpu,
            &self.population,
            &device_pairs,
            &mut self.partials,
            &mut self.distances,
            params,
            self.profile,
        )?;
        let mut all = self.distances.to_vec()?;
        all.truncate(pairs.len());
        Ok(all)
    }

    fn make_children(&mut self, plans: &[ChildPlan]) -> Result<Vec<f64>> {
        let device_plans: Vec<ChildGpu> = plans
            .iter()
            .map(|p| ChildGpu {
                mother: p.mother,
                father: p.father,
                counter: p.counter,
                gene: p.mutation.map_or(0, |m| m.gene),
                s: p.mutation.map_or(0.0, |m| m.s),
                plus: p.mutation.map_or(0, |m| u32::from(m.plus)),
                mutate: u32::from(p.mutation.is_some()),
                pad: 0,
            })
            .collect();
        let device_plans = self.gpu.upload(&device_plans)?;
        let params = MaKernelParams {
            stream: Stream::MaCrossover.id(),
            alpha: self.blx_alpha,
            range: self.mutation_range,
            ..self.params()
        };
        launch::crossover(
            &self.gpu,
            &self.population,
            &mut self.children,
            &device_plans,
            &self.lower,
            &self.upper,
            params,
            self.profile,
        )?;
        // The whole children area is evaluated (rows past plans.len() hold earlier, valid children).
        self.evaluator.evaluate(
            &self.children,
            &mut self.children_fitness,
            eval_settings(self.profile),
        )?;
        let all = self.children_fitness.to_vec()?;
        (0..plans.len())
            .map(|k| check_fitness(&self.name, k, all[k]))
            .collect()
    }

    fn adopt_child(&mut self, child: usize, slot: usize) -> Result<()> {
        let params = self.params();
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.children,
            child,
            &mut self.population,
            slot,
        )
    }

    fn ls_begin(&mut self, slot: usize, resume_bias: bool) -> Result<()> {
        let params = self.params();
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.population,
            slot,
            &mut self.ls_point,
            0,
        )?;
        if resume_bias {
            launch::copy_row(
                &self.gpu,
                self.profile,
                params,
                &self.bias,
                slot,
                &mut self.ls_bias,
                0,
            )
        } else {
            self.ls_bias.fill_zero()
        }
    }

    fn solis_wets(&mut self, state: &mut SwState) -> Result<()> {
        let start = SwState {
            probed: 0,
            ..*state
        };
        self.sw_state.copy_from_host(&[start, start])?;
        let params = MaKernelParams {
            stream: Stream::MaSwNoise.id(),
            flag: self.lookahead,
            ..self.params()
        };
        // The first step writes the first group's probes (nothing to decide yet).
        let mut slot = 0u32;
        self.sw_step(params, slot)?;
        slot ^= 1;
        loop {
            let mut back = [SwState::default(); 2];
            self.sw_state.copy_to_host(&mut back)?;
            let host = back[slot as usize];
            if host.bad != 0 {
                return Err(Error::NonFiniteFitness {
                    problem: self.name.clone(),
                    individual: 0,
                    value: host.bad_value,
                });
            }
            if host.active == 0 {
                // The step that ended the application also applied its last iterations.
                *state = SwState {
                    pending: SW_NONE,
                    pending2: SW_NONE,
                    ..host
                };
                return Ok(());
            }
            // Each iteration spends 1 or 2 evaluations, so at least ⌈remaining/2⌉ iterations are still to
            // come: enqueue their groups (evaluate, step) without a host round trip, then read the state back.
            // Near the end, enqueue one iteration per evaluation left (extra groups find the state inactive
            // and change nothing).
            let remaining = host.limit - host.used;
            let iterations = if remaining <= SW_TAIL {
                remaining
            } else {
                remaining.div_ceil(2)
            };
            for _ in 0..iterations.div_ceil(self.lookahead) {
                self.evaluator.evaluate(
                    &self.probes,
                    &mut self.probe_fitness,
                    eval_settings(self.profile),
                )?;
                self.sw_step(params, slot)?;
                slot ^= 1;
            }
        }
    }

    fn ls_write_back(&mut self, slot: usize) -> Result<()> {
        let params = self.params();
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.ls_point,
            0,
            &mut self.population,
            slot,
        )?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.ls_bias,
            0,
            &mut self.bias,
            slot,
        )
    }
}

/// The CUDA engine of MA-SW-Chains; one [`step`](Engine::step) is one memetic cycle. Under
/// [`Profile::Exact`] its snapshots equal [`MaCpu`](crate::MaCpu)'s bit for bit.
///
/// ```no_run
/// use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
/// use evo_core::Engine;
/// use evo_gpu_runtime::Gpu;
/// use evo_ma_sw_chains::{MaCuda, MaParams};
///
/// let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000_000)?;
/// if let Some(gpu) = Gpu::first_available()? {
///     let mut engine = MaCuda::new(MaParams::new(), &problem, 1, &gpu)?;
///     engine.step()?;
///     println!("{}", engine.progress().best_fitness);
/// }
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct MaCuda<'p, P: DeviceRealProblem + ?Sized> {
    params: MaParams,
    seed: u64,
    problem: &'p P,
    workspace: CudaWorkspace,
    host: HostState,
    /// D, as the `u32` the cycle takes (checked at construction).
    dimension: u32,
}

impl<'p, P: DeviceRealProblem + ?Sized> MaCuda<'p, P> {
    /// Builds the engine on `gpu` under [`Profile::Exact`] and initialises the population.
    ///
    /// # Errors
    /// As [`with_profile`](Self::with_profile).
    pub fn new(params: MaParams, problem: &'p P, seed: u64, gpu: &Gpu) -> Result<Self> {
        Self::with_profile(params, problem, seed, gpu, Profile::Exact)
    }

    /// Builds the engine under `profile`. The memory need ([`device_bytes`]) is checked against the
    /// device's free memory before anything is allocated.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for D = 0; [`Error::GpuOutOfMemory`] when the need exceeds the free
    /// memory; a problem without a GPU evaluation; GPU errors; a non-finite fitness.
    pub fn with_profile(
        params: MaParams,
        problem: &'p P,
        seed: u64,
        gpu: &Gpu,
        profile: Profile,
    ) -> Result<Self> {
        let d = problem.dimension();
        let dimension = check_dimension(d)?;
        let need = device_bytes(&params, d);
        let (free, total) = gpu.memory()?;
        if need > free {
            return Err(Error::GpuOutOfMemory {
                device: gpu.index(),
                requested: need,
                free,
                total,
            });
        }
        let n = params.population();
        let k = params.children_per_step();
        // NAM needs K·n_ass pairs per step; the HalfNearest ρ0 needs N − 1.
        let pairs = (k * params.nam_candidates()).max(n - 1);
        let tiles = d.div_ceil(TILE_VARIABLES);
        let bounds = problem.bounds();
        let mut evaluator = problem.real_evaluator(gpu)?;
        // The engine checks every fitness it uses (the initial and children rows it reads back, the probes
        // `ma_sw_decide_one` decides on), so an evaluation need not wait for the device to check its own
        // values: a wait per Solis–Wets group would undo the enqueued groups. The speculative probes of a
        // branch not taken are never used, so a non-finite value there is no error (nor on the CPU, which
        // never evaluates them).
        evaluator.engine_checks_fitness();
        if evaluator.dimension() != d {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "evaluator dimension",
                evaluator.dimension(),
                format!("the problem's dimension {d}"),
            ));
        }
        let mut workspace = CudaWorkspace {
            gpu: gpu.clone(),
            evaluator,
            name: problem.name().to_string(),
            profile,
            rng: Philox::new(seed),
            seed,
            dimension: d,
            blx_alpha: params.blx_alpha(),
            mutation_range: params.mutation_range(),
            lower: gpu.upload(bounds.lower())?,
            upper: gpu.upload(bounds.upper())?,
            population: gpu.alloc(n * d)?,
            children: gpu.alloc_zeroed(k * d)?,
            bias: gpu.alloc_zeroed(n * d)?,
            ls_point: gpu.alloc(d)?,
            ls_bias: gpu.alloc(d)?,
            // Zeroed so that no evaluation reads unwritten memory (an iteration enqueued after the end of an
            // application evaluates the last probes again and ignores the result).
            probes: gpu.alloc_zeroed(launch::sw_rows(default_lookahead(d)) * d)?,
            population_fitness: gpu.alloc(n)?,
            children_fitness: gpu.alloc(k)?,
            probe_fitness: gpu.alloc_zeroed(launch::sw_rows(default_lookahead(d)))?,
            sw_state: gpu.alloc_zeroed(2)?,
            lookahead: default_lookahead(d),
            partials: gpu.alloc(pairs * tiles)?,
            distances: gpu.alloc(pairs)?,
        };
        let host = HostState::initialise(&mut workspace, n)?;
        Ok(Self {
            params,
            seed,
            problem,
            workspace,
            host,
            dimension,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &MaParams {
        &self.params
    }

    /// Sets how many Solis–Wets iterations one launch group decides (1 or 2; default
    /// [`default_lookahead`]). The results do not depend on it (the look-ahead only evaluates the possible
    /// next probes speculatively); it trades evaluated rows for launches.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a value other than 1 or 2; GPU errors (the probe rows are reallocated).
    pub fn set_sw_lookahead(&mut self, lookahead: u32) -> Result<()> {
        if lookahead != 1 && lookahead != 2 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "Solis–Wets look-ahead",
                lookahead,
                "1 or 2",
            ));
        }
        let w = &mut self.workspace;
        let rows = launch::sw_rows(lookahead);
        w.probes = w.gpu.alloc_zeroed(rows * w.dimension)?;
        w.probe_fitness = w.gpu.alloc_zeroed(rows)?;
        w.lookahead = lookahead;
        Ok(())
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        self.problem
    }
}

impl<P: DeviceRealProblem + ?Sized> Engine for MaCuda<'_, P> {
    type Solution = Vec<f32>;
    type Snapshot = MaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(self.seed, &self.params, self.problem)
    }

    fn step(&mut self) -> Result<()> {
        let rng = self.workspace.rng.clone();
        self.host
            .cycle(&mut self.workspace, &self.params, &rng, self.dimension)
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
        let d = self.workspace.dimension;
        let w = &self.workspace;
        let mut row = w.gpu.alloc::<f32>(d)?;
        launch::copy_row(
            &w.gpu,
            w.profile,
            w.params(),
            &w.population,
            slot,
            &mut row,
            0,
        )?;
        Ok((row.to_vec()?, self.host.fitness[slot]))
    }

    fn snapshot(&self) -> Result<MaSnapshot> {
        let d = self.workspace.dimension;
        let population = self.workspace.population.to_vec()?;
        let bias = if self.host.chains.iter().any(Option::is_some) {
            self.workspace.bias.to_vec()?
        } else {
            Vec::new()
        };
        Ok(snapshot_of(&self.host, self.seed, d, population, |slot| {
            bias[slot * d..(slot + 1) * d].to_vec()
        }))
    }

    fn restore(&mut self, snapshot: &MaSnapshot) -> Result<()> {
        let d = self.workspace.dimension;
        let host = host_of(snapshot, self.seed, d, self.params.population())?;
        snapshot.check_values(self.problem.bounds())?;
        self.workspace
            .population
            .copy_from_host(&snapshot.population)?;
        let mut bias = vec![0.0f32; self.params.population() * d];
        for (slot, chain) in snapshot.chains.iter().enumerate() {
            if let Some(chain) = chain {
                bias[slot * d..(slot + 1) * d].copy_from_slice(&chain.bias);
            }
        }
        self.workspace.bias.copy_from_host(&bias)?;
        self.host = host;
        Ok(())
    }
}
