//! The local search of ETC schedules (`de_local_search_etc_f32`, kernels/cuda/de_local_search.cuh): its
//! parameters and the launches of its three phases.

use super::{host_len, site};
use crate::params::ALGORITHM;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::de;

/// Scalar arguments of the local search kernel `de_local_search_etc_f32` (all three phases); mirrors
/// `DeLocalSearchParams` in `kernels/cuda/de_local_search.cuh`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DeLocalSearchParams {
    /// `M`.
    pub population: u64,
    /// `n` (at most [`MAX_TASKS`](crate::local_search::MAX_TASKS)).
    pub tasks: u32,
    /// `m` (at most [`MAX_MACHINES`](crate::local_search::MAX_MACHINES)).
    pub machines: u32,
    /// `λ`.
    pub lambda: f64,
    /// The most moves or swaps one search applies.
    pub max_moves: u32,
    /// 0: one block searches the best vector ([`Scope::Best`](crate::Scope::Best)); 1: block `i` searches
    /// vector `i` ([`Scope::All`](crate::Scope::All)).
    pub all_vectors: u32,
    /// The run's seed (the Philox key of the kicks).
    pub seed: u64,
    /// `K`, the kicks of one search ([`LocalSearch::kicks`](crate::LocalSearch::kicks)).
    pub kicks: u32,
    /// Random task moves of one kick.
    pub kick_moves: u32,
    /// The Philox step word of this search's kicks ([`kick_step`](crate::local_search::kick_step) of the
    /// generation).
    pub step: u32,
    /// What the launch does: [`PHASE_SEARCH`], [`PHASE_KICKS`] or [`PHASE_PICK`] (set by the launch functions).
    pub phase: u32,
    /// The descent's candidates: `DE_LS_MAKESPAN_MACHINE` (0) or `DE_LS_ANY_PAIR` (1)
    /// ([`Neighbourhood::kernel_code`](crate::Neighbourhood::kernel_code)).
    pub neighbourhood: u32,
    /// `I`, the perturb-and-descend iterations of each candidate
    /// ([`LocalSearch::iterations`](crate::LocalSearch::iterations)).
    pub iterations: u32,
    /// Random task moves of one iteration's perturbation.
    pub iteration_moves: u32,
    /// Keeps the size a multiple of 8; always 0.
    pub pad: u32,
}

/// `DE_LS_PHASE_SEARCH`: steps 1–3 without kicks.
pub const PHASE_SEARCH: u32 = 0;
/// `DE_LS_PHASE_KICKS`: step 4's first launch, the `K + 1` candidates.
pub const PHASE_KICKS: u32 = 1;
/// `DE_LS_PHASE_PICK`: step 4's second launch, the winner.
pub const PHASE_PICK: u32 = 2;
const _: () = assert!(size_of::<DeLocalSearchParams>() == 72);
// SAFETY: repr(C), integers and one f64 without padding (the explicit `pad` fills the tail), the layout of
// `DeLocalSearchParams` (72 bytes, asserted on both sides).
unsafe impl KernelParams for DeLocalSearchParams {}

/// Threads of each block of the local search (`DE_LS_BLOCK`, the size of its shared arrays).
pub const LOCAL_SEARCH_BLOCK: u32 = 256;

/// The entry point of the local search (`de_local_search_etc_f32`), compiled under `profile`.
///
/// # Errors
/// As [`Gpu::kernel`].
pub fn local_search_kernel(gpu: &Gpu, profile: Profile) -> Result<Kernel> {
    gpu.entry_point(de::LOCAL_SEARCH_ETC_F32, profile)
}

/// The population the local search reads and improves: vector `i` is row `i` of `buffers[slots[i]]`.
pub struct SearchedPopulation<'a> {
    /// The two `M × n` buffers (the four-launch path passes the population and the trials, with all slots 0).
    pub buffers: [&'a mut DeviceBuffer<f32>; 2],
    /// Where every vector is (`M` entries, 0 or 1).
    pub slots: &'a DeviceBuffer<u32>,
    /// Every vector's fitness (a searched one's is replaced on an improvement).
    pub fitness: &'a mut DeviceBuffer<f64>,
    /// The best index (one element, read by scope Best).
    pub best: &'a DeviceBuffer<u32>,
    /// `[fitness, index as f64]` of the best (scope Best replaces the fitness on an improvement; scope All
    /// leaves it to the best-index launch that follows).
    pub best_fitness: &'a mut DeviceBuffer<f64>,
}

impl SearchedPopulation<'_> {
    /// The same buffers for a shorter borrow (one launch of several).
    fn reborrow(&mut self) -> SearchedPopulation<'_> {
        let [buffer0, buffer1] = &mut self.buffers;
        SearchedPopulation {
            buffers: [&mut **buffer0, &mut **buffer1],
            slots: self.slots,
            fitness: &mut *self.fitness,
            best: self.best,
            best_fitness: &mut *self.best_fitness,
        }
    }
}

/// The local search of the best vector's schedule without kicks, one block on the engine's stream, or with
/// `p.all_vectors` of every vector's, one block per vector in one launch (twin:
/// [`ScheduleSearch::improve_vector`](crate::ScheduleSearch::improve_vector)); after scope All the caller
/// recomputes the best ([`best_index`](super::best_index)). `kernel` is [`local_search_kernel`], looked up once by the engine;
/// `scratch` is passed through untouched (the kernel's signature has it for the kicked search).
pub fn local_search(
    kernel: &Kernel,
    population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let site = site(de::LOCAL_SEARCH_ETC_F32);
    let m = host_len(site, "population M", p.population)?;
    check_searched(site, &population, etc, p)?;
    let grid = if p.all_vectors == 0 {
        1
    } else {
        u32::try_from(m)
            .ok()
            .filter(|&g| (1..=i32::MAX as u32).contains(&g))
            .ok_or_else(|| {
                Error::invalid_parameter(
                    ALGORITHM,
                    "local search of every vector: population",
                    m,
                    "1 ..= 2^31 − 1 (one block per vector)",
                )
            })?
    };
    let p = DeLocalSearchParams {
        phase: PHASE_SEARCH,
        ..*p
    };
    // SAFETY: arguments follow `de_local_search_etc_f32(float* buffer0, float* buffer1, const unsigned int*
    // slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double*
    // values, unsigned char* schedules, DeLocalSearchParams)`, whose search phase does not touch values and
    // schedules; lengths checked above: the searched index (scope Best: the best index, below M,
    // written by the engine's best kernels; scope All: the block index, below the grid of M blocks) selects
    // a row below M of either buffer and entries below M of slots and fitness, each block its own; the slots
    // hold 0 or 1; ETC entries t·m + s with t < n and s < m; n and m fit the kernel's shared arrays (checked
    // above) and every block is `DE_LS_BLOCK` threads.
    unsafe { launch_phase(kernel, population, etc, scratch, &p, grid) }
}

/// One launch of `de_local_search_etc_f32` with `grid` blocks of [`LOCAL_SEARCH_BLOCK`] threads, the
/// buffers in the kernel's argument order `(float* buffer0, float* buffer1, const unsigned int* slots,
/// double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double* values,
/// unsigned char* schedules, DeLocalSearchParams)`.
///
/// # Safety
/// The lengths checked by [`check_searched`] (and the scratch lengths for the kicks and pick phases) must
/// hold, and `grid` must be the phase's block count, as each caller's SAFETY note states.
unsafe fn launch_phase(
    kernel: &Kernel,
    population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
    grid: u32,
) -> Result<()> {
    let [buffer0, buffer1] = population.buffers;
    // SAFETY: the caller's contract above.
    unsafe {
        kernel
            .launch()
            .output(buffer0)
            .output(buffer1)
            .input(population.slots)
            .output(population.fitness)
            .input(population.best)
            .output(population.best_fitness)
            .input(etc)
            .output(scratch.values)
            .output(scratch.schedules)
            .params(p)
            .run(LaunchConfig::linear(grid, LOCAL_SEARCH_BLOCK, 0))
    }
}

/// The lengths of the searched population's buffers and of the ETC matrix for `p`, and the instance shape.
fn check_searched(
    site: LaunchSite,
    population: &SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let m = host_len(site, "population M", p.population)?;
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let [buffer0, buffer1] = &population.buffers;
    site.check_len("population buffer 0", buffer0.len(), m * n)?;
    site.check_len("population buffer 1", buffer1.len(), m * n)?;
    site.check_len("slot buffer", population.slots.len(), m)?;
    site.check_len("fitness buffer", population.fitness.len(), m)?;
    site.check_len("best index buffer", population.best.len(), 1)?;
    site.check_len("best fitness buffer", population.best_fitness.len(), 2)?;
    site.check_len("ETC buffer", etc.len(), n * machines)?;
    check_search_shape(p)
}

/// The instance shape of `p` against the kernels' shared arrays.
fn check_search_shape(p: &DeLocalSearchParams) -> Result<()> {
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let sizes_ok = (1..=crate::local_search::MAX_TASKS).contains(&n)
        && (1..=crate::local_search::MAX_MACHINES).contains(&machines);
    if sizes_ok {
        Ok(())
    } else {
        Err(Error::invalid_parameter(
            ALGORITHM,
            "local search shape",
            format!("{n} tasks × {machines} machines"),
            format!(
                "1 ..= {} tasks and 1 ..= {} machines",
                crate::local_search::MAX_TASKS,
                crate::local_search::MAX_MACHINES
            ),
        ))
    }
}

/// The candidates of a kicked search on the device: `K + 1` exact values and `K + 1` schedules of `n` bytes.
pub struct KickScratch<'a> {
    /// Candidate `r`'s exact fitness at `r`.
    pub values: &'a mut DeviceBuffer<f64>,
    /// Candidate `r`'s schedule at `r·n .. (r + 1)·n`, one machine per byte.
    pub schedules: &'a mut DeviceBuffer<u8>,
}

impl KickScratch<'_> {
    /// The same buffers for a shorter borrow (one launch of several).
    fn reborrow(&mut self) -> KickScratch<'_> {
        KickScratch {
            values: &mut *self.values,
            schedules: &mut *self.schedules,
        }
    }
}

/// The kicked or iterated local search of the best vector (steps 4–5 of [`local_search`](crate::local_search),
/// scope Best): `K + 1` blocks search the best's schedule and its kicks, each iterated `I` times, into
/// `scratch`, then one block picks the best candidate and writes it when strictly better (twin:
/// [`ScheduleSearch::improve_vector`](crate::ScheduleSearch::improve_vector) with kicks or iterations).
/// `kernel` is [`local_search_kernel`], looked up once by the engine.
pub fn kicked_local_search(
    kernel: &Kernel,
    mut population: SearchedPopulation<'_>,
    etc: &DeviceBuffer<f32>,
    mut scratch: KickScratch<'_>,
    p: &DeLocalSearchParams,
) -> Result<()> {
    let site = site(de::LOCAL_SEARCH_ETC_F32);
    let (n, machines) = (p.tasks as usize, p.machines as usize);
    let candidates = p.kicks as usize + 1;
    check_searched(site, &population, etc, p)?;
    site.check_len("kick value buffer", scratch.values.len(), candidates)?;
    site.check_len(
        "kick schedule buffer",
        scratch.schedules.len(),
        candidates * n,
    )?;
    let moves = 1..=crate::local_search::MAX_KICK_MOVES;
    let kicks_ok = match p.kicks {
        0 => p.kick_moves == 0,
        k => k <= crate::local_search::MAX_KICKS && moves.contains(&p.kick_moves),
    };
    let iterations_ok = match p.iterations {
        0 => p.iteration_moves == 0,
        i => i <= crate::local_search::MAX_ITERATIONS && moves.contains(&p.iteration_moves),
    };
    let restarts_ok = kicks_ok
        && iterations_ok
        && (p.kicks > 0 || p.iterations > 0)
        && machines >= 2
        && p.all_vectors == 0;
    if !restarts_ok {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "local search kicks and iterations",
            format!(
                "{} kicks of {} moves, {} iterations of {} moves on {machines} machines (scope flag {})",
                p.kicks, p.kick_moves, p.iterations, p.iteration_moves, p.all_vectors
            ),
            format!(
                "0 ..= {} kicks and 0 ..= {} iterations, not both 0, each of 1 ..= {} moves, at least 2 \
                 machines, scope Best",
                crate::local_search::MAX_KICKS,
                crate::local_search::MAX_ITERATIONS,
                crate::local_search::MAX_KICK_MOVES
            ),
        ));
    }
    let kicks = DeLocalSearchParams {
        phase: PHASE_KICKS,
        ..*p
    };
    // SAFETY: arguments follow `de_local_search_etc_f32(float* buffer0, float* buffer1, const unsigned int*
    // slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double*
    // values, unsigned char* schedules, DeLocalSearchParams)`; its kicks phase writes no population buffer,
    // fitness or best fitness. Lengths checked above: the best index (below M, written by the engine's best
    // kernels) selects a row below M of either buffer and an entry of slots, which hold 0 or 1; ETC entries
    // t·m + s with t < n and s < m (kicks and iterations move tasks below n to machines below m); block
    // r < K + 1 writes values[r] and schedules[r·n .. (r + 1)·n) only;
    // n and m fit the kernel's shared arrays and every block is `DE_LS_BLOCK` threads.
    unsafe {
        launch_phase(
            kernel,
            population.reborrow(),
            etc,
            scratch.reborrow(),
            &kicks,
            p.kicks + 1,
        )?;
    }
    let pick = DeLocalSearchParams {
        phase: PHASE_PICK,
        ..*p
    };
    // SAFETY: the same arguments; the pick phase reads values[0 ..= K] and the winner's schedule (K + 1
    // entries of n bytes), written by the launch before on the same stream, and writes the best's row
    // (below M), fitness entry and best_fitness[0]; one block of `DE_LS_BLOCK` threads.
    unsafe { launch_phase(kernel, population, etc, scratch, &pick, 1) }
}
