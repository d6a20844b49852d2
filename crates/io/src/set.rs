//! A directory written as one set: staged beside its target, marked complete, renamed in.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use crate::atomic::{parent_dir, sync_dir};
use crate::path::check_relative;
use crate::temp::{fresh_id, remove_stale, temp_name};
use crate::WriteError;

/// The completion marker of a set, written last into its directory.
pub const SET_MARKER: &str = ".forge-replay-set";

/// A directory that is one output (a parquet dataset, a `replay --out` directory, a generated
/// corpus), written as a whole.
///
/// [`DirSet::begin`] creates a staging directory beside the target; files go there
/// ([`DirSet::write`]); [`DirSet::commit`] writes the marker ([`SET_MARKER`], listing the files),
/// flushes everything to disk and swaps the staging directory in (the old set, if any, is moved
/// aside first and removed after). A reader sees the old set, the new one, or — only while a
/// commit is being interrupted — no set; the next writer puts back whichever set is complete.
/// Dropping a `DirSet` without committing removes the staging directory.
///
/// An existing target is replaced only when it is a set of the same kind written by
/// forge-replay (it has the marker) or an empty directory; anything else is refused, so an
/// `--out` pointing at a directory of other files, or at another command's output, never loses
/// them.
#[derive(Debug)]
pub struct DirSet {
    target: PathBuf,
    parent: PathBuf,
    id: String,
    name: String,
    staging: PathBuf,
    kind: String,
    notes: Vec<(String, String)>,
    files: Vec<String>,
    committed: bool,
}

/// The parsed marker of a set ([`read_set_manifest`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetManifest {
    /// What the set is (`parquet-dataset`, `replay`, `corpus`).
    pub kind: String,
    /// Extra `key: value` lines the writer recorded (`redacted: true`).
    pub notes: Vec<(String, String)>,
    /// The files of the set, relative, `/`-separated, in the order written.
    pub files: Vec<String>,
}

fn is_empty_dir(path: &Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut rd| rd.next().is_none())
}

impl DirSet {
    /// Starts writing `target` as a set of kind `kind`. Cleans stale temporary entries beside it
    /// first (putting back a set whose swap was interrupted).
    pub fn begin(target: &Path, kind: &str) -> Result<DirSet, WriteError> {
        let parent = parent_dir(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| WriteError::Io {
                path: target.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "an output directory must have a name",
                ),
            })?;
        // The name is the user's choice (any name will do); it only has to leave room for the
        // temporary names built from it.
        if name.len() > crate::path::MAX_COMPONENT {
            return Err(crate::path::UnsafePath {
                field: "output directory name".into(),
                value: name.chars().take(120).collect(),
                reason: format!(
                    "is {} bytes long; at most {} are allowed",
                    name.len(),
                    crate::path::MAX_COMPONENT
                ),
            }
            .into());
        }
        std::fs::create_dir_all(&parent).map_err(WriteError::io(&parent))?;
        remove_stale(&parent).map_err(WriteError::io(&parent))?;
        Self::check_target(target, kind)?;
        let id = fresh_id();
        let staging = parent.join(temp_name(&id, "new", &name));
        std::fs::create_dir(&staging).map_err(WriteError::io(&staging))?;
        Ok(DirSet {
            target: target.to_path_buf(),
            parent,
            id,
            name,
            staging,
            kind: kind.to_string(),
            notes: Vec::new(),
            files: Vec::new(),
            committed: false,
        })
    }

    /// Whether a set of kind `kind` may be written at `target`, without writing anything (for a
    /// command to refuse before it does its work): yes when `target` does not exist, is an empty
    /// directory or holds a set of the same kind ([`WriteError::OtherSet`] for another
    /// command's set, [`WriteError::NotOurs`] for anything else). [`DirSet::begin`] checks it.
    pub fn check_target(target: &Path, kind: &str) -> Result<(), WriteError> {
        match std::fs::symlink_metadata(target) {
            Err(_) => Ok(()),
            Ok(m) if m.is_dir() && target.join(SET_MARKER).is_file() => {
                match read_set_manifest(target) {
                    Some(found) if found.kind != kind => Err(WriteError::OtherSet {
                        path: target.to_path_buf(),
                        found: found.kind,
                        kind: kind.to_string(),
                    }),
                    // Ours, or a marker a killed writer left unfinished: replaced, as before.
                    _ => Ok(()),
                }
            }
            Ok(m) if m.is_dir() && is_empty_dir(target) => Ok(()),
            Ok(_) => Err(WriteError::NotOurs {
                path: target.to_path_buf(),
            }),
        }
    }

    /// The directory the set will have when committed.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Records a `key: value` line for the marker (`redacted`, `true`).
    pub fn note(&mut self, key: &str, value: &str) {
        self.notes.push((key.to_string(), value.to_string()));
    }

    /// Writes one file of the set (`rel` is checked with [`check_relative`]) and returns the path
    /// it will have once the set is committed.
    pub fn write(&mut self, rel: &str, bytes: &[u8]) -> Result<PathBuf, WriteError> {
        let shown = self.target.join(rel);
        self.write_with(rel, |w| w.write_all(bytes).map_err(WriteError::io(shown)))
    }

    /// [`DirSet::write`] with the content produced by a writer function.
    pub fn write_with<E: From<WriteError>>(
        &mut self,
        rel: &str,
        write: impl FnOnce(&mut BufWriter<File>) -> Result<(), E>,
    ) -> Result<PathBuf, E> {
        let checked = check_relative("file name", rel).map_err(WriteError::from)?;
        let path = self.staging.join(&checked);
        let final_path = self.target.join(&checked);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(WriteError::io(&final_path))?;
        }
        let file = File::create(&path).map_err(WriteError::io(&final_path))?;
        let mut w = BufWriter::with_capacity(256 * 1024, file);
        write(&mut w)?;
        let file = w
            .into_inner()
            .map_err(|e| WriteError::io(&final_path)(e.into_error()))?;
        file.sync_all().map_err(WriteError::io(&final_path))?;
        self.files.push(rel.to_string());
        Ok(final_path)
    }

    /// Writes the marker, flushes the staging directory and swaps it in.
    pub fn commit(mut self) -> Result<PathBuf, WriteError> {
        let mut marker = format!("forge-replay set v1\nkind: {}\n", self.kind);
        for (k, v) in &self.notes {
            marker.push_str(&format!("{k}: {v}\n"));
        }
        for f in &self.files {
            marker.push_str(&format!("file: {f}\n"));
        }
        marker.push_str("end\n");
        let mut dirs: Vec<PathBuf> = self
            .files
            .iter()
            .filter_map(|f| self.staging.join(f).parent().map(Path::to_path_buf))
            .collect();
        dirs.sort();
        dirs.dedup();
        for d in dirs.iter().rev() {
            sync_dir(d);
        }
        let marker_path = self.staging.join(SET_MARKER);
        (|| {
            let mut f = File::create(&marker_path)?;
            f.write_all(marker.as_bytes())?;
            f.sync_all()
        })()
        .map_err(WriteError::io(&self.target))?;
        sync_dir(&self.staging);
        let old = self.parent.join(temp_name(&self.id, "old", &self.name));
        let had_old = std::fs::symlink_metadata(&self.target).is_ok();
        if had_old {
            std::fs::rename(&self.target, &old).map_err(WriteError::io(&self.target))?;
        }
        std::fs::rename(&self.staging, &self.target).map_err(WriteError::io(&self.target))?;
        self.committed = true;
        sync_dir(&self.parent);
        if had_old {
            std::fs::remove_dir_all(&old).map_err(WriteError::io(&old))?;
        }
        Ok(self.target.clone())
    }
}

impl Drop for DirSet {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// The marker of a complete set in `dir`, or `None` when `dir` holds no complete forge-replay set.
pub fn read_set_manifest(dir: &Path) -> Option<SetManifest> {
    let text = std::fs::read_to_string(dir.join(SET_MARKER)).ok()?;
    let mut lines = text.lines();
    if lines.next()? != "forge-replay set v1" {
        return None;
    }
    let mut m = SetManifest {
        kind: String::new(),
        notes: Vec::new(),
        files: Vec::new(),
    };
    let mut ended = false;
    for line in lines {
        if line == "end" {
            ended = true;
            break;
        }
        let (k, v) = line.split_once(": ")?;
        match k {
            "kind" => m.kind = v.to_string(),
            "file" => m.files.push(v.to_string()),
            _ => m.notes.push((k.to_string(), v.to_string())),
        }
    }
    ended.then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_appears_whole_and_replaces_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let mut s = DirSet::begin(&target, "test").unwrap();
        s.note("redacted", "true");
        let p = s.write("a/1.txt", b"one").unwrap();
        assert_eq!(p, target.join("a/1.txt"));
        assert!(!target.exists(), "nothing visible before the commit");
        s.commit().unwrap();
        assert_eq!(std::fs::read(target.join("a/1.txt")).unwrap(), b"one");
        let m = read_set_manifest(&target).unwrap();
        assert_eq!(m.files, ["a/1.txt"]);
        assert_eq!(m.notes, [("redacted".to_string(), "true".to_string())]);

        let mut s = DirSet::begin(&target, "test").unwrap();
        s.write("b.txt", b"two").unwrap();
        s.commit().unwrap();
        assert!(!target.join("a/1.txt").exists(), "the old set is gone");
        assert_eq!(read_set_manifest(&target).unwrap().files, ["b.txt"]);
        let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(entries.len(), 1, "no temporary left beside the set");
    }

    #[test]
    fn an_uncommitted_set_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        {
            let mut s = DirSet::begin(&target, "test").unwrap();
            s.write("x", b"x").unwrap();
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_of_other_files_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("notes.txt"), "mine").unwrap();
        let e = DirSet::begin(&target, "test").unwrap_err();
        assert!(matches!(e, WriteError::NotOurs { .. }), "{e}");
        assert!(e.to_string().contains("refusing to replace it"), "{e}");
        assert!(target.join("notes.txt").exists());
        // An empty directory is fine.
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        DirSet::begin(&empty, "test").unwrap().commit().unwrap();
        assert!(read_set_manifest(&empty).is_some());
    }

    /// `gen-corpus --out` over a `replay --out` directory (or any set of another command) is
    /// refused and leaves it whole: only a previous set of the same kind is replaced.
    #[test]
    fn a_set_of_another_kind_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out");
        let mut s = DirSet::begin(&target, "replay").unwrap();
        s.write("000.json", b"{}").unwrap();
        s.commit().unwrap();
        let e = DirSet::check_target(&target, "corpus").unwrap_err();
        assert!(matches!(e, WriteError::OtherSet { .. }), "{e}");
        let e = DirSet::begin(&target, "corpus").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} holds the output of another forge-replay command (a replay set, not a corpus \
                 set); refusing to replace it: remove it or choose another output directory",
                target.display()
            )
        );
        assert_eq!(read_set_manifest(&target).unwrap().kind, "replay");
        assert!(target.join("000.json").is_file());
        // The same kind is replaced, and checking writes nothing.
        DirSet::check_target(&target, "replay").unwrap();
        DirSet::check_target(&dir.path().join("new"), "replay").unwrap();
        assert!(!dir.path().join("new").exists());
        DirSet::begin(&target, "replay").unwrap().commit().unwrap();
        assert!(!target.join("000.json").exists());
    }

    #[test]
    fn any_output_name_will_do() {
        let dir = tempfile::tempdir().unwrap();
        let hidden = dir.path().join(".hidden-out");
        DirSet::begin(&hidden, "test").unwrap().commit().unwrap();
        assert!(read_set_manifest(&hidden).is_some());
    }

    #[test]
    fn file_names_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = DirSet::begin(&dir.path().join("out"), "test").unwrap();
        for bad in ["../x", "/etc/x", "", "a/./b"] {
            assert!(s.write(bad, b"x").is_err(), "{bad:?}");
        }
    }
}
