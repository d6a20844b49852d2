//! The entry tree: id index, parents, children, roots, leaves, and the structural checks.
//!
//! Everything is built in linear passes over the entries. Lookups follow Pi: an id maps to the
//! **last** entry with that id (`Map.set` order), a falsy `parentId` makes a root, and a missing
//! parent also makes a root (Pi's `getTree` treats orphans as roots; its path walk stops there).
//! Where Pi would loop forever (a `parentId` cycle), the cycle is cut at the entry where the walk
//! closes it and reported.

use forge_replay_model::json;
use serde_json::Value;

use crate::diag::{code, Diagnostic, Severity};
use crate::index::{Interner, NONE, SLOT_KEY};
use crate::session::Session;
use std::sync::Arc;

/// Map key for an id value: strings as themselves, other truthy values tagged so they never equal
/// a string (JavaScript `Map` keys compare by type).
pub(crate) fn id_key(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    match v {
        Value::String(s) => Some(std::borrow::Cow::Borrowed(s)),
        Value::Null => None,
        other => Some(std::borrow::Cow::Owned(format!(
            "\u{0}{}",
            json::stringify(other)
        ))),
    }
}

/// Parent links and child lists, by entry index.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Id key → the last entry with that id ([`NONE`] for keys no entry has as its id).
    by_key: Vec<u32>,
    /// The session's keys (shared with the session; lookups by string go through them).
    keys: Arc<Interner>,
    parent: Vec<Option<u32>>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    roots: Vec<u32>,
    leaves: Vec<u32>,
    orphans: Vec<u32>,
    cycles: Vec<Vec<u32>>,
}

impl Tree {
    pub(crate) fn build(s: &Session) -> (Tree, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let n = s.entry_count();
        let line = |i: usize| s.recs[i].line as u64;
        let mut by_key: Vec<u32> = vec![NONE; s.keys.len()];
        for e in s.entries() {
            let i = e.index();
            let Some(idv) = e.id_value() else {
                if e.is_object() {
                    diags.push(Diagnostic::new(
                        Severity::Warning,
                        code::MISSING_ID,
                        Some(line(i)),
                        format!(
                            "{} entry has no `id`; nothing can point at it",
                            e.entry_type()
                        ),
                    ));
                }
                continue;
            };
            if !idv.is_string() {
                diags.push(Diagnostic::new(
                    Severity::Warning,
                    code::BAD_FIELD,
                    Some(line(i)),
                    format!("`id` is {}, not a string", json::stringify(&idv)),
                ));
            }
            let Some(key) = e.id_key() else { continue };
            let prev = std::mem::replace(&mut by_key[key as usize], i as u32);
            if prev != NONE {
                diags.push(Diagnostic::new(
                    Severity::Error,
                    code::DUPLICATE_ID,
                    Some(line(i)),
                    format!(
                        "duplicate id {} (also line {}); the later entry wins lookups, as in Pi",
                        json::stringify(&idv),
                        line(prev as usize)
                    ),
                ));
            }
        }

        // Parents.
        let mut parent: Vec<Option<u32>> = vec![None; n];
        let mut orphans = Vec::new();
        let mut orphan_diags = Vec::new();
        for (i, r) in s.recs.iter().enumerate() {
            // Falsy parents (absent, null, "", false, 0) make a root.
            if r.parent < SLOT_KEY {
                continue;
            }
            let e = s.entry(i);
            let key = r.parent - SLOT_KEY;
            if e.parent_id().is_none() {
                let pv = e.parent_id_value();
                if !forge_replay_model::js::truthy(pv.as_ref()) {
                    continue;
                }
            } else if e.parent_id() == Some("") {
                continue;
            }
            match by_key[key as usize] {
                p if p == i as u32 => {
                    diags.push(Diagnostic::new(
                        Severity::Error,
                        code::SELF_PARENT,
                        Some(line(i)),
                        "entry is its own parent; Pi would loop forever walking this path",
                    ));
                }
                NONE => {
                    orphans.push(i as u32);
                    orphan_diags.push(diags.len());
                    diags.push(Diagnostic::new(
                        Severity::Warning,
                        code::MISSING_PARENT,
                        Some(line(i)),
                        format!(
                            "parent {} does not exist; this entry starts an orphan subtree (a root for Pi, and its paths stop here)",
                            json::stringify(&e.parent_id_value().unwrap_or_default())
                        ),
                    ));
                }
                p => parent[i] = Some(p),
            }
        }

        // Cycles: one walk per unvisited entry, each entry visited once overall.
        let mut state: Vec<u32> = vec![0; n]; // 0 = new, u32::MAX = done, else walk stamp
        let mut cycles = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let stamp = start as u32 + 1;
            stack.clear();
            let mut cur = Some(start as u32);
            while let Some(c) = cur {
                let s = state[c as usize];
                if s == u32::MAX {
                    break;
                }
                if s == stamp {
                    // `c` closes a cycle: the stack from `c` to the top.
                    let pos = stack.iter().position(|&x| x == c).unwrap_or(0);
                    let mut members: Vec<u32> = stack[pos..].to_vec();
                    members.sort_unstable();
                    let lines: Vec<String> = members
                        .iter()
                        .map(|&m| line(m as usize).to_string())
                        .collect();
                    // Cut at the member written last: its parent link closes the loop.
                    let cut = *members.last().unwrap_or(&c);
                    parent[cut as usize] = None;
                    diags.push(Diagnostic::new(
                        Severity::Error,
                        code::CYCLE,
                        Some(line(cut as usize)),
                        format!(
                            "parentId cycle through lines {}; Pi would loop forever walking this path (cut here)",
                            lines.join(", ")
                        ),
                    ));
                    cycles.push(members);
                    break;
                }
                state[c as usize] = stamp;
                stack.push(c);
                cur = parent[c as usize];
            }
            for &s in &stack {
                state[s as usize] = u32::MAX;
            }
        }

        // Children (file order), roots, leaves.
        let mut count = vec![0u32; n + 1];
        for p in parent.iter().flatten() {
            count[*p as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let child_start = count.clone();
        let mut fill = count;
        let mut children = vec![0u32; child_start[n] as usize];
        let mut roots = Vec::new();
        for (i, p) in parent.iter().enumerate() {
            match p {
                Some(p) => {
                    children[fill[*p as usize] as usize] = i as u32;
                    fill[*p as usize] += 1;
                }
                None => roots.push(i as u32),
            }
        }
        // Orphan subtree sizes (each entry is in at most one subtree).
        for (&o, &d) in orphans.iter().zip(&orphan_diags) {
            let mut size = 0usize;
            let mut stack = vec![o];
            while let Some(x) = stack.pop() {
                size += 1;
                let (a, b) = (
                    child_start[x as usize] as usize,
                    child_start[x as usize + 1] as usize,
                );
                stack.extend_from_slice(&children[a..b]);
            }
            let m = &mut diags[d].message;
            *m = m.replacen(
                "orphan subtree",
                &format!(
                    "orphan subtree of {size} entr{}",
                    if size == 1 { "y" } else { "ies" }
                ),
                1,
            );
        }
        let leaves = (0..n as u32)
            .filter(|&i| child_start[i as usize] == child_start[i as usize + 1])
            .collect();
        (
            Tree {
                by_key,
                keys: s.keys.clone(),
                parent,
                child_start,
                children,
                roots,
                leaves,
                orphans,
                cycles,
            },
            diags,
        )
    }

    fn by_key(&self, key: &str) -> Option<usize> {
        let k = self.keys.find(key)?;
        match self.by_key.get(k as usize) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// Entry index for an id (the last entry with it, as in Pi).
    pub fn get(&self, id: &str) -> Option<usize> {
        self.by_key(id)
    }

    /// Entry index for an id value of any JSON type.
    pub fn get_value(&self, id: &Value) -> Option<usize> {
        let key = id_key(id)?;
        self.by_key(&key)
    }

    /// The parent entry index (`None` for roots, orphans and cut cycles).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent.get(i).copied().flatten().map(|p| p as usize)
    }

    /// Children in file order.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (a, b) = (
            self.child_start[i] as usize,
            self.child_start[i + 1] as usize,
        );
        self.children[a..b].iter().map(|&c| c as usize)
    }

    /// Number of children.
    pub fn child_count(&self, i: usize) -> usize {
        (self.child_start[i + 1] - self.child_start[i]) as usize
    }

    /// Entries without a parent, in file order (true roots, orphans, cut cycles).
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        self.roots.iter().map(|&r| r as usize)
    }

    /// Entries without children, in file order.
    pub fn leaves(&self) -> impl Iterator<Item = usize> + '_ {
        self.leaves.iter().map(|&r| r as usize)
    }

    /// Entries whose `parentId` names no entry.
    pub fn orphans(&self) -> impl Iterator<Item = usize> + '_ {
        self.orphans.iter().map(|&r| r as usize)
    }

    /// Each detected cycle's members.
    pub fn cycles(&self) -> &[Vec<u32>] {
        &self.cycles
    }

    /// Entry indices from the root to `leaf` (inclusive), as Pi's path walk.
    pub fn path_to(&self, leaf: usize) -> Vec<usize> {
        let mut path = Vec::new();
        let mut cur = Some(leaf);
        while let Some(c) = cur {
            path.push(c);
            cur = self.parent(c);
        }
        path.reverse();
        path
    }
}

/// For each `(compaction index, _)`: whether one of its strict ancestors has the id its
/// `firstKeptEntryId` names (one depth-first pass over the tree, whatever the number of
/// compactions; ids that are neither strings nor `null` are compared by walking the path).
pub(crate) fn ancestors_with_ids(s: &Session, queries: &[(usize, usize)]) -> Vec<bool> {
    let mut out = vec![false; queries.len()];
    if queries.is_empty() {
        return out;
    }
    let tree = s.tree();
    let mut asked: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for (q, &(i, _)) in queries.iter().enumerate() {
        match s.entry(i).first_kept_entry_id_value() {
            Some(Value::String(_)) | Some(Value::Null) => asked.entry(i).or_default().push(q),
            fk => {
                let mut cur = tree.parent(i);
                while let Some(c) = cur {
                    if s.entry(c).id_value().as_ref() == fk {
                        out[q] = true;
                        break;
                    }
                    cur = tree.parent(c);
                }
            }
        }
    }
    // Ancestor ids on the current DFS path: counts per string key, and of `null` ids.
    let mut counts = vec![0u32; s.keys.len()];
    let mut nulls = 0u32;
    let key_of = |i: usize| {
        let r = &s.recs[i];
        if r.id == crate::index::SLOT_NULL {
            Some(None)
        } else if r.flags & crate::index::flag::ID_STRING != 0 {
            Some(Some((r.id - SLOT_KEY) as usize))
        } else {
            None
        }
    };
    // (entry, entered): pre-order visits push the entry's id, post-order visits pop it.
    let mut stack: Vec<(usize, bool)> = tree
        .roots
        .iter()
        .rev()
        .map(|&r| (r as usize, false))
        .collect();
    while let Some((i, entered)) = stack.pop() {
        if entered {
            match key_of(i) {
                Some(Some(k)) => counts[k] -= 1,
                Some(None) => nulls -= 1,
                None => {}
            }
            continue;
        }
        if let Some(qs) = asked.get(&i) {
            for &q in qs {
                out[q] = match s.entry(i).first_kept_entry_id_value() {
                    Some(Value::Null) => nulls > 0,
                    Some(Value::String(fk)) => {
                        s.keys.find(fk).is_some_and(|k| counts[k as usize] > 0)
                    }
                    _ => out[q],
                };
            }
        }
        match key_of(i) {
            Some(Some(k)) => counts[k] += 1,
            Some(None) => nulls += 1,
            None => {}
        }
        stack.push((i, true));
        let (a, b) = (
            tree.child_start[i] as usize,
            tree.child_start[i + 1] as usize,
        );
        stack.extend(
            tree.children[a..b]
                .iter()
                .rev()
                .map(|&c| (c as usize, false)),
        );
    }
    out
}
