//! `cargo xtask first-launch`: how long a fresh process takes to reach its first GPU result.
//!
//! Three phases are timed from the first instruction of `main`: the driver is ready (a device is opened), the
//! `reduce` module is ready (loaded from this process, read from the on-disk PTX cache, or compiled by NVRTC),
//! and the first kernel has completed (a sum of 1024 terms, copied back). Running the command twice, as two
//! processes, shows what the PTX cache saves: the first says `Compiled`, the second `DiskCache`.
//!
//! `--compare` does exactly that in one command: it runs this binary twice as child processes on a fresh, empty
//! temporary cache directory and prints both timings side by side with the ratios. The driver's own start
//! (context creation, a few hundred milliseconds on a data-centre GPU without persistence mode) is the same in
//! both processes and no cache of ours touches it, so the ratio that measures the cache is the one from
//! "driver ready" to the first launch.

use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{Context, ensure};

use crate::flags::FirstLaunchArgs;
use evo_gpu_runtime::{Gpu, Profile, core_kernels};
use evo_kernels::ModuleId;

/// Terms summed by the first kernel.
const TERMS: usize = 1024;

/// The prefix of the machine-readable line a child prints for `--compare`.
const TIMINGS: &str = "first-launch timings (ms):";

/// Runs the command; `process_start` is the `Instant` taken first thing in `main`.
pub fn run(args: &FirstLaunchArgs, process_start: Instant) -> anyhow::Result<ExitCode> {
    if args.compare {
        compare()
    } else {
        measure(process_start)
    }
}

/// One child's timings, from its process start: driver ready, module ready, first kernel done.
struct ChildTimings {
    driver: f64,
    module: f64,
    kernel: f64,
    origin: String,
}

fn run_child(cache: &std::path::Path) -> anyhow::Result<Option<ChildTimings>> {
    let exe = std::env::current_exe().context("locating the xtask binary")?;
    let output = Command::new(exe)
        .arg("first-launch")
        .env("EVO_GPU_CACHE_DIR", cache)
        .output()
        .context("starting a child first-launch process")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    ensure!(
        output.status.success(),
        "the child process failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix(TIMINGS)) else {
        return Ok(None);
    };
    let fields: Vec<&str> = line.split_whitespace().collect();
    let number = |i: usize| -> anyhow::Result<f64> {
        fields
            .get(i)
            .context("a short timings line")?
            .parse::<f64>()
            .context("a timing that is not a number")
    };
    Ok(Some(ChildTimings {
        driver: number(0)?,
        module: number(1)?,
        kernel: number(2)?,
        origin: fields.get(3).copied().unwrap_or("?").to_string(),
    }))
}

fn compare() -> anyhow::Result<ExitCode> {
    let cache = std::env::temp_dir().join(format!("evo-first-launch-{}", std::process::id()));
    if cache.exists() {
        std::fs::remove_dir_all(&cache).context("emptying the temporary cache")?;
    }
    std::fs::create_dir_all(&cache).context("creating the temporary cache")?;
    println!("== process 1 (empty PTX cache at {})", cache.display());
    let first = run_child(&cache)?;
    println!("== process 2 (same cache)");
    let second = run_child(&cache)?;
    let _ = std::fs::remove_dir_all(&cache);
    let (Some(first), Some(second)) = (first, second) else {
        println!("no CUDA device: first-launch --compare SKIPPED");
        return Ok(ExitCode::SUCCESS);
    };
    println!();
    println!(
        "| from | process 1 ({}) | process 2 ({}) | ratio |",
        first.origin, second.origin
    );
    println!("| --- | --- | --- | --- |");
    let row =
        |what: &str, a: f64, b: f64| println!("| {what} | {a:.1} ms | {b:.1} ms | {:.1}x |", a / b);
    row(
        "driver ready to module ready",
        first.module - first.driver,
        second.module - second.driver,
    );
    row(
        "driver ready to first kernel done",
        first.kernel - first.driver,
        second.kernel - second.driver,
    );
    row(
        "process start to first kernel done",
        first.kernel,
        second.kernel,
    );
    println!(
        "(process start to driver ready: {:.1} ms and {:.1} ms: CUDA context creation, untouched by the cache)",
        first.driver, second.driver
    );
    Ok(ExitCode::SUCCESS)
}

fn measure(process_start: Instant) -> anyhow::Result<ExitCode> {
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
    println!(
        "{TIMINGS} {:.3} {:.3} {:.3} {origin:?}",
        ms(driver_ready),
        ms(module_ready),
        ms(kernel_done)
    );
    Ok(ExitCode::SUCCESS)
}
