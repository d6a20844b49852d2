//! `forge-replay tree`: a session's tree as a person reads it ([`text`]) and as JSON
//! ([`to_json`]).
//!
//! Text: one line per entry; a straight run of entries stays at one indent, and each branch point
//! opens `├─`/`└─` children. Leaves show how many messages Pi's context has there, the default
//! leaf (the last entry, as Pi selects on load) is marked, labels are shown next to their target.
//! JSON: a flat list of entries plus the leaves with their model and thinking level.

use std::collections::HashMap;
use std::fmt::Write as _;

use forge_replay_session::describe::{describe, id_text, str_or_json};
use forge_replay_session::{project, Session};
use serde_json::{Map, Value};

/// The tree as text: the header lines, then one line per entry (a straight run at one indent,
/// `├─`/`└─` children at each branch point), leaves with their message count.
pub fn text(s: &Session, labels: &HashMap<usize, String>) -> String {
    let tree = s.tree();
    let header = s.header();
    let leaves: Vec<usize> = tree.leaves().collect();
    let default_leaf = s.default_leaf();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "session {} (version {}){}",
        header.id(),
        str_or_json(header.version()),
        header
            .cwd()
            .map(|c| format!(" cwd {c}"))
            .unwrap_or_default()
    );
    let roots: Vec<usize> = tree.roots().collect();
    let _ = writeln!(
        out,
        "{} entries, {} root{}, {} lea{}, default leaf {}",
        s.entries().len(),
        roots.len(),
        if roots.len() == 1 { "" } else { "s" },
        leaves.len(),
        if leaves.len() == 1 { "f" } else { "ves" },
        default_leaf.map_or("none".to_string(), |l| id_text(&s.entry(l)))
    );
    // Iterative DFS: (entry, prefix for its line, prefix for its continuation).
    let mut stack: Vec<(usize, String, String)> = Vec::new();
    for (k, &r) in roots.iter().enumerate().rev() {
        let (first, rest) = if roots.len() == 1 {
            (String::new(), String::new())
        } else if k + 1 == roots.len() {
            ("└─ ".to_string(), "   ".to_string())
        } else {
            ("├─ ".to_string(), "│  ".to_string())
        };
        stack.push((r, first, rest));
    }
    while let Some((i, first, rest)) = stack.pop() {
        let e = s.entry(i);
        let mut line = format!("{first}{} {}", id_text(&e), describe(&e));
        if let Some(l) = labels.get(&i) {
            let _ = write!(line, "  [label: {l}]");
        }
        if tree.child_count(i) == 0 {
            let _ = write!(line, "  ● leaf, {} messages", project::message_count(s, i));
            if Some(i) == default_leaf {
                line.push_str(" (default)");
            }
        }
        let _ = writeln!(out, "{line}  (line {})", e.line());
        let children: Vec<usize> = tree.children(i).collect();
        if children.len() == 1 {
            stack.push((children[0], rest.clone(), rest));
        } else {
            for (k, &c) in children.iter().enumerate().rev() {
                let last = k + 1 == children.len();
                stack.push((
                    c,
                    format!("{rest}{}", if last { "└─ " } else { "├─ " }),
                    format!("{rest}{}", if last { "   " } else { "│  " }),
                ));
            }
        }
    }
    out
}

/// `{sessionId, defaultLeafId, roots, leaves, entries}`: a flat list of entries plus the leaves
/// with their model and thinking level.
pub fn to_json(s: &Session, labels: &HashMap<usize, String>) -> Value {
    let tree = s.tree();
    let mut entries = Vec::with_capacity(s.entries().len());
    for (i, e) in s.entries().enumerate() {
        let mut m = Map::new();
        m.insert("line".into(), Value::from(e.line()));
        m.insert("id".into(), e.id_value().unwrap_or(Value::Null));
        m.insert(
            "parentId".into(),
            tree.parent(i)
                .and_then(|p| s.entry(p).id_value())
                .unwrap_or(Value::Null),
        );
        m.insert("type".into(), Value::from(e.entry_type().name()));
        if let Some(role) = e.role() {
            m.insert("role".into(), Value::from(role));
        }
        m.insert("summary".into(), Value::from(describe(&e)));
        if let Some(l) = labels.get(&i) {
            m.insert("label".into(), Value::from(l.clone()));
        }
        m.insert(
            "children".into(),
            Value::Array(
                tree.children(i)
                    .map(|c| s.entry(c).id_value().unwrap_or(Value::Null))
                    .collect(),
            ),
        );
        entries.push(Value::Object(m));
    }
    let mut leaves = Vec::new();
    for l in tree.leaves() {
        // Planned, not built: no message is parsed.
        let p = s.plan(Some(l));
        let mut m = Map::new();
        m.insert("id".into(), p.leaf_id());
        m.insert("line".into(), Value::from(s.entry(l).line()));
        m.insert("default".into(), Value::Bool(Some(l) == s.default_leaf()));
        m.insert("messages".into(), Value::from(project::message_count(s, l)));
        m.insert("model".into(), p.model().clone());
        if let Some(t) = p.thinking_level() {
            m.insert("thinkingLevel".into(), t.clone());
        }
        m.insert("depth".into(), Value::from(s.path_to(l).len()));
        leaves.push(Value::Object(m));
    }
    let mut doc = Map::new();
    doc.insert("sessionId".into(), Value::from(s.header().id()));
    doc.insert(
        "defaultLeafId".into(),
        s.default_leaf()
            .and_then(|l| s.entry(l).id_value())
            .unwrap_or(Value::Null),
    );
    doc.insert(
        "roots".into(),
        Value::Array(
            tree.roots()
                .map(|r| s.entry(r).id_value().unwrap_or(Value::Null))
                .collect(),
        ),
    );
    doc.insert("leaves".into(), Value::Array(leaves));
    doc.insert("entries".into(), Value::Array(entries));
    Value::Object(doc)
}
