//! Damaged on-disk cache entries on a real GPU: each run is a fresh process (this test binary started again
//! in child mode), so that the module is read from the disk cache rather than from the process's own, and so
//! that a crash inside the driver (half a cubin used to segfault in `cuModuleLoadData`) is seen as a failed
//! child instead of taking the harness down. Skips (printing SKIPPED) without a GPU; fails instead under
//! `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use evo_gpu_runtime::{Gpu, KernelParams, LaunchConfig, Profile};

const TEST: &str = "damaged_cache_entries_are_rebuilt_without_crashing";
/// Set in a child: the cache directory it must use.
const CHILD: &str = "EVO_GPU_RUNTIME_CACHE_CHILD";

const SOURCE: &str = r#"
struct ProbeParams { unsigned int n; };
extern "C" __global__ void cache_probe_iota(unsigned int* out, ProbeParams p) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) out[i] = 3u * i + 1u;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct ProbeParams {
    n: u32,
}
// SAFETY: repr(C), one u32, the layout of `ProbeParams` in SOURCE.
unsafe impl KernelParams for ProbeParams {}

/// The child's work: load the probe module through the disk cache, run it, check it, print its origin.
fn child(gpu: &Gpu) {
    let origin = gpu
        .load_user_module("cache_probe", SOURCE, Profile::Exact)
        .unwrap();
    let kernel = gpu
        .user_kernel("cache_probe", SOURCE, "cache_probe_iota", Profile::Exact)
        .unwrap();
    let n = 1000u32;
    let mut out = gpu.alloc::<u32>(n as usize).unwrap();
    // SAFETY: the arguments follow `cache_probe_iota(unsigned int*, ProbeParams)`, and the kernel writes only
    // indices below n, the buffer's length.
    unsafe {
        kernel
            .launch()
            .output(&mut out)
            .params(&ProbeParams { n })
            .run(LaunchConfig::linear(n.div_ceil(256), 256, 0))
            .unwrap();
    }
    let host = out.to_vec().unwrap();
    assert!(host.iter().zip(0u32..).all(|(&v, i)| v == 3 * i + 1));
    println!("\nORIGIN={origin:?}");
}

/// Runs a child on `dir`; returns the origin it printed, after checking it exited normally.
fn run_child(dir: &Path, step: &str) -> String {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(CHILD, dir)
        .env("EVO_GPU_CACHE_DIR", dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{step}: the child failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.split("ORIGIN=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{step}: no origin in\n{stdout}"))
        .to_string()
}

/// The one entry of `extension` in `dir`.
fn entry(dir: &Path, extension: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    assert_eq!(found.len(), 1, "{extension} entries: {found:?}");
    found.into_iter().next().unwrap()
}

/// Checks that `path` holds a rebuilt entry (with its header) after `step`.
fn assert_rebuilt(path: &Path, step: &str) {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.starts_with(b"EVOCACHE") && bytes.len() > HEADER_BYTES,
        "{step}: {} was not rebuilt",
        path.display()
    );
}

fn rewrite(path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    change(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

const HEADER_BYTES: usize = 40;

#[test]
fn damaged_cache_entries_are_rebuilt_without_crashing() {
    let Some(gpu) = common::gpu_or_skip(TEST) else {
        return;
    };
    if std::env::var_os(CHILD).is_some() {
        child(&gpu);
        return;
    }
    let dir = std::env::temp_dir().join(format!("evo-gpu-cache-faults-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);

    assert_eq!(run_child(&dir, "first run"), "Compiled");
    assert_eq!(run_child(&dir, "second run"), "BinaryCache");
    let (ptx, cubin) = (entry(&dir, "ptx"), entry(&dir, "cubin"));
    let (ptx_bytes, cubin_bytes) = (std::fs::read(&ptx).unwrap(), std::fs::read(&cubin).unwrap());

    rewrite(&cubin, |b| b.truncate(b.len() / 2));
    assert_eq!(run_child(&dir, "cubin cut in half"), "DiskCache");
    assert_rebuilt(&cubin, "cubin cut in half");

    rewrite(&cubin, |b| {
        let middle = b.len() / 2;
        b[middle] ^= 0x10;
    });
    assert_eq!(run_child(&dir, "a flipped byte in the cubin"), "DiskCache");
    assert_rebuilt(&cubin, "a flipped byte");

    // A damaged PTX entry is recompiled; the same PTX finds its binary in the cache.
    rewrite(&ptx, |b| b.truncate(b.len() / 2));
    assert_eq!(run_child(&dir, "PTX cut in half"), "BinaryCache");
    assert_rebuilt(&ptx, "PTX cut in half");

    // Entries of the format before headers: the bare PTX text and the bare cubin.
    std::fs::write(&ptx, &ptx_bytes[HEADER_BYTES..]).unwrap();
    std::fs::write(&cubin, &cubin_bytes[HEADER_BYTES..]).unwrap();
    assert_eq!(run_child(&dir, "legacy entries"), "Compiled");
    assert_rebuilt(&ptx, "legacy entries");
    assert_rebuilt(&cubin, "legacy entries");

    std::fs::write(&ptx, b"garbage").unwrap();
    std::fs::write(&cubin, b"\x7fELF garbage").unwrap();
    assert_eq!(run_child(&dir, "garbage entries"), "Compiled");
    assert_eq!(run_child(&dir, "after the rebuild"), "BinaryCache");

    std::fs::remove_dir_all(&dir).unwrap();
}
