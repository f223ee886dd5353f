// Shared with `xtask/build.rs` through `include!`, so no inner attributes or `use` here.

/// The trimmed standard output of `git args` in the current directory; `None` when git is missing, fails,
/// or prints nothing (a source tree without `.git`).
pub(crate) fn git_output(args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .filter(|text| !text.is_empty())
}
