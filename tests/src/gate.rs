//! The GPU gate: GPU tests skip with a printed line on machines without a GPU, and fail instead when
//! `EVO_REQUIRE_GPU=1` (which `cargo xtask verify-kernels` and `.gpu/run-tests` set on a GPU machine).

use std::io::Write;

use evo_gpu_runtime::Gpu;

/// The environment variable that turns a skip into a failure.
pub const REQUIRE_GPU: &str = "EVO_REQUIRE_GPU";

/// Whether `EVO_REQUIRE_GPU=1` is set.
pub fn gpu_required() -> bool {
    std::env::var(REQUIRE_GPU).is_ok_and(|v| v == "1")
}

/// The first GPU, or `None` after printing `SKIPPED (no CUDA device): <test>`.
///
/// # Panics
/// When there is no GPU and `EVO_REQUIRE_GPU=1`, or when a GPU exists but cannot be opened.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::first_available() {
        Ok(Some(gpu)) => Some(gpu),
        Ok(None) if gpu_required() => {
            panic!("{test}: no CUDA device, but {REQUIRE_GPU}=1 requires one")
        }
        Ok(None) => {
            announce(&format!("SKIPPED (no CUDA device): {test}"));
            None
        }
        Err(error) => panic!("{test}: a CUDA device exists but could not be opened: {error}"),
    }
}

/// Whether NVRTC can be loaded; otherwise prints `SKIPPED (no NVRTC): <test>` (and panics under
/// `EVO_REQUIRE_GPU=1`, since a GPU machine must have it).
pub fn nvrtc_or_skip(test: &str) -> bool {
    if evo_gpu_runtime::nvrtc_present() {
        return true;
    }
    if gpu_required() {
        panic!("{test}: libnvrtc was not found, but {REQUIRE_GPU}=1 requires it");
    }
    announce(&format!(
        "SKIPPED (no NVRTC; set LD_LIBRARY_PATH to a libnvrtc directory): {test}"
    ));
    false
}

/// Writes a line straight to the process's stderr. libtest captures `println!` and `eprintln!` of passing
/// tests, and a skip must be visible in a plain `cargo test` run.
fn announce(line: &str) {
    let mut stderr = std::io::stderr().lock();
    // A closed stderr leaves nobody to tell; the skip itself still happens.
    let _ = writeln!(stderr, "{line}");
}
