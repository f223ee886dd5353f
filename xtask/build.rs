//! Records the commit the xtask binary is built from (`EVO_BUILD_COMMIT`), so that a bench run from binaries
//! copied to another machine, whose checkout may be another commit, names the binaries' commit too.

include!("src/bench/git_output.rs");

fn main() {
    // A commit, a checkout or a branch move changes these files; nothing else changes the recorded commit.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git_output(&["symbolic-ref", "-q", "HEAD"]));
    for name in &watched {
        if let Some(path) = git_output(&["rev-parse", "--git-path", name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    let commit = git_output(&["rev-parse", "--short", "HEAD"]).unwrap_or_default();
    println!("cargo:rustc-env=EVO_BUILD_COMMIT={commit}");
}
