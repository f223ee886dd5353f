//! A user module's first compile and its reuse from the PTX cache, for the real-vector module of
//! [`super::user_rastrigin`] and the bit-string module of [`super::ga::user_hypersphere`].
//!
//! Both are measured in this process through the runtime's disk-cache call
//! ([`evo_gpu_runtime::cached_ptx_in`]) on a cache directory of the suite's own, so that neither the
//! environment nor the user's cache is touched: the first compile is NVRTC into an empty directory (a fresh
//! directory per sample), the reuse is the same call reading that PTX back. The device's per-process module
//! cache cannot be dropped (every `Gpu::open` of a device shares one context), so the GPU row is the first
//! load of the module on the device in this process, through the process's cache directory
//! (`$EVO_GPU_CACHE_DIR`), with where it came from: `Compiled` on an empty directory, `BinaryCache` when an
//! earlier process left the device binary there.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, ensure};
use evo_gpu_runtime::{Profile, cached_ptx_in, nvrtc_present};

use super::{PerStep, cell, ratio};
use crate::bench::{Backend, BenchContext, Reference, Row, SuiteResult, Timing};

/// The architecture compiled for without a GPU: the H100's, where the lead measures.
const DEFAULT_ARCH: &str = "sm_90";
/// The dimension of the measured real-vector module (the module does not depend on it).
const DIMENSION: usize = 128;
/// The variables of the measured bit-string module (its source does not depend on them).
const VARIABLES: usize = 32;

/// One user module: its name and full source as the engine compiles them.
struct Module {
    label: &'static str,
    name: String,
    source: String,
}

/// A temporary cache directory of this suite, removed when dropped.
struct TempCache(PathBuf);

impl TempCache {
    /// An empty directory `<temp>/evo-bench-user-<pid>-<tag>`.
    fn new(tag: &str) -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join(format!("evo-bench-user-{}-{tag}", std::process::id()));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("emptying the temporary cache {}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("creating the temporary cache {}", dir.display()))?;
        Ok(Self(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempCache {
    fn drop(&mut self) {
        // A directory left behind in the temp folder costs nothing but space; the measurement stands.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How many first compiles are timed (each on its own empty directory): NVRTC takes seconds.
fn compile_samples(quick: bool) -> usize {
    if quick { 1 } else { 3 }
}

/// The compile rows and table (module docs).
pub(super) fn run(ctx: &BenchContext, result: &mut SuiteResult) -> anyhow::Result<()> {
    let modules = [
        Module {
            label: "DE / MA-SW-Chains user Rastrigin (UserProblem)",
            name: super::user_rastrigin(DIMENSION, super::Cosine::General)?.module_name(),
            source: super::user_rastrigin(DIMENSION, super::Cosine::General)?.module_source(),
        },
        Module {
            label: "GA user f1 (UserBits)",
            name: super::ga::user_hypersphere(VARIABLES)?.module_name(),
            source: super::ga::user_hypersphere(VARIABLES)?.module_source(),
        },
    ];
    let mut table = vec![
        "| module | NVRTC first compile ms | cached PTX reused ms | first / cached | device first load ms | from |"
            .to_string(),
        "| --- | --- | --- | --- | --- | --- |".to_string(),
    ];
    let nvrtc = nvrtc_present();
    let arch = ctx
        .gpu()
        .map_or_else(|| DEFAULT_ARCH.to_string(), |gpu| gpu.info().arch());
    for module in &modules {
        let (first, reused) = if nvrtc {
            let (first, reused) = disk_cache_times(ctx, module, &arch)?;
            (PerStep::measured(first, 1), PerStep::measured(reused, 1))
        } else {
            (PerStep::missing(), PerStep::missing())
        };
        let (load, origin) = match ctx.gpu() {
            Some(gpu) => {
                let start = Instant::now();
                let origin = gpu.load_user_module(&module.name, &module.source, Profile::Exact)?;
                let ms = start.elapsed().as_secs_f64() * 1e3;
                (
                    PerStep::measured(
                        Timing {
                            samples_ms: vec![ms],
                        },
                        1,
                    ),
                    format!("{origin:?}"),
                )
            }
            None => (PerStep::missing(), "-".to_string()),
        };
        let cpu = (Backend::Cpu, ctx.cpu_device().to_string());
        let size = module.source.len() as u64;
        let compiled = ms_row(
            format!("{} NVRTC first compile ({arch})", module.name),
            cpu.clone(),
            size,
            &first,
            None,
            Some(
                if nvrtc {
                    "empty cache directory"
                } else {
                    "NVRTC not found"
                }
                .to_string(),
            ),
        );
        let cached = ms_row(
            format!("{} cached PTX reused ({arch})", module.name),
            cpu,
            size,
            &reused,
            Some(first.us() * 1e-3),
            None,
        );
        let loaded = ms_row(
            format!("{} first device load", module.name),
            (Backend::Cuda, ctx.gpu_device()),
            size,
            &load,
            None,
            Some(origin.clone()),
        );
        table.push(format!(
            "| {} (`{}`) | {} | {} | {} | {} | {origin} |",
            module.label,
            module.name,
            cell(first.us() * 1e-3),
            cell(reused.us() * 1e-3),
            ratio(first.us(), reused.us()),
            cell(load.us() * 1e-3),
        ));
        result.rows.extend([compiled, cached, loaded]);
    }
    let mut note = format!(
        "User module compile (size column: bytes of the module text handed to NVRTC: a short prelude, the \
         user's code and the `#include`s of `common/math.cuh` and the contract's kernel header, nothing \
         else). Measured in this process with `cached_ptx_in` on a cache \
         directory of the suite's own: NVRTC into an empty directory (median of {} compile(s), a fresh \
         directory each), then the same call reading the PTX back (median of the usual samples). The \
         device row is the module's first load on the GPU in this process through `$EVO_GPU_CACHE_DIR` \
         (`from`: `Compiled` when that directory is empty, `BinaryCache` when an earlier process left the \
         device binary); the in-process module cache cannot be dropped, so the reuse on the device is seen by \
         running the suite a second time with the same `EVO_GPU_CACHE_DIR`.",
        compile_samples(ctx.quick())
    );
    if !nvrtc {
        note.push_str(" NVRTC was not found here: the compile columns print `-`.");
    }
    if ctx.gpu().is_none() {
        note.push(' ');
        note.push_str(&super::no_gpu_note("Device load"));
    }
    result.notes.push(format!("{note}\n\n{}", table.join("\n")));
    Ok(())
}

/// A row of one compile or load time in ms (`-` when not measured), compared with the first compile's
/// `reference` ms when given.
fn ms_row(
    case: String,
    (backend, device): (Backend, String),
    size: u64,
    measured: &PerStep,
    reference: Option<f64>,
    check: Option<String>,
) -> Row {
    let ms = measured.us() * 1e-3;
    Row {
        case,
        backend,
        device,
        size,
        median_ms: ms,
        samples: measured.samples(),
        throughput: ms,
        unit: "ms".to_string(),
        reference: reference
            .filter(|value| value.is_finite() && ms.is_finite())
            .map(|value| Reference::new("NVRTC first compile", value, ms)),
        check,
    }
}

/// The first compile (NVRTC into an empty directory, one fresh directory per sample) and the reuse of the
/// cached PTX, both through [`cached_ptx_in`].
fn disk_cache_times(
    ctx: &BenchContext,
    module: &Module,
    arch: &str,
) -> anyhow::Result<(Timing, Timing)> {
    let mut samples_ms = Vec::new();
    let mut last = None;
    for sample in 0..compile_samples(ctx.quick()) {
        let cache = TempCache::new(&format!("{}-{sample}", module.name))?;
        let start = Instant::now();
        let compiled = cached_ptx_in(
            Some(cache.path()),
            &module.name,
            &module.source,
            Profile::Exact,
            arch,
        )?;
        samples_ms.push(start.elapsed().as_secs_f64() * 1e3);
        ensure!(
            !compiled.from_cache,
            "the PTX of `{}` came from a cache directory that was just emptied",
            module.name
        );
        last = Some(cache);
    }
    let cache = last.context("at least one compile is timed")?;
    let (reused, from_cache) = ctx.time_cpu(|| {
        Ok(cached_ptx_in(
            Some(cache.path()),
            &module.name,
            &module.source,
            Profile::Exact,
            arch,
        )?
        .from_cache)
    })?;
    ensure!(
        from_cache,
        "the PTX of `{}` was compiled again instead of read from the cache",
        module.name
    );
    Ok((Timing { samples_ms }, reused))
}
