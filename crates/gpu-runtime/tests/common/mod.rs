//! The GPU gate of this crate's integration tests: without a GPU a test prints `SKIPPED (no CUDA device)` and
//! passes; under `EVO_REQUIRE_GPU=1` it fails instead (as on the GPU machine).

// Helpers unwrap and panic: a failure here is a failed test, not a user-facing path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;

use evo_gpu_runtime::Gpu;

/// Whether `EVO_REQUIRE_GPU=1` is set.
pub fn gpu_required() -> bool {
    std::env::var("EVO_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The first CUDA device with NVRTC available; `None` (printing SKIPPED) without them, a panic under
/// `EVO_REQUIRE_GPU=1`.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) if evo_gpu_runtime::nvrtc_present() => Some(gpu),
        Ok(Some(_)) if gpu_required() => {
            panic!("{test}: libnvrtc was not found, but EVO_REQUIRE_GPU=1 requires it")
        }
        Ok(Some(_)) => {
            announce(&format!("SKIPPED (no NVRTC): {test}"));
            None
        }
        Ok(None) if gpu_required() => {
            panic!("{test}: no CUDA device, but EVO_REQUIRE_GPU=1 requires one")
        }
        Ok(None) => {
            announce(&format!("SKIPPED (no CUDA device): {test}"));
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

/// Writes a line straight to stderr, which libtest does not capture, so that a skip is visible.
pub fn announce(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
