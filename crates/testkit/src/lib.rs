//! Test-only helpers shared by every crate's tests and benches (a dev-dependency only; no
//! library crate depends on it).
//!
//! * [`repo_root`]: the repository's root directory, found from the running test's manifest, so
//!   every test names a committed file the same way wherever cargo runs it from.
//! * [`fixtures_root`] and [`fixture`]: the committed `fixtures/` tree, and one path in it.
//! * [`jsonl_files`]: every `*.jsonl` file under a directory, sorted.

use std::path::{Path, PathBuf};

/// The repository root: the nearest directory at or above the running test's package (cargo
/// sets `CARGO_MANIFEST_DIR` when it runs a test or bench; else this crate's, as built) that
/// holds `Cargo.toml` and `fixtures/`. Read at run time, so a target directory shared by two
/// checkouts (a fresh clone in CI beside the working one) never points one at the other's files.
pub fn repo_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .ancestors()
        .find(|d| d.join("Cargo.toml").is_file() && d.join("fixtures").is_dir())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| panic!("no repository root above {}", manifest.display()))
}

/// The committed fixtures: `<repo>/fixtures`.
pub fn fixtures_root() -> PathBuf {
    repo_root().join("fixtures")
}

/// One path under `fixtures/` (`rel` is relative, e.g. `"usage/t-usage-branch.jsonl"`).
pub fn fixture(rel: impl AsRef<Path>) -> PathBuf {
    fixtures_root().join(rel)
}

/// Every `*.jsonl` file under `dir` (recursively), sorted; panics on an unreadable directory.
pub fn jsonl_files(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.as_ref().to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.unwrap_or_else(|e| panic!("{}: {e}", d.display())).path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_holds_the_workspace_and_its_fixtures() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(repo_root().join("crates/testkit/Cargo.toml").is_file());
        assert!(fixtures_root().is_dir());
        assert!(fixture("usage").is_dir());
        let files = jsonl_files(fixture("usage"));
        assert!(files
            .iter()
            .any(|f| f.ends_with("usage/t-usage-branch.jsonl")));
        assert!(files.windows(2).all(|w| w[0] < w[1]));
    }
}
