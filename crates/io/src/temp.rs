//! forge-replay's temporary names, and removing stale ones.
//!
//! Every temporary file or directory is named
//! `.forge-replay-tmp.<pid>-<seq>.<role>.<label>`: the writing process, a per-process counter,
//! what the entry is (`w` a file being written, `new` a staged set, `old` the set it replaces,
//! `stage` a staged part of a [`crate::Txn`], `journal` a transaction's journal) and the target's
//! name (for people; cut to fit when long).
//!
//! [`remove_stale`] removes the entries of processes that no longer run. A staged set whose
//! target is missing (the process died between moving the old set aside and moving the new one
//! in) is first put back: the new set when it is complete (it has its marker), else the old one.
//! Journals and transaction stages are left to [`crate::Txn::begin`], which finishes the
//! interrupted transaction first.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Prefix of every temporary name forge-replay writes.
pub const TEMP_PREFIX: &str = ".forge-replay-tmp.";

/// Room for the label in a temporary name (255 bytes minus prefix, pid, counter and role).
const MAX_LABEL: usize = 200;

static SEQ: AtomicU64 = AtomicU64::new(0);

/// Whether a directory entry is one of forge-replay's temporary files or directories.
pub fn is_temp_name(name: &OsStr) -> bool {
    name.as_encoded_bytes().starts_with(TEMP_PREFIX.as_bytes())
}

/// A fresh `<pid>-<seq>` for this process.
pub(crate) fn fresh_id() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// `.forge-replay-tmp.<id>.<role>.<label>`, the label cut from the front so its end (the
/// extension, which some writers read) survives.
pub(crate) fn temp_name(id: &str, role: &str, label: &str) -> String {
    let mut start = label.len().saturating_sub(MAX_LABEL);
    while !label.is_char_boundary(start) {
        start += 1;
    }
    format!("{TEMP_PREFIX}{id}.{role}.{}", &label[start..])
}

/// A parsed temporary name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TempName {
    pub id: String,
    pub pid: u32,
    pub role: String,
    pub label: String,
}

pub(crate) fn parse_temp_name(name: &str) -> Option<TempName> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (id, rest) = rest.split_once('.')?;
    let (role, label) = rest.split_once('.')?;
    let pid = id.split_once('-')?.0.parse().ok()?;
    Some(TempName {
        id: id.to_string(),
        pid,
        role: role.to_string(),
        label: label.to_string(),
    })
}

/// Whether the process that wrote a temporary entry may still be running. On systems with
/// `/proc` this is exact; elsewhere an entry counts as live for a day.
pub(crate) fn owner_alive(pid: u32, entry: &Path) -> bool {
    if pid == std::process::id() {
        return true;
    }
    if Path::new("/proc/self").exists() {
        return Path::new("/proc").join(pid.to_string()).exists();
    }
    std::fs::symlink_metadata(entry)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_none_or(|age| age.as_secs() < 86_400)
}

fn remove_entry(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes the stale temporary entries of dead forge-replay processes directly in `dir` (after
/// putting back an interrupted set, see the module docs) and returns how many it removed.
/// Journals and transaction stages are not touched ([`crate::Txn::begin`] handles them).
pub fn remove_stale(dir: &Path) -> std::io::Result<usize> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    // Stale entries of one writer step, by id.
    let mut groups: BTreeMap<String, Vec<(TempName, PathBuf)>> = BTreeMap::new();
    for item in rd {
        let item = item?;
        let name = item.file_name();
        let Some(t) = name.to_str().and_then(parse_temp_name) else {
            continue;
        };
        let path = item.path();
        if matches!(t.role.as_str(), "journal" | "stage") || owner_alive(t.pid, &path) {
            continue;
        }
        groups.entry(t.id.clone()).or_default().push((t, path));
    }
    let mut removed = 0;
    for (_, entries) in groups {
        // An interrupted set swap: put a set back where the target is missing.
        let find = |role: &str| entries.iter().find(|(t, _)| t.role == role);
        if let Some((t, _)) = find("new").or_else(|| find("old")) {
            let target = dir.join(&t.label);
            if std::fs::symlink_metadata(&target).is_err() {
                let complete_new = find("new").filter(|(_, p)| p.join(crate::SET_MARKER).is_file());
                if let Some((_, from)) = complete_new.or_else(|| find("old")) {
                    std::fs::rename(from, &target)?;
                }
            }
        }
        for (_, path) in &entries {
            if std::fs::symlink_metadata(path).is_ok() {
                remove_entry(path)?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}

/// Directories this process has already cleaned.
static CLEANED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// [`remove_stale`] once per directory and process (writers call it before their first write
/// into a directory). Best effort: a directory that cannot be listed is left alone.
pub(crate) fn clean_once(dir: &Path) {
    let key = dir.to_path_buf();
    {
        let mut guard = CLEANED.lock().unwrap_or_else(|e| e.into_inner());
        if !guard.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    let _ = remove_stale(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fit() {
        let n = temp_name("12-3", "w", "000.json");
        assert_eq!(n, ".forge-replay-tmp.12-3.w.000.json");
        assert!(is_temp_name(OsStr::new(&n)));
        let t = parse_temp_name(&n).unwrap();
        assert_eq!(
            (t.pid, t.role.as_str(), t.label.as_str()),
            (12, "w", "000.json")
        );
        let long = format!("{}.png", "é".repeat(200));
        let n = temp_name("1-1", "w", &long);
        assert!(n.len() <= 255, "{}", n.len());
        assert!(n.ends_with(".png"));
        assert!(!is_temp_name(OsStr::new("000.json")));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stale_entries_of_dead_processes_go_live_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        // pid 4194304 is above Linux's pid_max: never running.
        let dead = dir.path().join(temp_name("4194304-0", "w", "a.json"));
        let mine = dir.path().join(temp_name(&fresh_id(), "w", "b.json"));
        let journal = dir.path().join(temp_name("4194304-1", "journal", "bless"));
        let other = dir.path().join("keep.json");
        for p in [&dead, &mine, &journal, &other] {
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(remove_stale(dir.path()).unwrap(), 1);
        assert!(!dead.exists());
        assert!(mine.exists() && journal.exists() && other.exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_interrupted_swap_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        // Killed after moving the old set aside, before the new one was complete.
        let old = dir.path().join(temp_name("4194304-7", "old", "out"));
        let new = dir.path().join(temp_name("4194304-7", "new", "out"));
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("a"), "old").unwrap();
        std::fs::create_dir_all(&new).unwrap();
        remove_stale(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out/a")).unwrap(),
            "old"
        );
        assert!(!old.exists() && !new.exists());
        // Killed with the new set complete: it goes in.
        std::fs::remove_dir_all(dir.path().join("out")).unwrap();
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("a"), "new").unwrap();
        std::fs::write(new.join(crate::SET_MARKER), "").unwrap();
        remove_stale(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out/a")).unwrap(),
            "new"
        );
    }
}
