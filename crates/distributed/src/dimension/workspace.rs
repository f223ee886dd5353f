//! [`SplitWorkspace`]: the vector work of the memetic cycle over the slices. Each operation queues its kernels on
//! every slice first (the GPUs run side by side), then gathers the slices' block nodes on the host, joins them
//! with the top of each canonical tree and the problem's final formula ([`combine_block_nodes`],
//! [`combine_block_sums`] for distances) and, inside Solis–Wets, uploads the joined fitness to every slice
//! so that each slice's `ma_sw_step_f32` makes the same decisions.

use evo_core::{Error, Result, check_fitness};
use evo_ma_sw_chains::cuda::launch::ChildGpu;
use evo_ma_sw_chains::cycle::Stream;
use evo_ma_sw_chains::cycle::Workspace;
use evo_ma_sw_chains::ops::SwState;
use evo_ma_sw_chains::plan::ChildPlan;

use super::COMPONENT;
use super::combine::{combine_block_nodes, combine_block_sums};
use super::problem::SliceFitness;
use super::slice::{Rows, SliceState, finished};

/// Below this many evaluations left in a Solis–Wets application, one group is enqueued per evaluation (as
/// [`evo_ma_sw_chains::MaCuda`]).
const SW_TAIL: u32 = 8;

/// The slices of one run and the scalars their work needs.
pub(crate) struct SplitWorkspace {
    pub slices: Vec<SliceState>,
    pub name: String,
    pub bias: Option<f64>,
    /// The fitness's trees and final formula.
    pub fitness: SliceFitness,
    /// `D`.
    pub dimension: usize,
    pub blx_alpha: f32,
    pub mutation_range: f32,
    pub population: usize,
    /// Solis–Wets iterations per group (1 or 2), the same on every slice.
    pub lookahead: u32,
}

impl SplitWorkspace {
    fn blocks(&self) -> Vec<usize> {
        self.slices.iter().map(|s| s.blocks).collect()
    }

    /// Waits for every slice and joins the block sums of `rows` rows of distances.
    fn gather(&self, rows: usize) -> Result<Vec<f64>> {
        let per_slice = self
            .slices
            .iter()
            .map(|s| s.read_sums(rows))
            .collect::<Result<Vec<_>>>()?;
        combine_block_sums(&per_slice, &self.blocks(), rows, None)
    }

    /// Queues the fitness trees of `rows` on every slice, then gathers and joins them.
    fn fitness(&mut self, rows: Rows) -> Result<Vec<f64>> {
        let mut count = 0;
        for slice in &mut self.slices {
            count = slice.evaluate(rows)?;
        }
        let per_slice = self
            .slices
            .iter()
            .map(|s| s.read_trees(count))
            .collect::<Result<Vec<_>>>()?;
        combine_block_nodes(
            self.fitness,
            self.dimension,
            &per_slice,
            &self.blocks(),
            count,
            self.bias,
        )
    }

    /// One group: the probe rows' fitness on every slice, joined, uploaded to every slice, then the step
    /// kernel reading state slot `slot` on every slice.
    fn sw_group(&mut self, slot: u32) -> Result<()> {
        let fitness = self.fitness(Rows::Probes)?;
        for slice in &mut self.slices {
            slice.set_probe_fitness(&fitness)?;
            slice.sw_step(slot, Stream::MaSwNoise.id(), self.lookahead)?;
        }
        Ok(())
    }

    /// The state of slot `slot` read from every slice; an error when two slices disagree (they decide from
    /// the same numbers, so a difference is a broken kernel, never a property of the run).
    fn sw_state(&self, slot: u32) -> Result<SwState> {
        let mut first = None;
        for (s, slice) in self.slices.iter().enumerate() {
            let state = slice.sw_state.to_vec()?[slot as usize];
            match first {
                None => first = Some(state),
                // A non-finite fitness is reported by every slice alike; its NaN never equals itself.
                Some(reference) if reference != state && (reference.bad == 0 || state.bad == 0) => {
                    return Err(Error::invalid_parameter(
                        COMPONENT,
                        "Solis–Wets state of a slice",
                        format!("slice {s}: {state:?}, slice 0: {reference:?}"),
                        "the same state on every slice (the slices' decisions diverged)",
                    ));
                }
                Some(_) => {}
            }
        }
        first.ok_or_else(|| Error::invalid_parameter(COMPONENT, "slices", 0, "at least 1"))
    }
}

impl Workspace for SplitWorkspace {
    fn init_rows(&mut self, rows: &[u32], stream: Stream, step: u32) -> Result<Vec<f64>> {
        let n = self.population;
        for slice in &mut self.slices {
            let device_rows = slice.gpu.upload(rows)?;
            slice.init_rows(&device_rows, stream.id(), step, n)?;
        }
        let all = self.fitness(Rows::Population(n))?;
        rows.iter()
            .map(|&row| check_fitness(&self.name, row as usize, all[row as usize]))
            .collect()
    }

    fn squared_distances(&mut self, pairs: &[(u32, u32)]) -> Result<Vec<f64>> {
        let flat: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        for slice in &mut self.slices {
            slice.distances(&flat)?;
        }
        self.gather(pairs.len())
    }

    fn make_children(&mut self, plans: &[ChildPlan]) -> Result<Vec<f64>> {
        let device_plans: Vec<ChildGpu> = plans
            .iter()
            .map(|p| ChildGpu {
                mother: p.mother,
                father: p.father,
                counter: p.counter,
                gene: p.mutation.map_or(0, |m| m.gene),
                s: p.mutation.map_or(0.0, |m| m.s),
                plus: p.mutation.map_or(0, |m| u32::from(m.plus)),
                mutate: u32::from(p.mutation.is_some()),
                pad: 0,
            })
            .collect();
        let (alpha, range) = (self.blx_alpha, self.mutation_range);
        for slice in &mut self.slices {
            let uploaded = slice.gpu.upload(&device_plans)?;
            slice.crossover(&uploaded, Stream::MaCrossover.id(), alpha, range)?;
        }
        let fitness = self.fitness(Rows::Children(plans.len()))?;
        fitness
            .iter()
            .enumerate()
            .map(|(k, &f)| check_fitness(&self.name, k, f))
            .collect()
    }

    fn adopt_child(&mut self, child: usize, slot: usize) -> Result<()> {
        self.slices
            .iter_mut()
            .try_for_each(|s| s.adopt_child(child, slot))
    }

    fn ls_begin(&mut self, slot: usize, resume_bias: bool) -> Result<()> {
        self.slices
            .iter_mut()
            .try_for_each(|s| s.ls_begin(slot, resume_bias))
    }

    /// As [`evo_ma_sw_chains::MaCuda`]'s device-resident loop, the probe fitness of each group joined over the
    /// slices on the host before the step kernels (one round trip per group).
    fn solis_wets(&mut self, state: &mut SwState) -> Result<()> {
        let start = SwState {
            probed: 0,
            ..*state
        };
        let mut slot = 0u32;
        for slice in &mut self.slices {
            slice.sw_state.copy_from_host(&[start, start])?;
            // The first step writes the first group's probes (nothing to decide yet).
            slice.sw_step(slot, Stream::MaSwNoise.id(), self.lookahead)?;
        }
        slot ^= 1;
        loop {
            let host = self.sw_state(slot)?;
            if host.bad != 0 {
                return Err(Error::NonFiniteFitness {
                    problem: self.name.clone(),
                    individual: 0,
                    value: host.bad_value,
                });
            }
            if host.active == 0 {
                *state = finished(host);
                return Ok(());
            }
            // At least ⌈remaining/2⌉ iterations are still to come (each spends 1 or 2 evaluations); extra
            // groups after the end find the state inactive and change nothing.
            let remaining = host.limit - host.used;
            let iterations = if remaining <= SW_TAIL {
                remaining
            } else {
                remaining.div_ceil(2)
            };
            for _ in 0..iterations.div_ceil(self.lookahead) {
                self.sw_group(slot)?;
                slot ^= 1;
            }
        }
    }

    fn ls_write_back(&mut self, slot: usize) -> Result<()> {
        self.slices
            .iter_mut()
            .try_for_each(|s| s.ls_write_back(slot))
    }
}
