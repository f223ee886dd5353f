//! One slice's device state and work: the engine's own kernels on slice-local buffers (with the slice's
//! Philox lane offset), and the block nodes of its fitness trees and distance terms. Every method only queues
//! work on the slice's GPU stream, except the `read_*` methods, which wait for it.
//!
//! Rows hold `stride = len + halo` values: with a term of two neighbours (Rosenbrock) every slice but the
//! last also holds variable `first + len`, the next slice's first variable. The engine's per-variable kernels
//! run over all `stride` values, so the halo goes through the same operations, with the same inputs and the
//! same Philox word (its lane `(first + len)/4` starts the next slice's lanes), as the next slice's first
//! variable: the two copies are the same bits, without any transfer. Only the reductions stop at `len`.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use evo_ma_sw_chains::cuda::launch::{self, ChildGpu, MaKernelParams};
use evo_ma_sw_chains::cuda::slice::{self as kernels, SliceParams, SliceTerm, tiles_of};
use evo_ma_sw_chains::memory::{TILE_VARIABLES, sw_rows};
use evo_ma_sw_chains::ops::SwState;
use evo_ma_sw_chains::{MaParams, ops};

use super::COMPONENT;
use super::layout::{Slice, SliceLayout};
use super::memory::work_rows;
use super::problem::Separable;

/// The buffers of one slice (rows of `stride` values: the slice's `len` variables and the halo).
pub(crate) struct SliceState {
    pub gpu: Gpu,
    pub len: usize,
    /// Values per row: `len`, or `len + 1` with the halo.
    pub stride: usize,
    first: usize,
    seed: u64,
    profile: Profile,
    tiles_per_block: u64,
    /// The blocks of this slice (block sums per row).
    pub blocks: usize,
    /// The leaves of each tree of the fitness (one block-node buffer each in `sums`).
    trees: Vec<SliceTerm>,
    shifted: u32,
    lower: DeviceBuffer<f32>,
    upper: DeviceBuffer<f32>,
    shift: DeviceBuffer<f32>,
    pub population: DeviceBuffer<f32>,
    children: DeviceBuffer<f32>,
    pub bias: DeviceBuffer<f32>,
    ls_point: DeviceBuffer<f32>,
    ls_bias: DeviceBuffer<f32>,
    probes: DeviceBuffer<f32>,
    probe_fitness: DeviceBuffer<f64>,
    pub sw_state: DeviceBuffer<SwState>,
    partials: DeviceBuffer<f64>,
    /// The block nodes of each tree (the first also takes the distances' block sums).
    sums: Vec<DeviceBuffer<f64>>,
}

/// Which rows a block-sum evaluation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// The first `n` population rows.
    Population(usize),
    /// The first `n` rows of the children area.
    Children(usize),
    /// Every Solis–Wets probe row.
    Probes,
}

impl SliceState {
    /// Allocates slice `slice` of `layout` on `gpu` (the caller checked the memory need).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &Gpu,
        layout: &SliceLayout,
        slice: &Slice,
        params: &MaParams,
        separable: &Separable<'_>,
        lower: &[f32],
        upper: &[f32],
        seed: u64,
        profile: Profile,
        lookahead: u32,
    ) -> Result<Self> {
        let (first, len) = (slice.first, slice.len);
        let halo = if first + len < layout.dimension() {
            separable.fitness.halo()
        } else {
            0
        };
        let stride = len + halo;
        let range = first..first + stride;
        let n = params.population();
        let k = params.children_per_step();
        let rows = work_rows(params, lookahead);
        let blocks = layout.blocks_of(slice);
        let (shift, shifted) = match separable.shift {
            Some(o) => (gpu.upload(&o[range.clone()])?, 1),
            None => (gpu.alloc_zeroed(1)?, 0),
        };
        let trees = separable.fitness.trees().to_vec();
        let sums = trees
            .iter()
            .map(|t| gpu.alloc(rows * blocks * t.tree().node_values()))
            .collect::<Result<Vec<_>>>()?;
        // The widest node of the trees (the distances' sums are one value).
        let width = trees
            .iter()
            .map(|t| t.tree().node_values())
            .max()
            .unwrap_or(1);
        Ok(Self {
            gpu: gpu.clone(),
            len,
            stride,
            first,
            seed,
            profile,
            tiles_per_block: (layout.block() / TILE_VARIABLES) as u64,
            blocks,
            trees,
            shifted,
            lower: gpu.upload(&lower[range.clone()])?,
            upper: gpu.upload(&upper[range])?,
            shift,
            population: gpu.alloc_zeroed(n * stride)?,
            children: gpu.alloc_zeroed(k * stride)?,
            bias: gpu.alloc_zeroed(n * stride)?,
            ls_point: gpu.alloc_zeroed(stride)?,
            ls_bias: gpu.alloc_zeroed(stride)?,
            // Zeroed so that no evaluation reads unwritten memory (a group enqueued after the end of an
            // application evaluates the last probes again and is ignored).
            probes: gpu.alloc_zeroed(sw_rows(lookahead) * stride)?,
            probe_fitness: gpu.alloc_zeroed(sw_rows(lookahead))?,
            sw_state: gpu.alloc_zeroed(2)?,
            partials: gpu.alloc(rows * tiles_of(len as u64) as usize * width)?,
            sums,
        })
    }

    /// The kernel parameters of this slice's rows (D = the row's `stride` values, halo included; the slice's
    /// Philox lanes).
    pub fn params(&self) -> Result<MaKernelParams> {
        let lane_offset = u32::try_from(self.first / 4).map_err(|_| {
            Error::invalid_parameter(COMPONENT, "slice start", self.first, "below 2^34")
        })?;
        Ok(MaKernelParams {
            seed: self.seed,
            dimension: self.stride as u64,
            lane_offset,
            ..MaKernelParams::default()
        })
    }

    /// The reduction parameters of a tree of `term` (the distances pass `SliceTerm::Sphere` for a sum; their
    /// kernel reads neither the term nor the shift).
    fn slice_params(&self, term: SliceTerm) -> SliceParams {
        SliceParams {
            dimension: self.len as u64,
            stride: self.stride as u64,
            first: self.first as u64,
            tiles: tiles_of(self.len as u64),
            tiles_per_block: self.tiles_per_block,
            term: term as u32,
            shifted: self.shifted,
            tree: term.tree() as u32,
            pad: 0,
        }
    }

    /// Queues the block nodes of every fitness tree of `rows` into the sums buffers (one per tree,
    /// row-major, `blocks` per row). The trees run one after the other through the one partials buffer (the
    /// stream orders them).
    pub fn evaluate(&mut self, rows: Rows) -> Result<usize> {
        let (x, count) = match rows {
            Rows::Population(n) => (&self.population, n),
            Rows::Children(n) => (&self.children, n),
            Rows::Probes => (&self.probes, self.probe_fitness.len()),
        };
        let trees: Vec<SliceParams> = self.trees.iter().map(|&t| self.slice_params(t)).collect();
        for (params, sums) in trees.into_iter().zip(&mut self.sums) {
            kernels::slice_terms(
                &self.gpu,
                x,
                &self.shift,
                &mut self.partials,
                count,
                params,
                self.profile,
            )?;
            kernels::block_sums(&self.gpu, &self.partials, sums, count, params, self.profile)?;
        }
        Ok(count)
    }

    /// Queues the block sums of the squared distances of the slot pairs `flat` (`[a0, b0, a1, b1, …]`) of
    /// the slice's variables (never the halo) into the first sums buffer.
    pub fn distances(&mut self, flat: &[u32]) -> Result<usize> {
        let pairs = self.gpu.upload(flat)?;
        let params = self.slice_params(SliceTerm::Sphere);
        kernels::distance_tiles(
            &self.gpu,
            &self.population,
            &pairs,
            &mut self.partials,
            params,
            self.profile,
        )?;
        let count = flat.len() / 2;
        kernels::block_sums(
            &self.gpu,
            &self.partials,
            &mut self.sums[0],
            count,
            params,
            self.profile,
        )?;
        Ok(count)
    }

    /// Waits for the queued work and returns the block sums of the first `rows` rows of the first sums
    /// buffer (the distances).
    pub fn read_sums(&self, rows: usize) -> Result<Vec<f64>> {
        let mut all = self.sums[0].to_vec()?;
        all.truncate(rows * self.blocks);
        Ok(all)
    }

    /// Waits for the queued work and returns, per fitness tree, the block nodes of its first `rows` rows
    /// (each node of its tree's [`node_values`](evo_ma_sw_chains::cuda::slice::SliceTree::node_values)).
    pub fn read_trees(&self, rows: usize) -> Result<Vec<Vec<f64>>> {
        self.sums
            .iter()
            .zip(&self.trees)
            .map(|(sums, term)| {
                let mut all = sums.to_vec()?;
                all.truncate(rows * self.blocks * term.tree().node_values());
                Ok(all)
            })
            .collect()
    }

    /// Queues the initial (or restart) genes of `rows` (uploaded slot indices).
    pub fn init_rows(
        &mut self,
        rows: &DeviceBuffer<u32>,
        stream: u32,
        step: u32,
        slots: usize,
    ) -> Result<()> {
        let params = MaKernelParams {
            stream,
            step,
            ..self.params()?
        };
        launch::init_rows(
            &self.gpu,
            &mut self.population,
            rows,
            &self.lower,
            &self.upper,
            params,
            slots,
            self.profile,
        )
    }

    /// Queues the children of `plans` into the first rows of the children area.
    pub fn crossover(
        &mut self,
        plans: &DeviceBuffer<ChildGpu>,
        stream: u32,
        alpha: f32,
        range: f32,
    ) -> Result<()> {
        let params = MaKernelParams {
            stream,
            alpha,
            range,
            ..self.params()?
        };
        launch::crossover(
            &self.gpu,
            &self.population,
            &mut self.children,
            plans,
            &self.lower,
            &self.upper,
            params,
            self.profile,
        )
    }

    /// Copies child `child` into slot `slot`.
    pub fn adopt_child(&mut self, child: usize, slot: usize) -> Result<()> {
        let params = self.params()?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.children,
            child,
            &mut self.population,
            slot,
        )
    }

    /// The LS point from slot `slot`, the LS bias from its chain or zeros.
    pub fn ls_begin(&mut self, slot: usize, resume_bias: bool) -> Result<()> {
        let params = self.params()?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.population,
            slot,
            &mut self.ls_point,
            0,
        )?;
        if resume_bias {
            launch::copy_row(
                &self.gpu,
                self.profile,
                params,
                &self.bias,
                slot,
                &mut self.ls_bias,
                0,
            )
        } else {
            self.ls_bias.fill_zero()
        }
    }

    /// The LS point and bias into slot `slot`.
    pub fn ls_write_back(&mut self, slot: usize) -> Result<()> {
        let params = self.params()?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.ls_point,
            0,
            &mut self.population,
            slot,
        )?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            params,
            &self.ls_bias,
            0,
            &mut self.bias,
            slot,
        )
    }

    /// The slice's variables of row `slot` of the population (without the halo), copied on the device and
    /// read back alone.
    pub fn population_row(&self, slot: usize) -> Result<Vec<f32>> {
        let mut row = self.gpu.alloc::<f32>(self.stride)?;
        launch::copy_row(
            &self.gpu,
            self.profile,
            self.params()?,
            &self.population,
            slot,
            &mut row,
            0,
        )?;
        let mut values = row.to_vec()?;
        values.truncate(self.len);
        Ok(values)
    }

    /// Uploads the combined fitness of the probe rows.
    pub fn set_probe_fitness(&mut self, fitness: &[f64]) -> Result<()> {
        self.probe_fitness.copy_from_host(fitness)
    }

    /// Queues `ma_sw_step_f32` reading state slot `slot` with look-ahead `lookahead`.
    pub fn sw_step(&mut self, slot: u32, stream: u32, lookahead: u32) -> Result<()> {
        let params = MaKernelParams {
            stream,
            flag: lookahead,
            count: slot,
            ..self.params()?
        };
        launch::sw_step(
            &self.gpu,
            &mut self.ls_point,
            &mut self.ls_bias,
            &mut self.probes,
            &self.lower,
            &self.upper,
            &self.probe_fitness,
            &mut self.sw_state,
            params,
            self.profile,
        )
    }
}

/// The outcome code of `pending` never leaks out of an application: the engine's state after one.
pub(crate) fn finished(state: SwState) -> SwState {
    SwState {
        pending: ops::SW_NONE,
        pending2: ops::SW_NONE,
        ..state
    }
}
