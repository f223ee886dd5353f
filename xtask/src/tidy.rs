//! `cargo xtask tidy`: the invariants of the tree that no compiler checks (as rust-analyzer's `xtask/src/tidy.rs`).
//!
//! - **No history in source.** A `.rs`, `.cu` or `.cuh` file names no commit (a word of 7 to 40 lowercase hex
//!   digits with at least one digit and one letter; `0x` constants, binary literals, float exponents and the
//!   words of [`NOT_HASHES`] are not commits) and no folder under `docs/results/` (the per-commit result
//!   folders left the tree; a comment links a section of a page, `docs/results/<crate>.md#<section>`).
//! - **Links resolve.** Every `docs/results/<page>.md#<section>` named in a source file exists as a heading.
//! - **Every crate has a map entry.** Each workspace member has a heading of `docs/ARCHITECTURE.md` that
//!   names its folder or its package in backticks.
//! - **Small files.** No source file exceeds [`MAX_LINES`] lines unless [`LONG_FILES`] says why; an entry of
//!   [`LONG_FILES`] whose file is gone or has shrunk is itself a failure, so the list stays true.
//!
//! The same checks run as ordinary tests (`cargo test -p xtask`), so `cargo test --workspace` enforces them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

/// The most lines a source file may have without an entry in [`LONG_FILES`].
pub const MAX_LINES: usize = 800;

/// Source files allowed over [`MAX_LINES`], each with the reason, as paths relative to the repository root.
pub const LONG_FILES: &[(&str, &str)] = &[
    (
        "kernels/cuda/ga_fused.cuh",
        "the GA module's fused path: the one-launch and clustered engines share one shared-memory layout",
    ),
    (
        "kernels/cuda/de.cu",
        "the DE module: the paper's kernels and the one-launch generation share the scalar operators",
    ),
    (
        "kernels/cuda/benchmarks_continuous.cu",
        "the continuous evaluation module: one tiles kernel per term kind and their finish kernels",
    ),
    (
        "kernels/cuda/dpga.cu",
        "the DPGA module: every step of the generation as its own kernel, twins of crates/dpga/src/ops.rs",
    ),
    (
        "crates/benchmarks/src/cuda/launch.rs",
        "one typed launch function per kernel of benchmarks_continuous.cu and the launch-shape arithmetic",
    ),
    (
        "crates/benchmarks/src/functions/griewank.rs",
        "Griewank's portable cosine and its eight-way unrolled product, with their tests",
    ),
];

/// Words that look like commits but are names: each with what it names.
pub const NOT_HASHES: &[(&str, &str)] = &[
    ("cec2006", "the CEC 2006 constrained benchmark suite"),
    ("cec2010", "the CEC 2010 large-scale benchmark suite"),
];

/// The extensions of the files the checks read.
const SOURCE_EXTENSIONS: [&str; 3] = ["rs", "cu", "cuh"];

/// One broken invariant: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file, relative to the repository root.
    pub path: PathBuf,
    /// The 1-based line, when the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Runs every check on the repository and prints the problems; the exit code says whether there were none.
pub fn run() -> anyhow::Result<ExitCode> {
    let root = repository_root();
    let problems = check(&root)?;
    for problem in &problems {
        println!("{problem}");
    }
    if problems.is_empty() {
        println!("tidy: no problems");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("tidy: {} problem(s)", problems.len());
        Ok(ExitCode::FAILURE)
    }
}

/// The repository root: the parent of xtask's manifest directory.
pub fn repository_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Every problem of the tree at `root`, with [`LONG_FILES`] as the allow list.
pub fn check(root: &Path) -> anyhow::Result<Vec<Problem>> {
    check_with(root, LONG_FILES)
}

/// Every problem of the tree at `root`, in path order, with `long_files` as the allow list of long files.
fn check_with(root: &Path, long_files: &[(&str, &str)]) -> anyhow::Result<Vec<Problem>> {
    let mut files = Vec::new();
    collect_sources(root, root, &mut files)?;
    files.sort();
    let mut problems = Vec::new();
    for relative in &files {
        let text = std::fs::read_to_string(root.join(relative))
            .with_context(|| format!("reading {}", relative.display()))?;
        problems.extend(check_history(relative, &text));
        problems.extend(check_links(root, relative, &text)?);
        problems.extend(check_length(relative, &text, long_files));
    }
    problems.extend(check_long_file_list(root, &files, long_files)?);
    problems.extend(check_architecture(root)?);
    Ok(problems)
}

/// Adds to `out` every source file under `dir` (relative to `root`), skipping hidden folders and `target`.
fn collect_sources(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry
            .file_type()
            .with_context(|| format!("reading the type of {}", path.display()))?;
        if kind.is_dir() {
            if !name.starts_with('.') && name != "target" {
                collect_sources(root, &path, out)?;
            }
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|ext| SOURCE_EXTENSIONS.iter().any(|e| ext == *e))
        {
            let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            out.push(relative);
        }
    }
    Ok(())
}

/// The commits and per-commit result folders named in `text`.
fn check_history(path: &Path, text: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for word in commit_like_words(line) {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: Some(index + 1),
                message: format!(
                    "`{word}` looks like a commit: measurements and their commits belong in \
                     docs/results/<crate>.md (write a hex constant as 0x…, or add a name to tidy::NOT_HASHES)"
                ),
            });
        }
        for folder in results_folders(line) {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: Some(index + 1),
                message: format!(
                    "`docs/results/{folder}` is a folder of results: link a section of a page instead \
                     (docs/results/<crate>.md#<section>)"
                ),
            });
        }
    }
    problems
}

/// The words of `line` that look like a commit hash (see the module docs).
fn commit_like_words(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        if !is_word_byte(bytes[start]) {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < bytes.len() && is_word_byte(bytes[end]) {
            end += 1;
        }
        let word = &line[start..end];
        let before = &bytes[..start];
        let after = &bytes[end..];
        if looks_like_commit(word) && !is_number_part(word, before, after) {
            found.push(word);
        }
        start = end;
    }
    found
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// 7 to 40 lowercase hex digits, at least one digit and one letter, and not a name of [`NOT_HASHES`].
fn looks_like_commit(word: &str) -> bool {
    (7..=40).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
        && !NOT_HASHES.iter().any(|(name, _)| *name == word)
}

/// Whether the hex-looking `word` is part of a number: a binary literal (`0b1010`), the fraction of a decimal
/// (`1.5e…` after the point) or a mantissa with its exponent (`12345e-7`, `12345e7`).
fn is_number_part(word: &str, before: &[u8], after: &[u8]) -> bool {
    let binary = word.len() > 2
        && word.starts_with("0b")
        && word[2..].bytes().all(|b| b == b'0' || b == b'1');
    let fraction =
        before.ends_with(b".") && before.len() >= 2 && before[before.len() - 2].is_ascii_digit();
    let exponent = word.split_once('e').is_some_and(|(mantissa, power)| {
        !mantissa.is_empty()
            && mantissa.bytes().all(|b| b.is_ascii_digit())
            && power.bytes().all(|b| b.is_ascii_digit())
            && (!power.is_empty() || matches!(after.first(), Some(b'-' | b'+')))
    });
    binary || fraction || exponent
}

/// The folders under `docs/results/` named in `line` (what follows `docs/results/` up to a `/`).
fn results_folders(line: &str) -> Vec<&str> {
    const PREFIX: &str = "docs/results/";
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(PREFIX) {
        let tail = &rest[at + PREFIX.len()..];
        let segment_end = tail
            .find(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '<' | '>'))
            })
            .unwrap_or(tail.len());
        if tail[segment_end..].starts_with('/') && segment_end > 0 {
            found.push(&tail[..segment_end]);
        }
        rest = tail;
    }
    found
}

/// The `docs/results/<page>.md#<section>` links of `text` whose page or heading does not exist.
fn check_links(root: &Path, path: &Path, text: &str) -> anyhow::Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for (page, anchor) in results_links(line) {
            let page_path = root.join("docs/results").join(page);
            let message = if !page_path.is_file() {
                Some(format!("links docs/results/{page}, which does not exist"))
            } else {
                let markdown = std::fs::read_to_string(&page_path)
                    .with_context(|| format!("reading {}", page_path.display()))?;
                (!heading_anchors(&markdown).iter().any(|a| a == anchor)).then(|| {
                    format!("links docs/results/{page}#{anchor}, but that page has no heading with this anchor")
                })
            };
            if let Some(message) = message {
                problems.push(Problem {
                    path: path.to_path_buf(),
                    line: Some(index + 1),
                    message,
                });
            }
        }
    }
    Ok(problems)
}

/// The `(page, anchor)` pairs of the `docs/results/<page>.md#<anchor>` links in `line`.
fn results_links(line: &str) -> Vec<(&str, &str)> {
    const PREFIX: &str = "docs/results/";
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find(PREFIX) {
        let tail = &rest[at + PREFIX.len()..];
        if let Some(hash) = tail.find(".md#") {
            let page = &tail[..hash + 3];
            let after = &tail[hash + 4..];
            let anchor_end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(after.len());
            if page
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                && anchor_end > 0
            {
                found.push((page, &after[..anchor_end]));
            }
        }
        rest = tail;
    }
    found
}

/// The anchors GitHub gives the headings of `markdown`: lowercase, spaces to `-`, other punctuation dropped.
fn heading_anchors(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter(|line| line.starts_with('#'))
        .map(|line| {
            line.trim_start_matches('#')
                .trim()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    '-' | '_' => Some(c),
                    c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// A problem when `text` has more than [`MAX_LINES`] lines and `path` is not in `long_files`.
fn check_length(path: &Path, text: &str, long_files: &[(&str, &str)]) -> Option<Problem> {
    let lines = text.lines().count();
    let allowed = long_files.iter().any(|(long, _)| Path::new(long) == path);
    (lines > MAX_LINES && !allowed).then(|| Problem {
        path: path.to_path_buf(),
        line: None,
        message: format!(
            "{lines} lines, over the {MAX_LINES} allowed: split it along its own seams, or add it to \
             tidy::LONG_FILES with the reason"
        ),
    })
}

/// The entries of `long_files` whose file is gone or no longer over [`MAX_LINES`].
fn check_long_file_list(
    root: &Path,
    files: &[PathBuf],
    long_files: &[(&str, &str)],
) -> anyhow::Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for (long, _) in long_files {
        let path = Path::new(long);
        if !files.iter().any(|f| f == path) {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: None,
                message: "listed in tidy::LONG_FILES but not in the tree: remove the entry"
                    .to_string(),
            });
            continue;
        }
        let text = std::fs::read_to_string(root.join(path))
            .with_context(|| format!("reading {}", path.display()))?;
        let lines = text.lines().count();
        if lines <= MAX_LINES {
            problems.push(Problem {
                path: path.to_path_buf(),
                line: None,
                message: format!(
                    "listed in tidy::LONG_FILES but {lines} lines, within the {MAX_LINES} allowed: remove the entry"
                ),
            });
        }
    }
    Ok(problems)
}

/// The workspace members of `root`'s `Cargo.toml` that no heading of `docs/ARCHITECTURE.md` names.
fn check_architecture(root: &Path) -> anyhow::Result<Vec<Problem>> {
    let manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?;
    let architecture_path = root.join("docs/ARCHITECTURE.md");
    let architecture = std::fs::read_to_string(&architecture_path)
        .with_context(|| format!("reading {}", architecture_path.display()))?;
    let headings: Vec<&str> = architecture
        .lines()
        .filter(|l| l.starts_with('#'))
        .collect();
    let mut problems = Vec::new();
    for member in workspace_members(&manifest) {
        let member_manifest = root.join(member).join("Cargo.toml");
        let text = std::fs::read_to_string(&member_manifest)
            .with_context(|| format!("reading {}", member_manifest.display()))?;
        let package = package_name(&text).with_context(|| {
            format!("{} has no `name = \"...\"` line", member_manifest.display())
        })?;
        let names = [
            format!("`{member}`"),
            format!("`{member}/`"),
            format!("`{package}`"),
        ];
        if !headings
            .iter()
            .any(|h| names.iter().any(|n| h.contains(n.as_str())))
        {
            problems.push(Problem {
                path: PathBuf::from("docs/ARCHITECTURE.md"),
                line: None,
                message: format!(
                    "no heading names the workspace member `{member}` (package `{package}`): give it a section of \
                     the code map, headed `### \\`{member}\\` (package \\`{package}\\`)`"
                ),
            });
        }
    }
    Ok(problems)
}

/// The quoted entries of the `members = [...]` array of a workspace manifest.
fn workspace_members(manifest: &str) -> Vec<&str> {
    let Some(start) = manifest.find("members") else {
        return Vec::new();
    };
    let rest = &manifest[start..];
    let (Some(open), Some(close)) = (rest.find('['), rest.find(']')) else {
        return Vec::new();
    };
    rest[open + 1..close]
        .split(',')
        .map(|item| item.trim().trim_matches('"'))
        .filter(|item| !item.is_empty())
        .collect()
}

/// The `name` of the `[package]` table of a member manifest.
fn package_name(manifest: &str) -> Option<&str> {
    let package = &manifest[manifest.find("[package]")?..];
    package.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "name").then(|| value.trim().trim_matches('"'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit-like word built at run time, so that this file does not name a commit itself.
    fn planted_commit() -> String {
        ["3cf", "98f3"].concat()
    }

    #[test]
    fn the_repository_should_be_tidy() {
        let problems = check(&repository_root()).expect("the tree is readable");
        let listing: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            problems.is_empty(),
            "cargo xtask tidy:\n{}",
            listing.join("\n")
        );
    }

    #[test]
    fn commit_like_words_should_find_short_and_full_hashes() {
        let short = planted_commit();
        let full = ["0123456789", "abcdef"].concat().repeat(3)[..40].to_string();
        assert_eq!(
            commit_like_words(&format!("at `{short}` (H100)")),
            [short.as_str()]
        );
        assert_eq!(
            commit_like_words(&format!("commit {full}.")),
            [full.as_str()]
        );
    }

    #[test]
    fn commit_like_words_should_pass_constants_numbers_and_names() {
        for line in [
            "let k = 0x9e37_79b9_7f4a_7c15 + 0x6627e8d5;",
            "assert_eq!(bits.words(), &[0b10000]);",
            "(8, -1.7994235245519542e-63, &[], &[21.0, -3.0]),",
            "let big = 12345678e9;",
            "cec2006-g01 and cec2010-f3",
            "deadbeef has no digit, 12345678 no letter",
            "abc123 is too short",
        ] {
            assert_eq!(commit_like_words(line), Vec::<&str>::new(), "{line}");
        }
    }

    #[test]
    fn results_folders_should_find_folders_but_not_pages() {
        let folder = format!("h100-{}", planted_commit());
        let line =
            format!("see docs/results/{folder}/tried.md and docs/results/eval.md#row-groups");
        assert_eq!(results_folders(&line), [folder.as_str()]);
        assert_eq!(results_folders("docs/results/eval.md"), Vec::<&str>::new());
    }

    #[test]
    fn heading_anchors_should_follow_github() {
        let anchors =
            heading_anchors("# Title\n## Row groups\n### Tried and not kept (H100)\ntext\n");
        assert_eq!(anchors, ["title", "row-groups", "tried-and-not-kept-h100"]);
    }

    /// The results page of the temporary trees, named apart from the literal link form so that this file's own
    /// links are all real.
    const DEMO_PAGE: &str = "demo.md";

    fn demo_page() -> String {
        format!("docs/results/{DEMO_PAGE}")
    }

    /// A minimal tidy tree in a fresh temporary folder: one member with its map entry, one page, one source.
    struct TempTree(PathBuf);

    impl TempTree {
        fn new(name: &str) -> Self {
            let root = std::env::temp_dir().join(format!("evo-tidy-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            let tree = Self(root);
            tree.write(
                "Cargo.toml",
                "[workspace]\nmembers = [\n    \"crates/demo\",\n]\n",
            );
            tree.write("crates/demo/Cargo.toml", "[package]\nname = \"evo-demo\"\n");
            tree.write(
                "docs/ARCHITECTURE.md",
                "# Architecture\n### `crates/demo` (package `evo-demo`)\n",
            );
            tree.write(
                &format!("docs/results/{DEMO_PAGE}"),
                "# Demo\n## Row groups\n",
            );
            tree.write(
                "crates/demo/src/lib.rs",
                &format!(
                    "//! Groups of 10 ({}#row-groups).\npub const K: u64 = 0x5fe6eb50c7b537a9;\n",
                    demo_page()
                ),
            );
            tree
        }

        fn write(&self, relative: &str, text: &str) {
            let path = self.0.join(relative);
            std::fs::create_dir_all(path.parent().expect("a relative file path has a parent"))
                .expect("temp dir is writable");
            std::fs::write(path, text).expect("temp dir is writable");
        }

        fn problems(&self) -> Vec<Problem> {
            check_with(&self.0, &[]).expect("the temp tree is readable")
        }
    }

    impl Drop for TempTree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_clean_tree_should_pass() {
        let tree = TempTree::new("clean");
        assert_eq!(tree.problems(), []);
    }

    #[test]
    fn a_planted_commit_should_fail() {
        let tree = TempTree::new("commit");
        let commit = planted_commit();
        tree.write(
            "crates/demo/src/cuda.cu",
            &format!("// faster at {commit} (docs/results/h100-{commit}/eval.md)\n"),
        );
        let problems = tree.problems();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems
                .iter()
                .all(|p| p.path == Path::new("crates/demo/src/cuda.cu") && p.line == Some(1))
        );
        assert!(problems[0].message.contains(&commit));
        assert!(problems[2].message.contains("is a folder of results"));
    }

    #[test]
    fn a_broken_section_link_should_fail() {
        let tree = TempTree::new("link");
        tree.write(
            "crates/demo/src/ops.rs",
            &format!("// See {}#waves.\n", demo_page()),
        );
        let problems = tree.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].message.contains("no heading with this anchor"));
    }

    #[test]
    fn a_member_without_a_map_entry_should_fail() {
        let tree = TempTree::new("member");
        tree.write(
            "docs/ARCHITECTURE.md",
            "# Architecture\n### `crates/other`\n",
        );
        let problems = tree.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].message.contains("`evo-demo`"));
    }

    #[test]
    fn a_long_file_should_fail_unless_listed() {
        let tree = TempTree::new("long");
        tree.write("crates/demo/src/big.rs", &"// line\n".repeat(MAX_LINES + 1));
        let problems = tree.problems();
        assert!(
            problems
                .iter()
                .any(|p| p.path == Path::new("crates/demo/src/big.rs")
                    && p.message.contains("lines")),
            "{problems:?}"
        );
        let listed = [("crates/demo/src/big.rs", "a reason")];
        assert_eq!(
            check_length(
                Path::new(listed[0].0),
                &"x\n".repeat(MAX_LINES + 1),
                &listed
            ),
            None
        );
        let problems =
            check_with(&tree.0, &[("crates/demo/src/gone.rs", "a reason")]).expect("readable");
        assert!(
            problems
                .iter()
                .any(|p| p.message.contains("not in the tree")),
            "{problems:?}"
        );
    }
}
