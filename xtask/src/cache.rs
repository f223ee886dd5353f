//! `cargo xtask cache --show | --clear`: the on-disk PTX cache of `evo-gpu-runtime`.
//!
//! The cache lives in `$EVO_GPU_CACHE_DIR` when set, otherwise in the user's cache directory; `--show` prints
//! where and how much it holds, `--clear` deletes every cached PTX file.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

use crate::flags::CacheArgs;

/// Runs the command.
pub fn run(args: &CacheArgs) -> anyhow::Result<ExitCode> {
    let Some(dir) = evo_gpu_runtime::ptx_cache_dir() else {
        println!(
            "no PTX cache directory: no user cache directory is known and {} is unset",
            evo_gpu_runtime::CACHE_DIR_VARIABLE
        );
        return Ok(ExitCode::SUCCESS);
    };
    if args.clear {
        let removed = evo_gpu_runtime::clear_ptx_cache().context("clearing the PTX cache")?;
        println!(
            "removed {removed} cached PTX file(s) from {}",
            dir.display()
        );
    } else {
        let (files, bytes) =
            ptx_files(&dir).with_context(|| format!("reading {}", dir.display()))?;
        println!("PTX cache: {}", dir.display());
        println!("  set {} to move it", evo_gpu_runtime::CACHE_DIR_VARIABLE);
        println!("  {files} PTX file(s), {:.1} KiB", bytes as f64 / 1024.0);
    }
    Ok(ExitCode::SUCCESS)
}

/// The number and total size of the `.ptx` files in `dir`; a directory that does not exist yet holds none.
fn ptx_files(dir: &Path) -> std::io::Result<(usize, u64)> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(error) => return Err(error),
    };
    let mut count = 0;
    let mut bytes = 0;
    for entry in entries {
        let entry = entry?;
        if entry.path().extension().is_some_and(|ext| ext == "ptx") {
            count += 1;
            bytes += entry.metadata()?.len();
        }
    }
    Ok((count, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_holds_no_files() {
        let dir = std::env::temp_dir().join(format!("xtask-no-such-cache-{}", std::process::id()));
        assert_eq!(ptx_files(&dir).expect("missing is not an error"), (0, 0));
    }

    #[test]
    fn only_ptx_files_are_counted() {
        let dir = std::env::temp_dir().join(format!("xtask-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("a.ptx"), "1234").expect("write");
        std::fs::write(dir.join("b.tmp1"), "12").expect("write");
        let counted = ptx_files(&dir).expect("readable");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!(counted, (1, 4));
    }
}
