//! One-line descriptions of entries for people (`forge-replay tree`, the HTML session report).

use std::collections::HashMap;
use std::fmt::Write as _;

use forge_replay_model::js;
use forge_replay_model::json;
use serde_json::Value;

use crate::{Entry, EntryType, Session};

const PREVIEW: usize = 60;

/// `labelsById` as Pi builds it: file order, an empty label clears.
pub fn labels(s: &Session) -> HashMap<usize, String> {
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

/// A string value as is, any other value as JSON, a missing one as `?`.
pub fn str_or_json(v: Option<&Value>) -> String {
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

/// A one-line description of an entry, as `forge-replay tree` prints it (message texts cut at
/// 60 characters and quoted).
pub fn describe(e: &Entry) -> String {
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
                format!(
                    "(not an object) {}",
                    preview(&e.raw().map(|r| r.into_owned()).unwrap_or_default())
                )
            }
        }
    }
}

/// The entry id as written (a non-string id as JSON), or `(no id)`.
pub fn id_text(e: &Entry) -> String {
    match e.id_value() {
        Some(Value::String(s)) => s,
        Some(other) => json::stringify(&other),
        None => "(no id)".to_string(),
    }
}
