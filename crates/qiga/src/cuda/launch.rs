//! The typed launch function of `qiga_run_generations` and, when a knapsack option is on,
//! `qiga_run_generations_options` (`kernels/cuda/qiga.cu`).

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::qiga;
use evo_rng::Stream;

use crate::options::{LocalSearch, Repair};
use crate::params::{ALGORITHM, QigaParams, QuadrantRule, SignChoice};

/// Scalar arguments of `qiga_run_generations`; mirrors `QigaRunParams` in `kernels/cuda/qiga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RunParams {
    /// Knapsack capacity C.
    pub capacity: f64,
    /// Runs (blocks).
    pub runs: u32,
    /// Items n.
    pub items: u32,
    /// Quantum individuals per run.
    pub population: u32,
    /// The generation index of the launch's first generation.
    pub first_generation: u32,
    /// Generations run by the launch.
    pub generations: u32,
    /// 0: the ±1 cells are +1; 1: drawn from the sign stream.
    pub sign_choice: u32,
    /// 0: true sign; 1: Nowotniak's quirk.
    pub quadrant_rule: u32,
    /// `Stream::QigaObserve`.
    pub observe_stream: u32,
    /// `Stream::QigaSign`.
    pub sign_stream: u32,
    /// 1: every weight and profit sum is exact in any order ([`sums_are_exact`](crate::cuda::exact::sums_are_exact)), so the kernel repairs,
    /// evaluates and searches with a warp per individual; 0: the serial loops of the CPU twin.
    pub exact_sums: u32,
    /// 1: each run's state lives in the block's dynamic shared memory during the launch ([`shared_bytes`]
    /// of it); 0: in global memory in place (a state too large for one block's shared memory).
    pub shared_state: u32,
    /// 1: θ is not read but starts at [`INITIAL_ANGLE`](crate::ops::INITIAL_ANGLE) (a new batch's generation
    /// 0, so that the host neither fills nor uploads it); 0: θ is read.
    pub initial_theta: u32,
}
const _: () = assert!(size_of::<RunParams>() == 56);
// SAFETY: repr(C), plain numbers only, the layout of `QigaRunParams` (56 bytes, asserted on both sides).
unsafe impl KernelParams for RunParams {}

/// Scalar arguments of `qiga_run_generations_options`; mirrors `QigaOptionParams` in `kernels/cuda/qiga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct OptionParams {
    /// As for `qiga_run_generations`.
    pub run: RunParams,
    /// 0: the index-order repair; 1: the greedy repair.
    pub repair: u32,
    /// 0: off; 1: the swap-window local search.
    pub local_search: u32,
    /// Keeps the size a multiple of 8.
    pub padding: [u32; 2],
}
const _: () = assert!(size_of::<OptionParams>() == 72);
// SAFETY: repr(C), plain numbers only, the layout of `QigaOptionParams` (72 bytes, asserted on both sides).
unsafe impl KernelParams for OptionParams {}

/// The device state of a batch, run-major (see `qiga.cu`).
pub struct DeviceState {
    /// Weights `w_j`.
    pub weights: DeviceBuffer<f32>,
    /// Profits `p_j`.
    pub profits: DeviceBuffer<f32>,
    /// The items in profit/weight order (`Knapsack::ratio_order`), read by the greedy repair and the local
    /// search.
    pub order: DeviceBuffer<u32>,
    /// One seed per run.
    pub seeds: DeviceBuffer<u64>,
    /// Five angles per run.
    pub angles: DeviceBuffer<f32>,
    /// θ, `runs × population × items`.
    pub theta: DeviceBuffer<f32>,
    /// Repaired observations as bytes, `runs × population × items`.
    pub observed: DeviceBuffer<u8>,
    /// Profits of the observations, `runs × population`.
    pub fitness: DeviceBuffer<f64>,
    /// b as bytes, `runs × items`.
    pub best: DeviceBuffer<u8>,
    /// f(b), one per run.
    pub best_profit: DeviceBuffer<f64>,
    /// Whether θ is still unwritten: the next launch, generation 0 of a new batch, starts it at
    /// [`INITIAL_ANGLE`](crate::ops::INITIAL_ANGLE) instead of reading it.
    pub initial_theta: bool,
    /// Whether the weights' and the profits' sums are exact in any order ([`sums_are_exact`](crate::cuda::exact::sums_are_exact)), computed once
    /// from the host copies.
    pub exact_sums: bool,
}

/// The dynamic shared memory that holds one run's state in `qiga_generations_in<true>` (`kernels/cuda/qiga.cu`):
/// θ in rows padded to a multiple of 8 genes (f32), the weights and profits as f64 (padded alike, and again
/// lane-major over whole chunks of 256 for the warp repair), the population's profits (f64), the observations
/// in padded rows and b (bytes).
pub fn shared_bytes(population: usize, items: usize) -> usize {
    let stride = items.next_multiple_of(8);
    let chunked = items.next_multiple_of(256);
    4 * population * stride
        + 16 * stride
        + 16 * chunked
        + 8 * population
        + population * stride
        + stride
}

/// The static shared memory of the generation kernels (`QigaBlockShared`, 400 bytes) with room to spare; the
/// dynamic part must fit beside it.
const STATIC_SHARED_BYTES: usize = 1024;

/// Whether runs of `population` × `items` keep their state in shared memory on `gpu` ([`shared_bytes`] of it
/// beside the kernels' static shared memory, within the most one block may use); else it stays in global
/// memory. Both layouts give the same bits.
///
/// # Errors
/// When the device cannot be queried.
pub fn shared_layout(gpu: &Gpu, population: usize, items: usize) -> Result<bool> {
    let limit = usize::try_from(gpu.max_shared_bytes_per_block()?).unwrap_or(usize::MAX);
    Ok(shared_bytes(population, items) + STATIC_SHARED_BYTES <= limit)
}

/// Runs generations `first .. first + count` of every run of `state` in one launch (one block per run,
/// `params.block_size()` threads).
///
/// # Errors
/// [`Error::InvalidParameter`] when the buffers do not have the batch's shape or the generation range passes
/// `u32::MAX`; launch and compile errors of the runtime.
pub fn run_generations(
    gpu: &Gpu,
    params: &QigaParams,
    capacity: f64,
    state: &mut DeviceState,
    first: u32,
    count: u32,
) -> Result<()> {
    let runs = state.seeds.len();
    let items = state.weights.len();
    let population = params.population();
    let genes = runs * population * items;
    let shaped = state.profits.len() == items
        && state.order.len() == items
        && state.angles.len() == 5 * runs
        && state.theta.len() == genes
        && state.observed.len() == genes
        && state.fitness.len() == runs * population
        && state.best.len() == runs * items
        && state.best_profit.len() == runs;
    if !shaped || runs == 0 || u32::try_from(runs).is_err() {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "device state",
            format!("{runs} runs × {population} × {items}"),
            "buffers of one batch shape with 1 ..= 2^32 − 1 runs",
        ));
    }
    if population * items > u32::MAX as usize || first.checked_add(count).is_none() {
        return Err(Error::invalid_parameter(
            ALGORITHM,
            "generation range",
            format!(
                "{first} + {count} (population × items = {})",
                population * items
            ),
            "generation indices and genes per run below 2^32",
        ));
    }
    if count == 0 {
        return Ok(());
    }
    let options = params.options();
    let site = LaunchSite::new(
        ALGORITHM,
        if options.is_paper() {
            qiga::RUN_GENERATIONS
        } else {
            qiga::RUN_GENERATIONS_OPTIONS
        },
    );
    let grid = site.to_u32("runs", runs)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // The state in shared memory when it fits beside the static part: each generation then reads and writes
    // it without a global-memory round trip.
    let shared = shared_layout(gpu, population, items)?;
    let dynamic = if shared {
        let bytes = site.to_u32("shared state bytes", shared_bytes(population, items))?;
        kernel.allow_dynamic_shared_bytes(bytes)?;
        bytes
    } else {
        0
    };
    let p = RunParams {
        capacity,
        runs: grid,
        items: site.to_u32("items", items)?,
        population: site.to_u32("population", population)?,
        first_generation: first,
        generations: count,
        sign_choice: match params.sign_choice() {
            SignChoice::Plus => 0,
            SignChoice::Random => 1,
        },
        quadrant_rule: match params.quadrant_rule() {
            QuadrantRule::TrueSign => 0,
            QuadrantRule::NowotniakQuirk => 1,
        },
        observe_stream: Stream::QigaObserve.id(),
        sign_stream: Stream::QigaSign.id(),
        exact_sums: u32::from(state.exact_sums),
        shared_state: u32::from(shared),
        initial_theta: u32::from(state.initial_theta),
    };
    // The block must hold one repair thread per individual; the population is at most 64 ≤ 32·2.
    let block = params
        .block_size()
        .max(site.to_u32("population", population.next_power_of_two())?);
    let launched = if options.is_paper() {
        // SAFETY: the arguments follow `qiga_run_generations`' parameter list in order and type; every buffer
        // has the batch's shape (checked above) and the kernel indexes block `run < runs` within it only.
        unsafe {
            kernel
                .launch()
                .input(&state.weights)
                .input(&state.profits)
                .input(&state.seeds)
                .input(&state.angles)
                .output(&mut state.theta)
                .output(&mut state.observed)
                .output(&mut state.fitness)
                .output(&mut state.best)
                .output(&mut state.best_profit)
                .params(&p)
                .run(LaunchConfig::linear(grid, block, dynamic))
        }
    } else {
        let o = OptionParams {
            run: p,
            repair: match options.repair {
                Repair::IndexOrder => 0,
                Repair::Greedy => 1,
            },
            local_search: match options.local_search {
                LocalSearch::Off => 0,
                LocalSearch::SwapWindow => 1,
            },
            padding: [0; 2],
        };
        // SAFETY: the arguments follow `qiga_run_generations_options`' parameter list in order and type;
        // every buffer has the batch's shape (checked above, `order` included) and the kernel indexes block
        // `run < runs` within it only.
        unsafe {
            kernel
                .launch()
                .input(&state.weights)
                .input(&state.profits)
                .input(&state.order)
                .input(&state.seeds)
                .input(&state.angles)
                .output(&mut state.theta)
                .output(&mut state.observed)
                .output(&mut state.fitness)
                .output(&mut state.best)
                .output(&mut state.best_profit)
                .params(&o)
                .run(LaunchConfig::linear(grid, block, dynamic))
        }
    };
    launched?;
    state.initial_theta = false;
    Ok(())
}
