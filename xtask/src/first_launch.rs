//! `cargo xtask first-launch`: how long a fresh process takes to reach its first GPU result.
//!
//! Three phases are timed from the first instruction of `main`: the driver is ready (a device is opened), the
//! `reduce` module is ready (loaded from this process, read from the on-disk PTX cache, or compiled by NVRTC),
//! and the first kernel has completed (a sum of 1024 terms, copied back). Running the command twice, as two
//! processes, shows what the PTX cache saves: the first says `Compiled`, the second `DiskCache`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, ensure};
use evo_gpu_runtime::{Gpu, Profile, core_kernels};
use evo_kernels::ModuleId;

/// Terms summed by the first kernel.
const TERMS: usize = 1024;

/// Runs the command; `process_start` is the `Instant` taken first thing in `main`.
pub fn run(process_start: Instant) -> anyhow::Result<ExitCode> {
    let Some(gpu) = Gpu::first_available().context("opening the first CUDA device")? else {
        println!("no CUDA device: first-launch SKIPPED");
        return Ok(ExitCode::SUCCESS);
    };
    let driver_ready = process_start.elapsed();

    let origin = gpu
        .load_module(ModuleId::Reduce, Profile::Exact)
        .context("loading the reduce module")?;
    let module_ready = process_start.elapsed();

    let terms: Vec<f64> = (0..TERMS).map(|i| 1.0 / (1.0 + i as f64)).collect();
    let on_device = gpu.upload(&terms).context("uploading the terms")?;
    let sum =
        core_kernels::reduce_sum_f64(&gpu, &on_device, 256).context("running reduce_sum_f64")?;
    let kernel_done = process_start.elapsed();
    let cpu_sum = evo_core::reduce::pairwise_sum_f64(&terms);
    ensure!(
        sum.to_bits() == cpu_sum.to_bits(),
        "the first kernel's sum {sum:e} ({:#018x}) differs from the CPU's {cpu_sum:e} ({:#018x})",
        sum.to_bits(),
        cpu_sum.to_bits()
    );

    let info = gpu.info();
    let cache = evo_gpu_runtime::ptx_cache_dir()
        .map_or_else(|| "none".to_string(), |d| d.display().to_string());
    println!(
        "first-launch on {} ({}, driver {}); PTX cache: {cache}",
        info.name,
        info.arch(),
        info.driver_version
    );
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("driver ready    {:>10.1} ms", ms(driver_ready));
    println!(
        "module ready    {:>10.1} ms  (+{:.1} ms, {origin:?})",
        ms(module_ready),
        ms(module_ready - driver_ready)
    );
    println!(
        "first kernel    {:>10.1} ms  (+{:.1} ms, reduce_sum_f64 over {TERMS} terms, bit-identical to the CPU)",
        ms(kernel_done),
        ms(kernel_done - module_ready)
    );
    Ok(ExitCode::SUCCESS)
}
