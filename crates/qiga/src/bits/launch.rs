//! The typed launch functions of `qiga_bits_observe` and `qiga_bits_update` (`kernels/cuda/qiga.cu`).

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::qiga;
use evo_rng::Stream;

use crate::params::{ALGORITHM, QigaParams, QuadrantRule, SignChoice};

/// Threads per block of the observation (one thread per packed word; results do not depend on it).
const OBSERVE_BLOCK: u32 = 256;

/// Scalar arguments of both kernels; mirrors `QigaBitsParams` in `kernels/cuda/qiga.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct BitsParams {
    /// Independent runs.
    pub runs: u32,
    /// `L`, qubits per individual.
    pub bits: u32,
    /// `⌈L/32⌉`, packed words per row.
    pub words: u32,
    /// Quantum individuals per run.
    pub population: u32,
    /// The generation the launch works on.
    pub generation: u32,
    /// 0: the ±1 cells are +1; 1: drawn from the sign stream.
    pub sign_choice: u32,
    /// 0: true sign; 1: Nowotniak's quirk.
    pub quadrant_rule: u32,
    /// `Stream::QigaObserve`.
    pub observe_stream: u32,
    /// `Stream::QigaSign`.
    pub sign_stream: u32,
    /// Keeps the size a multiple of 8.
    pub padding: [u32; 3],
}
const _: () = assert!(size_of::<BitsParams>() == 48);
// SAFETY: repr(C), plain numbers only, the layout of `QigaBitsParams` (48 bytes, asserted on both sides).
unsafe impl KernelParams for BitsParams {}

/// The device state of a batch on a bit-string problem, run-major (see `qiga.cu`).
pub struct BitsState {
    /// One seed per run.
    pub seeds: DeviceBuffer<u64>,
    /// Five angles per run.
    pub angles: DeviceBuffer<f32>,
    /// θ, `runs × population × L`.
    pub theta: DeviceBuffer<f32>,
    /// The (repaired) observations, `runs × population` packed rows of `⌈L/32⌉` words.
    pub rows: DeviceBuffer<u32>,
    /// Their fitness (minimised), `runs × population`.
    pub fitness: DeviceBuffer<f64>,
    /// b, one packed row per run.
    pub best: DeviceBuffer<u32>,
    /// b's fitness, one per run (+∞ before generation 0).
    pub best_fitness: DeviceBuffer<f64>,
}

impl BitsState {
    /// The launch arguments of `generation`, after checking that every buffer has the batch's shape.
    fn params(&self, params: &QigaParams, bits: usize, generation: u32) -> Result<BitsParams> {
        let runs = self.seeds.len();
        let population = params.population();
        let words = evo_core::Bits::word_count(bits);
        let shaped = self.angles.len() == 5 * runs
            && self.theta.len() == runs * population * bits
            && self.rows.len() == runs * population * words
            && self.fitness.len() == runs * population
            && self.best.len() == runs * words
            && self.best_fitness.len() == runs;
        let genes = runs
            .checked_mul(population)
            .and_then(|rows| rows.checked_mul(bits));
        if !shaped || runs == 0 || genes.is_none_or(|g| g > u32::MAX as usize) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "device state",
                format!("{runs} runs × {population} × {bits} bits"),
                "buffers of one batch shape with 1 ..= 2^32 − 1 genes in all",
            ));
        }
        let site = LaunchSite::new(ALGORITHM, qiga::BITS_OBSERVE);
        Ok(BitsParams {
            runs: site.to_u32("runs", runs)?,
            bits: site.to_u32("bits", bits)?,
            words: site.to_u32("words", words)?,
            population: site.to_u32("population", population)?,
            generation,
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
            padding: [0; 3],
        })
    }
}

/// Step 2 of `generation` for every run: θ observed into `state.rows`.
///
/// # Errors
/// [`Error::InvalidParameter`] when the buffers do not have one batch shape; launch and compile errors.
pub fn observe(
    gpu: &Gpu,
    params: &QigaParams,
    bits: usize,
    state: &mut BitsState,
    generation: u32,
) -> Result<()> {
    let p = state.params(params, bits, generation)?;
    let site = LaunchSite::new(ALGORITHM, qiga::BITS_OBSERVE);
    let grid = site.to_u32(
        "blocks of packed words",
        state.rows.len().div_ceil(OBSERVE_BLOCK as usize),
    )?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `qiga_bits_observe`'s parameter list in order and type; thread idx <
    // runs·population·words (the rows' length, checked) reads row idx / words of θ (bits floats each,
    // checked) and the seed of its run, and writes rows[idx] only.
    unsafe {
        kernel
            .launch()
            .input(&state.seeds)
            .input(&state.theta)
            .output(&mut state.rows)
            .params(&p)
            .run(LaunchConfig::linear(grid, OBSERVE_BLOCK, 0))
    }
}

/// Steps 7 (from generation 1 on) and 5 of `generation` for every run, after the fitness is written.
///
/// # Errors
/// [`Error::InvalidParameter`] when the buffers do not have one batch shape; launch and compile errors.
pub fn update(
    gpu: &Gpu,
    params: &QigaParams,
    bits: usize,
    state: &mut BitsState,
    generation: u32,
) -> Result<()> {
    let p = state.params(params, bits, generation)?;
    let site = LaunchSite::new(ALGORITHM, qiga::BITS_UPDATE);
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: the arguments follow `qiga_bits_update`'s parameter list in order and type; block run < runs
    // touches run `run`'s slices of θ, rows, fitness, b and b's fitness (the batch's shape, checked) only.
    unsafe {
        kernel
            .launch()
            .input(&state.seeds)
            .input(&state.angles)
            .output(&mut state.theta)
            .input(&state.rows)
            .input(&state.fitness)
            .output(&mut state.best)
            .output(&mut state.best_fitness)
            .params(&p)
            .run(LaunchConfig::linear(p.runs, params.block_size(), 0))
    }
}
