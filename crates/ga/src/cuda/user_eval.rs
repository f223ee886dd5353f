//! The device evaluation of a [`UserBits`](crate::UserBits): the typed launch of `evo_user_bits_fitness`
//! (kernels/common/problems/user_bits.cuh) in the user's module, and the deferred report of a non-finite
//! fitness.

use evo_benchmarks::cuda::{
    BitEvaluator, EvalSettings, NonFiniteWatch, UserData, UserDataBuffers, UserModuleKernels,
    row_grid,
};
use evo_core::{Bits, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig};

/// Entry point of the evaluation kernel of a user bit-string module.
pub const USER_BITS_ENTRY: &str = "evo_user_bits_fitness";
/// Threads per block: one individual per thread, few per block, since a whole-individual function may
/// keep much state per thread.
const THREADS: u32 = 128;

/// Scalar arguments of `evo_user_bits_fitness`; mirrors `EvoUserBitsParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserBitsParams {
    /// Individuals.
    pub rows: u64,
    /// Words per row, `⌈L/32⌉`.
    pub words: u64,
    /// `L`, bits per row.
    pub bits: u64,
}
const _: () = assert!(size_of::<UserBitsParams>() == 24);
// SAFETY: repr(C), plain integers, the layout of the CUDA struct (24 bytes, asserted on both sides).
unsafe impl KernelParams for UserBitsParams {}

/// The evaluator of a user module (see [`BitEvaluator`]).
pub(crate) struct UserBitsEvaluator {
    problem: String,
    bits: usize,
    kernels: UserModuleKernels,
    data: UserDataBuffers,
    watch: NonFiniteWatch,
}

impl UserBitsEvaluator {
    /// Compiles the module for `gpu` under the Exact profile, so that a bad source fails here with NVRTC's
    /// log (the Fast profile compiles on first use).
    pub(crate) fn new(
        gpu: &Gpu,
        problem: &str,
        module: String,
        source: String,
        bits: usize,
        data: &UserData,
    ) -> Result<Self> {
        Ok(Self {
            problem: problem.to_string(),
            bits,
            kernels: UserModuleKernels::new(gpu, module, source, USER_BITS_ENTRY)?,
            data: UserDataBuffers::upload(gpu, data)?,
            watch: NonFiniteWatch::new(gpu)?,
        })
    }
}

impl BitEvaluator for UserBitsEvaluator {
    fn bit_count(&self) -> usize {
        self.bits
    }

    /// One thread per row; queues the launch only.
    fn evaluate(
        &mut self,
        population: &DeviceBuffer<u32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let rows = fitness.len();
        let words = Bits::word_count(self.bits);
        if population.len() != rows.saturating_mul(words) {
            return Err(Error::invalid_parameter(
                "UserBits",
                "population length",
                format!("{} (problem `{}`)", population.len(), self.problem),
                format!("{rows} individuals x {words} words"),
            ));
        }
        if rows == 0 {
            return Ok(());
        }
        let grid = row_grid(
            "UserBits",
            "individuals per evaluation",
            &self.problem,
            rows,
            THREADS,
        )?;
        let kernel = self.kernels.kernel(settings.profile)?;
        let (bad, status) = self.watch.buffers(self.kernels.gpu(), rows)?;
        let params = UserBitsParams {
            rows: rows as u64,
            words: words as u64,
            bits: self.bits as u64,
        };
        // SAFETY: the arguments follow `(const unsigned int* population, const float* data32, const double*
        // data64, double* fitness, double* bad, unsigned int* status, EvoUserBitsParams)`; thread r < rows
        // reads row r of population (rows · words words, checked above), which the user's function reads
        // within its `words` words, and the data arrays at the offsets and lengths the module's prelude was
        // generated from (the buffers uploaded from the same arrays), writes fitness[r]
        // and bad[r] (both `rows` long) and atomically status[0]; no shared memory; the kernel touches no
        // global memory before evo_wait_previous_grid(), as an overlapping launch requires.
        unsafe {
            kernel
                .launch()
                .overlapping_previous()
                .input(population)
                .input(&self.data.data32)
                .input(&self.data.data64)
                .output(fitness)
                .output(bad)
                .output(status)
                .params(&params)
                .run(LaunchConfig::linear(grid, THREADS, 0))
        }
    }

    fn stream_ordered(&self) -> bool {
        true
    }

    /// Reads the status word (and, after a bad row, its value) and clears it.
    fn check(&mut self) -> Result<()> {
        self.watch.check(&self.problem)
    }
}
