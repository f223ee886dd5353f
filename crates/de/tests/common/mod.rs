//! The GPU gate of this crate's integration tests: without a GPU a test prints `SKIPPED (no CUDA device)` and
//! passes; under `EVO_REQUIRE_GPU=1` it fails instead (as on the GPU machine).

#![allow(clippy::panic)]

use evo_gpu_runtime::Gpu;

/// The first CUDA device; `None` (printing SKIPPED) without one, a panic under `EVO_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) if std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            eprintln!("SKIPPED (no CUDA device): {test}");
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}
