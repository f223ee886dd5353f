//! The launches of paper RNG mode (spec ga.md §4 decision 7): the xor128 fill of the generation's random
//! array, and the tournament, crossover and mutation that read it.

use evo_core::{Error, Result};
use evo_gpu_runtime::{DeviceBuffer, Gpu, LaunchSite, Profile};
use evo_kernels::entry::ga;

use super::{GaKernelParams, per_individual, per_pair, per_thread, rows};
use crate::params::COMPONENT;

/// `ga_xor128_fill_u32`: step 1 of paper RNG mode, the generation's random array from the xor128 states.
pub fn xor128_fill(
    gpu: &Gpu,
    states: &mut DeviceBuffer<u32>,
    array: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::XOR128_FILL_U32);
    site.check_len(
        "xor128 state length",
        states.len(),
        4 * p.xor_threads as usize,
    )?;
    if u64::try_from(array.len()).ok() != Some(p.array_len) {
        return Err(Error::invalid_parameter(
            COMPONENT,
            "random array length",
            format!("{} (in {})", array.len(), site.entry()),
            p.array_len,
        ));
    }
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_xor128_fill_u32(unsigned*, unsigned*, GaKernelParams)`; thread t < xor_threads touches
    // states[4t..4t+3] (length 4·xor_threads, checked) and array entries below array_len (checked).
    unsafe {
        kernel
            .launch()
            .output(states)
            .output(array)
            .params(p)
            .run(per_thread(p.xor_threads as usize, block))
    }
}

fn check_array(site: LaunchSite, array: &DeviceBuffer<u32>, p: &GaKernelParams) -> Result<()> {
    let want = p.population as usize * p.bits as usize
        + p.tournament as usize * p.population as usize
        + (p.population as usize).div_ceil(2);
    site.check_len("random array length", array.len(), want)
}

/// `ga_tournament_paper_u32`: step 4 from the random array.
pub fn tournament_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    champions: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::TOURNAMENT_PAPER_U32);
    check_array(site, array, p)?;
    site.check_len("champions length", champions.len(), p.population as usize)?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_tournament_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; slot i reads array
    // entries N·L + k·i .. + k, inside the array's N·L + k·N + ⌈N/2⌉ words (checked), and writes champions[i].
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(champions)
            .params(p)
            .run(per_thread(p.population as usize, block))
    }
}

/// `ga_crossover_paper_u32`: step 6 from the random array.
pub fn crossover_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::CROSSOVER_PAPER_U32);
    check_array(site, array, p)?;
    site.check_len("next population length", next.len(), rows(p))?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_crossover_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; pair q reads array entry
    // N·L + k·N + q (inside the checked length) and rows 2q, 2q + 1 < N of next (checked).
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(next)
            .params(p)
            .run(per_pair(p, block))
    }
}

/// `ga_mutate_paper_u32`: step 7 from the random array.
pub fn mutate_paper(
    gpu: &Gpu,
    array: &DeviceBuffer<u32>,
    next: &mut DeviceBuffer<u32>,
    p: &GaKernelParams,
    block: u32,
) -> Result<()> {
    let site = LaunchSite::new(COMPONENT, ga::MUTATE_PAPER_U32);
    check_array(site, array, p)?;
    site.check_len("next population length", next.len(), rows(p))?;
    let kernel = site.kernel(gpu, Profile::Exact)?;
    // SAFETY: `ga_mutate_paper_u32(const unsigned*, unsigned*, GaKernelParams)`; bit g < L of individual
    // i < N reads array entry i·L + g < N·L (inside the checked length); rows below N (checked).
    unsafe {
        kernel
            .launch()
            .input(array)
            .output(next)
            .params(p)
            .run(per_individual(p, block))
    }
}
