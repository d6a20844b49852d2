#![allow(dead_code)]

//! Replays fuzz inputs through an oracle under stable `cargo test`: every file of
//! `fuzz/regressions/<target>/` (the crashes and divergences fuzzing found, kept after their
//! fix) plus seed inputs from the committed fixtures, so the test exercises the oracle even
//! while a target has no regression yet. Each failing input is named; all are reported at once.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The repository root (tests run with the crate's manifest directory, `crates/<name>`).
pub fn repo_root() -> PathBuf {
    // Read when the test runs (cargo sets it), so a build shared by two checkouts reads its own.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.join("../..")
}

/// Files directly under `dir` (relative to the repository root), sorted.
pub fn files_in(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(repo_root().join(dir))
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Runs `check` on every regression input of `target` and on `seeds` (`(name, bytes)`).
pub fn replay(target: &str, seeds: Vec<(String, Vec<u8>)>, check: impl Fn(&[u8])) {
    let mut inputs: Vec<(String, Vec<u8>)> = files_in(&format!("fuzz/regressions/{target}"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.') && n != "README.md")
        })
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), bytes)
        })
        .collect();
    assert!(!seeds.is_empty(), "{target}: no seed inputs");
    inputs.extend(seeds);
    let failures: Vec<String> = inputs
        .iter()
        .filter_map(|(name, bytes)| {
            catch_unwind(AssertUnwindSafe(|| check(bytes)))
                .err()
                .map(|_| name.clone())
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs fail the fuzz oracle (messages above):\n{}",
        failures.len(),
        inputs.len(),
        failures.join("\n")
    );
}

/// Each file as one seed.
pub fn whole_files(paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), bytes)
        })
        .collect()
}

/// Each non-blank line of the files as one seed.
pub fn lines_of(paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, bytes) in whole_files(paths) {
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if !line.is_empty() {
                out.push((format!("{name}:{}", n + 1), line.to_vec()));
            }
        }
    }
    out
}

/// Files under `fixtures/` whose name ends with `suffix`, at most `max_bytes` long, sorted.
pub fn fixtures(suffix: &str, max_bytes: u64) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffix: &str, max_bytes: u64, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                walk(&p, suffix, max_bytes, out);
            } else if p.to_string_lossy().ends_with(suffix)
                && e.metadata().is_ok_and(|m| m.len() <= max_bytes)
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo_root().join("fixtures"), suffix, max_bytes, &mut out);
    out.sort();
    out
}
