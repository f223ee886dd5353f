//! Records the commit the xtask binary is built from (`EVO_BUILD_COMMIT`), so that a bench run from binaries
//! copied to another machine, whose checkout may be another commit, names the binaries' commit too.

use std::process::Command;

/// `git args` in the package's directory, trimmed; `None` when git is missing or fails (a source tarball).
fn git(args: &[&str]) -> Option<String> {
    Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|text| !text.is_empty())
}

fn main() {
    // A commit, a checkout or a branch move changes these files; nothing else changes the recorded commit.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in &watched {
        if let Some(path) = git(&["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_default();
    println!("cargo:rustc-env=EVO_BUILD_COMMIT={commit}");
}
