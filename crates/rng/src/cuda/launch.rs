//! One typed launch function per fill kernel of `kernels/cuda/rng.cu`.

use evo_core::{Error, Result};
use evo_gpu_runtime::{
    DeviceBuffer, DeviceCopy, Gpu, KernelParams, LaunchConfig, Profile, check_block_size,
};
use evo_kernels::EntryPoint;
use evo_kernels::entry::rng;

use crate::addressed::Sequence;
use crate::gf2::JumpTables;

/// Scalar arguments of every fill kernel; mirrors `RngFillParams` in `kernels/cuda/rng.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct FillParams {
    /// The 64-bit seed.
    pub seed: u64,
    /// Paper generators: thread t uses subsequence + t.
    pub subsequence: u64,
    /// Paper generators: the `curand_init` offset.
    pub offset: u64,
    /// Addressed Philox: number of outputs.
    pub n: u64,
    /// Addressed Philox: counter word 3.
    pub stream: u32,
    /// Addressed Philox: counter word 2.
    pub step: u32,
    /// Addressed Philox: counter word 1.
    pub individual: u32,
    /// `below`: draws lie in `[0, bound)`.
    pub bound: u32,
    /// Paper generators: number of generator threads.
    pub threads: u32,
    /// Paper generators: draws per thread.
    pub per_thread: u32,
}
const _: () = assert!(size_of::<FillParams>() == 56);
// SAFETY: repr(C), integers only, the layout of `RngFillParams` (56 bytes, asserted on both sides).
unsafe impl KernelParams for FillParams {}

/// Blocks for `work` items in blocks of `block` threads, capped at 64 blocks per multiprocessor (the
/// kernels loop over the rest).
fn grid_for(multiprocessors: u32, work: u64, block: u32) -> u32 {
    let cap = multiprocessors.max(1).saturating_mul(64);
    // A block count beyond u32::MAX is beyond the cap too.
    u32::try_from(work.div_ceil(u64::from(block))).map_or(cap, |blocks| blocks.clamp(1, cap))
}

fn addressed_params(sequence: &Sequence, n: usize, bound: u32) -> Result<FillParams> {
    // Lane indices are u32: a sequence holds 2^34 words.
    if n as u64 > (1u64 << 34) {
        return Err(Error::invalid_parameter(
            "rng fill",
            "length",
            n,
            "at most 2^34 draws per sequence",
        ));
    }
    Ok(FillParams {
        seed: sequence.seed(),
        n: n as u64,
        stream: sequence.stream_id(),
        step: sequence.step(),
        individual: sequence.individual(),
        bound,
        ..FillParams::default()
    })
}

fn launch_addressed<T: DeviceCopy>(
    gpu: &Gpu,
    entry: EntryPoint,
    out: &mut DeviceBuffer<T>,
    params: FillParams,
    per_lane: u64,
    block: u32,
) -> Result<()> {
    check_block_size("rng fill", block)?;
    if params.n == 0 {
        return Ok(());
    }
    let kernel = gpu.entry_point(entry, Profile::Exact)?;
    let grid = grid_for(
        gpu.info().multiprocessors,
        params.n.div_ceil(per_lane),
        block,
    );
    // SAFETY: the arguments follow `rng_philox_fill_*(T* out, RngFillParams)`; the kernel writes indices
    // below params.n = out.len() only.
    unsafe {
        kernel
            .launch()
            .output(out)
            .params(&params)
            .run(LaunchConfig::linear(grid, block, 0))
    }
}

/// `out[j]` = word `j` of `sequence` on the GPU (twin of [`crate::fill::philox_u32`]).
pub fn philox_fill_u32(
    gpu: &Gpu,
    sequence: &Sequence,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    let params = addressed_params(sequence, out.len(), 0)?;
    launch_addressed(gpu, rng::PHILOX_FILL_U32, out, params, 4, block)
}

/// `out[j]` = uniform f32 of word `j` (twin of [`crate::fill::philox_uniform_f32`]).
pub fn philox_fill_uniform_f32(
    gpu: &Gpu,
    sequence: &Sequence,
    out: &mut DeviceBuffer<f32>,
    block: u32,
) -> Result<()> {
    let params = addressed_params(sequence, out.len(), 0)?;
    launch_addressed(gpu, rng::PHILOX_FILL_UNIFORM_F32, out, params, 4, block)
}

/// `out[q]` = uniform f64 of words `2q`, `2q + 1` (twin of [`crate::fill::philox_uniform_f64`]).
pub fn philox_fill_uniform_f64(
    gpu: &Gpu,
    sequence: &Sequence,
    out: &mut DeviceBuffer<f64>,
    block: u32,
) -> Result<()> {
    let params = addressed_params(sequence, out.len().saturating_mul(2), 0)?;
    let params = FillParams {
        n: out.len() as u64,
        ..params
    };
    launch_addressed(gpu, rng::PHILOX_FILL_UNIFORM_F64, out, params, 2, block)
}

/// `out[j]` = integer in `[0, bound)` from word `j` (twin of [`crate::fill::philox_below`]); `bound ≥ 1`.
pub fn philox_fill_below(
    gpu: &Gpu,
    sequence: &Sequence,
    bound: u32,
    out: &mut DeviceBuffer<u32>,
    block: u32,
) -> Result<()> {
    if bound == 0 {
        return Err(Error::invalid_parameter(
            "rng fill",
            "bound",
            0,
            "at least 1",
        ));
    }
    let params = addressed_params(sequence, out.len(), bound)?;
    launch_addressed(gpu, rng::PHILOX_FILL_BELOW, out, params, 4, block)
}

/// `out[k]` = normal `k` (twin of [`crate::fill::philox_normal_f32`]).
pub fn philox_fill_normal_f32(
    gpu: &Gpu,
    sequence: &Sequence,
    out: &mut DeviceBuffer<f32>,
    block: u32,
) -> Result<()> {
    let params = addressed_params(sequence, out.len(), 0)?;
    launch_addressed(gpu, rng::PHILOX_FILL_NORMAL_F32, out, params, 4, block)
}

/// How the paper generators of one fill are seeded and how much each draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PaperFill {
    /// The `curand_init` seed (ignored by xor128, whose states are given).
    pub seed: u64,
    /// Thread t runs `curand_init(seed, subsequence + t, offset)`.
    pub subsequence: u64,
    /// The `curand_init` offset.
    pub offset: u64,
    /// Number of generator threads T.
    pub threads: u32,
    /// Draws per thread.
    pub per_thread: u32,
}

impl PaperFill {
    fn params(&self, out_len: usize) -> Result<FillParams> {
        let expected = u64::from(self.threads) * u64::from(self.per_thread);
        if out_len as u64 != expected {
            return Err(Error::invalid_parameter(
                "rng fill",
                "output length",
                out_len,
                format!(
                    "threads × draws per thread = {} × {}",
                    self.threads, self.per_thread
                ),
            ));
        }
        if self
            .subsequence
            .checked_add(u64::from(self.threads))
            .is_none()
        {
            return Err(Error::invalid_parameter(
                "rng fill",
                "subsequence",
                self.subsequence,
                "subsequence + threads must fit in 64 bits",
            ));
        }
        Ok(FillParams {
            seed: self.seed,
            subsequence: self.subsequence,
            offset: self.offset,
            threads: self.threads,
            per_thread: self.per_thread,
            ..FillParams::default()
        })
    }
}

/// The XORWOW jump tables of [`JumpTables`] on one GPU (2 × 200 KiB), uploaded once and reused.
pub struct DeviceJumpTables {
    offset: DeviceBuffer<u32>,
    subsequence: DeviceBuffer<u32>,
}

impl DeviceJumpTables {
    /// Uploads the tables to `gpu`.
    pub fn upload(gpu: &Gpu) -> Result<Self> {
        let tables = JumpTables::get();
        Ok(Self {
            offset: gpu.upload(&JumpTables::flatten(&tables.offset))?,
            subsequence: gpu.upload(&JumpTables::flatten(&tables.subsequence))?,
        })
    }
}

macro_rules! xor128_fill {
    ($name:ident, $t:ty, $entry:expr, $doc:literal) => {
        #[doc = $doc]
        /// `states` holds (x, y, z, w) of every thread, 4 words each, and is left after the last draw; the
        /// draw `i` of thread `t` goes to `out[t + i·T]`.
        pub fn $name(
            gpu: &Gpu,
            states: &mut DeviceBuffer<u32>,
            fill: &PaperFill,
            out: &mut DeviceBuffer<$t>,
            block: u32,
        ) -> Result<()> {
            check_block_size("rng fill", block)?;
            let params = fill.params(out.len())?;
            if states.len() != 4 * fill.threads as usize {
                return Err(Error::invalid_parameter(
                    "rng fill",
                    "xor128 states",
                    states.len(),
                    "4 words per thread",
                ));
            }
            if fill.threads == 0 {
                return Ok(());
            }
            let kernel = gpu.entry_point($entry, Profile::Exact)?;
            let grid = fill.threads.div_ceil(block);
            // SAFETY: the arguments follow `rng_xor128_fill_*(uint4* states, T* out, RngFillParams)`; thread
            // t < threads touches states[4t..4t+4] and out[t + i·threads] for i < per_thread, all in bounds by
            // the checks above.
            unsafe {
                kernel
                    .launch()
                    .output(states)
                    .output(out)
                    .params(&params)
                    .run(LaunchConfig::linear(grid, block, 0))
            }
        }
    };
}

xor128_fill!(
    xor128_fill_u32,
    u32,
    rng::XOR128_FILL_U32,
    "xor128 words on the GPU."
);
xor128_fill!(
    xor128_fill_uniform_f32,
    f32,
    rng::XOR128_FILL_UNIFORM_F32,
    "xor128 uniform f32 on the GPU."
);
xor128_fill!(
    xor128_fill_uniform_f64,
    f64,
    rng::XOR128_FILL_UNIFORM_F64,
    "xor128 uniform f64 on the GPU."
);

macro_rules! xorwow_fill {
    ($name:ident, $t:ty, $entry:expr, $doc:literal) => {
        #[doc = $doc]
        /// Thread `t` runs `curand_init(seed, subsequence + t, offset)`; its draw `i` goes to `out[t + i·T]`.
        pub fn $name(
            gpu: &Gpu,
            tables: &DeviceJumpTables,
            fill: &PaperFill,
            out: &mut DeviceBuffer<$t>,
            block: u32,
        ) -> Result<()> {
            check_block_size("rng fill", block)?;
            let params = fill.params(out.len())?;
            if fill.threads == 0 {
                return Ok(());
            }
            let kernel = gpu.entry_point($entry, Profile::Exact)?;
            let grid = fill.threads.div_ceil(block);
            // SAFETY: the arguments follow `rng_curand_xorwow_fill_*(const uint* offset_table, const uint*
            // subsequence_table, T* out, RngFillParams)`; the tables hold 64 matrices each (indices by bit of
            // a u64, < 64); thread t < threads writes out[t + i·threads], i < per_thread, in bounds.
            unsafe {
                kernel
                    .launch()
                    .input(&tables.offset)
                    .input(&tables.subsequence)
                    .output(out)
                    .params(&params)
                    .run(LaunchConfig::linear(grid, block, 0))
            }
        }
    };
}

xorwow_fill!(
    curand_xorwow_fill_u32,
    u32,
    rng::CURAND_XORWOW_FILL_U32,
    "cuRAND XORWOW words on the GPU."
);
xorwow_fill!(
    curand_xorwow_fill_uniform_f32,
    f32,
    rng::CURAND_XORWOW_FILL_UNIFORM_F32,
    "cuRAND XORWOW `curand_uniform` on the GPU."
);
xorwow_fill!(
    curand_xorwow_fill_uniform_f64,
    f64,
    rng::CURAND_XORWOW_FILL_UNIFORM_F64,
    "cuRAND XORWOW `curand_uniform_double` on the GPU."
);
xorwow_fill!(
    curand_xorwow_fill_normal_f32,
    f32,
    rng::CURAND_XORWOW_FILL_NORMAL_F32,
    "cuRAND XORWOW `curand_normal` on the GPU."
);

macro_rules! curand_philox_fill {
    ($name:ident, $t:ty, $entry:expr, $doc:literal) => {
        #[doc = $doc]
        /// Thread `t` runs `curand_init(seed, subsequence + t, offset)`; its draw `i` goes to `out[t + i·T]`.
        pub fn $name(
            gpu: &Gpu,
            fill: &PaperFill,
            out: &mut DeviceBuffer<$t>,
            block: u32,
        ) -> Result<()> {
            check_block_size("rng fill", block)?;
            let params = fill.params(out.len())?;
            if fill.threads == 0 {
                return Ok(());
            }
            let kernel = gpu.entry_point($entry, Profile::Exact)?;
            let grid = fill.threads.div_ceil(block);
            // SAFETY: the arguments follow `rng_curand_philox_fill_*(T* out, RngFillParams)`; thread
            // t < threads writes out[t + i·threads], i < per_thread, in bounds.
            unsafe {
                kernel
                    .launch()
                    .output(out)
                    .params(&params)
                    .run(LaunchConfig::linear(grid, block, 0))
            }
        }
    };
}

curand_philox_fill!(
    curand_philox_fill_u32,
    u32,
    rng::CURAND_PHILOX_FILL_U32,
    "cuRAND Philox words on the GPU."
);
curand_philox_fill!(
    curand_philox_fill_uniform_f32,
    f32,
    rng::CURAND_PHILOX_FILL_UNIFORM_F32,
    "cuRAND Philox `curand_uniform` on the GPU."
);
curand_philox_fill!(
    curand_philox_fill_uniform_f64,
    f64,
    rng::CURAND_PHILOX_FILL_UNIFORM_F64,
    "cuRAND Philox `curand_uniform_double` on the GPU."
);
curand_philox_fill!(
    curand_philox_fill_normal_f32,
    f32,
    rng::CURAND_PHILOX_FILL_NORMAL_F32,
    "cuRAND Philox `curand_normal` on the GPU."
);

#[cfg(test)]
mod tests {
    use super::grid_for;

    #[test]
    fn grid_is_capped_at_64_blocks_per_multiprocessor() {
        assert_eq!(grid_for(132, 0, 256), 1);
        assert_eq!(grid_for(132, 1000, 256), 4);
        assert_eq!(grid_for(132, 1 << 40, 256), 132 * 64);
    }

    #[test]
    fn grid_never_wraps_for_huge_counts() {
        // 2^40 blocks and a cap of 64 · (2^32 − 1) blocks both exceed u32: the grid saturates at the cap
        // instead of keeping the low 32 bits (which are 0 for 2^40).
        assert_eq!(grid_for(u32::MAX, 1 << 48, 256), u32::MAX);
        assert_eq!(grid_for(0, u64::MAX, 32), 64);
    }
}
