//! Files sub-agent extensions write under a parent session's folder, recognised by their path.
//!
//! The layouts are pi-subagents' (`nicobailon/pi-subagents`; sources in
//! `fixtures/usage/subagents/README.md`). For a parent session file `D/S.jsonl`:
//!
//! * **fork** — `D/S/forks/<file>.jsonl`: a Pi session made by `createBranchedSession` for a
//!   child run with `context: "fork"`; its header names `parentSession`, it starts with copies of
//!   the parent's path (same ids, timestamps and usage) and goes on with the child's own turns.
//! * **run** — `D/S/<runId>/run-<N>/session.jsonl`: the session of the child at index `N` of run
//!   `runId` (`getSubagentSessionRoot(parent)/<runId>/run-<N>/session.jsonl`).
//! * **transcript** — `D/subagent-artifacts/<runId>_<agent>[_<N>]_transcript.jsonl`: the child
//!   transcript artifact, one record per event without a session header; its `message` records
//!   repeat the child's messages (and their usage).
//!
//! The same child call can thus sit in a run (or fork) session and again in a transcript, and a
//! tool may also summarise it in the parent as a `forgeNestedUsage` report. The corpus counts
//! each call once (see [`crate::corpus`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Which sub-agent layout a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChildKind {
    Fork,
    Run,
    Transcript,
}

impl ChildKind {
    pub fn name(self) -> &'static str {
        match self {
            ChildKind::Fork => "fork",
            ChildKind::Run => "run",
            ChildKind::Transcript => "transcript",
        }
    }
}

/// A file recognised as a sub-agent file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildPath {
    pub kind: ChildKind,
    /// Index (into the scanned paths) of the parent session file, when it was scanned.
    pub parent: Option<usize>,
    /// The run id the path names (run and transcript layouts).
    pub run_id: Option<String>,
}

fn name(p: &Path) -> Option<&str> {
    p.file_name().and_then(|n| n.to_str())
}

/// `run-<digits>`.
fn is_run_dir(n: &str) -> bool {
    n.strip_prefix("run-")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The run id of a transcript file name `<runId>_<agent>[_<N>]_transcript.jsonl`.
pub fn transcript_run_id(file: &str) -> Option<&str> {
    let stem = file.strip_suffix("_transcript.jsonl")?;
    let (run, _) = stem.split_once('_')?;
    (!run.is_empty()).then_some(run)
}

/// Classifies every path (the same order as `paths`). A fork or run file whose parent session
/// is not among the paths is an ordinary session; a transcript is always a sub-agent file (its
/// parent is found through a run of the same id, when one was scanned).
pub fn classify(paths: &[PathBuf]) -> Vec<Option<ChildPath>> {
    let index: crate::fasthash::FastMap<&Path, usize> = paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_path(), i))
        .collect();
    // `D/S` (a session's folder) → the index of `D/S.jsonl`.
    let parent_of_dir = |dir: &Path| -> Option<usize> {
        let stem = name(dir)?;
        let file = dir.parent()?.join(format!("{stem}.jsonl"));
        index.get(file.as_path()).copied()
    };
    let mut out: Vec<Option<ChildPath>> = paths
        .iter()
        .map(|p| {
            let file = name(p)?;
            let d1 = p.parent()?;
            if name(d1) == Some("subagent-artifacts") {
                let run = transcript_run_id(file)?;
                return Some(ChildPath {
                    kind: ChildKind::Transcript,
                    parent: None,
                    run_id: Some(run.to_owned()),
                });
            }
            if name(d1) == Some("forks") {
                let parent = parent_of_dir(d1.parent()?)?;
                return Some(ChildPath {
                    kind: ChildKind::Fork,
                    parent: Some(parent),
                    run_id: None,
                });
            }
            if file == "session.jsonl" && name(d1).is_some_and(is_run_dir) {
                let run_dir = d1.parent()?;
                let parent = parent_of_dir(run_dir.parent()?)?;
                return Some(ChildPath {
                    kind: ChildKind::Run,
                    parent: Some(parent),
                    run_id: name(run_dir).map(str::to_owned),
                });
            }
            None
        })
        .collect();
    // A transcript's parent: the parent of a run with its id in the same sessions folder.
    let mut runs: HashMap<(&Path, &str), usize> = HashMap::new();
    for (i, c) in out.iter().enumerate() {
        if let Some(ChildPath {
            kind: ChildKind::Run,
            parent: Some(parent),
            run_id: Some(run),
        }) = c
        {
            if let Some(folder) = paths[*parent].parent() {
                runs.entry((folder, run.as_str())).or_insert(*parent);
            }
            let _ = i;
        }
    }
    let found: Vec<Option<usize>> = out
        .iter()
        .enumerate()
        .map(|(i, c)| match c {
            Some(ChildPath {
                kind: ChildKind::Transcript,
                run_id: Some(run),
                ..
            }) => {
                let folder = paths[i].parent()?.parent()?;
                runs.get(&(folder, run.as_str())).copied()
            }
            _ => None,
        })
        .collect();
    for (c, parent) in out.iter_mut().zip(found) {
        if let Some(c) = c {
            if c.kind == ChildKind::Transcript {
                c.parent = parent;
            }
        }
    }
    out
}

/// `true` when a `sessionFile` a parent's tool result names is this child file: the child's path
/// from the parent session's folder on (`S/forks/x.jsonl`, `S/<runId>/run-0/session.jsonl`)
/// ends the named path. Paths recorded on another machine still match.
pub fn names_file(session_file: &str, child: &Path, parent: &Path) -> bool {
    let Some(stem) = parent.file_stem() else {
        return false;
    };
    let comps: Vec<_> = child.components().collect();
    let Some(from) = comps.iter().rposition(|c| c.as_os_str() == stem) else {
        return false;
    };
    let tail = &comps[from..];
    let named: Vec<&str> = session_file
        .split(['/', '\\'])
        .filter(|s| !s.is_empty())
        .collect();
    named.len() >= tail.len()
        && named[named.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| b.as_os_str() == *a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_recognised_by_path() {
        let d = PathBuf::from("/s/--p--");
        let paths = vec![
            d.join("2026-01-01T00-00-00-000Z_a.jsonl"),
            d.join("2026-01-01T00-00-00-000Z_a/forks/2026-01-01T00-01-00-000Z_b.jsonl"),
            d.join("2026-01-01T00-00-00-000Z_a/5f316403/run-0/session.jsonl"),
            d.join("subagent-artifacts/5f316403_worker_transcript.jsonl"),
            d.join("subagent-artifacts/77777777_scout_1_transcript.jsonl"),
            d.join("orphan/forks/x.jsonl"),
        ];
        let c = classify(&paths);
        assert_eq!(c[0], None);
        assert_eq!(
            c[1].as_ref().map(|x| (x.kind, x.parent)),
            Some((ChildKind::Fork, Some(0)))
        );
        assert_eq!(
            c[2].clone(),
            Some(ChildPath {
                kind: ChildKind::Run,
                parent: Some(0),
                run_id: Some("5f316403".into())
            })
        );
        assert_eq!(c[3].as_ref().map(|x| x.parent), Some(Some(0)));
        assert_eq!(
            c[4].as_ref()
                .map(|x| (x.kind, x.parent, x.run_id.as_deref())),
            Some((ChildKind::Transcript, None, Some("77777777")))
        );
        assert_eq!(
            c[5], None,
            "a fork folder without its parent session is ordinary"
        );
    }

    #[test]
    fn session_file_names_match_from_the_parent_folder() {
        let parent = Path::new("/s/--p--/2026_a.jsonl");
        let child = Path::new("/s/--p--/2026_a/5f/run-0/session.jsonl");
        assert!(names_file(
            "~/.pi/agent/sessions/--p--/2026_a/5f/run-0/session.jsonl",
            child,
            parent
        ));
        assert!(!names_file(
            "/x/2026_a/6f/run-0/session.jsonl",
            child,
            parent
        ));
        assert!(!names_file("run-0/session.jsonl", child, parent));
    }
}
