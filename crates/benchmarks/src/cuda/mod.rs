//! GPU evaluation of the continuous problems: a [`CudaEvaluator`] holds a problem's device data (shift
//! vector) and evaluates a device-resident population into device-resident fitness, bit-identical to the
//! problem's CPU `evaluate` under [`Profile::Exact`].
//!
//! | problem | kernels |
//! | --- | --- |
//! | [`GaProblem`], [`DeRastrigin`], [`ShiftedProblem`], [`Cec2010Problem`] F1–F3, F20 | `tiles_*` then `finish` |
//! | Ridge, shifted Schwefel 1.2, CEC 2010 F19 | `prefix_squares` (tile summaries of [`crate::prefix_squares`], one pass), `finish_prefix`; rows of one tile: `prefix_squares` alone |
//! | [`GaBinaryProblem`](crate::GaBinaryProblem) (16-bit codes) | `decode16`, then as [`GaProblem`] |
//! | CEC 2010 F4–F18 | `cec_groups` (one block of 64 threads per group of 50 and individual) and `finish` for the groups; `tiles_*` through the permutation and `finish` for the separable part; `cec_compose` |
//!
//! Work split: a grid of (tile, individual) blocks (individual fastest), each tile an aligned subtree of the canonical tree of
//! the fitness' terms, and one block per individual for the second stage; for moderate `D` the first grid is
//! one block per individual. The tiles blocks take up to 10 consecutive individuals each ([`launch::ROW_GROUP`]),
//! which share the block's index arithmetic, the shift vector's tile in L1 and Griewank's `1/√(i+1)` (rows of at most one block of terms:
//! fewer, down to one, until the grid fills the GPU, in blocks of the next power of two ≥ 32 of the terms); `prefix_squares` uses the same tiles
//! with a summary `(N, A, B, C)` per tile instead of a sum. Because tiles are aligned subtrees, the bits do not depend on the block size or
//! the number of tiles (`kernels/cuda/benchmarks_continuous.cu` explains the kernels).
//!
//! The Exact profile equals the CPU bit for bit (the equivalence suite); the Fast profile is checked against the
//! CPU within `FAST_PROFILE_ULPS` ulps of the fitness (`tests/src/suite/benchmarks_continuous.rs`, which gives the
//! bound and the measured maxima).
//!
//! ```no_run
//! use evo_benchmarks::cuda::CudaProblem;
//! use evo_benchmarks::{ShiftedFunction, ShiftedProblem};
//! use evo_gpu_runtime::{Gpu, Profile};
//!
//! let problem = ShiftedProblem::new(ShiftedFunction::Rastrigin, 1_000_000)?;
//! if let Some(gpu) = Gpu::first_available()? {
//!     let evaluator = problem.cuda_evaluator(&gpu)?;
//!     let population = gpu.upload(&vec![0.0f32; 20 * 1_000_000])?;
//!     let mut fitness = gpu.alloc::<f64>(20)?;
//!     evaluator.evaluate(&population, &mut fitness, Profile::Exact, 256)?;
//! }
//! # Ok::<(), evo_core::Error>(())
//! ```

mod binary;
mod bits;
pub mod cec2006;
mod constrained;
mod discrete;
pub mod knapsack;
pub mod launch;
mod real;
pub mod scheduling;
mod user;
mod user_data;
mod user_launch;
mod user_module;
mod user_problem;

pub use binary::CudaBinaryEvaluator;
pub use bits::{BitEvaluator, DeviceBitProblem};
pub use constrained::{ConstrainedEvaluator, DeviceConstrainedProblem, check_evaluator_shape};
pub use real::{DeviceRealProblem, EvalSettings, RealEvaluator};
pub use user::{USER_ENTRY, UserFunction};
pub use user_data::{DataLength, DataValues, UserData};
pub use user_launch::{USER_REAL_TILES, UserRealParams};
pub use user_module::{
    NonFiniteWatch, UserDataBuffers, UserModuleKernels, row_grid, user_data_prelude,
};
pub use user_problem::{MAX_USER_SUMS, Terms, UserProblem, UserTwin};

use crate::cec2010::{Base, Cec2010Problem, Structure};
use crate::de_rastrigin::DeRastrigin;
use crate::ga_functions::{GaFunction, GaProblem};
use crate::shifted::{F_BIAS, ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use launch::{CecComposeParams, CecGroupsParams};
use launch::{FinishParams, ShiftArgs, TermKind, TileKernel, TilesParams};

/// How the fitness is assembled (the `combine` code of `benchmarks_continuous_finish`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The sum of the terms.
    Sum = 0,
    /// Griewank: `(s/4000 − p) + 1`.
    Griewank = 1,
    /// Ackley from its two sums.
    Ackley = 2,
    /// Salomon from the sum of squares.
    Salomon = 3,
}

/// The kernels a problem needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Plan {
    /// A tiles kernel with this term, then `finish` with this combination.
    Tiles {
        /// The term.
        kind: TermKind,
        /// The final combination.
        combine: Combine,
    },
    /// Σ (prefix sums of z)²: the scan kernels, then `finish` (sum).
    PrefixSquares,
    /// A [`UserFunction`]'s term through its own tiles kernel, then `finish` (sum).
    User,
    /// A CEC 2010 function built from groups of 50 (F4–F18).
    Cec {
        /// The base function of the groups.
        base: Base,
        /// Whether groups are rotated.
        rotated: bool,
        /// How groups and separable part combine.
        structure: Structure,
        /// Where the separable part starts in the permutation.
        separable_start: usize,
        /// The separable part's term and combination (absent for F14–F18).
        separable: Option<(TermKind, Combine)>,
    },
}

enum Shift {
    None,
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

/// A problem's evaluation on one GPU (see the module docs).
pub struct CudaEvaluator {
    gpu: Gpu,
    dimension: usize,
    plan: Plan,
    bias: Option<f64>,
    shift: Shift,
    perm: Option<DeviceBuffer<u32>>,
    rotation: Option<DeviceBuffer<f64>>,
    user: Option<(String, String)>,
    dummy32: DeviceBuffer<f32>,
    dummy64: DeviceBuffer<f64>,
    dummy_u32: DeviceBuffer<u32>,
}

/// A problem that can be evaluated on the GPU.
pub trait CudaProblem: ContinuousProblem {
    /// Uploads the problem's data to `gpu` and returns its evaluator.
    ///
    /// # Errors
    /// GPU errors (out of memory, driver), or [`Error::InvalidParameter`] for a problem without a GPU
    /// evaluation (CEC 2010 F4–F18).
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator>;
}

impl CudaEvaluator {
    fn new(
        gpu: &Gpu,
        dimension: usize,
        plan: Plan,
        bias: Option<f64>,
        shift: Shift,
    ) -> Result<Self> {
        Ok(Self {
            gpu: gpu.clone(),
            dimension,
            plan,
            bias,
            shift,
            perm: None,
            rotation: None,
            user: None,
            dummy32: gpu.alloc_zeroed::<f32>(1)?,
            dummy64: gpu.alloc_zeroed::<f64>(1)?,
            dummy_u32: gpu.alloc_zeroed::<u32>(1)?,
        })
    }

    /// The plan (kernels) of this evaluator.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// The number of coordinates per individual.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    fn shift_args(&self) -> ShiftArgs<'_> {
        let perm = self.perm.as_ref().unwrap_or(&self.dummy_u32);
        let (shift32, shift64, mode) = match &self.shift {
            Shift::None => (&self.dummy32, &self.dummy64, 0),
            Shift::F32(o) => (o, &self.dummy64, 1),
            Shift::F64(o) => (&self.dummy32, o, 2),
        };
        ShiftArgs {
            shift32,
            shift64,
            mode,
            perm,
        }
    }

    /// The tiles kernel over `terms` terms (through the permutation from `perm_offset` when given), then
    /// `finish` with `combine` into `out` (one value per individual). Rows of at most `min(block, 256)` terms
    /// take one launch: one term per lane, one tile per row, and the tiles kernel applies the combination
    /// itself (the same tree and arithmetic, the same bits).
    #[allow(clippy::too_many_arguments)]
    fn tiles_and_finish(
        &self,
        population: &DeviceBuffer<f32>,
        kind: Option<TermKind>,
        combine: Combine,
        terms: u64,
        perm_offset: Option<u64>,
        out: &mut DeviceBuffer<f64>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let rows = out.len() as u64;
        let shift = self.shift_args();
        let tile_block = block.min(256);
        let small = terms <= u64::from(tile_block);
        // A row of one tile takes the smallest block (a power of two, at least a warp) that holds its terms:
        // lanes beyond the terms would only add the identity, and a narrower block leaves the individuals
        // to more blocks (launch::tiles). The tree and the bits do not depend on the block size.
        let tile_block = if small {
            shape_u32("terms per row", terms.max(1))?
                .next_power_of_two()
                .max(32)
        } else {
            tile_block
        };
        let bias = self.bias.unwrap_or(0.0);
        let add_bias = u32::from(self.bias.is_some());
        let params = TilesParams {
            dimension: self.dimension as u64,
            terms,
            perm_offset: perm_offset.unwrap_or(0),
            rows,
            shift: shift.mode,
            permuted: u32::from(perm_offset.is_some()),
            group: 1,
            tile_group: 1,
            items: if small {
                launch::ITEMS_PER_THREAD_SMALL
            } else {
                launch::ITEMS_PER_THREAD
            },
            finish: u32::from(small),
            combine: combine as u32,
            add_bias,
            bias,
            n: terms,
        };
        let user_kernel = match (&self.user, kind) {
            (Some((name, source)), None) => {
                Some(self.gpu.user_kernel(name, source, USER_ENTRY, profile)?)
            }
            _ => None,
        };
        let kernel = match (kind, user_kernel.as_ref()) {
            (Some(kind), _) => TileKernel::Builtin(kind),
            (None, Some(kernel)) => TileKernel::User(kernel),
            (None, None) => {
                return Err(Error::invalid_parameter(
                    "CudaEvaluator",
                    "term",
                    "none",
                    "a built-in term or a user function",
                ));
            }
        };
        if small {
            launch::tiles(
                &self.gpu, kernel, population, &shift, out, params, rows, profile, tile_block,
            )?;
            return Ok(());
        }
        let tile = u64::from(launch::ITEMS_PER_THREAD * tile_block);
        let tiles = terms.div_ceil(tile).max(1);
        let mut partials = self
            .gpu
            .alloc::<f64>(host_len("partials", 2 * rows * tiles)?)?;
        launch::tiles(
            &self.gpu,
            kernel,
            population,
            &shift,
            &mut partials,
            params,
            rows,
            profile,
            tile_block,
        )?;
        let params = FinishParams {
            tiles,
            n: terms,
            bias,
            combine: combine as u32,
            add_bias,
            leaves: launch::FINISH_LEAVES,
        };
        let finish_block = launch::finish_block(tiles, launch::FINISH_LEAVES);
        launch::finish(
            &self.gpu,
            &partials,
            out,
            params,
            rows,
            profile,
            finish_block,
        )
    }

    /// Evaluates `fitness.len()` individuals, row-major in `population` (`fitness.len() · D` values),
    /// under `profile` with blocks of `block` threads (a power of two in 128..=256 gives every kernel a valid
    /// shape; the tiles kernels use `min(block, 256)`, the finish kernels size their own blocks by the tile count,
    /// [`launch::finish_block`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on a shape mismatch, a bad block size or more than 65 535 individuals;
    /// GPU errors.
    pub fn evaluate(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let rows = fitness.len() as u64;
        let d = self.dimension as u64;
        if population.len() as u64 != rows * d {
            return Err(Error::invalid_parameter(
                "CudaEvaluator",
                "population length",
                population.len(),
                format!("{} individuals x {} coordinates", rows, d),
            ));
        }
        evo_gpu_runtime::check_block_size("CudaEvaluator", block)?;
        if rows == 0 {
            return Ok(());
        }
        match self.plan {
            Plan::Tiles { kind, combine } => {
                let terms = if kind == TermKind::Rosenbrock {
                    d.saturating_sub(1)
                } else {
                    d
                };
                self.tiles_and_finish(
                    population,
                    Some(kind),
                    combine,
                    terms,
                    None,
                    fitness,
                    profile,
                    block,
                )
            }
            Plan::User => self.tiles_and_finish(
                population,
                None,
                Combine::Sum,
                d,
                None,
                fitness,
                profile,
                block,
            ),
            Plan::PrefixSquares => self.prefix_squares(population, fitness, profile, block),
            Plan::Cec {
                base,
                rotated,
                structure,
                separable_start,
                separable,
            } => self.cec(
                population,
                fitness,
                base,
                rotated,
                structure,
                separable_start,
                separable,
                profile,
                block,
            ),
        }
    }

    /// CEC 2010 F4–F18: group values, their canonical sum, the separable part, the composition.
    #[allow(clippy::too_many_arguments)]
    fn cec(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        base: Base,
        rotated: bool,
        structure: Structure,
        separable_start: usize,
        separable: Option<(TermKind, Combine)>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let rows = fitness.len() as u64;
        let d = self.dimension as u64;
        let groups = match structure {
            Structure::OneGroup => 1,
            Structure::HalfGroups => d / 100,
            _ => d / 50,
        };
        let (Shift::F64(shift), Some(perm)) = (&self.shift, self.perm.as_ref()) else {
            return Err(Error::invalid_parameter(
                "CudaEvaluator",
                "CEC 2010 data",
                "missing",
                "shift and permutation",
            ));
        };
        let rotation = self.rotation.as_ref().unwrap_or(&self.dummy64);
        let mut values = self
            .gpu
            .alloc::<f64>(host_len("group values", 2 * rows * groups)?)?;
        let params = CecGroupsParams {
            dimension: d,
            groups,
            base: base as u32,
            rotated: u32::from(rotated),
        };
        launch::cec_groups(
            &self.gpu,
            population,
            shift,
            perm,
            rotation,
            &mut values,
            params,
            rows,
            profile,
        )?;
        let mut group_sums = self.gpu.alloc::<f64>(host_len("group sums", rows)?)?;
        let params = FinishParams {
            tiles: groups,
            n: groups,
            bias: 0.0,
            combine: Combine::Sum as u32,
            add_bias: 0,
            leaves: launch::FINISH_LEAVES,
        };
        launch::finish(
            &self.gpu,
            &values,
            &mut group_sums,
            params,
            rows,
            profile,
            launch::finish_block(groups, launch::FINISH_LEAVES),
        )?;
        let mut separable_values = self.gpu.alloc::<f64>(host_len("separable values", rows)?)?;
        if let Some((kind, combine)) = separable {
            let start = separable_start as u64;
            self.tiles_and_finish(
                population,
                Some(kind),
                combine,
                d - start,
                Some(start),
                &mut separable_values,
                profile,
                block,
            )?;
        }
        let code = match structure {
            Structure::OneGroup => 1,
            Structure::HalfGroups => 2,
            _ => 3,
        };
        let params = CecComposeParams {
            individuals: rows,
            structure: code,
            pad: 0,
        };
        launch::cec_compose(
            &self.gpu,
            &group_sums,
            &separable_values,
            fitness,
            params,
            profile,
        )
    }

    /// Schwefel 1.2 / Ridge: the tile summaries of [`crate::prefix_squares`], then their tree per individual;
    /// rows of one tile (`D ≤ 8 · min(block, 256)`) in one launch.
    fn prefix_squares(
        &self,
        population: &DeviceBuffer<f32>,
        fitness: &mut DeviceBuffer<f64>,
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let rows = fitness.len() as u64;
        let d = self.dimension as u64;
        let shift = self.shift_args();
        let tile_block = block.min(256);
        let tiles = d
            .div_ceil(u64::from(launch::ITEMS_PER_THREAD * tile_block))
            .max(1);
        let bias = self.bias.unwrap_or(0.0);
        let add_bias = u32::from(self.bias.is_some());
        let one_tile = tiles == 1;
        // One tile per row: the kernel writes the fitness itself (the same bits as `finish_prefix`).
        let params = TilesParams {
            dimension: d,
            terms: d,
            perm_offset: 0,
            rows,
            shift: shift.mode,
            permuted: 0,
            group: 1,
            tile_group: 1,
            items: launch::ITEMS_PER_THREAD,
            finish: u32::from(one_tile),
            combine: 0,
            add_bias: if one_tile { add_bias } else { 0 },
            bias: if one_tile { bias } else { 0.0 },
            n: 0,
        };
        if one_tile {
            // One launch, in the smallest block (a power of two, at least a warp) whose tile holds the row.
            let small_block = shape_u32(
                "lanes per row",
                d.max(1).div_ceil(u64::from(launch::ITEMS_PER_THREAD)),
            )?
            .next_power_of_two()
            .max(32);
            launch::prefix_squares(
                &self.gpu,
                population,
                &shift,
                fitness,
                params,
                rows,
                profile,
                small_block,
            )?;
            return Ok(());
        }
        let mut nodes = self
            .gpu
            .alloc::<f64>(host_len("nodes", 4 * rows * tiles)?)?;
        let tiles = launch::prefix_squares(
            &self.gpu, population, &shift, &mut nodes, params, rows, profile, tile_block,
        )?;
        let params = FinishParams {
            tiles,
            n: d,
            bias,
            combine: Combine::Sum as u32,
            add_bias,
            leaves: launch::prefix_finish_leaves(tiles),
        };
        let finish_block = launch::finish_block(tiles, params.leaves);
        launch::finish_prefix(
            &self.gpu,
            &nodes,
            fitness,
            params,
            rows,
            profile,
            finish_block,
        )
    }

    /// Uploads `population` (row-major, `fitness.len()` rows), evaluates it and downloads the fitness.
    ///
    /// # Errors
    /// As [`evaluate`](Self::evaluate).
    pub fn evaluate_host(
        &self,
        population: &[f32],
        fitness: &mut [f64],
        profile: Profile,
        block: u32,
    ) -> Result<()> {
        let device_population = self.gpu.upload(population)?;
        let mut device_fitness = self.gpu.alloc::<f64>(fitness.len())?;
        self.evaluate(&device_population, &mut device_fitness, profile, block)?;
        device_fitness.copy_to_host(fitness)
    }
}

impl CudaProblem for GaProblem {
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let plan = match self.function() {
            GaFunction::Hypersphere => Plan::Tiles {
                kind: TermKind::Sphere,
                combine: Combine::Sum,
            },
            GaFunction::Ridge => Plan::PrefixSquares,
            GaFunction::Rosenbrock => Plan::Tiles {
                kind: TermKind::Rosenbrock,
                combine: Combine::Sum,
            },
            GaFunction::Step => Plan::Tiles {
                kind: TermKind::Step,
                combine: Combine::Sum,
            },
            GaFunction::Griewank => Plan::Tiles {
                kind: TermKind::Griewank,
                combine: Combine::Griewank,
            },
            GaFunction::Schwefel => Plan::Tiles {
                kind: TermKind::Schwefel,
                combine: Combine::Sum,
            },
            GaFunction::Rastrigin => Plan::Tiles {
                kind: TermKind::Rastrigin,
                combine: Combine::Sum,
            },
            GaFunction::Ackley => Plan::Tiles {
                kind: TermKind::Ackley,
                combine: Combine::Ackley,
            },
        };
        CudaEvaluator::new(gpu, self.dimension(), plan, None, Shift::None)
    }
}

impl CudaProblem for DeRastrigin {
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let plan = Plan::Tiles {
            kind: TermKind::Rastrigin,
            combine: Combine::Sum,
        };
        CudaEvaluator::new(gpu, self.dimension(), plan, None, Shift::None)
    }
}

impl CudaProblem for ShiftedProblem {
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let plan = match self.function() {
            ShiftedFunction::Rastrigin => Plan::Tiles {
                kind: TermKind::Rastrigin,
                combine: Combine::Sum,
            },
            ShiftedFunction::Griewank => Plan::Tiles {
                kind: TermKind::Griewank,
                combine: Combine::Griewank,
            },
            ShiftedFunction::Salomon => Plan::Tiles {
                kind: TermKind::Sphere,
                combine: Combine::Salomon,
            },
            ShiftedFunction::Discus => Plan::Tiles {
                kind: TermKind::Discus,
                combine: Combine::Sum,
            },
            ShiftedFunction::SumSquares => Plan::Tiles {
                kind: TermKind::SumSquares,
                combine: Combine::Sum,
            },
            ShiftedFunction::Schwefel12 => Plan::PrefixSquares,
        };
        let shift = Shift::F32(gpu.upload(self.shift())?);
        CudaEvaluator::new(gpu, self.dimension(), plan, Some(F_BIAS), shift)
    }
}

/// The tiles term and combination of a CEC 2010 base function.
/// A launch count of the evaluators (rows times tiles or groups) as a host length.
fn host_len(what: &'static str, value: u64) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            "benchmarks_continuous",
            what,
            value,
            format!("at most {}", usize::MAX),
        )
    })
}

/// A launch shape count (terms or lanes of a one-tile row) as the `u32` of a block size.
fn shape_u32(what: &'static str, value: u64) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::invalid_parameter(
            "benchmarks_continuous",
            what,
            value,
            format!("at most {}", u32::MAX),
        )
    })
}

fn base_term(base: Base) -> Plan {
    match base {
        Base::Elliptic => Plan::Tiles {
            kind: TermKind::Elliptic,
            combine: Combine::Sum,
        },
        Base::Rastrigin => Plan::Tiles {
            kind: TermKind::Rastrigin,
            combine: Combine::Sum,
        },
        Base::Ackley => Plan::Tiles {
            kind: TermKind::Ackley,
            combine: Combine::Ackley,
        },
        Base::Schwefel12 => Plan::PrefixSquares,
        Base::Rosenbrock => Plan::Tiles {
            kind: TermKind::Rosenbrock,
            combine: Combine::Sum,
        },
        Base::Sphere => Plan::Tiles {
            kind: TermKind::Sphere,
            combine: Combine::Sum,
        },
    }
}

impl CudaProblem for Cec2010Problem {
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let recipe = self.recipe();
        let d = self.dimension();
        let shift = Shift::F64(gpu.upload(self.shift())?);
        if recipe.structure == Structure::Whole {
            return CudaEvaluator::new(gpu, d, base_term(recipe.group_base), None, shift);
        }
        let separable = match (recipe.structure, base_term(recipe.separable_base)) {
            (Structure::AllGroups, _) => None,
            (_, Plan::Tiles { kind, combine }) => Some((kind, combine)),
            (_, _) => {
                return Err(Error::invalid_parameter(
                    "Cec2010Problem::cuda_evaluator",
                    "separable base",
                    format!("{:?}", recipe.separable_base),
                    "a base without prefix sums (every CEC 2010 function has one)",
                ));
            }
        };
        let plan = Plan::Cec {
            base: recipe.group_base,
            rotated: recipe.rotated,
            structure: recipe.structure,
            separable_start: recipe.separable_start(d),
            separable,
        };
        let mut evaluator = CudaEvaluator::new(gpu, d, plan, None, shift)?;
        evaluator.perm = Some(gpu.upload(self.permutation())?);
        if recipe.rotated {
            evaluator.rotation = Some(gpu.upload(self.rotation())?);
        }
        Ok(evaluator)
    }
}
