//! `capability validate`: pi-forge's capability resource diagnostics (`parseCapability`,
//! spec §1) over files and directories.
//!
//! A file is decoded on its own (scope from its location: under `~/.pi/forge/capabilities` it is
//! global, otherwise project). A directory is read the way Forge lists a capability directory
//! ([`read_scope_dir`]); a project root holding `.pi/forge/capabilities/` is read there.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::discovery::{load_file, read_scope_dir, DiscoveryError, LoadedCapability, Roots};
use crate::event::Scope;

/// Errors of [`Validation::of_paths`].
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("{}: cannot read", path.display())]
    Metadata {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Dir(#[from] DiscoveryError),
    /// A directory without one capability file: nothing was validated, which a CI check that
    /// passed would hide.
    #[error("{}: no capability files (*.json) in this directory", path.display())]
    Empty { path: PathBuf },
}

/// Every capability file read, in argument order (a directory's files in Forge's order).
#[derive(Debug)]
pub struct Validation {
    pub files: Vec<LoadedCapability>,
}

/// Global under `~/.pi/forge/capabilities`, project otherwise.
fn scope_of(path: &Path) -> Scope {
    let global = Roots::default_global().map(|g| g.join("capabilities"));
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match global {
        Some(g) if canon(path).starts_with(canon(&g)) => Scope::Global,
        _ => Scope::Project,
    }
}

fn collect(path: &Path) -> Result<Vec<LoadedCapability>, ValidateError> {
    let meta = std::fs::metadata(path).map_err(|source| ValidateError::Metadata {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        let nested: PathBuf = path.join(".pi").join("forge").join("capabilities");
        let dir = if nested.is_dir() {
            nested
        } else {
            path.to_path_buf()
        };
        let files = read_scope_dir(&dir, scope_of(&dir))?;
        if files.is_empty() {
            return Err(ValidateError::Empty { path: dir });
        }
        Ok(files)
    } else {
        Ok(vec![load_file(path, scope_of(path))])
    }
}

impl Validation {
    /// Reads and decodes every file of `paths` (files or directories).
    pub fn of_paths(paths: &[PathBuf]) -> Result<Validation, ValidateError> {
        let mut files = Vec::new();
        for p in paths {
            files.extend(collect(p)?);
        }
        Ok(Validation { files })
    }

    /// Files with an error diagnostic.
    pub fn invalid(&self) -> usize {
        self.files.iter().filter(|c| !c.is_usable()).count()
    }

    /// `{files: [{path, scope, id, usable, sourceRevision, diagnostics}], invalid}`.
    pub fn to_json(&self) -> Value {
        let items: Vec<Value> = self
            .files
            .iter()
            .map(|c| {
                json!({
                    "path": c.path.display().to_string(),
                    "scope": c.key.scope.as_str(),
                    "id": c.key.id,
                    "usable": c.is_usable(),
                    "sourceRevision": c.source_revision,
                    "diagnostics": c.diagnostics,
                })
            })
            .collect();
        json!({"files": items, "invalid": self.invalid()})
    }

    /// One line per file (`ok (scope:id)` or `invalid`), its errors indented, and the counts.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for c in &self.files {
            if c.is_usable() {
                s += &format!(
                    "{}: ok ({}:{})\n",
                    c.path.display(),
                    c.key.scope.as_str(),
                    c.key.id
                );
            } else {
                s += &format!("{}: invalid\n", c.path.display());
            }
            for d in &c.diagnostics {
                match &d.field {
                    Some(f) => s += &format!("  error [{f}]: {}\n", d.message),
                    None => s += &format!("  error: {}\n", d.message),
                }
            }
        }
        let invalid = self.invalid();
        s += &format!(
            "{}, {} valid, {invalid} invalid\n",
            forge_replay_model::text::count(self.files.len(), "file", "files"),
            self.files.len() - invalid
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> PathBuf {
        forge_replay_testkit::fixture("capabilities/library")
    }

    #[test]
    fn a_project_root_is_read_in_its_capability_directory() {
        let v = Validation::of_paths(&[library()]).unwrap();
        assert_eq!(v.files.len(), 6);
        assert_eq!(v.invalid(), 4);
        let doc = v.to_json();
        assert_eq!(doc["invalid"], 4);
        assert_eq!(doc["files"].as_array().map(Vec::len), Some(6));
        let text = v.to_text();
        assert!(text.ends_with("6 files, 2 valid, 4 invalid\n"), "{text}");
        assert!(
            text.contains("review.json: ok (project:review)\n"),
            "{text}"
        );
    }

    #[test]
    fn a_directory_without_capability_files_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not a capability").unwrap();
        let e = Validation::of_paths(&[dir.path().to_path_buf()]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: no capability files (*.json) in this directory",
                dir.path().display()
            )
        );
    }

    #[test]
    fn a_missing_path_is_an_error_naming_it() {
        let missing = library().join("none.json");
        let e = Validation::of_paths(std::slice::from_ref(&missing)).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: cannot read", missing.display()));
        assert!(matches!(e, ValidateError::Metadata { .. }));
    }
}
