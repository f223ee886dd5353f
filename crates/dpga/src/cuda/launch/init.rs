//! The initialisation (spec §2 item 2) and the evaluation: `dpga_draw_rows`, `dpga_evaluate` and
//! `dpga_init_merge`.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig};
use evo_kernels::entry::dpga;

use super::{DeviceValues, DpgaKernelParams, Shape, ValueArgs, length, row_grid};
use crate::params::ALGORITHM;

/// `dpga_draw_rows`: rows `i < count[r]` of run `r` (`p.rows` per run) get the bits of draw `base[r] + i`.
///
/// # Errors
/// Shape mismatches; GPU errors.
pub fn draw_rows(
    gpu: &Gpu,
    rows: &mut DeviceBuffer<u8>,
    base: &DeviceBuffer<u64>,
    count: &DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::DRAW_ROWS, p);
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.per_run("draw bases", base.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: `dpga_draw_rows(unsigned char*, const unsigned long long*, const unsigned*, DpgaKernelParams)`;
    // thread t < runs · rows writes row t (L bytes; runs · rows · L checked) and reads base[run], count[run]
    // (runs entries each, checked).
    unsafe {
        kernel
            .launch()
            .output(rows)
            .input(base)
            .input(count)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The box of the problem, one entry per variable.
pub struct DeviceBounds {
    /// Lower bounds.
    pub lower: DeviceBuffer<f32>,
    /// Upper bounds.
    pub upper: DeviceBuffer<f32>,
}

/// `dpga_evaluate`: decodes and evaluates rows `i < count[r]` (`p.rows` per run) into `values`; a non-finite
/// objective or violation records its lowest row in `status[r]`.
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    gpu: &Gpu,
    rows: &DeviceBuffer<u8>,
    bounds: &DeviceBounds,
    values: &mut DeviceValues,
    status: &mut DeviceBuffer<u32>,
    count: &DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::EVALUATE, p);
    let dimension = p.dimension as usize;
    shape.rows("rows", rows.len(), p.rows as usize)?;
    shape.len("bounds", bounds.lower.len(), dimension)?;
    shape.len("bounds", bounds.upper.len(), dimension)?;
    shape.len("bits", length(p), dimension * p.bits as usize)?;
    shape.values("values", values, p.rows as usize)?;
    shape.per_run("status", status.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: the arguments follow `dpga_evaluate(const unsigned char* rows, const float* lower, const float*
    // upper, double* objective, double* violation, unsigned* satisfied, unsigned* status, const unsigned*
    // count, DpgaKernelParams)`; thread t reads row t (L = D·b bytes) and D bounds and writes entry t of the
    // three value arrays and status[run] (all lengths checked); number, D, m and p come from a valid
    // `Cec2006Problem`, within the kernel's local arrays.
    unsafe {
        kernel
            .launch()
            .input(rows)
            .input(&bounds.lower)
            .input(&bounds.upper)
            .values_mut(values)
            .output(status)
            .input(count)
            .params(p)
            .run(row_grid(p, block))
    }
}

/// The kept rows of the initialisation and the draw number of each.
pub struct InitPool {
    /// `runs × m × L` bits.
    pub rows: DeviceBuffer<u8>,
    /// Their evaluations.
    pub values: DeviceValues,
    /// Their draw numbers.
    pub draws: DeviceBuffer<u64>,
}

/// `dpga_init_merge`: the m best of `kept` (none when `p.phase == 1`) and the new candidates into `next`;
/// advances `draws` and sets `count` to the next batch (0: done).
///
/// # Errors
/// Shape mismatches; GPU errors.
#[allow(clippy::too_many_arguments)]
pub fn init_merge(
    gpu: &Gpu,
    kept: &InitPool,
    candidates: &DeviceBuffer<u8>,
    candidate_values: &DeviceValues,
    next: &mut InitPool,
    draws: &mut DeviceBuffer<u64>,
    count: &mut DeviceBuffer<u32>,
    p: &DpgaKernelParams,
    block: u32,
) -> Result<()> {
    let shape = Shape::of(dpga::INIT_MERGE, p);
    let m = p.main_size as usize;
    for pool in [kept, &*next] {
        shape.rows("kept rows", pool.rows.len(), m)?;
        shape.values("kept values", &pool.values, m)?;
        shape.per_run("kept draws", pool.draws.len(), m)?;
    }
    shape.rows("candidates", candidates.len(), m)?;
    shape.values("candidate values", candidate_values, m)?;
    shape.per_run("draws", draws.len(), 1)?;
    shape.per_run("row counts", count.len(), 1)?;
    let shared = u32::try_from(2 * m * size_of::<u32>())
        .ok()
        .filter(|&bytes| bytes <= 48 * 1024)
        .ok_or_else(|| {
            Error::invalid_parameter(
                ALGORITHM,
                "main population size for the CUDA init",
                m,
                "at most 6144 (2m indices in 48 KiB of shared memory)",
            )
        })?;
    let kernel = shape.kernel(gpu)?;
    // SAFETY: the arguments follow `dpga_init_merge(kept, kept_objective, kept_violation, kept_satisfied,
    // kept_draw, candidates, objective, violation, satisfied, next, next_objective, next_violation,
    // next_satisfied, next_draw, draws, count, DpgaKernelParams)`; block r reads and writes the m rows of run
    // r in each pool (runs · m rows, checked) and entry r of draws and count; the shared memory holds 2m
    // indices, the largest pool (m kept + at most m candidates).
    unsafe {
        kernel
            .launch()
            .input(&kept.rows)
            .values(&kept.values)
            .input(&kept.draws)
            .input(candidates)
            .values(candidate_values)
            .output(&mut next.rows)
            .values_mut(&mut next.values)
            .output(&mut next.draws)
            .output(draws)
            .output(count)
            .params(p)
            .run(LaunchConfig::linear(p.runs, block, shared))
    }
}
