//! The best row told so far, kept on the device for DE's ask/tell on the CUDA backend: after each tell one
//! block finds the told rows' lowest fitness (the first row on ties) and, when it is below the best so
//! far, copies that row into a buffer of its own, without reading anything back. `x` and `fun` read the
//! two small buffers when they are asked for. The rule is the CPU door's (`Exchange::tell`): a value
//! replaces the best only when strictly lower, so a NaN never does and neither does `+inf`.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};

const BEST_SOURCE: &str = r#"
struct EvogpuBestParams {
    unsigned long long rows;
    unsigned long long dimension;
};
static_assert(sizeof(EvogpuBestParams) == 16, "EvogpuBestParams mirrors BestParams");

#define EVOGPU_BEST_BLOCK 256

extern "C" __global__ void evogpu_best_so_far(const double* fitness, const float* population,
                                              double* best_fitness, float* best_row, EvogpuBestParams p) {
    __shared__ double values[EVOGPU_BEST_BLOCK];
    __shared__ unsigned long long rows[EVOGPU_BEST_BLOCK];
    __shared__ int improved;
    const unsigned int t = threadIdx.x;
    double value = __longlong_as_double(0x7ff0000000000000LL);
    unsigned long long row = ~0ULL;
    // Each thread keeps the first lowest of its rows (ascending), so the reduction below, which prefers
    // the lower row on equal values, gives the first lowest row of all.
    for (unsigned long long i = t; i < p.rows; i += EVOGPU_BEST_BLOCK) {
        if (fitness[i] < value) {
            value = fitness[i];
            row = i;
        }
    }
    values[t] = value;
    rows[t] = row;
    __syncthreads();
    for (unsigned int half = EVOGPU_BEST_BLOCK / 2; half > 0; half /= 2) {
        if (t < half) {
            const double other = values[t + half];
            const unsigned long long other_row = rows[t + half];
            if (other < values[t] || (other == values[t] && other_row < rows[t])) {
                values[t] = other;
                rows[t] = other_row;
            }
        }
        __syncthreads();
    }
    if (t == 0) {
        improved = values[0] < best_fitness[0];
        if (improved) best_fitness[0] = values[0];
    }
    __syncthreads();
    if (!improved) return;
    const float* source = population + rows[0] * p.dimension;
    for (unsigned long long j = t; j < p.dimension; j += EVOGPU_BEST_BLOCK) best_row[j] = source[j];
}
"#;
const BEST: &str = "evogpu_best_so_far";
/// Threads of the one block of `evogpu_best_so_far` (its `EVOGPU_BEST_BLOCK`).
const BEST_BLOCK: u32 = 256;

/// `EvogpuBestParams`.
#[repr(C)]
#[derive(Clone, Copy)]
struct BestParams {
    rows: u64,
    dimension: u64,
}
const _: () = assert!(size_of::<BestParams>() == 16);
// SAFETY: repr(C), two integers, the layout of `EvogpuBestParams` above, whose size both sides assert.
unsafe impl KernelParams for BestParams {}

/// The best fitness told so far (`+inf` before any) and its row, on the device.
pub struct BestSoFar {
    kernel: Kernel,
    fitness: DeviceBuffer<f64>,
    row: DeviceBuffer<f32>,
}

impl BestSoFar {
    /// Nothing told yet, for rows of `dimension` genes on `gpu`.
    ///
    /// # Errors
    /// NVRTC and driver errors (the kernel, the two buffers).
    pub fn new(gpu: &Gpu, dimension: usize) -> Result<Self> {
        Ok(Self {
            kernel: gpu.user_kernel(BEST, BEST_SOURCE, BEST, Profile::Exact)?,
            fitness: gpu.upload(&[f64::INFINITY])?,
            row: gpu.alloc_zeroed(dimension)?,
        })
    }

    /// Queues on the main stream the update with the told `fitness` of the `fitness.len()` rows of
    /// `population`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `population` is not `fitness.len()` rows of this best's dimension;
    /// driver errors of the launch.
    pub fn update(
        &mut self,
        fitness: &DeviceBuffer<f64>,
        population: &DeviceBuffer<f32>,
    ) -> Result<()> {
        let dimension = self.row.len();
        if fitness.len().checked_mul(dimension) != Some(population.len()) {
            return Err(Error::invalid_parameter(
                "DE ask/tell",
                "population length",
                population.len(),
                format!("{} rows of {dimension} genes", fitness.len()),
            ));
        }
        let params = BestParams {
            rows: fitness.len() as u64,
            dimension: dimension as u64,
        };
        // SAFETY: one block reads `fitness[0..rows)` and one row of `population` (rows × dimension values,
        // checked above), and writes `self.fitness[0]` and `self.row[0..dimension)`.
        unsafe {
            self.kernel
                .launch()
                .input(fitness)
                .input(population)
                .output(&mut self.fitness)
                .output(&mut self.row)
                .params(&params)
                .run(LaunchConfig::linear(1, BEST_BLOCK, 0))
        }
    }

    /// The best row and its fitness, `None` while no told value was below `+inf` (waits for the stream).
    ///
    /// # Errors
    /// Driver errors of the copies.
    pub fn read(&self) -> Result<Option<(Vec<f32>, f64)>> {
        let mut fitness = [0.0f64];
        self.fitness.copy_to_host(&mut fitness)?;
        if fitness[0].is_infinite() && fitness[0].is_sign_positive() {
            return Ok(None);
        }
        Ok(Some((self.row.to_vec()?, fitness[0])))
    }
}
