//! # evo-benches
//!
//! Criterion micro-benchmarks of evo-gpu (`cargo bench -p evo-benches`). Not to be confused with
//! `evo-benchmarks`, the crate of optimization test problems: this package measures speed, that one defines
//! functions to minimise.
//!
//! Every benchmark id starts with the device it ran on (`cpu-16t/...`, `cuda0-h100/...`), and every timed
//! GPU region ends with a device synchronize, so the time is the work's and not the launch's. Long,
//! paper-level experiments live in `cargo xtask bench`.

use evo_gpu_runtime::Gpu;

/// The id prefix of CPU measurements: `cpu-<threads>t`.
pub fn cpu_prefix() -> String {
    format!("cpu-{}t", cpu_threads())
}

/// The id prefix of measurements on `gpu`: `cuda<index>-<short name>` ("cuda0-h100").
pub fn gpu_prefix(gpu: &Gpu) -> String {
    let short: String = gpu
        .info()
        .name
        .split_whitespace()
        .find(|word| word.chars().any(|c| c.is_ascii_digit()))
        .unwrap_or("gpu")
        .to_ascii_lowercase();
    format!("cuda{}-{short}", gpu.index())
}

/// The GPU to measure, if there is one; prints why the CUDA side is skipped otherwise.
pub fn gpu_or_note() -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) => {
            eprintln!("no CUDA device: CUDA benchmarks SKIPPED");
            None
        }
        Err(error) => {
            eprintln!("CUDA device unusable ({error}): CUDA benchmarks SKIPPED");
            None
        }
    }
}

fn cpu_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
