//! Typed launch functions for the runtime's own modules, `math` and `reduce`, which every algorithm crate
//! and the equivalence suite use. Each validates its inputs and derives the launch shape from buffer lengths.

use evo_core::math::MathFunction;
use evo_core::{Error, Result};
use evo_kernels::ModuleId;

use crate::buffer::DeviceBuffer;
use crate::launch::{KernelParams, LaunchConfig};
use crate::{Gpu, Profile};

/// Scalar arguments of `math_eval_f32` / `math_eval_f64`; mirrors `MathEvalParams` in `kernels/cuda/math.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MathEvalParams {
    /// Number of elements.
    pub n: u32,
    /// The function, as `MathFunction as u32`.
    pub function: u32,
}
const _: () = assert!(size_of::<MathEvalParams>() == 8);
// SAFETY: repr(C), plain integers, same layout as the CUDA struct (8 bytes, asserted on both sides).
unsafe impl KernelParams for MathEvalParams {}

/// Scalar arguments of the `reduce_sum_*` kernels; mirrors `ReduceParams` in `kernels/cuda/reduce.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ReduceParams {
    /// Number of input terms.
    pub n: u64,
}
const _: () = assert!(size_of::<ReduceParams>() == 8);
// SAFETY: repr(C), one u64, same layout as the CUDA struct (8 bytes, asserted on both sides).
unsafe impl KernelParams for ReduceParams {}

macro_rules! math_eval {
    ($name:ident, $t:ty, $entry:literal) => {
        /// Evaluates `function` elementwise on the device: `out[i] = f(x[i], y[i])` (`y` is read by `Pow` only),
        /// with the portable math of `common/math.cuh` compiled under `profile`, in blocks of `block` threads.
        pub fn $name(
            gpu: &Gpu,
            function: MathFunction,
            x: &DeviceBuffer<$t>,
            y: &DeviceBuffer<$t>,
            out: &mut DeviceBuffer<$t>,
            profile: Profile,
            block: u32,
        ) -> Result<()> {
            crate::check_block_size("math_eval", block)?;
            let n = x.len();
            if y.len() != n || out.len() != n {
                return Err(Error::invalid_parameter(
                    "math_eval",
                    "buffer lengths",
                    format!("x {}, y {}, out {}", n, y.len(), out.len()),
                    "three equal lengths",
                ));
            }
            let n32 = u32::try_from(n).map_err(|_| {
                Error::invalid_parameter("math_eval", "length", n, "at most 2^32 - 1 elements")
            })?;
            if n == 0 {
                return Ok(());
            }
            let kernel = gpu.kernel(ModuleId::Math, $entry, profile)?;
            let blocks = n32
                .div_ceil(block)
                .min(gpu.info().multiprocessors.max(1) * 32);
            let params = MathEvalParams {
                n: n32,
                function: function as u32,
            };
            // SAFETY: the arguments follow `math_eval_*(const T* x, const T* y, T* out, MathEvalParams)`, and
            // the kernel's grid-stride loop touches indices below `n`, the common length of the three buffers.
            unsafe {
                kernel
                    .launch()
                    .input(x)
                    .input(y)
                    .output(out)
                    .params(&params)
                    .run(LaunchConfig::linear(blocks, block, 0))
            }
        }
    };
}

math_eval!(math_eval_f32, f32, "math_eval_f32");
math_eval!(math_eval_f64, f64, "math_eval_f64");

/// One pass of a `reduce_sum_*` kernel: `terms` (n values) to ceil(n / 2·block) partials.
fn reduce_pass<T: crate::DeviceCopy>(
    gpu: &Gpu,
    entry: &'static str,
    terms: &DeviceBuffer<T>,
    block: u32,
) -> Result<DeviceBuffer<f64>> {
    let leaves_per_block = 2 * u64::from(block);
    let n = terms.len() as u64;
    let blocks = n.div_ceil(leaves_per_block).max(1);
    let too_long =
        || Error::invalid_parameter("reduce", "length", n, "fewer than 2^31 · 2 · block terms");
    let grid = u32::try_from(blocks).map_err(|_| too_long())?;
    let mut partials = gpu.alloc::<f64>(usize::try_from(grid).map_err(|_| too_long())?)?;
    let kernel = gpu.kernel(ModuleId::Reduce, entry, Profile::Exact)?;
    // SAFETY: the arguments follow `reduce_sum_*(const T* terms, double* partials, ReduceParams)`; block b
    // reads terms below n only and writes partials[b] with b < blocks = partials.len(); the shared memory
    // holds one double per thread, as `evo_block_pairwise_sum_f64` requires.
    unsafe {
        kernel
            .launch()
            .input(terms)
            .output(&mut partials)
            .params(&ReduceParams { n })
            .run(LaunchConfig::linear(grid, block, block * 8))?;
    }
    Ok(partials)
}

fn reduce_to_one(gpu: &Gpu, mut partials: DeviceBuffer<f64>, block: u32) -> Result<f64> {
    while partials.len() > 1 {
        partials = reduce_pass(gpu, "reduce_sum_f64", &partials, block)?;
    }
    let mut sum = [0.0f64];
    partials.copy_to_host(&mut sum)?;
    Ok(sum[0])
}

/// The canonical pairwise sum of `terms` (see `evo_core::reduce`), computed on the device with blocks of
/// `block` threads; bit-identical to `evo_core::reduce::pairwise_sum_f64` for every power-of-two block size.
pub fn reduce_sum_f64(gpu: &Gpu, terms: &DeviceBuffer<f64>, block: u32) -> Result<f64> {
    crate::check_block_size("reduce_sum_f64", block)?;
    let partials = reduce_pass(gpu, "reduce_sum_f64", terms, block)?;
    reduce_to_one(gpu, partials, block)
}

/// The canonical pairwise sum of `f32` terms widened to `f64`; bit-identical to
/// `evo_core::reduce::pairwise_sum_f32_as_f64`.
pub fn reduce_sum_f32_to_f64(gpu: &Gpu, terms: &DeviceBuffer<f32>, block: u32) -> Result<f64> {
    crate::check_block_size("reduce_sum_f32_to_f64", block)?;
    let partials = reduce_pass(gpu, "reduce_sum_f32_to_f64", terms, block)?;
    reduce_to_one(gpu, partials, block)
}
