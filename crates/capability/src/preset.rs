//! Preset system-prompt helpers that run before the capability projection (spec §5.9), and
//! pi-ai's system-prompt text helpers they rely on.

use forge_replay_model::js;
use serde_json::{Map, Value};

/// Pi's built-in system prompt section keys.
pub const BUILTIN_BASE_KEYS: [&str; 8] = [
    "preamble",
    "tools",
    "rules",
    "docs",
    "addendum",
    "project_context",
    "skills",
    "cwd",
];

fn is_system(m: &Value) -> bool {
    m.get("role").and_then(Value::as_str) == Some("system")
}

/// pi-ai `contentText(content, separator)`.
pub fn content_text(content: Option<&Value>, separator: &str) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .map(|b| match b.get("text") {
                Some(Value::String(s)) => s.clone(),
                other => js::to_string(other),
            })
            .collect::<Vec<_>>()
            .join(separator),
        _ => String::new(),
    }
}

/// `projectPresetSystemPrompt(messages, compiled)`: the first system message gets `content =
/// compiled`; every system message loses built-in section keys (`sections` is deleted when
/// nothing remains); without a system message one is prepended with `timestamp: 0`.
pub fn project_preset_system_prompt(messages: Vec<Value>, compiled: &str) -> Vec<Value> {
    let mut first = true;
    let mut out: Vec<Value> = messages
        .into_iter()
        .map(|mut m| {
            if !is_system(&m) {
                return m;
            }
            if let Value::Object(obj) = &mut m {
                if first {
                    obj.insert("content".into(), Value::from(compiled));
                    first = false;
                }
                if let Some(Value::Object(sections)) = obj.get_mut("sections") {
                    sections.retain(|k, _| !BUILTIN_BASE_KEYS.contains(&k.as_str()));
                    if sections.is_empty() {
                        obj.shift_remove("sections");
                    }
                }
            }
            m
        })
        .collect();
    if first {
        let mut m = Map::new();
        m.insert("role".into(), Value::from("system"));
        m.insert("content".into(), Value::from(compiled));
        m.insert("timestamp".into(), Value::from(0));
        out.insert(0, Value::Object(m));
    }
    out
}

/// pi-ai `getCurrentSystemPrompt(messages)`.
pub fn current_system_prompt(messages: &[Value]) -> String {
    let mut content: Vec<String> = Vec::new();
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut any = false;
    for m in messages.iter().filter(|m| is_system(m)) {
        any = true;
        let text = content_text(m.get("content"), "\n");
        if !text.is_empty() {
            content.push(text);
        }
        if let Some(Value::Object(s)) = m.get("sections") {
            for (name, value) in forge_replay_model::json::js_key_order(s) {
                match value {
                    Value::Null => sections.retain(|(n, _)| n != name),
                    v => {
                        let text = v
                            .as_str()
                            .map_or_else(|| js::to_string(Some(v)), str::to_string);
                        match sections.iter_mut().find(|(n, _)| n == name) {
                            Some(slot) => slot.1 = text,
                            None => sections.push((name.clone(), text)),
                        }
                    }
                }
            }
        }
        let has_tools = m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty());
        any |= has_tools;
    }
    if !any {
        return String::new();
    }
    let mut parts = vec![content.join("\n\n")];
    parts.extend(sections.into_iter().map(|(_, v)| v));
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `getPiBasePrompt(messages, fallback)`: Pi's prompt from the system messages, keeping only the
/// first one's content and only built-in sections.
pub fn pi_base_prompt(messages: &[Value], fallback: &str) -> String {
    let copies: Vec<Value> = messages
        .iter()
        .filter(|m| is_system(m))
        .enumerate()
        .map(|(i, m)| {
            let mut c = Map::new();
            c.insert("role".into(), Value::from("system"));
            c.insert(
                "content".into(),
                if i == 0 {
                    m.get("content").cloned().unwrap_or(Value::from(""))
                } else {
                    Value::from("")
                },
            );
            if let Some(Value::Object(s)) = m.get("sections") {
                let kept: Map<String, Value> = s
                    .iter()
                    .filter(|(k, _)| BUILTIN_BASE_KEYS.contains(&k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                c.insert("sections".into(), Value::Object(kept));
            }
            c.insert(
                "timestamp".into(),
                m.get("timestamp").cloned().unwrap_or(Value::from(0)),
            );
            Value::Object(c)
        })
        .collect();
    if copies.is_empty() {
        return fallback.to_string();
    }
    current_system_prompt(&copies)
}
