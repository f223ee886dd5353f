//! # evo-sort
//!
//! Population sorting and selection for the evolutionary algorithms of evo-gpu, on the CPU ([`cpu`]) and on
//! CUDA GPUs ([`cuda`]), under one total order ([`order`]):
//!
//! - **The GA paper's population sort** (Oiso, Matsumura, Yasuda, Ohkura, "Implementing genetic algorithms
//!   to CUDA environment using data parallelization", §3.2.2): a bitonic sort of (fitness, index) pairs in one block's shared
//!   memory, the population padded to a power of two, then an exchange kernel that moves each individual to
//!   its rank (one block per individual, one thread per word).
//! - **Batched segmented sort**: many independent populations (say 10 000 × 10..1024 entries) in one launch,
//!   one block per population, for batched runs and QIGA.
//! - **Ranking of large arrays** (up to 2^32 − 1 keys, 10^7 in the benchmarks) with an LSD radix argsort, the
//!   ranks (inverse permutation) and the gather of values; the MA-SW-Chains paper (§5.5 of
//!   `papers/003_b1014a7f95bb347c.txt`) ranks its population by fitness this way instead of moving it.
//! - **Selection**: argmin / argmax and top-k with the index tie-break, for DE and MA-SW-Chains.
//!
//! ## The order
//!
//! Entries are ordered by value as [`f64::total_cmp`] orders them, except that **every NaN (either sign, any
//! payload) ranks after +∞**; equal values (and all NaNs) are ordered by the **lower index first**. So
//! −∞ < … < −0.0 < +0.0 < … < +∞ < NaN. [`order`] defines it once, through an unsigned order key that the
//! kernels compute with the same bit operations (`kernels/common/sort/key.cuh`). With indices attached the
//! order is strict, so a sort has exactly one result: the GPU permutation equals the CPU permutation exactly,
//! whatever the algorithm or block size on either side.
//!
//! ## Routines, cost and limits
//!
//! | routine (CPU twin) | GPU method | work | limits |
//! | --- | --- | --- | --- |
//! | [`cuda::sort_population`] ([`cpu::sort_population`]) | bitonic network, one block: strides ≤ 32 in registers (warp shuffles), larger ones in shared memory | p·log2 p·(log2 p + 1)/4 compare-exchanges, p = max(64, next power of two ≥ n) | 1 ≤ n ≤ 4096 |
//! | [`cuda::sort_segments`] ([`cpu::sort_segments`]) | the same, one block per segment | segments × the above | segment length 1..=4096 |
//! | [`cuda::exchange_rows`] ([`cpu::exchange_rows`]) | one block per row, threads over its u32 words | 2 × rows × words × 4 bytes | order from this crate |
//! | [`cuda::argsort`] ([`cpu::argsort`]) | LSD radix sort, 8-bit digits, stable | 4 passes (f32) or 8 (f64) over n | n ≤ 2^32 − 1 |
//! | [`cuda::ranks`], [`cuda::ranks_from_order`], [`cuda::gather`] | argsort, then one scatter or gather pass | + n | n ≤ 2^32 − 1 |
//! | [`cuda::argmin`], [`cuda::argmax`] ([`cpu::argmin`], [`cpu::argmax`]) | block trees over (key, index) pairs, pass after pass | n | 1 ≤ n ≤ 2^32 − 1 |
//! | [`cuda::top_k`] ([`cpu::top_k`]) | bitonic sorts of tiles of max(1024, 2k), keeping k per tile, round after round | ≈ n log² t / 4, t the tile | 1 ≤ k ≤ min(n, 1024) |
//!
//! Fitness is `f32` or `f64` ([`order::SortKey`], [`cuda::DeviceFitness`]). Bad input (a segment length
//! out of range, buffers of the wrong length, a block size that is not a power of two in 32..=1024) is an
//! [`evo_core::Error::InvalidParameter`] naming the routine and the allowed range. CUDA permutations live in a
//! [`cuda::DevicePermutation`], which only this crate's sorts write, so it always holds a permutation.
//!
//! ## Example
//!
//! ```
//! use evo_sort::{cpu, cuda};
//!
//! # fn main() -> evo_core::Result<()> {
//! // Four individuals of a minimisation; two tie at 1.5, one evaluation failed (NaN).
//! let fitness = [1.5f64, f64::NAN, -0.0, 1.5];
//! let sorted = cpu::sort_population(&fitness)?;
//! assert_eq!(sorted.order, [2, 0, 3, 1]); // -0.0, then the tie by lower index, NaN last
//! assert_eq!(cpu::argmin(&fitness), Some(2));
//!
//! // Genomes of 2 words each move to their rank.
//! let genomes = [10, 11, 20, 21, 30, 31, 40, 41];
//! assert_eq!(
//!     cpu::exchange_rows(&genomes, &sorted.order, 2, 4)?,
//!     [30, 31, 10, 11, 40, 41, 20, 21]
//! );
//!
//! // The same on a GPU, when there is one: the permutation is the same, exactly.
//! if let Some(gpu) = evo_gpu_runtime::Gpu::first_available()? {
//!     let on_device = gpu.upload(&fitness)?;
//!     let mut order = cuda::DevicePermutation::for_array(&gpu, fitness.len())?;
//!     let mut values = gpu.alloc::<f64>(fitness.len())?;
//!     cuda::sort_population(&gpu, &on_device, &mut order, &mut values, 128)?;
//!     assert_eq!(order.to_vec()?, sorted.order);
//!     let mut moved = gpu.alloc::<u32>(genomes.len())?;
//!     cuda::exchange_rows(&gpu, &gpu.upload(&genomes)?, &order, &mut moved, 2, 64)?;
//!     assert_eq!(moved.to_vec()?, [30, 31, 10, 11, 40, 41, 20, 21]);
//! }
//! # Ok(())
//! # }
//! ```

pub mod cpu;
#[warn(clippy::cast_possible_truncation)]
pub mod cuda;
mod limits;
pub mod order;

pub use limits::{MAX_LEN, MAX_SEGMENT_LEN, MAX_TOP_K};
pub use order::SortKey;
