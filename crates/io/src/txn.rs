//! Changes spread over a directory tree, applied all or nothing through a journal.

use std::fs::File;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use crate::atomic::sync_dir;
use crate::path::{check_component, check_inside};
use crate::temp::{fresh_id, owner_alive, parse_temp_name, temp_name};
use crate::WriteError;

const JOURNAL_HEADER: &str = "forge-replay journal v1";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// Move a staged file into place (replacing what is there).
    Rename { from: String, to: String },
    /// Remove a file the transaction's owner wrote earlier.
    Remove(String),
    /// Remove a staging directory.
    RemoveDir(String),
}

#[derive(Debug)]
struct Plan {
    dir: String,
    ops: Vec<Op>,
}

/// A set of changes to the files of a tree (`verify --bless` over the golden tree), applied all
/// or nothing.
///
/// [`Txn::begin`] first finishes a transaction that a killed process left (its journal is
/// complete: it is rolled forward) or drops one that never got that far, and removes stale
/// temporary entries under the root. Each directory's new files are written to a staging
/// directory beside it ([`Txn::stage`], [`Stage::write`]) while the tree is untouched; files to
/// delete are named ([`Stage::remove`]). [`Txn::commit`] writes the journal (the list of renames
/// and removals), applies it and deletes it. A kill before the journal is complete leaves the old
/// tree; a kill after it leaves a journal that the next `begin` applies. Readers check
/// [`Txn::pending`] and refuse a tree with a journal, which may be half applied.
#[derive(Debug)]
pub struct Txn {
    root: PathBuf,
    id: String,
    label: String,
    plans: Mutex<Vec<Plan>>,
    stagings: Mutex<Vec<PathBuf>>,
    committed: bool,
}

/// The staged new content of one directory of a [`Txn`].
#[derive(Debug)]
pub struct Stage<'t> {
    txn: &'t Txn,
    dir_rel: String,
    staging_rel: String,
    staging: PathBuf,
    ops: Vec<Op>,
}

fn rel_string(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A journal path: relative, no `..`, no empty or `.` components.
fn journal_path(root: &Path, rel: &str) -> Option<PathBuf> {
    let p = Path::new(rel);
    let ok = !rel.is_empty()
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
        && p.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then(|| root.join(p))
}

fn journals(root: &Path) -> Vec<(PathBuf, u32)> {
    let mut v: Vec<(PathBuf, u32)> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let t = parse_temp_name(name.to_str()?)?;
            (t.role == "journal").then(|| (e.path(), t.pid))
        })
        .collect();
    v.sort();
    v
}

fn parse_journal(root: &Path, text: &str) -> Result<Option<Vec<Op>>, String> {
    // Killed before the header was complete (the file was created, its text not yet written):
    // nothing was applied yet.
    if JOURNAL_HEADER.starts_with(text) {
        return Ok(None);
    }
    let mut lines = text.lines();
    if lines.next() != Some(JOURNAL_HEADER) {
        return Err("not a forge-replay journal".into());
    }
    // Killed while writing the journal (it is complete only with its `end` line): nothing was
    // applied yet, whatever the cut last line holds.
    if !text.ends_with("\nend\n") {
        return Ok(None);
    }
    let mut ops = Vec::new();
    for line in lines {
        if line == "end" {
            return Ok(Some(ops));
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let path = |i: usize| -> Result<String, String> {
            let s = fields.get(i).copied().unwrap_or_default();
            journal_path(root, s)
                .map(|_| s.to_string())
                .ok_or_else(|| format!("bad path {s:?}"))
        };
        ops.push(match (fields[0], fields.len()) {
            ("rename", 3) => Op::Rename {
                from: path(1)?,
                to: path(2)?,
            },
            ("remove", 2) => Op::Remove(path(1)?),
            ("rmdir", 2) => Op::RemoveDir(path(1)?),
            _ => return Err(format!("bad line {line:?}")),
        });
    }
    // Killed while writing the journal: nothing was applied yet.
    Ok(None)
}

fn apply(root: &Path, ops: &[Op]) -> Result<(), WriteError> {
    let mut touched: Vec<PathBuf> = Vec::new();
    for op in ops {
        match op {
            Op::Rename { from, to } => {
                let (from, to) = (root.join(from), root.join(to));
                if std::fs::symlink_metadata(&from).is_ok() {
                    if let Some(d) = to.parent() {
                        std::fs::create_dir_all(d).map_err(WriteError::io(d))?;
                        touched.push(d.to_path_buf());
                    }
                    std::fs::rename(&from, &to).map_err(WriteError::io(&to))?;
                }
            }
            Op::Remove(p) => {
                let p = root.join(p);
                match std::fs::remove_file(&p) {
                    Ok(()) => {
                        if let Some(d) = p.parent() {
                            touched.push(d.to_path_buf());
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(WriteError::io(&p)(e)),
                }
            }
            Op::RemoveDir(p) => {
                let p = root.join(p);
                match std::fs::remove_dir_all(&p) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(WriteError::io(&p)(e)),
                }
            }
        }
    }
    touched.sort();
    touched.dedup();
    for d in &touched {
        sync_dir(d);
    }
    Ok(())
}

/// Removes temporary entries of dead processes anywhere under `dir` (not following symlinks).
fn sweep(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        let name = e.file_name();
        match name.to_str().and_then(parse_temp_name) {
            Some(t) if t.role != "journal" && !owner_alive(t.pid, &path) => {
                let _ = if ft.is_dir() {
                    std::fs::remove_dir_all(&path)
                } else {
                    std::fs::remove_file(&path)
                };
            }
            Some(_) => {}
            None if ft.is_dir() => sweep(&path),
            None => {}
        }
    }
}

impl Txn {
    /// Starts a transaction over the tree at `root` (created if missing). `label` names the
    /// journal for people (`bless`).
    pub fn begin(root: &Path, label: &str) -> Result<Txn, WriteError> {
        std::fs::create_dir_all(root).map_err(WriteError::io(root))?;
        for (journal, pid) in journals(root) {
            if owner_alive(pid, &journal) {
                return Err(WriteError::Busy {
                    path: root.to_path_buf(),
                    pid,
                });
            }
            let text = std::fs::read_to_string(&journal).map_err(WriteError::io(&journal))?;
            match parse_journal(root, &text) {
                Ok(Some(ops)) => apply(root, &ops)?,
                Ok(None) => {}
                Err(message) => {
                    return Err(WriteError::Journal {
                        path: journal,
                        message,
                    })
                }
            }
            std::fs::remove_file(&journal).map_err(WriteError::io(&journal))?;
            sync_dir(root);
        }
        sweep(root);
        Ok(Txn {
            root: root.to_path_buf(),
            id: fresh_id(),
            label: label.to_string(),
            plans: Mutex::new(Vec::new()),
            stagings: Mutex::new(Vec::new()),
            committed: false,
        })
    }

    /// The journal of an unfinished transaction under `root`, if there is one (a reader must not
    /// trust the tree then: it may be half applied).
    pub fn pending(root: &Path) -> Option<PathBuf> {
        journals(root).into_iter().next().map(|(p, _)| p)
    }

    /// The tree's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Starts staging the new content of `root/dir` (every component of `dir` must be a safe
    /// component, and `dir` must not lead out of the root through a symlink).
    pub fn stage(&self, dir: &Path, field: &str) -> Result<Stage<'_>, WriteError> {
        let mut parts = Vec::new();
        for c in dir.components() {
            let s = c.as_os_str().to_string_lossy();
            check_component(field, &s)?;
            parts.push(s.into_owned());
        }
        if parts.is_empty() {
            check_component(field, "")?;
        }
        let last = parts.last().cloned().unwrap_or_default();
        check_inside(field, &self.root, dir)?;
        let parent_rel: PathBuf = parts[..parts.len() - 1].iter().collect();
        let staging_name = temp_name(&fresh_id(), "stage", &last);
        let staging_rel = parent_rel.join(&staging_name);
        let staging = self.root.join(&staging_rel);
        std::fs::create_dir_all(&staging).map_err(WriteError::io(&staging))?;
        self.stagings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(staging.clone());
        Ok(Stage {
            txn: self,
            dir_rel: rel_string(dir),
            staging_rel: rel_string(&staging_rel),
            staging,
            ops: Vec::new(),
        })
    }

    /// Applies every finished stage (journal first) and returns the number of files installed
    /// or removed.
    pub fn commit(mut self) -> Result<usize, WriteError> {
        let mut plans = std::mem::take(&mut *self.plans.lock().unwrap_or_else(|e| e.into_inner()));
        plans.sort_by(|a, b| a.dir.cmp(&b.dir));
        let ops: Vec<Op> = plans.into_iter().flat_map(|p| p.ops).collect();
        let changes = ops
            .iter()
            .filter(|o| !matches!(o, Op::RemoveDir(_)))
            .count();
        if changes > 0 {
            let mut text = format!("{JOURNAL_HEADER}\n");
            for op in &ops {
                match op {
                    Op::Rename { from, to } => text.push_str(&format!("rename\t{from}\t{to}\n")),
                    Op::Remove(p) => text.push_str(&format!("remove\t{p}\n")),
                    Op::RemoveDir(p) => text.push_str(&format!("rmdir\t{p}\n")),
                }
            }
            text.push_str("end\n");
            let journal = self.root.join(temp_name(&self.id, "journal", &self.label));
            (|| {
                let mut f = File::create(&journal)?;
                f.write_all(text.as_bytes())?;
                f.sync_all()
            })()
            .map_err(WriteError::io(&journal))?;
            sync_dir(&self.root);
            apply(&self.root, &ops)?;
            std::fs::remove_file(&journal).map_err(WriteError::io(&journal))?;
            sync_dir(&self.root);
        }
        self.committed = true;
        for s in self
            .stagings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = std::fs::remove_dir_all(s);
        }
        Ok(changes)
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if !self.committed {
            for s in self
                .stagings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
            {
                let _ = std::fs::remove_dir_all(s);
            }
        }
    }
}

impl Stage<'_> {
    /// The directory this stage will change (`root/dir`).
    pub fn dir(&self) -> PathBuf {
        self.txn.root.join(&self.dir_rel)
    }

    /// Stages a new version of `dir/name`.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> Result<(), WriteError> {
        check_component("file name", name)?;
        let path = self.staging.join(name);
        let shown = self.dir().join(name);
        (|| {
            let mut f = File::create(&path)?;
            f.write_all(bytes)?;
            f.sync_all()
        })()
        .map_err(WriteError::io(&shown))?;
        self.ops.push(Op::Rename {
            from: format!("{}/{name}", self.staging_rel),
            to: format!("{}/{name}", self.dir_rel),
        });
        Ok(())
    }

    /// Removes `dir/name` when the transaction commits.
    pub fn remove(&mut self, name: &str) -> Result<(), WriteError> {
        check_component("file name", name)?;
        self.ops
            .push(Op::Remove(format!("{}/{name}", self.dir_rel)));
        Ok(())
    }

    /// Adds this stage to the transaction (in the order its writes and removals were made).
    pub fn finish(mut self) {
        sync_dir(&self.staging);
        let mut ops = std::mem::take(&mut self.ops);
        ops.push(Op::RemoveDir(self.staging_rel.clone()));
        self.txn
            .plans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Plan {
                dir: self.dir_rel.clone(),
                ops,
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn staged_changes_appear_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("s/m")).unwrap();
        std::fs::write(root.join("s/m/000.json"), "old0").unwrap();
        std::fs::write(root.join("s/m/001.json"), "old1").unwrap();
        std::fs::write(root.join("s/m/notes.txt"), "mine").unwrap();
        let txn = Txn::begin(root, "bless").unwrap();
        let mut st = txn.stage(Path::new("s/m"), "scenario name").unwrap();
        st.write("000.json", b"new0").unwrap();
        st.remove("001.json").unwrap();
        st.finish();
        assert_eq!(read(&root.join("s/m/000.json")), "old0");
        assert_eq!(txn.commit().unwrap(), 2);
        assert_eq!(read(&root.join("s/m/000.json")), "new0");
        assert!(!root.join("s/m/001.json").exists());
        assert_eq!(read(&root.join("s/m/notes.txt")), "mine");
        let left: Vec<_> = std::fs::read_dir(root.join("s"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["m"]);
        assert!(Txn::pending(root).is_none());
    }

    /// A journal cut anywhere before its `end` line (the process was killed while writing it)
    /// applies nothing, even when the cut falls inside a line.
    #[test]
    fn a_journal_cut_before_its_end_applies_nothing() {
        let root = Path::new("/r");
        let full = format!("{JOURNAL_HEADER}\nrename\ta/.x\ta/b\nremove\ta/c\nend\n");
        assert!(matches!(parse_journal(root, &full), Ok(Some(ops)) if ops.len() == 2));
        for cut in 0..full.len() - 1 {
            assert!(
                matches!(parse_journal(root, &full[..cut]), Ok(None)),
                "cut at {cut}: {:?}",
                &full[..cut]
            );
        }
        let bad = format!("{JOURNAL_HEADER}\nfrobnicate\tx\nend\n");
        assert!(parse_journal(root, &bad).is_err());
    }

    #[test]
    fn dropped_transactions_leave_the_tree_alone() {
        let dir = tempfile::tempdir().unwrap();
        let txn = Txn::begin(dir.path(), "bless").unwrap();
        let mut st = txn.stage(Path::new("s/m"), "scenario name").unwrap();
        st.write("000.json", b"new").unwrap();
        st.finish();
        drop(txn);
        assert!(!dir.path().join("s/m").exists());
        assert_eq!(std::fs::read_dir(dir.path().join("s")).unwrap().count(), 0);
    }

    #[test]
    fn unsafe_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let txn = Txn::begin(dir.path(), "bless").unwrap();
        for bad in ["../x", "/abs", "a/../b", "", ".", ".hidden/m"] {
            let e = txn.stage(Path::new(bad), "scenario name").unwrap_err();
            assert!(e.to_string().starts_with("scenario name "), "{bad:?}: {e}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_journal_left_by_a_killed_process_is_rolled_forward() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("s/m")).unwrap();
        std::fs::write(root.join("s/m/000.json"), "old0").unwrap();
        std::fs::write(root.join("s/m/001.json"), "old1").unwrap();
        // A dead process staged a new 000.json and the removal of 001.json, wrote its journal
        // and was killed before applying it.
        let stage = temp_name("4194304-1", "stage", "m");
        std::fs::create_dir_all(root.join("s").join(&stage)).unwrap();
        std::fs::write(root.join("s").join(&stage).join("000.json"), "new0").unwrap();
        let journal = root.join(temp_name("4194304-0", "journal", "bless"));
        std::fs::write(
            &journal,
            format!("{JOURNAL_HEADER}\nrename\ts/{stage}/000.json\ts/m/000.json\nremove\ts/m/001.json\nrmdir\ts/{stage}\nend\n"),
        )
        .unwrap();
        assert_eq!(Txn::pending(root), Some(journal.clone()));
        drop(Txn::begin(root, "bless").unwrap());
        assert_eq!(read(&root.join("s/m/000.json")), "new0");
        assert!(!root.join("s/m/001.json").exists());
        assert!(!journal.exists() && !root.join("s").join(&stage).exists());

        // A journal cut off before its end was never applied: it is dropped, the tree kept.
        std::fs::write(
            &journal,
            format!("{JOURNAL_HEADER}\nremove\ts/m/000.json\n"),
        )
        .unwrap();
        drop(Txn::begin(root, "bless").unwrap());
        assert_eq!(read(&root.join("s/m/000.json")), "new0");
        assert!(!journal.exists());

        // Killed between creating the journal and writing its header: empty or cut in the
        // header, dropped the same way.
        for text in ["", "forge-replay jour"] {
            std::fs::write(&journal, text).unwrap();
            drop(Txn::begin(root, "bless").unwrap());
            assert_eq!(read(&root.join("s/m/000.json")), "new0");
            assert!(!journal.exists(), "{text:?}");
        }
        // Anything else is not ours: refused, named.
        std::fs::write(&journal, "something else\n").unwrap();
        assert!(Txn::begin(root, "bless").is_err());
    }
}
