//! `DeCuda`: the paper's many-threaded design. Population, fitness and the per-vector `F`/`CR` stay on the
//! GPU. For the paper's problems (Rastrigin, ETC scheduling up to 32 machines and 2048 tasks) a generation is
//! one launch of `de_generation_f32` (trial, evaluation, selection into a double-buffered population, best
//! vector by the last block); for a user's CUDA source ([`UserProblem`](evo_benchmarks::cuda::UserProblem),
//! any shape) it is one launch of `de_generation_user_f32` in a DE module of the user's own
//! ([`UserFusion`](crate::UserFusion)); for the others it is four launches over the whole population (trials,
//! evaluation, merge, best), where a Rust problem's evaluation copies the trials to the host in page-locked
//! chunks and evaluates each chunk as it lands (`host.rs`). [`DeCuda::is_fused`] says which. On compute
//! capability 9.0 and later the one-launch generations are launched overlapping the previous kernel
//! (Programmatic Dependent Launch): a generation's launch and its draws, which read no memory, run while the
//! previous generation's last block finds the best vector. The launch shapes are chosen so that every block
//! of a generation is resident at once where they can be ([`launch::fused_plan`], [`launch::user_plan`]).
//! [`Engine::step`] reads the best fitness and index back (16 bytes, one copy; a user's problem also reads
//! its non-finite record, 4 bytes); [`DeCuda::step_many`] launches many generations and reads back once.

mod evaluation;
mod fused;
mod host;
mod host_pieces;
mod individuals;
pub mod launch;
mod queued;

use crate::cpu::{check_initial_vectors, check_problem};
use crate::local_search::{LocalSearch, ScheduleSearch, Scope};
use crate::params::{ALGORITHM, DeParams};
use crate::problem::DeviceProblem;
use crate::snapshot::DeSnapshot;
use evaluation::Evaluation;
use evo_core::{Backend, Engine, Error, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, LaunchSite, Profile};
use evo_kernels::entry::de;
use fused::{Fused, FusedKind, has_uniform_bounds};
use launch::{
    ChunkSums, DeKernelParams, DeLocalSearchParams, DeviceBest, DeviceBounds, EvaluatedTrials,
    FusedInputs, KickScratch, Parents, Population, SearchedPopulation, Settings, SlottedPopulation,
    Trials, UserInputs,
};

/// The DE engine on one CUDA device (see the module docs). Bit-identical to [`DeCpu`](crate::DeCpu) under
/// [`Profile::Exact`] for the problems with a device evaluation, and for host-evaluated ones.
///
/// Host evaluations are checked for non-finite fitness as on the CPU; device evaluations are not read back,
/// so they are not checked: a NaN trial never replaces its parent (every comparison with NaN is false).
///
/// A host problem ([`DeviceEvaluation::Host`](crate::DeviceEvaluation::Host)) has its `evaluate_batch` called
/// on consecutive pieces of the rows, from rayon's threads, each as soon as its copy has reached the host;
/// every row's fitness must depend on that row alone, as the CPU engine's independence of the thread count
/// already requires.
///
/// ```no_run
/// use evo_benchmarks::DeRastrigin;
/// use evo_core::{Executor, Termination};
/// use evo_de::{DeCuda, DeParams};
/// use evo_gpu_runtime::Gpu;
/// use std::time::Duration;
///
/// if let Some(gpu) = Gpu::first_available()? {
///     let engine = DeCuda::new(DeParams::default(), DeRastrigin::new(128)?, 7, &gpu)?;
///     let report = Executor::new(engine)
///         .with_termination(Termination::new().with_max_wall_time(Duration::from_secs(27))?)?
///         .run()?;
///     println!("f2 = {} after {} generations", report.best_fitness, report.generations);
/// }
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct DeCuda<P: DeviceProblem> {
    gpu: Gpu,
    params: DeParams,
    problem: P,
    kernel_params: DeKernelParams,
    settings: Settings,
    evaluation: Evaluation,
    lower: DeviceBuffer<f32>,
    upper: DeviceBuffer<f32>,
    population: DeviceBuffer<f32>,
    fitness: DeviceBuffer<f64>,
    weights: DeviceBuffer<f32>,
    rates: DeviceBuffer<f32>,
    trials: DeviceBuffer<f32>,
    trial_fitness: DeviceBuffer<f64>,
    trial_weights: DeviceBuffer<f32>,
    trial_rates: DeviceBuffer<f32>,
    best: DeviceBuffer<u32>,
    best_fitness: DeviceBuffer<f64>,
    /// The ETC evaluation's makespans and flowtimes (length M; length 1 for other evaluations).
    scratch: [DeviceBuffer<f64>; 2],
    generation: u64,
    evaluations: u64,
    best_host: (u32, f64),
    fused: Option<Fused>,
    local_search: Option<DeviceSearch>,
}

/// The opt-in local search on the device (see [`local_search`](crate::local_search)).
struct DeviceSearch {
    settings: LocalSearch,
    /// `de_local_search_etc_f32`, looked up once.
    kernel: Kernel,
    params: DeLocalSearchParams,
    /// The ETC matrix, task-major.
    etc: DeviceBuffer<f32>,
    /// All zeros: on the four-launch path every vector is in the population buffer.
    unslotted: DeviceBuffer<u32>,
    /// The kicked search's candidates (step 4 of [`local_search`](crate::local_search)): `K + 1` exact
    /// values (one without kicks, unused).
    values: DeviceBuffer<f64>,
    /// `K + 1` schedules of `n` bytes (one, unused, without kicks).
    schedules: DeviceBuffer<u8>,
}

impl<P: DeviceProblem> DeCuda<P> {
    /// A CUDA engine on `gpu` with its initial population drawn and evaluated on the device (steps 1–2),
    /// compiled under [`Profile::Exact`].
    ///
    /// # Errors
    /// As [`DeCpu::new`](crate::DeCpu::new) for the problem; GPU errors (out of memory with the bytes asked
    /// for, compilation, launch).
    pub fn new(params: DeParams, problem: P, seed: u64, gpu: &Gpu) -> Result<Self> {
        Self::with_profile(params, problem, seed, gpu, Profile::Exact)
    }

    /// As [`DeCuda::new`] under a chosen compile profile ([`Profile::Fast`] is not bit-identical to the CPU).
    ///
    /// # Errors
    /// As [`DeCuda::new`].
    pub fn with_profile(
        params: DeParams,
        problem: P,
        seed: u64,
        gpu: &Gpu,
        profile: Profile,
    ) -> Result<Self> {
        let dimension = check_problem(&problem)?;
        let m = params.population();
        let coordinates = m.checked_mul(dimension).ok_or_else(|| {
            Error::invalid_parameter(ALGORITHM, "population × dimension", m, "M·D < 2^64")
        })?;
        let kernel_params = DeKernelParams::new(&params, seed, dimension);
        let settings = Settings {
            block: params.block_size(),
            profile,
        };
        let evaluation = Evaluation::new(problem.device_evaluation(gpu)?, gpu, m, dimension)?;
        let fused = Fused::new(
            gpu,
            problem.fused_evaluation(),
            kernel_params,
            &params,
            dimension,
            profile,
            has_uniform_bounds(problem.bounds().lower(), problem.bounds().upper()),
        )?;
        let scratch_len = if evaluation.is_scheduling() { m } else { 1 };
        let mut engine = Self {
            gpu: gpu.clone(),
            lower: gpu.upload(problem.bounds().lower())?,
            upper: gpu.upload(problem.bounds().upper())?,
            population: gpu.alloc(coordinates)?,
            fitness: gpu.alloc(m)?,
            weights: gpu.upload(&vec![params.differential_weight(); m])?,
            rates: gpu.upload(&vec![params.crossover_rate(); m])?,
            trials: gpu.alloc(coordinates)?,
            trial_fitness: gpu.alloc(m)?,
            trial_weights: gpu.alloc(m)?,
            trial_rates: gpu.alloc(m)?,
            best: gpu.alloc_zeroed(1)?,
            best_fitness: gpu.alloc_zeroed(2)?,
            scratch: [gpu.alloc(scratch_len)?, gpu.alloc(scratch_len)?],
            generation: 0,
            evaluations: m as u64,
            best_host: (0, f64::INFINITY),
            fused,
            local_search: None,
            params,
            problem,
            kernel_params,
            settings,
            evaluation,
        };
        let bounds = DeviceBounds {
            lower: &engine.lower,
            upper: &engine.upper,
        };
        launch::init(
            gpu,
            &mut engine.population,
            &bounds,
            &engine.kernel_params,
            settings,
        )?;
        engine.evaluate_population()?;
        Ok(engine)
    }

    /// A CUDA engine for a [`Backend::Cuda`].
    ///
    /// # Errors
    /// As [`DeCuda::new`]; [`Error::InvalidParameter`] for another backend.
    pub fn for_backend(params: DeParams, problem: P, seed: u64, backend: Backend) -> Result<Self> {
        match backend {
            Backend::Cuda { device } => Self::new(params, problem, seed, &Gpu::open(device)?),
            other => Err(Error::invalid_parameter(
                ALGORITHM,
                "backend of DeCuda",
                other,
                "cuda or cuda:<device>",
            )),
        }
    }

    /// Replaces the first vectors of the initial population, as
    /// [`DeCpu::with_initial_vectors`](crate::DeCpu::with_initial_vectors).
    ///
    /// # Errors
    /// As the CPU twin; GPU errors.
    pub fn with_initial_vectors(mut self, vectors: &[Vec<f32>]) -> Result<Self> {
        if self.generation != 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "initial vectors",
                format!("given at generation {}", self.generation),
                "given before the first step",
            ));
        }
        let d = self.problem.dimension();
        check_initial_vectors(vectors, self.params.population(), d)?;
        let mut population = self.population.to_vec()?;
        for (i, v) in vectors.iter().enumerate() {
            let row = &mut population[i * d..(i + 1) * d];
            row.copy_from_slice(v);
            self.problem.bounds().clamp(row);
        }
        self.population.copy_from_host(&population)?;
        self.evaluate_population()?;
        Ok(self)
    }

    /// Turns on the opt-in local search of ETC schedules, as
    /// [`DeCpu::with_local_search`](crate::DeCpu::with_local_search) (same results bit for bit): one block
    /// launched on the engine's stream after every `period`-th generation ([`Scope::All`]: one block per
    /// vector in one launch, then the best-index launch), so [`DeCuda::step_many`] still reads nothing back
    /// in between.
    ///
    /// # Errors
    /// As the CPU twin; GPU errors.
    pub fn with_local_search(mut self, search: LocalSearch) -> Result<Self> {
        let checked = ScheduleSearch::for_problem(&self.problem, search)?;
        let instance = checked.problem().instance();
        let m = self.params.population();
        let candidates = search.kicks() as usize + 1;
        let search_site = LaunchSite::new(ALGORITHM, de::LOCAL_SEARCH_ETC_F32);
        self.local_search = Some(DeviceSearch {
            settings: search,
            kernel: launch::local_search_kernel(&self.gpu, self.settings.profile)?,
            params: DeLocalSearchParams {
                population: m as u64,
                tasks: search_site.to_u32("tasks", instance.tasks())?,
                machines: search_site.to_u32("machines", instance.machines())?,
                lambda: checked.problem().lambda(),
                max_moves: search.max_moves(),
                all_vectors: u32::from(search.scope() == Scope::All),
                seed: self.kernel_params.seed,
                kicks: search.kicks(),
                kick_moves: search.kick_moves(),
                step: 0,
                phase: launch::PHASE_SEARCH,
                neighbourhood: search.neighbourhood().kernel_code(),
                iterations: search.iterations(),
                iteration_moves: search.iteration_moves(),
                pad: 0,
            },
            etc: self.gpu.upload(instance.etc())?,
            unslotted: self.gpu.alloc_zeroed(m)?,
            values: self.gpu.alloc_zeroed(candidates)?,
            schedules: self.gpu.alloc_zeroed(candidates * instance.tasks())?,
        });
        Ok(self)
    }

    /// The local search, if one is on.
    pub fn local_search(&self) -> Option<LocalSearch> {
        self.local_search.as_ref().map(|search| search.settings)
    }

    /// Queues the local search of the best vector (or of every vector) when it is due after the generation
    /// just completed.
    fn search_locally(&mut self) -> Result<()> {
        let Some(search) = &mut self.local_search else {
            return Ok(());
        };
        if !search.settings.is_due(self.generation) {
            return Ok(());
        }
        let slots = match &self.fused {
            Some(fused) => &fused.slots[fused.current],
            None => &search.unslotted,
        };
        let population = SearchedPopulation {
            buffers: [&mut self.population, &mut self.trials],
            slots,
            fitness: &mut self.fitness,
            best: &self.best,
            best_fitness: &mut self.best_fitness,
        };
        let scratch = KickScratch {
            values: &mut search.values,
            schedules: &mut search.schedules,
        };
        if !search.settings.restarts() {
            launch::local_search(
                &search.kernel,
                population,
                &search.etc,
                scratch,
                &search.params,
            )?;
        } else {
            let params = DeLocalSearchParams {
                step: crate::local_search::kick_step(self.generation),
                ..search.params
            };
            launch::kicked_local_search(&search.kernel, population, &search.etc, scratch, &params)?;
        }
        match search.settings.scope() {
            // The best only improved: its index stands and the search wrote its fitness.
            Scope::Best => Ok(()),
            // Any vector may now be the best: the same best-index kernel as after a generation. The next
            // generation and `step`/`step_many` read `best` and `best_fitness` after it on the stream.
            Scope::All => self.queue_best_index(),
        }
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// The parameters.
    pub fn params(&self) -> &DeParams {
        &self.params
    }

    /// Step 2: evaluates the population, then finds the best vector.
    fn evaluate_population(&mut self) -> Result<()> {
        let [makespan, flowtime] = &mut self.scratch;
        self.evaluation.evaluate(
            &self.problem,
            &self.population,
            &mut self.fitness,
            self.settings,
            [makespan, flowtime],
        )?;
        self.update_best()
    }

    /// Queues the best-index kernel: `best` and `best_fitness` on the device, nothing read back.
    fn queue_best_index(&mut self) -> Result<()> {
        launch::best_index(
            &self.gpu,
            &mut self.best,
            &mut self.best_fitness,
            &self.fitness,
            &self.kernel_params,
            self.settings,
        )
    }

    /// Finds the best vector on the device and reads its index and fitness.
    fn update_best(&mut self) -> Result<()> {
        self.queue_best_index()?;
        // One copy (and one wait) per generation: the fitness and the index (exact in f64, M < 2^31).
        let mut pair = [0.0f64; 2];
        self.best_fitness.copy_to_host(&mut pair)?;
        self.best_host = (best_index_of(pair[1]), pair[0]);
        Ok(())
    }

    /// Reads the best fitness and index that the last generation left on the device; for a user's fused
    /// problem, reports a non-finite trial fitness of the generations since the last read.
    fn read_best(&mut self) -> Result<()> {
        let mut pair = [0.0f64; 2];
        self.best_fitness.copy_to_host(&mut pair)?;
        self.best_host = (best_index_of(pair[1]), pair[0]);
        if let Some(Fused {
            kind: FusedKind::User(user),
            ..
        }) = &mut self.fused
        {
            user.check_finite()?;
        }
        Ok(())
    }

    /// Whether generations run as one launch each (the paper's problems and a user's CUDA source; see the
    /// module docs).
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// Runs `generations` generations without reading the best back in between (one launch each on the
    /// fused path; a host evaluation still waits for its trials), then reads the best fitness and index
    /// once. Equivalent to as many [`Engine::step`]s.
    ///
    /// # Errors
    /// As [`Engine::step`].
    pub fn step_many(&mut self, generations: u64) -> Result<()> {
        for _ in 0..generations {
            self.launch_generation()?;
        }
        self.read_best()
    }

    /// Queues one generation on the device; nothing is read back (a host evaluation waits for its trials).
    fn launch_generation(&mut self) -> Result<()> {
        let generation = u32::try_from(self.generation).map_err(|_| {
            Error::invalid_parameter(
                ALGORITHM,
                "generation",
                self.generation,
                "below 2^32 (the Philox step word)",
            )
        })?;
        self.kernel_params.generation = generation;
        match &mut self.fused {
            Some(fused) => {
                let [slots_a, slots_b] = &mut fused.slots;
                let (slots_in, slots_out) = if fused.current == 0 {
                    (&*slots_a, slots_b)
                } else {
                    (&*slots_b, slots_a)
                };
                let population = SlottedPopulation {
                    buffers: [&mut self.population, &mut self.trials],
                    slots_in,
                    slots_out,
                    fitness: &mut self.fitness,
                    weights: &mut self.weights,
                    rates: &mut self.rates,
                };
                let chunk_sums = ChunkSums {
                    partials: &mut fused.partials,
                    done: &mut fused.vector_done,
                };
                let best = DeviceBest {
                    index: &mut self.best,
                    fitness: &mut self.best_fitness,
                    done: &mut fused.done,
                };
                let bounds = DeviceBounds {
                    lower: &self.lower,
                    upper: &self.upper,
                };
                let settings = Settings {
                    block: fused.block,
                    profile: self.settings.profile,
                };
                match &mut fused.kind {
                    FusedKind::BuiltIn { params, etc } => {
                        params.de.generation = generation;
                        let inputs = FusedInputs { bounds, etc };
                        launch::generation(
                            &fused.kernel,
                            population,
                            chunk_sums,
                            best,
                            &inputs,
                            params,
                            settings,
                        )?;
                    }
                    FusedKind::User(user) => {
                        user.params.g.de.generation = generation;
                        let inputs = UserInputs {
                            bounds,
                            data32: &user.data32,
                            data64: &user.data64,
                            nonfinite: &mut user.nonfinite,
                            status: &mut user.status,
                        };
                        launch::user_generation(
                            &fused.kernel,
                            population,
                            chunk_sums,
                            best,
                            inputs,
                            &user.params,
                            settings,
                        )?;
                    }
                }
                fused.current ^= 1;
            }
            None => self.four_launch_generation()?,
        }
        self.generation += 1;
        self.evaluations += self.params.population() as u64;
        self.search_locally()
    }

    /// The population as `M × D` rows on the host (gathered from both buffers on the fused path).
    fn host_population(&self) -> Result<Vec<f32>> {
        let mut population = self.population.to_vec()?;
        if let Some(fused) = &self.fused {
            let slots = fused.slots[fused.current].to_vec()?;
            if slots.contains(&1) {
                let other = self.trials.to_vec()?;
                let d = self.problem.dimension();
                for (i, _) in slots.iter().enumerate().filter(|(_, s)| **s == 1) {
                    population[i * d..(i + 1) * d].copy_from_slice(&other[i * d..(i + 1) * d]);
                }
            }
        }
        Ok(population)
    }

    /// Trials, evaluation, merge and best as four launches; `step`/`step_many` read the best back.
    fn four_launch_generation(&mut self) -> Result<()> {
        launch::trial(
            &self.gpu,
            Trials {
                vectors: &mut self.trials,
                weights: &mut self.trial_weights,
                rates: &mut self.trial_rates,
            },
            Parents {
                vectors: &self.population,
                weights: &self.weights,
                rates: &self.rates,
                best: &self.best,
            },
            &DeviceBounds {
                lower: &self.lower,
                upper: &self.upper,
            },
            &self.kernel_params,
            self.settings,
        )?;
        let [makespan, flowtime] = &mut self.scratch;
        self.evaluation.evaluate(
            &self.problem,
            &self.trials,
            &mut self.trial_fitness,
            self.settings,
            [makespan, flowtime],
        )?;
        launch::merge(
            &self.gpu,
            Population {
                vectors: &mut self.population,
                fitness: &mut self.fitness,
                weights: &mut self.weights,
                rates: &mut self.rates,
            },
            &EvaluatedTrials {
                vectors: &self.trials,
                fitness: &self.trial_fitness,
                weights: &self.trial_weights,
                rates: &self.trial_rates,
            },
            &self.kernel_params,
            self.settings,
        )?;
        self.queue_best_index()
    }
}

impl<P: DeviceProblem> Engine for DeCuda<P> {
    type Solution = Vec<f32>;
    type Snapshot = DeSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        crate::snapshot::fingerprint(
            self.kernel_params.seed,
            &self.params,
            &self.problem,
            self.local_search.as_ref().map(|search| search.settings),
        )
    }

    /// One generation: trials (steps 3.1–3.3), their evaluation, the merge (3.4), the best vector; one
    /// launch on the fused path; then the best fitness and index are read back.
    fn step(&mut self) -> Result<()> {
        self.launch_generation()?;
        self.read_best()
    }

    /// The generations queued back to back with one read-back at the end ([`DeCuda::step_many`]). On an
    /// error the generations before the failing launch are queued and the device state is as `step` leaves
    /// it after an error.
    fn step_many(&mut self, steps: u64) -> Result<()> {
        DeCuda::step_many(self, steps)
    }

    /// The population once per generation (local-search evaluations are not counted).
    fn evaluations_per_step(&self) -> Option<u64> {
        Some(self.params.population() as u64)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.generation,
            evaluations: self.evaluations,
            best_fitness: self.best_host.1,
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        let d = self.problem.dimension();
        let population = self.host_population()?;
        let i = self.best_host.0 as usize;
        Ok((population[i * d..(i + 1) * d].to_vec(), self.best_host.1))
    }

    fn snapshot(&self) -> Result<DeSnapshot> {
        Ok(DeSnapshot {
            generation: self.generation,
            evaluations: self.evaluations,
            population_size: self.params.population(),
            dimension: self.problem.dimension(),
            population: self.host_population()?,
            fitness: self.fitness.to_vec()?,
            differential_weights: self.weights.to_vec()?,
            crossover_rates: self.rates.to_vec()?,
        })
    }

    fn restore(&mut self, snapshot: &DeSnapshot) -> Result<()> {
        snapshot.check_values(self.params.population(), &self.problem)?;
        self.population.copy_from_host(&snapshot.population)?;
        self.fitness.copy_from_host(&snapshot.fitness)?;
        self.weights
            .copy_from_host(&snapshot.differential_weights)?;
        self.rates.copy_from_host(&snapshot.crossover_rates)?;
        if let Some(fused) = &mut self.fused {
            // Every vector is back in buffer 0.
            let zeros = vec![0u32; self.params.population()];
            for slots in &mut fused.slots {
                slots.copy_from_host(&zeros)?;
            }
            fused.current = 0;
            // A non-finite trial of the abandoned generations is not the restored run's.
            if let FusedKind::User(user) = &mut fused.kind {
                user.status.copy_from_host(&[u32::MAX])?;
            }
        }
        self.generation = snapshot.generation;
        self.evaluations = snapshot.evaluations;
        self.update_best()
    }
}

/// The best index the best-index kernels write beside the best fitness, as the host reads it back.
// The kernels write an index below M < 2^31, which an f64 holds exactly, so the cast gives it back unchanged.
#[allow(clippy::cast_possible_truncation)]
fn best_index_of(x: f64) -> u32 {
    x as u32
}

#[cfg(test)]
mod tests {
    use super::has_uniform_bounds;

    #[test]
    fn uniform_bounds_are_equal_bit_for_bit() {
        assert!(has_uniform_bounds(&[-5.12; 4], &[5.12; 4]));
        assert!(!has_uniform_bounds(&[-5.12, -5.12, -5.0], &[5.12; 3]));
        assert!(!has_uniform_bounds(&[0.0; 3], &[1.0, 1.0, 2.0]));
        assert!(!has_uniform_bounds(&[0.0, -0.0], &[1.0; 2]));
        assert!(!has_uniform_bounds(&[], &[]));
    }
}
