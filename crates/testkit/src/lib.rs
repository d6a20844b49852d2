//! Test-only helpers shared by every crate's tests and benches (a dev-dependency only; no
//! library crate depends on it).
//!
//! * [`repo_root`]: the repository's root directory, found from this crate's own manifest, so
//!   every test names a committed file the same way wherever cargo runs it from.
//! * [`fixtures_root`] and [`fixture`]: the committed `fixtures/` tree, and one path in it.

use std::path::{Path, PathBuf};

/// The repository root (two levels above `crates/testkit`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .expect("crates/testkit sits two levels below the repository root")
}

/// The committed fixtures: `<repo>/fixtures`.
pub fn fixtures_root() -> PathBuf {
    repo_root().join("fixtures")
}

/// One path under `fixtures/` (`rel` is relative, e.g. `"usage/t-usage-branch.jsonl"`).
pub fn fixture(rel: impl AsRef<Path>) -> PathBuf {
    fixtures_root().join(rel)
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
    }
}
