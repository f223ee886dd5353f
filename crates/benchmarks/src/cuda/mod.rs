//! GPU evaluation of the continuous problems: a [`CudaEvaluator`] holds a problem's device data (shift
//! vector) and evaluates a device-resident population into device-resident fitness, bit-identical to the
//! problem's CPU `evaluate` under [`Profile::Exact`].
//!
//! | problem | kernels |
//! | --- | --- |
//! | [`GaProblem`], [`DeRastrigin`], [`ShiftedProblem`], [`Cec2010Problem`] F1–F3, F20 | `tiles_*` then `finish` |
//! | Ridge, shifted Schwefel 1.2, CEC 2010 F19 | `scan_totals_z`, the scan of the totals, `scan_squares`, `finish` |
//!
//! Work split: a 2D grid of (tile, individual) blocks, each tile an aligned subtree of the canonical tree of
//! the fitness' terms, and one block per individual for the second stage; for moderate `D` the first grid is
//! one block per individual. Because tiles are aligned subtrees, the bits do not depend on the block size or
//! the number of tiles (`kernels/cuda/benchmarks_continuous.cu` explains the kernels).
//!
//! Not on the GPU yet: the permuted and rotated CEC 2010 functions F4–F18 ([`CudaProblem::cuda_evaluator`]
//! returns [`Error::InvalidParameter`] naming them) and the Fast profile's accuracy is not measured.
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

pub mod launch;

use crate::cec2010::{Base, Cec2010Problem, Structure};
use crate::de_rastrigin::DeRastrigin;
use crate::ga_functions::{GaFunction, GaProblem};
use crate::shifted::{F_BIAS, ShiftedFunction, ShiftedProblem};
use evo_core::{ContinuousProblem, Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, Profile};
use launch::{FinishParams, SCAN_TILE, ScanParams, ShiftArgs, TermKind, TilesParams};

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
    dummy32: DeviceBuffer<f32>,
    dummy64: DeviceBuffer<f64>,
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
            dummy32: gpu.alloc_zeroed::<f32>(1)?,
            dummy64: gpu.alloc_zeroed::<f64>(1)?,
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
        match &self.shift {
            Shift::None => ShiftArgs {
                shift32: &self.dummy32,
                shift64: &self.dummy64,
                mode: 0,
            },
            Shift::F32(o) => ShiftArgs {
                shift32: o,
                shift64: &self.dummy64,
                mode: 1,
            },
            Shift::F64(o) => ShiftArgs {
                shift32: &self.dummy32,
                shift64: o,
                mode: 2,
            },
        }
    }

    /// Evaluates `fitness.len()` individuals, row-major in `population` (`fitness.len() · D` values),
    /// under `profile` with blocks of `block` threads (a power of two in 128..=256 gives every kernel a valid
    /// shape; the tiles kernels use `min(block, 256)`, the scan kernels `max(block, 128)`).
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
        if !(block.is_power_of_two() && (32..=1024).contains(&block)) {
            return Err(Error::invalid_parameter(
                "CudaEvaluator",
                "block size",
                block,
                "a power of two in 32..=1024",
            ));
        }
        if rows == 0 {
            return Ok(());
        }
        let shift = self.shift_args();
        let (tiles, partials) = match self.plan {
            Plan::Tiles { kind, .. } => {
                let terms = if kind == TermKind::Rosenbrock {
                    d.saturating_sub(1)
                } else {
                    d
                };
                let tile_block = block.min(256);
                let tile = u64::from(launch::ITEMS_PER_THREAD * tile_block);
                let tiles = terms.div_ceil(tile).max(1);
                let mut partials = self.gpu.alloc::<f64>((2 * rows * tiles) as usize)?;
                let params = TilesParams {
                    dimension: d,
                    terms,
                    shift: shift.mode,
                    pad: 0,
                };
                launch::tiles(
                    &self.gpu,
                    kind,
                    population,
                    &shift,
                    &mut partials,
                    params,
                    rows,
                    profile,
                    tile_block,
                )?;
                (tiles, partials)
            }
            Plan::PrefixSquares => {
                self.prefix_squares(population, &shift, rows, profile, block.max(128))?
            }
        };
        let (combine, n) = match self.plan {
            Plan::Tiles { combine, .. } => (combine, d),
            Plan::PrefixSquares => (Combine::Sum, d),
        };
        let params = FinishParams {
            tiles,
            n,
            bias: self.bias.unwrap_or(0.0),
            combine: combine as u32,
            add_bias: u32::from(self.bias.is_some()),
        };
        launch::finish(&self.gpu, &partials, fitness, params, rows, profile, block)
    }

    /// The Schwefel 1.2 partials: tile totals of z, their canonical scan (the carries), the squares.
    fn prefix_squares(
        &self,
        population: &DeviceBuffer<f32>,
        shift: &ShiftArgs<'_>,
        rows: u64,
        profile: Profile,
        block: u32,
    ) -> Result<(u64, DeviceBuffer<f64>)> {
        let d = self.dimension as u64;
        let tiles = d.div_ceil(SCAN_TILE);
        let params = ScanParams {
            len: d,
            tiles,
            shift: shift.mode,
            has_carries: u32::from(tiles > 1),
        };
        let carries = if tiles > 1 {
            let mut totals = self.gpu.alloc::<f64>((rows * tiles) as usize)?;
            launch::scan_totals_z(
                &self.gpu,
                population,
                shift,
                &mut totals,
                params,
                rows,
                profile,
                block,
            )?;
            self.scan_rows(&totals, rows, tiles, profile, block)?
        } else {
            self.gpu.alloc_zeroed::<f64>(1)?
        };
        let mut partials = self.gpu.alloc::<f64>((2 * rows * tiles) as usize)?;
        launch::scan_squares(
            &self.gpu,
            population,
            shift,
            &carries,
            &mut partials,
            params,
            rows,
            profile,
            block,
        )?;
        Ok((tiles, partials))
    }

    /// The canonical inclusive prefix sums of `rows` rows of `len` doubles (recursive over tile totals, as
    /// `evo_benchmarks::tree::canonical_prefix_sums`).
    fn scan_rows(
        &self,
        values: &DeviceBuffer<f64>,
        rows: u64,
        len: u64,
        profile: Profile,
        block: u32,
    ) -> Result<DeviceBuffer<f64>> {
        let tiles = len.div_ceil(SCAN_TILE);
        let params = ScanParams {
            len,
            tiles,
            shift: 0,
            has_carries: u32::from(tiles > 1),
        };
        let carries = if tiles > 1 {
            let mut totals = self.gpu.alloc::<f64>((rows * tiles) as usize)?;
            launch::scan_totals_f64(&self.gpu, values, &mut totals, params, rows, profile, block)?;
            self.scan_rows(&totals, rows, tiles, profile, block)?
        } else {
            self.gpu.alloc_zeroed::<f64>(1)?
        };
        let mut out = self.gpu.alloc::<f64>((rows * len) as usize)?;
        launch::scan_f64(
            &self.gpu, values, &carries, &mut out, params, rows, profile, block,
        )?;
        Ok(out)
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

impl CudaProblem for Cec2010Problem {
    fn cuda_evaluator(&self, gpu: &Gpu) -> Result<CudaEvaluator> {
        let recipe = self.recipe();
        if recipe.structure != Structure::Whole {
            return Err(Error::invalid_parameter(
                "Cec2010Problem::cuda_evaluator",
                "function number",
                self.number(),
                "1, 2, 3, 19 or 20 (the permuted and rotated F4-F18 have no GPU evaluation yet)",
            ));
        }
        let plan = match recipe.group_base {
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
        };
        let shift = Shift::F64(gpu.upload(self.shift())?);
        CudaEvaluator::new(gpu, self.dimension(), plan, None, shift)
    }
}
