//! The device evaluation of a [`UserProblem`](super::UserProblem): the typed launch of the kernel of
//! `kernels/common/problems/user_real.cuh` in the user's module, and the shape that keeps every tile an
//! aligned subtree of the canonical tree.
//!
//! The work split is the built-ins' (`launch.rs`): a block per row, or tiles of a row over several blocks
//! whose last block sums the tile sums (one launch, no finish kernel); rows of fewer than 32 terms share a
//! warp. Under a checking engine ([`RealEvaluator::engine_checks_fitness`], MA-SW-Chains) an evaluation only
//! queues its launch; otherwise it reads one status word back to report a non-finite fitness, which waits for
//! the device.

use super::real::{EvalSettings, RealEvaluator};
use super::user_data::UserData;
use super::user_module::UserModuleKernels;
use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Kernel, KernelParams, LaunchConfig, Profile};
use std::sync::{Mutex, PoisonError};

/// Entry point of the kernel of a user module.
pub const USER_REAL_TILES: &str = "evo_user_real_tiles";
/// Threads per block at most (`EVO_USER_MAX_THREADS`).
const MAX_THREADS: u64 = 256;
/// Threads of a warp: rows of fewer leaves share one.
const WARP: u64 = 32;
/// Rounds per thread of rows longer than [`MAX_THREADS`] leaves (`EVO_USER_ITEMS`: a warp's butterfly sums
/// 8 rounds).
const ITEMS: u64 = 8;
/// Rows per launch at most (the grid's y extent, a block per row when rows take several tiles).
const MAX_ROWS: u64 = 65_535;
/// The status word when no row was bad.
const NO_ROW: u32 = u32::MAX;

/// Scalar arguments of the kernel; mirrors `EvoUserRealParams`.
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
    /// Rounds per thread: 1, or 8 for rows longer than 256 leaves (a tile is `leaves · items` leaves).
    pub items: u64,
    /// Threads of one row's tile (a power of two).
    pub leaves: u64,
    /// Rows per block: `32 / leaves` for rows of fewer than 32 leaves, else 1.
    pub segments: u64,
    /// Tile sums per thread of the row's last block, which sums them.
    pub finish_items: u64,
    /// Threads of the last block's tree of tile sums.
    pub finish_leaves: u64,
}
const _: () = assert!(size_of::<UserRealParams>() == 72);
// SAFETY: repr(C), plain integers, the layout of the CUDA struct (72 bytes, asserted on both sides).
unsafe impl KernelParams for UserRealParams {}

impl UserRealParams {
    /// The shape for `rows` rows of `dimension` genes and `terms` terms: with `P` the terms padded to a power
    /// of two, a row of `P ≤ 256` is one tile of `P` threads of one round (`32 / P` rows to a warp when
    /// `P < 32`); a longer row takes tiles of `min(256, P / 8)` threads of 8 rounds, whose sums the row's last
    /// block reduces (their count padded to a power of two `Q`, `Q / min(Q, 256)` per thread). A tile never
    /// spans more leaves than `P`, so every tile, every warp's share and every round is an aligned subtree of
    /// the canonical tree.
    pub fn new(dimension: u64, terms: u64, rows: u64) -> Self {
        let padded = terms.max(1).next_power_of_two();
        let (items, leaves) = if padded <= MAX_THREADS {
            (1, padded)
        } else {
            (ITEMS, (padded / ITEMS).min(MAX_THREADS))
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
            segments: (WARP / leaves).max(1),
            finish_items: padded_tiles / finish_leaves,
            finish_leaves,
        }
    }

    /// Threads per block: `leaves · segments`, from 32 to 256.
    pub fn tile_threads(&self) -> u64 {
        self.leaves * self.segments
    }

    /// Blocks along the grid's y extent: groups of `segments` rows.
    pub fn row_blocks(&self) -> u64 {
        self.rows.div_ceil(self.segments)
    }
}

/// A block of `threads` threads, at least a warp.
fn block_of(threads: u64) -> Result<u32> {
    let threads = threads.max(WARP);
    u32::try_from(threads)
        .ok()
        .filter(|&t| u64::from(t) <= MAX_THREADS)
        .ok_or_else(|| {
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
    /// The entry point under each profile used so far (compiled on first use, Exact up front).
    tiles: Mutex<UserModuleKernels>,
    /// One ticket per row of the largest evaluation so far: the blocks of a row of several tiles count
    /// themselves in, and the last one, which sums the tile sums, sets it back to zero. Zero between launches.
    tickets: Mutex<DeviceBuffer<u32>>,
    dimension: usize,
    terms: usize,
    sums: usize,
    /// Whether [`evaluate`](RealEvaluator::evaluate) reads the status word back (false once the engine
    /// checks the fitness itself).
    checked: bool,
    data32: DeviceBuffer<f32>,
    data64: DeviceBuffer<f64>,
}

impl UserEvaluator {
    /// Uploads the data and compiles the entry point under the Exact profile.
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
        let tiles = UserModuleKernels::new(gpu, module, source, USER_REAL_TILES)?;
        let (data32, data64) = data.concatenated();
        Ok(Self {
            gpu: gpu.clone(),
            problem: problem.to_string(),
            tiles: Mutex::new(tiles),
            tickets: Mutex::new(gpu.alloc_zeroed(1)?),
            dimension,
            terms,
            sums,
            checked: true,
            data32: gpu.upload(&data32)?,
            data64: gpu.upload(&data64)?,
        })
    }

    /// The entry point under `profile`.
    fn kernel(&self, profile: Profile) -> Result<Kernel> {
        self.tiles
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .kernel(profile)
    }

    /// The launch shape of `rows` rows, checked against the grid's limits.
    fn shape(&self, rows: u64) -> Result<(UserRealParams, u32, u32)> {
        let params = UserRealParams::new(self.dimension as u64, self.terms as u64, rows);
        // Rows of several tiles take a block each along the grid's y extent.
        let grid_rows = u32::try_from(params.row_blocks())
            .ok()
            .filter(|_| rows <= MAX_ROWS)
            .ok_or_else(|| {
                Error::invalid_parameter(
                    "UserProblem",
                    "individuals per evaluation",
                    format!("{rows} (problem `{}`)", self.problem),
                    format!("1..={MAX_ROWS}"),
                )
            })?;
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
        Ok((params, grid_tiles, grid_rows))
    }
}

impl RealEvaluator for UserEvaluator {
    fn dimension(&self) -> usize {
        self.dimension
    }

    /// The kernel over a grid of (tiles, groups of rows), whose last block of each row of several tiles sums
    /// them; unless the engine checks the fitness itself, reads back one word to report a non-finite fitness.
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
        let (params, grid_tiles, grid_rows) = self.shape(rows)?;
        let kernel = self.kernel(settings.profile)?;
        // A checking engine never reads the word: a pooled one needs no clearing (no copy, no wait).
        let mut status = if self.checked {
            self.gpu.upload(&[NO_ROW])?
        } else {
            self.gpu.alloc::<u32>(1)?
        };
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
            // Rows of one tile write no partials: a placeholder, never read, needs no clearing.
            self.gpu.alloc::<f64>(1)?
        };
        let mut tickets = self.tickets.lock().unwrap_or_else(PoisonError::into_inner);
        if params.tiles > 1 && tickets.len() < fitness.len() {
            // Zeroed once on the stream, before the launch; each launch leaves its tickets at zero.
            *tickets = self.gpu.alloc_zeroed(fitness.len())?;
        }
        // SAFETY: the arguments follow `(const float* x, const float* data32, const double* data64,
        // double* partials, double* fitness, unsigned int* status, unsigned int* tickets, EvoUserRealParams)`;
        // block (t, g) with t < tiles and g < ⌈rows / segments⌉ handles rows g·segments + s for s < segments,
        // and only those below rows (the others add zeros): it reads those rows of x (rows · D genes, checked
        // above; the prefetches stay below D in each row), the data arrays at the offsets and lengths the
        // prelude was generated from (the buffers uploaded from the same arrays), and writes fitness[r] below
        // rows and status[0] when tiles = 1; when tiles > 1 (segments = 1, so r = g < rows) it writes
        // partials[(r·tiles + t)·K + k] below rows·tiles·K (allocated so) and counts itself in tickets[r]
        // (at least rows tickets, zero before the launch), and the row's last block reads the row's partials
        // and writes fitness[r], status[0] and tickets[r] = 0; the block has leaves · segments threads, from
        // 32 to 256 (the kernel's bound and its shared scratch's warps); the kernel touches no global memory
        // before evo_wait_previous_grid(), as an overlapping launch requires.
        unsafe {
            kernel
                .launch()
                .overlapping_previous()
                .input(population)
                .input(&self.data32)
                .input(&self.data64)
                .output(&mut partials)
                .output(fitness)
                .output(&mut status)
                .output(&mut *tickets)
                .params(&params)
                .run(LaunchConfig {
                    grid: (grid_tiles, grid_rows, 1),
                    block: (block_of(params.tile_threads())?, 1, 1),
                    shared_bytes: 0,
                })?;
        }
        drop(tickets);
        if !self.checked {
            return Ok(());
        }
        let first_bad = status.to_vec()?.first().copied().unwrap_or(NO_ROW);
        if first_bad != NO_ROW {
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

    /// From now on [`evaluate`](Self::evaluate) only queues its launches.
    fn engine_checks_fitness(&mut self) {
        self.checked = false;
    }
}

#[cfg(test)]
mod split_tests;

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
            assert!(p.leaves <= 256 && p.finish_leaves <= 256);
            // One round, or the butterfly's 8 rounds over whole warps (at least two: 512 terms, 64 threads).
            assert!(p.items == 1 || (p.items == 8 && p.leaves >= 64), "{terms}");
            assert_eq!(p.items == 1, padded <= 256, "{terms}");
            // A block is whole warps of at most 256 threads; rows share one only when a row is one tile.
            assert!(p.segments.is_power_of_two() && p.tile_threads() <= 256);
            assert_eq!(p.tile_threads() % 32, 0, "{terms}");
            assert!(p.segments == 1 || (p.tiles == 1 && p.tile_threads() == 32));
        }
        // Rows of fewer than 32 leaves share a warp: 30 terms pad to 32 (one row a warp), 5 to 8 (4 rows).
        let p = UserRealParams::new(30, 30, 100);
        assert_eq!((p.leaves, p.segments, p.row_blocks()), (32, 1, 100));
        let p = UserRealParams::new(5, 5, 100);
        assert_eq!((p.leaves, p.segments, p.tile_threads()), (8, 4, 32));
        assert_eq!(p.row_blocks(), 25);
        let p = UserRealParams::new(1, 1, 3);
        assert_eq!((p.leaves, p.segments, p.row_blocks()), (1, 32, 1));
        assert_eq!(UserRealParams::new(128, 127, 4).tiles, 1);
        assert_eq!(UserRealParams::new(128, 127, 4).leaves, 128);
        // Rows of 257 to 2048 terms: one tile of 8 rounds over P / 8 threads.
        let p = UserRealParams::new(257, 257, 2);
        assert_eq!((p.items, p.leaves, p.tiles), (8, 64, 1));
        let p = UserRealParams::new(2000, 2000, 2);
        assert_eq!((p.items, p.leaves, p.tiles), (8, 256, 1));
        // 10^5 data points: tiles of 2048, 49 tiles, 64 leaves of the last block's tree.
        let p = UserRealParams::new(3, 100_000, 64);
        assert_eq!((p.items, p.leaves, p.tiles), (8, 256, 49));
        assert_eq!((p.finish_items, p.finish_leaves), (1, 64));
    }
}
