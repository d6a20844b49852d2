//! `forge-replay tree`: a session's tree as a person reads it.
//!
//! Text: one line per entry; a straight run of entries stays at one indent, and each branch point
//! opens `├─`/`└─` children. Leaves show how many messages Pi's context has there, the default
//! leaf (the last entry, as Pi selects on load) is marked, labels are shown next to their target.
//! JSON: a flat list of entries plus the leaves with their model and thinking level.

use std::collections::HashMap;
use std::fmt::Write as _;

use forge_replay_model::js;
use forge_replay_model::json;
use forge_replay_session::{project, Entry, EntryType, Session};
use serde_json::{Map, Value};

use crate::args::{TextOrJson, TreeArgs};
use crate::cmd::context::open_session;
use crate::out::Out;
use crate::Exit;

const PREVIEW: usize = 60;

pub fn run(args: TreeArgs) -> anyhow::Result<Exit> {
    let session = open_session(&args.session)?;
    let labels = labels(&session);
    let mut stdout = Out::stdout();
    match args.format {
        TextOrJson::Text => stdout.text(&render_text(&session, &labels))?,
        TextOrJson::Json => {
            stdout.json(&(json::stringify_pretty(&render_json(&session, &labels)?) + "\n"))?
        }
    }
    stdout.flush()?;
    Ok(Exit::Ok)
}

/// `labelsById` as Pi builds it: file order, an empty label clears.
fn labels(s: &Session) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    for e in s.entries() {
        if *e.entry_type() != EntryType::Label {
            continue;
        }
        let Some(target) = e.target_id_value().and_then(|t| s.tree().get_value(t)) else {
            continue;
        };
        match e.label_value() {
            Some(Value::String(l)) if !l.is_empty() => {
                out.insert(target, l.clone());
            }
            _ => {
                out.remove(&target);
            }
        }
    }
    out
}

fn str_or_json(v: Option<&Value>) -> String {
    match v {
        None => "?".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => json::stringify(other),
    }
}

fn preview(text: &str) -> String {
    let one_line: String = js::trim(text)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out: String = one_line.chars().take(PREVIEW).collect();
    if one_line.chars().count() > PREVIEW {
        out.push('…');
    }
    format!("{out:?}")
}

/// The first text of a message's content (string or text blocks).
fn content_text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) => blocks.iter().find_map(|b| {
            (b.get("type")?.as_str()? == "text")
                .then(|| b.get("text")?.as_str().map(str::to_string))
                .flatten()
        }),
        _ => None,
    }
}

/// A one-line description of an entry.
fn describe(e: &Entry) -> String {
    let v = e.value().unwrap_or(Value::Null);
    let get = |k: &str| v.get(k);
    match e.entry_type() {
        EntryType::Message => {
            let m = get("message");
            let role = e.role().unwrap_or("?");
            let mut s = role.to_string();
            let m_get = |k: &str| m.and_then(|m| m.get(k));
            match role {
                "assistant" => {
                    let _ = write!(
                        s,
                        " {}/{}",
                        str_or_json(m_get("provider")),
                        str_or_json(m_get("model"))
                    );
                    if let Some(stop) = m_get("stopReason").and_then(Value::as_str) {
                        let _ = write!(s, " [{stop}]");
                    }
                    let calls = m_get("content").and_then(Value::as_array).map_or(0, |b| {
                        b.iter()
                            .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                            .count()
                    });
                    if calls > 0 {
                        let _ =
                            write!(s, " {calls} tool call{}", if calls == 1 { "" } else { "s" });
                    }
                }
                "toolResult" => {
                    let _ = write!(s, " {}", str_or_json(m_get("toolName")));
                    if m_get("isError") == Some(&Value::Bool(true)) {
                        s.push_str(" (error)");
                    }
                }
                "bashExecution" => {
                    let _ = write!(s, " {}", preview(&str_or_json(m_get("command"))));
                    return s;
                }
                "system" => {
                    if let Some(Value::Object(sec)) = m_get("sections") {
                        let names: Vec<&str> = sec.keys().map(String::as_str).collect();
                        let _ = write!(s, " sections: {}", names.join(", "));
                    }
                    if let Some(Value::Array(t)) = m_get("toolsAdded") {
                        let _ = write!(s, " +{} tools", t.len());
                    }
                    if let Some(Value::Array(t)) = m_get("toolsRemoved") {
                        let _ = write!(s, " -{} tools", t.len());
                    }
                }
                _ => {}
            }
            if let Some(t) = content_text(m_get("content")).filter(|t| !js::trim(t).is_empty()) {
                let _ = write!(s, " {}", preview(&t));
            }
            s
        }
        EntryType::ModelChange => format!(
            "model → {}/{}",
            str_or_json(get("provider")),
            str_or_json(get("modelId"))
        ),
        EntryType::ThinkingLevelChange => {
            format!("thinking → {}", str_or_json(get("thinkingLevel")))
        }
        EntryType::Compaction => {
            let fk = get("firstKeptEntryId");
            let keeps = if fk.is_some() && fk == get("id") {
                "keeps nothing".to_string()
            } else {
                format!("keeps from {}", str_or_json(fk))
            };
            format!(
                "compaction ({keeps}, tokensBefore {}{})",
                str_or_json(get("tokensBefore")),
                if js::truthy(get("systemMessage")) {
                    ", system checkpoint"
                } else {
                    ""
                }
            )
        }
        EntryType::BranchSummary => format!(
            "branch summary (from {}) {}",
            str_or_json(get("fromId")),
            preview(&str_or_json(get("summary")))
        ),
        EntryType::Custom => format!("custom {}", str_or_json(get("customType"))),
        EntryType::CustomMessage => {
            let mut s = format!("custom_message {}", str_or_json(get("customType")));
            if let Some(t) = content_text(get("content")) {
                let _ = write!(s, " {}", preview(&t));
            }
            s
        }
        EntryType::ContextEdit => format!(
            "context_edit {} → {}",
            str_or_json(get("targetId")),
            if get("replacement") == Some(&Value::Null) {
                "omit"
            } else {
                "replace"
            }
        ),
        EntryType::Label => match get("label") {
            Some(Value::String(l)) if !l.is_empty() => {
                format!("label {} = {l:?}", str_or_json(get("targetId")))
            }
            _ => format!("label {} cleared", str_or_json(get("targetId"))),
        },
        EntryType::SessionInfo => format!("session name {}", str_or_json(get("name"))),
        EntryType::Usage => format!(
            "usage {} {}/{}",
            str_or_json(get("kind")),
            str_or_json(get("provider")),
            str_or_json(get("model"))
        ),
        EntryType::Unknown(t) => format!("{t} (unknown type)"),
        EntryType::Session | EntryType::Missing => {
            if e.is_object() {
                "(no type)".to_string()
            } else {
                format!("(not an object) {}", preview(e.raw()))
            }
        }
    }
}

fn id_text(e: &Entry) -> String {
    match e.id_value() {
        Some(Value::String(s)) => s.clone(),
        Some(other) => json::stringify(other),
        None => "(no id)".to_string(),
    }
}

fn render_text(s: &Session, labels: &HashMap<usize, String>) -> String {
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
        default_leaf.map_or("none".to_string(), |l| id_text(s.entry(l)))
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
        let mut line = format!("{first}{} {}", id_text(e), describe(e));
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

fn render_json(s: &Session, labels: &HashMap<usize, String>) -> anyhow::Result<Value> {
    let tree = s.tree();
    let mut entries = Vec::with_capacity(s.entries().len());
    for (i, e) in s.entries().iter().enumerate() {
        let mut m = Map::new();
        m.insert("line".into(), Value::from(e.line()));
        m.insert("id".into(), e.id_value().cloned().unwrap_or(Value::Null));
        m.insert(
            "parentId".into(),
            tree.parent(i)
                .and_then(|p| s.entry(p).id_value().cloned())
                .unwrap_or(Value::Null),
        );
        m.insert("type".into(), Value::from(e.entry_type().name()));
        if let Some(role) = e.role() {
            m.insert("role".into(), Value::from(role));
        }
        m.insert("summary".into(), Value::from(describe(e)));
        if let Some(l) = labels.get(&i) {
            m.insert("label".into(), Value::from(l.clone()));
        }
        m.insert(
            "children".into(),
            Value::Array(
                tree.children(i)
                    .map(|c| s.entry(c).id_value().cloned().unwrap_or(Value::Null))
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
            .and_then(|l| s.entry(l).id_value().cloned())
            .unwrap_or(Value::Null),
    );
    doc.insert(
        "roots".into(),
        Value::Array(
            tree.roots()
                .map(|r| s.entry(r).id_value().cloned().unwrap_or(Value::Null))
                .collect(),
        ),
    );
    doc.insert("leaves".into(), Value::Array(leaves));
    doc.insert("entries".into(), Value::Array(entries));
    Ok(Value::Object(doc))
}
