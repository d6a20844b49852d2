//! Which golden tree `verify` reads and blesses into: `--golden-dir`, else the
//! `fixtures/golden` beside or above the scenarios ([`golden_root`]); and whether `--bless` may
//! write into it ([`may_bless_into`]).

use std::path::{Path, PathBuf};

use crate::scenario;

/// Where goldens live, below a project root: `<root>/fixtures/golden`.
pub const GOLDEN_TREE: &str = "fixtures/golden";

/// Why the golden tree cannot be chosen, or may not be blessed into.
#[derive(Debug, thiserror::Error)]
pub enum GoldenTreeError {
    #[error("{}: no {GOLDEN_TREE} directory beside or above this scenario; pass --golden-dir DIR", .0.display())]
    NotFound(PathBuf),
    #[error(
        "{}: its goldens are in {}, those of {} in {}; verify them separately or pass --golden-dir DIR",
        .scenario.display(), .tree.display(), .other.display(), .other_tree.display()
    )]
    Split {
        scenario: PathBuf,
        tree: PathBuf,
        other: PathBuf,
        other_tree: PathBuf,
    },
    #[error("no scenarios")]
    NoScenarios,
    #[error("--golden-dir {}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("{}: cannot read the golden tree: {source}", .root.display())]
    Unreadable {
        root: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: this golden tree holds none of these scenarios' goldens; refusing to bless into it (pass --golden-dir DIR for their own tree)", .0.display())]
    Foreign(PathBuf),
}

/// The golden tree of these scenarios: `explicit` (`--golden-dir`), or else the
/// `fixtures/golden` of the nearest directory at or above the scenarios that has one (never the
/// working directory as such). All scenarios of one run must lead to the same tree.
pub fn golden_root(
    explicit: Option<&Path>,
    scenarios: &[PathBuf],
) -> Result<PathBuf, GoldenTreeError> {
    if let Some(dir) = explicit {
        // A tree that does not exist yet is fine (every case then has no golden, or `--bless`
        // creates it); a file in its place would fail every case on its own.
        if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(GoldenTreeError::NotADirectory(dir.to_path_buf()));
        }
        return Ok(dir.to_path_buf());
    }
    let mut found: Option<(PathBuf, &Path)> = None;
    let mut first_missing = None;
    for s in scenarios {
        if !s.is_file() {
            // Reported as that case's error; it says nothing about where goldens are.
            first_missing.get_or_insert(s);
            continue;
        }
        let tree = nearest_tree(s).ok_or_else(|| GoldenTreeError::NotFound(s.clone()))?;
        match &found {
            None => found = Some((tree, s)),
            Some((t, other)) if *t != tree => {
                return Err(GoldenTreeError::Split {
                    scenario: s.clone(),
                    tree,
                    other: other.to_path_buf(),
                    other_tree: t.clone(),
                })
            }
            Some(_) => {}
        }
    }
    match (found, first_missing) {
        (Some((tree, _)), _) => Ok(tree),
        // Only unreadable scenarios: each is an error case and no golden is read or written.
        (None, Some(s)) => Ok(s.parent().unwrap_or(Path::new("")).join(GOLDEN_TREE)),
        (None, None) => Err(GoldenTreeError::NoScenarios),
    }
}

/// `<dir>/fixtures/golden` of the nearest ancestor of the scenario's directory that has one;
/// shown relative to the working directory when it is below it.
fn nearest_tree(scenario: &Path) -> Option<PathBuf> {
    let dir = scenario
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).ok()?;
    let tree = dir
        .ancestors()
        .map(|a| a.join(GOLDEN_TREE))
        .find(|t| t.is_dir())?;
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    Some(
        match cwd.and_then(|c| tree.strip_prefix(c).ok().map(Path::to_path_buf)) {
            Some(rel) => rel,
            None => tree,
        },
    )
}

/// `--bless` writes only into a tree that is new (absent or empty), or holds the goldens of at
/// least one of these scenarios, or is the tree of the project the scenarios belong to
/// (`<root>/scenarios/…` beside `<root>/fixtures/golden`). Anything else is most likely another
/// project's tree.
pub fn may_bless_into(root: &Path, scenarios: &[PathBuf]) -> Result<(), GoldenTreeError> {
    let entries: Vec<std::ffi::OsString> = match std::fs::read_dir(root) {
        Ok(rd) => rd
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .filter(|n| !forge_replay_io::is_temp_name(n))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(GoldenTreeError::Unreadable {
                root: root.to_path_buf(),
                source,
            })
        }
    };
    if entries.is_empty() {
        return Ok(());
    }
    let project = root
        .parent()
        .and_then(Path::parent)
        .filter(|_| root.ends_with(GOLDEN_TREE))
        .map(|p| p.join("scenarios"))
        .and_then(|p| std::fs::canonicalize(p).ok());
    for s in scenarios {
        if let (Some(project), Ok(file)) = (&project, std::fs::canonicalize(s)) {
            if file.starts_with(project) {
                return Ok(());
            }
        }
        if let Ok(loaded) = scenario::load(s) {
            if root.join(loaded.name()).is_dir() {
                return Ok(());
            }
        }
    }
    Err(GoldenTreeError::Foreign(root.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_tree_wins_and_a_new_tree_may_be_blessed() {
        let dir = tempfile::tempdir().unwrap();
        let explicit = dir.path().join("g");
        assert_eq!(golden_root(Some(&explicit), &[]).unwrap(), explicit);
        assert!(matches!(
            golden_root(None, &[]),
            Err(GoldenTreeError::NoScenarios)
        ));
        // Absent, then empty: both new.
        may_bless_into(&explicit, &[]).unwrap();
        std::fs::create_dir(&explicit).unwrap();
        may_bless_into(&explicit, &[]).unwrap();
        // Another project's tree: refused, naming it.
        std::fs::create_dir(explicit.join("someone-else")).unwrap();
        let e = may_bless_into(&explicit, &[]).unwrap_err();
        assert!(matches!(e, GoldenTreeError::Foreign(_)));
        assert!(e.to_string().contains("refusing to bless"), "{e}");
    }

    #[test]
    fn a_scenario_without_a_tree_above_it_names_the_flag() {
        let dir = tempfile::tempdir().unwrap();
        let s = dir.path().join("a.toml");
        std::fs::write(&s, "").unwrap();
        let e = golden_root(None, &[s]).unwrap_err();
        assert!(e.to_string().ends_with("pass --golden-dir DIR"), "{e}");
    }
}
