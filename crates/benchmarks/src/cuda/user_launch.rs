//! The device evaluation of a [`UserProblem`](super::UserProblem): typed launches of the two kernels of
//! `kernels/common/problems/user_real.cuh` in the user's module, and the shape that keeps every tile an
//! aligned subtree of the canonical tree.

use super::real::{EvalSettings, RealEvaluator};
use super::user_data::UserData;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, KernelParams, LaunchConfig, Profile};

/// Entry point of the tiles kernel of a user module.
pub const USER_REAL_TILES: &str = "evo_user_real_tiles";
/// Entry point of the finish kernel of a user module.
pub const USER_REAL_FINISH: &str = "evo_user_real_finish";
/// Threads per block at most (`EVO_USER_MAX_THREADS`).
const MAX_THREADS: u64 = 256;
/// Leaves per thread at most in the tiles kernel (its stack holds 8 levels).
const MAX_ITEMS: u64 = 8;
/// Rows per launch at most (the grid's y extent).
const MAX_ROWS: u64 = 65_535;

/// Scalar arguments of both kernels; mirrors `EvoUserRealParams`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserRealParams {
    /// `D`, the row stride.
    pub dimension: u64,
    /// `n`, terms per row.
    pub terms: u64,
    /// Rows.
    pub rows: u64,
    /// Tiles per row.
    pub tiles: u64,
    /// Leaves per thread of the tiles kernel.
    pub items: u64,
    /// Threads of a tile's block tree.
    pub leaves: u64,
    /// Tile sums per thread of the finish kernel.
    pub finish_items: u64,
    /// Threads of the finish kernel's block tree.
    pub finish_leaves: u64,
}
const _: () = assert!(size_of::<UserRealParams>() == 64);
// SAFETY: repr(C), plain integers, the layout of the CUDA struct (64 bytes, asserted on both sides).
unsafe impl KernelParams for UserRealParams {}

impl UserRealParams {
    /// The shape for `rows` rows of `dimension` genes and `terms` terms: with `P` the terms padded to a power
    /// of two, a row of `P ≤ 256` is one tile of `P` threads of one leaf; a longer row takes tiles of 256
    /// threads of `min(8, P / 256)` leaves, whose sums the finish kernel reduces (their count padded to a
    /// power of two `Q`, `Q / min(Q, 256)` per thread). A tile never spans more leaves than `P`, so every
    /// tile and every thread's chunk is an aligned subtree of the canonical tree.
    pub fn new(dimension: u64, terms: u64, rows: u64) -> Self {
        let padded = terms.max(1).next_power_of_two();
        let (items, leaves) = if padded <= MAX_THREADS {
            (1, padded)
        } else {
            ((padded / MAX_THREADS).min(MAX_ITEMS), MAX_THREADS)
        };
        let tiles = terms.div_ceil(items * leaves).max(1);
        let padded_tiles = tiles.next_power_of_two();
        let finish_leaves = padded_tiles.min(MAX_THREADS);
        Self {
            dimension,
            terms,
            rows,
            tiles,
            items,
            leaves,
            finish_items: padded_tiles / finish_leaves,
            finish_leaves,
        }
    }
}

/// A block of `leaves` threads, at least a warp.
fn block_of(leaves: u64) -> Result<u32> {
    let threads = leaves.max(32);
    u32::try_from(threads).map_err(|_| {
        Error::invalid_parameter(
            "UserProblem",
            "threads per block",
            threads,
            format!("at most {MAX_THREADS}"),
        )
    })
}

/// The evaluator of a user module (see [`RealEvaluator`]).
pub(crate) struct UserEvaluator {
    gpu: Gpu,
    problem: String,
    module: String,
    source: String,
    dimension: usize,
    terms: usize,
    sums: usize,
    data32: DeviceBuffer<f32>,
    data64: DeviceBuffer<f64>,
}

impl UserEvaluator {
    /// Uploads the data and compiles both entry points under the Exact profile.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        gpu: &Gpu,
        problem: &str,
        module: String,
        source: String,
        dimension: usize,
        terms: usize,
        sums: usize,
        data: &UserData,
    ) -> Result<Self> {
        for entry in [USER_REAL_TILES, USER_REAL_FINISH] {
            gpu.user_kernel(&module, &source, entry, Profile::Exact)?;
        }
        let (data32, data64) = data.concatenated();
        Ok(Self {
            gpu: gpu.clone(),
            problem: problem.to_string(),
            module,
            source,
            dimension,
            terms,
            sums,
            data32: gpu.upload(&data32)?,
            data64: gpu.upload(&data64)?,
        })
    }
}

impl RealEvaluator for UserEvaluator {
    fn dimension(&self) -> usize {
        self.dimension
    }

    /// The tiles kernel over a grid of (tiles, rows), then the finish kernel for rows of several tiles;
    /// reads back one word to report a non-finite fitness.
    fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        settings: EvalSettings,
    ) -> Result<()> {
        let rows = fitness.len() as u64;
        let d = self.dimension as u64;
        if population.len() as u64 != rows.saturating_mul(d) {
            return Err(Error::invalid_parameter(
                "UserProblem",
                "population length",
                format!("{} (problem `{}`)", population.len(), self.problem),
                format!("{rows} individuals x {d} genes"),
            ));
        }
        if rows == 0 {
            return Ok(());
        }
        let grid_rows = u32::try_from(rows)
            .ok()
            .filter(|&r| u64::from(r) <= MAX_ROWS)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "UserProblem",
                    "individuals per evaluation",
                    format!("{rows} (problem `{}`)", self.problem),
                    format!("1..={MAX_ROWS}"),
                )
            })?;
        let params = UserRealParams::new(d, self.terms as u64, rows);
        let grid_tiles = u32::try_from(params.tiles)
            .ok()
            .filter(|&t| t <= i32::MAX as u32)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "UserProblem",
                    "tiles per row",
                    format!("{} (problem `{}`)", params.tiles, self.problem),
                    "below 2^31",
                )
            })?;
        let tiles_kernel = self.gpu.user_kernel(
            &self.module,
            &self.source,
            USER_REAL_TILES,
            settings.profile,
        )?;
        let mut status = self.gpu.upload(&[u32::MAX])?;
        let mut partials = if params.tiles > 1 {
            let len = rows * params.tiles * self.sums as u64;
            let len = usize::try_from(len).map_err(|_| {
                Error::invalid_parameter(
                    "UserProblem",
                    "tile partials",
                    format!("{len} (problem `{}`)", self.problem),
                    format!("at most {}", usize::MAX),
                )
            })?;
            self.gpu.alloc::<f64>(len)?
        } else {
            self.gpu.alloc_zeroed::<f64>(1)?
        };
        // SAFETY: the arguments follow `(const float* x, const float* data32, const double* data64,
        // double* partials, double* fitness, unsigned int* status, EvoUserRealParams)`; block (t, r) with
        // t < tiles and r < rows reads row r of x (rows · D genes, checked above), the data arrays at the
        // offsets and lengths the prelude was generated from (the buffers uploaded from the same arrays), and
        // writes partials[(r·tiles + t)·K + k] below rows·tiles·K (allocated so) when tiles > 1, else
        // fitness[r] below rows and status[0]; its threads beyond `leaves` (block ≥ leaves) only join the
        // barriers; the block is at most 256 threads, the kernel's bound and its shared scratch's size; the
        // kernel touches no global memory before evo_wait_previous_grid(), as an overlapping launch requires.
        unsafe {
            tiles_kernel
                .launch()
                .overlapping_previous()
                .input(population)
                .input(&self.data32)
                .input(&self.data64)
                .output(&mut partials)
                .output(fitness)
                .output(&mut status)
                .params(&params)
                .run(LaunchConfig {
                    grid: (grid_tiles, grid_rows, 1),
                    block: (block_of(params.leaves)?, 1, 1),
                    shared_bytes: 0,
                })?;
        }
        if params.tiles > 1 {
            let finish_kernel = self.gpu.user_kernel(
                &self.module,
                &self.source,
                USER_REAL_FINISH,
                settings.profile,
            )?;
            // SAFETY: `(const float* data32, const double* data64, const double* partials, double* fitness,
            // unsigned int* status, EvoUserRealParams)`; block r < rows reads partials[r·tiles·K ..
            // (r+1)·tiles·K] (written by the tiles kernel above) and the data arrays as above, and writes
            // fitness[r] and status[0]; at most 256 threads; no global memory before
            // evo_wait_previous_grid().
            unsafe {
                finish_kernel
                    .launch()
                    .overlapping_previous()
                    .input(&self.data32)
                    .input(&self.data64)
                    .input(&partials)
                    .output(fitness)
                    .output(&mut status)
                    .params(&params)
                    .run(LaunchConfig::linear(
                        grid_rows,
                        block_of(params.finish_leaves)?,
                        0,
                    ))?;
            }
        }
        let first_bad = status.to_vec()?.first().copied().unwrap_or(u32::MAX);
        if first_bad != u32::MAX {
            let values = fitness.to_vec()?;
            let individual = first_bad as usize;
            return Err(Error::NonFiniteFitness {
                problem: self.problem.clone(),
                individual,
                value: values.get(individual).copied().unwrap_or(f64::NAN),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::UserRealParams;

    #[test]
    fn shape_should_never_let_a_tile_span_more_leaves_than_the_padded_row() {
        for terms in [
            1u64,
            2,
            3,
            29,
            255,
            256,
            257,
            512,
            1000,
            2048,
            2049,
            100_000,
            1 << 20,
        ] {
            let p = UserRealParams::new(terms, terms, 1);
            let padded = terms.next_power_of_two();
            let tile = p.items * p.leaves;
            assert!(tile <= padded, "{terms}: tile {tile}");
            assert!(p.items.is_power_of_two() && p.leaves.is_power_of_two());
            assert!(
                p.tiles * tile >= terms && (p.tiles - 1) * tile < terms,
                "{terms}"
            );
            assert_eq!(
                p.finish_items * p.finish_leaves,
                p.tiles.next_power_of_two()
            );
            assert!(p.leaves <= 256 && p.finish_leaves <= 256 && p.items <= 8);
        }
        assert_eq!(UserRealParams::new(128, 127, 4).tiles, 1);
        assert_eq!(UserRealParams::new(128, 127, 4).leaves, 128);
        // 10^5 data points: tiles of 2048, 49 tiles, 64 leaves of the finish tree.
        let p = UserRealParams::new(3, 100_000, 64);
        assert_eq!((p.items, p.leaves, p.tiles), (8, 256, 49));
        assert_eq!((p.finish_items, p.finish_leaves), (1, 64));
    }
}
