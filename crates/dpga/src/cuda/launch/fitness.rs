//! The reserve's distance fitness `f_r` (steps 5 and 8): `dpga_mean_vector`, `dpga_reserve_fitness` and
//! `dpga_reserve_fitness_survival`.

use evo_core::Result;
use evo_gpu_runtime::{DeviceBuffer, Gpu};
use evo_kernels::entry::dpga;

use super::{DpgaKernelParams, Shape, length, linear_grid, row_grid, runs};

/// `dpga_mean_vector`: the main mean vector of every run.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn mean_vector(
    gpu: &Gpu,
    main: &DeviceBuffer<u8>,
    mean: &mut DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::MEAN_VECTOR, p);
    shape.rows("main rows", main.len(), p.main_size as usize)?;
    shape.rows("mean vector", mean.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_mean_vector(const unsigned char*, double*, DpgaKernelParams)`; thread t < runs · L reads
    // bit t mod L of the m rows of its run and writes mean[t] (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main)
            .output(mean)
            .params(p)
            .run(linear_grid(runs(p) * length(p), block))
    }
}

/// `dpga_reserve_fitness`: `f_r` of `p.rows` rows per run against each run's mean vector and δ.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn reserve_fitness(
    gpu: &Gpu,
    rows: &DeviceBuffer<u8>,
    mean: &DeviceBuffer<f64>,
    delta: &DeviceBuffer<f64>,
    fitness: &mut DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::RESERVE_FITNESS, p);
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.rows("mean vector", mean.len(), 1)?;
    shape.per_run("target distances", delta.len(), 1)?;
    shape.per_run("reserve fitness", fitness.len(), p.rows as usize)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_reserve_fitness(const unsigned char*, const double*, const double*, double*,
    // DpgaKernelParams)`; thread t reads row t, its run's mean (L) and δ, and writes fitness[t] (checked).
    unsafe {
        kernel
            .launch()
            .input(rows)
            .input(mean)
            .input(delta)
            .output(fitness)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The three row sets of step 8 and their reserve fitness: R_t and O_r (`n` rows per run), C (`|C|` rows per
/// run).
pub struct SurvivalSets<'a> {
    /// R_t.
    pub reserve: &'a DeviceBuffer<u8>,
    /// O_r.
    pub offspring: &'a DeviceBuffer<u8>,
    /// C.
    pub crossbred: &'a DeviceBuffer<u8>,
    /// `f_r` of R_t (written).
    pub reserve_fr: &'a mut DeviceBuffer<f64>,
    /// `f_r` of O_r (written).
    pub offspring_fr: &'a mut DeviceBuffer<f64>,
    /// `f_r` of C (written).
    pub crossbred_fr: &'a mut DeviceBuffer<f64>,
}

/// `dpga_reserve_fitness_survival`: step 8's `f_r` of R_t, O_r and C against each run's mean vector (of
/// M_{t+1}) and δ in one launch (the three `dpga_reserve_fitness` launches it replaces give the same values).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn reserve_fitness_survival(
    gpu: &Gpu,
    sets: SurvivalSets<'_>,
    mean: &DeviceBuffer<f64>,
    delta: &DeviceBuffer<f64>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::RESERVE_FITNESS_SURVIVAL, p);
    let (n, c) = (p.reserve_size as usize, p.crossbreed as usize);
    shape.rows("reserve rows", sets.reserve.len(), n)?;
    shape.rows("offspring rows", sets.offspring.len(), n)?;
    shape.rows("crossbred rows", sets.crossbred.len(), c)?;
    shape.per_run("reserve fitness", sets.reserve_fr.len(), n)?;
    shape.per_run("offspring fitness", sets.offspring_fr.len(), n)?;
    shape.per_run("crossbred fitness", sets.crossbred_fr.len(), c)?;
    shape.rows("mean vector", mean.len(), 1)?;
    shape.per_run("target distances", delta.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_reserve_fitness_survival(const unsigned char*, const unsigned char*, const unsigned char*,
    // const double*, const double*, double*, double*, double*, DpgaKernelParams)`; thread t < runs · (2n + |C|)
    // reads one row of R_t, O_r or C (n, n, |C| rows of L bits per run), its run's mean (L) and δ, and writes
    // that row's fitness (every length checked).
    unsafe {
        kernel
            .launch()
            .input(sets.reserve)
            .input(sets.offspring)
            .input(sets.crossbred)
            .input(mean)
            .input(delta)
            .output(sets.reserve_fr)
            .output(sets.offspring_fr)
            .output(sets.crossbred_fr)
            .params(p)
            .run(linear_grid(runs(p) * (2 * n + c), block))
    }
}
