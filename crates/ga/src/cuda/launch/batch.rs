//! The launches of [`crate::GaBatchCuda`]: reproduction with decoding, and the best so far, for many runs.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchConfig, LaunchSite, Profile};
use evo_kernels::entry::ga;

use super::{GaKernelParams, MAX_GRID, check_populations, grid, rows};
use crate::params::COMPONENT;

/// `ga_batch_reproduce_u32`: steps 4–8 and decoding fused, for `p.runs` runs (step 0: initialisation).
pub fn batch_reproduce(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    x: &mut DeviceBuffer<f32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::BATCH_REPRODUCE_U32);
    let runs = p.runs as usize;
    check_populations(site, sorted.len(), next.len(), runs * rows(p))?;
    site.check_len(
        "decoded length",
        x.len(),
        runs * p.population as usize * p.variables as usize,
    )?;
    if p.variables as usize * 16 > p.bits as usize || !(1..=MAX_GRID).contains(&p.runs) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "batch shape",
            format!("{runs} runs, {} variables in {} bits", p.variables, p.bits),
            format!("1..={MAX_GRID} runs and 16 n ≤ L"),
        ));
    }
    let kernel = site.kernel(gpu, Profile::Exact)?;
    let pairs = (p.population as usize).div_ceil(2);
    // SAFETY: `ga_batch_reproduce_u32(const unsigned*, unsigned*, float*, GaKernelParams)`; block (pair, run)
    // touches rows of run `run` < runs only (grid.y = runs), champions and elites are positions below
    // population, and every buffer holds runs · population rows (checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .output(next)
            .output(x)
            .params(p)
            .run(LaunchConfig {
                grid: (grid(pairs), p.runs, 1),
                block: (block, 1, 1),
                shared_bytes: 0,
            })
    }
}

/// `ga_batch_best_u32`: the best so far of each of `p.runs` runs.
pub fn batch_best(
    gpu: &Gpu,
    sorted: &DeviceBuffer<u32>,
    sorted_fitness: &DeviceBuffer<f64>,
    best: &mut DeviceBuffer<u32>,
    best_fitness: &mut DeviceBuffer<f64>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::BATCH_BEST_U32);
    let runs = p.runs as usize;
    site.check_len("population length", sorted.len(), runs * rows(p))?;
    site.check_len(
        "fitness length",
        sorted_fitness.len(),
        runs * p.population as usize,
    )?;
    site.check_len("best length", best.len(), runs * p.words as usize)?;
    site.check_len("best fitness length", best_fitness.len(), runs)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_batch_best_u32(const unsigned*, const double*, unsigned*, double*, GaKernelParams)`; block
    // loop over runs < p.runs, each touching its own row 0, fitness 0 and best slot (lengths checked).
    unsafe {
        kernel
            .launch()
            .input(sorted)
            .input(sorted_fitness)
            .output(best)
            .output(best_fitness)
            .params(p)
            .run(LaunchConfig::linear(grid(runs), block, 0))
    }
}
