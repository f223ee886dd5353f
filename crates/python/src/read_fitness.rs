//! The small kernel that copies a vector of fitness values that another library produced on the device
//! (a DLPack tensor, `float32` or `float64`, any stride) into an engine's `float64` fitness buffer, on the
//! engine's main stream. Used by a Python fitness function on the CUDA backend
//! ([`device_fitness`](crate::device_fitness)) and by DE's ask/tell on the CUDA backend.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};

use crate::dlpack_import::Vector;

const READ_FITNESS_SOURCE: &str = r#"
struct EvogpuFitnessSource {
    unsigned long long address;
    long long stride;
    unsigned long long rows;
    unsigned int is_f64;
    unsigned int pad;
};
static_assert(sizeof(EvogpuFitnessSource) == 32, "EvogpuFitnessSource mirrors FitnessSource");

extern "C" __global__ void evogpu_read_fitness(double* fitness, EvogpuFitnessSource source) {
    const unsigned long long row = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (row >= source.rows) return;
    const long long offset = (long long)row * source.stride;
    fitness[row] = source.is_f64 ? ((const double*)source.address)[offset]
                                 : (double)((const float*)source.address)[offset];
}
"#;
const READ_FITNESS: &str = "evogpu_read_fitness";
/// Threads per block of `evogpu_read_fitness`.
const READ_BLOCK: u32 = 256;

/// `EvogpuFitnessSource`: where the answer's values are.
#[repr(C)]
#[derive(Clone, Copy)]
struct FitnessSource {
    address: u64,
    stride: i64,
    rows: u64,
    is_f64: u32,
    pad: u32,
}
const _: () = assert!(size_of::<FitnessSource>() == 32);
// SAFETY: repr(C), plain integers (the address is a device address, not a host pointer), the layout of
// `EvogpuFitnessSource` above, whose size both sides assert.
unsafe impl KernelParams for FitnessSource {}

/// `evogpu_read_fitness`, compiled once per reader.
pub struct FitnessReader {
    kernel: Kernel,
}

impl FitnessReader {
    /// The reader on `gpu`.
    ///
    /// # Errors
    /// NVRTC and driver errors of the kernel.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        Ok(Self {
            kernel: gpu.user_kernel(
                READ_FITNESS,
                READ_FITNESS_SOURCE,
                READ_FITNESS,
                Profile::Exact,
            )?,
        })
    }

    /// Queues, on the main stream, the copy of `fitness.len()` values of `vector` into `fitness`
    /// (`float32` values widened exactly).
    ///
    /// # Safety
    /// `vector` must describe `fitness.len()` readable device values of this reader's device, which stay
    /// valid until the main stream has run the copy; the main stream must already be ordered after the
    /// work that writes them.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for more rows than one launch covers; driver errors of the launch.
    pub unsafe fn read(&self, vector: Vector, fitness: &mut DeviceBuffer<f64>) -> Result<()> {
        let n = fitness.len();
        let source = FitnessSource {
            address: vector.address,
            stride: vector.stride,
            rows: n as u64,
            is_f64: u32::from(vector.is_f64),
            pad: 0,
        };
        let blocks = u32::try_from(n.div_ceil(READ_BLOCK as usize)).map_err(|_| {
            Error::invalid_parameter(
                "fitness read-back",
                "rows",
                n,
                format!(
                    "at most {} rows",
                    u64::from(u32::MAX) * u64::from(READ_BLOCK)
                ),
            )
        })?;
        // SAFETY: the kernel reads `n` values at `address` with `stride` (valid until the stream has run the
        // launch, as the caller guarantees) and writes `fitness[0..n)`, one thread per row of
        // `blocks × READ_BLOCK ≥ n`.
        unsafe {
            self.kernel
                .launch()
                .output(fitness)
                .params(&source)
                .run(LaunchConfig::linear(blocks, READ_BLOCK, 0))
        }
    }
}
