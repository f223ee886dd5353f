//! Inbreeding and crossbreeding (steps 4 to 6): `dpga_breed_main`, `dpga_breed_reserve` and
//! `dpga_crossbreed`.

use evo_core::Result;
use evo_gpu_runtime::{DeviceBuffer, Gpu};
use evo_kernels::entry::dpga;

use super::{DeviceValues, DpgaKernelParams, Shape, ValueArgs, grid_2d};

/// `dpga_breed_main`: O_m from M by tournaments under the comparator (step 4).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn breed_main(
    gpu: &Gpu,
    main: &DeviceBuffer<u8>,
    values: &DeviceValues,
    offspring: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::BREED_MAIN, p);
    let m = p.main_size as usize;
    shape.rows("main rows", main.len(), m)?;
    shape.values("main values", values, m)?;
    shape.rows("offspring rows", offspring.len(), m)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_breed_main(const unsigned char* main, const double*, const double*, const unsigned*,
    // unsigned char* offspring, DpgaKernelParams)`; block (pair, run) reads rows and values of its run below
    // m (tournament indices are below(·, m)) and writes its two offspring rows (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(main)
            .values(values)
            .output(offspring)
            .params(p)
            .run(grid_2d(m / 2, p, block))
    }
}

/// `dpga_breed_reserve`: O_r from R by tournaments on `f_r` (step 5).
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn breed_reserve(
    gpu: &Gpu,
    reserve: &DeviceBuffer<u8>,
    fitness: &DeviceBuffer<f64>,
    offspring: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::BREED_RESERVE, p);
    let n = p.reserve_size as usize;
    shape.rows("reserve rows", reserve.len(), n)?;
    shape.per_run("reserve fitness", fitness.len(), n)?;
    shape.rows("offspring rows", offspring.len(), n)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_breed_reserve(const unsigned char*, const double*, unsigned char*, DpgaKernelParams)`;
    // block (pair, run) reads rows and f_r of its run below n and writes its two offspring rows (checked).
    unsafe {
        kernel
            .launch()
            .input(reserve)
            .input(fitness)
            .output(offspring)
            .params(p)
            .run(grid_2d(n / 2, p, block))
    }
}

/// `dpga_crossbreed`: C from the k-th best of O_m and O_r (step 6).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn crossbreed(
    gpu: &Gpu,
    offspring_main: &DeviceBuffer<u8>,
    offspring_reserve: &DeviceBuffer<u8>,
    best_main: &DeviceBuffer<u32>,
    best_reserve: &DeviceBuffer<u32>,
    crossbred: &mut DeviceBuffer<u8>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::CROSSBREED, p);
    let half = p.crossbreed as usize / 2;
    shape.rows("main offspring", offspring_main.len(), p.main_size as usize)?;
    shape.rows(
        "reserve offspring",
        offspring_reserve.len(),
        p.reserve_size as usize,
    )?;
    shape.per_run("best of O_m", best_main.len(), half)?;
    shape.per_run("best of O_r", best_reserve.len(), half)?;
    shape.rows("crossbred rows", crossbred.len(), p.crossbreed as usize)?;
    if half == 0 {
        return Ok(());
    }
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_crossbreed(const unsigned char*, const unsigned char*, const unsigned*, const unsigned*,
    // unsigned char*, DpgaKernelParams)`; block (pair, run) reads the indices of its pair (below m and n, from
    // the selections) and writes its two rows of C (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(offspring_main)
            .input(offspring_reserve)
            .input(best_main)
            .input(best_reserve)
            .output(crossbred)
            .params(p)
            .run(grid_2d(half, p, block))
    }
}
