//! [`MaDimensionSplit`]: MA-SW-Chains with every individual's variables in slices over GPUs.

use std::collections::BTreeMap;

use evo_core::{Engine, Error, Progress, Result, RunFingerprint};
use evo_gpu_runtime::{Gpu, Profile};
use evo_ma_sw_chains::cpu::{host_of, snapshot_of};
use evo_ma_sw_chains::cycle::HostState;
use evo_ma_sw_chains::cycle::Philox;
use evo_ma_sw_chains::params::{ALGORITHM, check_dimension};
use evo_ma_sw_chains::{MaParams, MaSnapshot};

use super::COMPONENT;
use super::layout::SliceLayout;
use super::memory::{gpu_bytes, split_lookahead};
use super::problem::SeparableProblem;
use super::slice::SliceState;
use super::workspace::SplitWorkspace;

/// MA-SW-Chains over a [`SliceLayout`]: the memetic cycle of [`MaCpu`](evo_ma_sw_chains::MaCpu) and
/// [`MaCuda`](evo_ma_sw_chains::MaCuda) (`evo_ma_sw_chains::cycle`), its vectors cut into slices of variables on
/// one or several GPUs. One [`step`](Engine::step) is one memetic cycle. Under [`Profile::Exact`] its snapshots
/// equal `MaCuda`'s and `MaCpu`'s bit for bit, for any layout (module docs of [`super`]); its snapshot type
/// and fingerprint are theirs, so a checkpoint moves between the three and between layouts.
///
/// ```no_run
/// use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
/// use evo_core::Engine;
/// use evo_distributed::dimension::{MaDimensionSplit, SliceLayout};
/// use evo_ma_sw_chains::MaParams;
///
/// let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 100_000_000)?;
/// let layout = SliceLayout::even(100_000_000, &[0, 1])?;
/// let params = MaParams::new().with_max_evaluations(50_000)?;
/// let mut engine = MaDimensionSplit::new(params, &problem, 1, &layout)?;
/// while engine.progress().evaluations < 50_000 {
///     engine.step()?;
/// }
/// println!("{}", engine.progress().best_fitness);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct MaDimensionSplit<'p, P: SeparableProblem + ?Sized> {
    params: MaParams,
    seed: u64,
    problem: &'p P,
    layout: SliceLayout,
    workspace: SplitWorkspace,
    host: HostState,
    rng: Philox,
    dimension: u32,
}

impl<'p, P: SeparableProblem + ?Sized> MaDimensionSplit<'p, P> {
    /// Builds the run under [`Profile::Exact`] and initialises the population (N evaluations).
    ///
    /// # Errors
    /// As [`with_profile`](Self::with_profile).
    pub fn new(params: MaParams, problem: &'p P, seed: u64, layout: &SliceLayout) -> Result<Self> {
        Self::with_profile(params, problem, seed, layout, Profile::Exact)
    }

    /// Builds the run under `profile`. Each GPU's need ([`gpu_bytes`]: its slices and one context's
    /// headroom) is checked against its free memory before anything is allocated on any GPU.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a layout of another dimension than the problem's, a problem the split
    /// refuses ([`SeparableProblem`]), a `Sum` of factors ([`SliceFitness`](super::SliceFitness)) or D above
    /// 2^32 − 1; [`Error::NoSuchDevice`] / [`Error::NoGpu`]
    /// for a GPU of the layout that does not exist; [`Error::GpuOutOfMemory`] naming the first GPU whose need
    /// exceeds its free memory; GPU errors; a non-finite fitness.
    pub fn with_profile(
        params: MaParams,
        problem: &'p P,
        seed: u64,
        layout: &SliceLayout,
        profile: Profile,
    ) -> Result<Self> {
        let d = problem.dimension();
        let dimension = check_dimension(d)?;
        if layout.dimension() != d {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "layout dimension",
                layout.dimension(),
                format!("the problem's dimension {d}"),
            ));
        }
        let separable = problem.separable()?;
        separable.fitness.check()?;
        if let Some(shift) = separable.shift
            && shift.len() != d
        {
            return Err(Error::invalid_parameter(
                COMPONENT,
                "shift length",
                shift.len(),
                format!("the problem's dimension {d}"),
            ));
        }
        let gpus = layout
            .gpus()
            .into_iter()
            .map(|index| Gpu::open(index).map(|gpu| (index, gpu)))
            .collect::<Result<BTreeMap<usize, Gpu>>>()?;
        for (index, need) in gpu_bytes(&params, layout) {
            let (free, total) = gpus[&index].memory()?;
            if need > free {
                return Err(Error::GpuOutOfMemory {
                    device: index,
                    requested: need,
                    free,
                    total,
                });
            }
        }
        let lookahead = split_lookahead(d);
        let bounds = problem.bounds();
        let slices = layout
            .slices()
            .iter()
            .map(|slice| {
                SliceState::new(
                    &gpus[&slice.gpu],
                    layout,
                    slice,
                    &params,
                    &separable,
                    bounds.lower(),
                    bounds.upper(),
                    seed,
                    profile,
                    lookahead,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let mut workspace = SplitWorkspace {
            slices,
            name: problem.name().to_string(),
            bias: separable.bias,
            fitness: separable.fitness,
            dimension: d,
            blx_alpha: params.blx_alpha(),
            mutation_range: params.mutation_range(),
            population: params.population(),
            lookahead,
        };
        let host = HostState::initialise(&mut workspace, params.population())?;
        Ok(Self {
            params,
            seed,
            problem,
            layout: layout.clone(),
            workspace,
            host,
            rng: Philox::new(seed),
            dimension,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &MaParams {
        &self.params
    }

    /// The layout.
    pub fn layout(&self) -> &SliceLayout {
        &self.layout
    }

    /// The problem.
    pub fn problem(&self) -> &P {
        self.problem
    }

    /// `rows` rows of `D` variables assembled from every slice's copy of `buffer` (rows of its stride, the
    /// halo dropped).
    fn gather_rows(
        &self,
        rows: usize,
        buffer: impl Fn(&SliceState) -> &evo_gpu_runtime::DeviceBuffer<f32>,
    ) -> Result<Vec<f32>> {
        let d = self.layout.dimension();
        let mut out = vec![0.0f32; rows * d];
        for (slice, state) in self.layout.slices().iter().zip(&self.workspace.slices) {
            let part = buffer(state).to_vec()?;
            let stride = state.stride;
            for r in 0..rows {
                out[r * d + slice.first..r * d + slice.first + slice.len]
                    .copy_from_slice(&part[r * stride..r * stride + slice.len]);
            }
        }
        Ok(out)
    }

    /// Writes `rows` rows of `D` variables into every slice's copy of `buffer` (with the halo: the next
    /// slice's first variable).
    fn scatter_rows(
        &mut self,
        values: &[f32],
        rows: usize,
        mut buffer: impl FnMut(&mut SliceState) -> &mut evo_gpu_runtime::DeviceBuffer<f32>,
    ) -> Result<()> {
        let d = self.layout.dimension();
        for (slice, state) in self.layout.slices().iter().zip(&mut self.workspace.slices) {
            let stride = state.stride;
            let mut part = Vec::with_capacity(rows * stride);
            for r in 0..rows {
                part.extend_from_slice(&values[r * d + slice.first..r * d + slice.first + stride]);
            }
            buffer(state).copy_from_host(&part)?;
        }
        Ok(())
    }
}

impl<P: SeparableProblem + ?Sized> Engine for MaDimensionSplit<'_, P> {
    type Solution = Vec<f32>;
    type Snapshot = MaSnapshot;

    fn algorithm(&self) -> &'static str {
        ALGORITHM
    }

    fn fingerprint(&self) -> Result<RunFingerprint> {
        evo_ma_sw_chains::snapshot::fingerprint(self.seed, &self.params, self.problem)
    }

    fn step(&mut self) -> Result<()> {
        self.host
            .cycle(&mut self.workspace, &self.params, &self.rng, self.dimension)
    }

    fn progress(&self) -> Progress {
        Progress {
            generation: self.host.cycles,
            evaluations: self.host.evaluations,
            best_fitness: self.host.best_fitness(),
        }
    }

    fn best(&self) -> Result<(Vec<f32>, f64)> {
        let slot = evo_ma_sw_chains::plan::best_slot(&self.host.fitness);
        let d = self.layout.dimension();
        let mut row = vec![0.0f32; d];
        for (slice, state) in self.layout.slices().iter().zip(&self.workspace.slices) {
            row[slice.first..slice.first + slice.len].copy_from_slice(&state.population_row(slot)?);
        }
        Ok((row, self.host.fitness[slot]))
    }

    fn snapshot(&self) -> Result<MaSnapshot> {
        let n = self.params.population();
        let d = self.layout.dimension();
        let population = self.gather_rows(n, |s| &s.population)?;
        let bias = if self.host.chains.iter().any(Option::is_some) {
            self.gather_rows(n, |s| &s.bias)?
        } else {
            Vec::new()
        };
        Ok(snapshot_of(&self.host, self.seed, d, population, |slot| {
            bias[slot * d..(slot + 1) * d].to_vec()
        }))
    }

    fn restore(&mut self, snapshot: &MaSnapshot) -> Result<()> {
        let n = self.params.population();
        let d = self.layout.dimension();
        let host = host_of(snapshot, self.seed, d, n)?;
        snapshot.check_values(self.problem.bounds())?;
        self.scatter_rows(&snapshot.population, n, |s| &mut s.population)?;
        let mut bias = vec![0.0f32; n * d];
        for (slot, chain) in snapshot.chains.iter().enumerate() {
            if let Some(chain) = chain {
                bias[slot * d..(slot + 1) * d].copy_from_slice(&chain.bias);
            }
        }
        self.scatter_rows(&bias, n, |s| &mut s.bias)?;
        self.host = host;
        Ok(())
    }
}
