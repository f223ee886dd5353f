//! The `evo run` door of the `doors` suite: the binary, found through `$EVO_BIN` or beside this xtask, run
//! as a process per sample.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use super::{Case, SEED, Sample, Target};

/// The environment variable naming the `evo` binary.
pub const EVO_BIN: &str = "EVO_BIN";

/// One sample of `evo run` with its defaults (a process), its figures from the result.json it writes into
/// `out`.
pub(super) fn evo_door(
    evo: &Path,
    out: &Path,
    case: Case,
    target: Target<'_>,
    generations: u64,
) -> anyhow::Result<Sample> {
    let backend = match target {
        Target::Cpu => "cpu".to_string(),
        Target::Cuda(gpu) => format!("cuda:{}", gpu.index()),
    };
    let output = Command::new(evo)
        .arg("run")
        .args(case.evo_args())
        .args(["--backend", &backend, "--seed", &SEED.to_string()])
        .args(["--generations", &generations.to_string()])
        .arg("--out")
        .arg(out)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("starting {}", evo.display()))?;
    if !output.status.success() {
        bail!(
            "{} run failed ({}): {}",
            evo.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let path = out.join("result.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let result: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let field = |key: &str| {
        result[key]
            .as_f64()
            .with_context(|| format!("{} has no number `{key}`", path.display()))
    };
    anyhow::ensure!(
        field("generations")? == generations as f64,
        "evo ran {} generations, not {generations}",
        result["generations"]
    );
    Ok(Sample {
        per_generation_us: field("wall_time_s")? * 1e6 / generations as f64,
        best_fitness: field("best_fitness")?,
    })
}

/// The `evo` binary: `$EVO_BIN`, else `evo` beside this executable.
pub(super) fn evo_binary() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(EVO_BIN).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("{EVO_BIN}={} is not a file", path.display()))
        };
    }
    let beside = std::env::current_exe()
        .map_err(|e| format!("cannot locate this xtask binary: {e}"))?
        .with_file_name(format!("evo{}", std::env::consts::EXE_SUFFIX));
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "no evo binary at {} (build it with `cargo build --release -p evo-cli`, or set {EVO_BIN})",
            beside.display()
        ))
    }
}
