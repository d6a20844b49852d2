//! `forge-replay context --format text`: one line per message (position, role, a short
//! description), written as the messages come ([`Lines`]).

use forge_replay_model::{json, transcode};
use forge_replay_session::{ContextPlan, ProjectError};
use serde_json::Value;

/// The text lines of `context --format text`.
#[derive(Debug)]
pub struct Lines {
    /// Lines not taken yet ([`Lines::take`]).
    text: String,
    count: usize,
    leaf: String,
}

impl Lines {
    /// No lines yet, at `leaf` (a JSON string; anything else shows `(none)`).
    pub fn new(leaf: Option<&Value>) -> Lines {
        let leaf = match leaf {
            Some(Value::String(s)) => s.clone(),
            _ => "(none)".to_owned(),
        };
        Lines {
            text: String::new(),
            count: 0,
            leaf,
        }
    }

    /// One line for one message.
    pub fn push(&mut self, m: &Value) {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        self.text.push_str(&format!(
            "{:>3}  {role:<17} {}\n",
            self.count,
            describe_message(m)
        ));
        self.count += 1;
    }

    /// The lines not taken yet, without the count line.
    pub fn take(&mut self) -> String {
        std::mem::take(&mut self.text)
    }

    /// The lines not taken yet and the count line.
    pub fn finish(&mut self) -> String {
        let mut t = std::mem::take(&mut self.text);
        t.push_str(&format!(
            "{} at leaf {} · the messages in full: --format json (the default when stdout is not a terminal)\n",
            if self.count == 1 {
                "1 message".to_owned()
            } else {
                format!("{} messages", self.count)
            },
            self.leaf
        ));
        t
    }
}

/// A short description of one message: its text (first line, cut at 60 characters), its tool
/// calls, or what a special message holds.
pub fn describe_message(m: &Value) -> String {
    let cut = |s: &str| {
        let first = s
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        let short: String = first.chars().take(60).collect();
        let more = first.chars().count() > 60 || s.trim().lines().count() > 1;
        format!("{short:?}{}", if more { " …" } else { "" })
    };
    let mut parts = Vec::new();
    let mut chars = 0usize;
    match m.get("content") {
        Some(Value::String(s)) => {
            chars += s.chars().count();
            if !s.is_empty() {
                parts.push(cut(s));
            }
        }
        Some(Value::Array(blocks)) => {
            let mut shown = false;
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let t = b.get("text").and_then(Value::as_str).unwrap_or("");
                        chars += t.chars().count();
                        if !shown {
                            parts.push(cut(t));
                            shown = true;
                        }
                    }
                    Some("toolCall") => parts.push(format!(
                        "call {}",
                        b.get("name").and_then(Value::as_str).unwrap_or("?")
                    )),
                    Some("thinking") => parts.push("thinking".to_owned()),
                    Some("image") => parts.push("image".to_owned()),
                    Some(other) => parts.push(other.to_owned()),
                    None => {}
                }
            }
        }
        _ => {}
    }
    if let Some(name) = m.get("toolName").and_then(Value::as_str) {
        parts.insert(0, format!("result of {name}"));
    }
    if let Some(s) = m.get("summary").and_then(Value::as_str) {
        chars += s.chars().count();
        parts.push(cut(s));
    }
    if let Some(c) = m.get("command").and_then(Value::as_str) {
        parts.push(format!("$ {}", cut(c).trim_matches('"')));
    }
    if let Some(sections) = m.get("sections").and_then(Value::as_object) {
        let names: Vec<&str> = sections.keys().map(String::as_str).collect();
        parts.push(format!("sections: {}", names.join(", ")));
    }
    if let Some(tools) = m.get("toolsAdded").and_then(Value::as_array) {
        parts.push(format!(
            "{} {} added",
            tools.len(),
            if tools.len() == 1 { "tool" } else { "tools" }
        ));
    }
    if let Some(model) = m.get("model").and_then(Value::as_str) {
        let provider = m.get("provider").and_then(Value::as_str).unwrap_or("?");
        parts.push(format!("[{provider}/{model}]"));
    }
    if chars > 60 {
        parts.push(format!("{chars} chars"));
    }
    if parts.is_empty() {
        "(empty)".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// Where `context` writes: framing bytes that hold no input data, JSON text, plain text. The
/// caller redacts each piece it is given (one message at a time).
pub trait ContextSink {
    fn frame(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    fn json(&mut self, text: &str) -> std::io::Result<()>;
    fn text(&mut self, text: &str) -> std::io::Result<()>;
}

/// The CLI's writer: each piece redacted as it is written.
impl<W: std::io::Write> ContextSink for forge_replay_model::redact::RedactingWriter<W> {
    fn frame(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        forge_replay_model::redact::RedactingWriter::frame(self, bytes)
    }
    fn json(&mut self, text: &str) -> std::io::Result<()> {
        forge_replay_model::redact::RedactingWriter::json(self, text)
    }
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        forge_replay_model::redact::RedactingWriter::text(self, text)
    }
}

/// Errors of [`write_text`] and [`write_streamed`].
#[derive(Debug, thiserror::Error)]
pub enum ContextWriteError {
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The text of a whole context document `{"leafId", "messages"}` (as the capability projection
/// builds it), the lines [`write_text`] writes.
pub fn document_text(doc: &Value) -> String {
    let mut lines = Lines::new(doc.get("leafId"));
    for m in doc["messages"].as_array().into_iter().flatten() {
        lines.push(m);
    }
    lines.finish()
}

/// A context message, or with `llm` its `convertToLlm` form (`None`: dropped by it).
fn converted(message: Value, llm: bool) -> Option<Value> {
    if llm {
        forge_replay_session::llm::convert_message(&message)
    } else {
        Some(message)
    }
}

/// `context --format text`: one line per message (position, role, a short description), one
/// context entry at a time as [`write_streamed`] does.
pub fn write_text<S: ContextSink>(
    out: &mut S,
    plan: &ContextPlan<'_>,
    llm: bool,
) -> Result<(), ContextWriteError> {
    let leaf = plan.leaf_id();
    let mut lines = Lines::new(Some(&leaf));
    for pos in 0..plan.entries().len() {
        for message in plan.entry_messages(pos)? {
            let Some(message) = converted(message, llm) else {
                continue;
            };
            lines.push(&message);
            out.text(&lines.take())?;
        }
    }
    out.text(&lines.finish())?;
    Ok(())
}

/// Writes `JSON.stringify({leafId, messages}, null, 2)` one context entry at a time, so a large
/// context is never held in memory at once (the bytes equal `stringify_pretty` of the whole
/// document; a test checks it). Each message is given to the sink on its own.
pub fn write_streamed<S: ContextSink>(
    out: &mut S,
    plan: &ContextPlan<'_>,
    llm: bool,
) -> Result<(), ContextWriteError> {
    out.frame(b"{\n  \"leafId\": ")?;
    out.json(&json::stringify_pretty(&plan.leaf_id()))?;
    out.frame(b",\n  \"messages\": [")?;
    let mut first = true;
    let mut text = String::new();
    for pos in 0..plan.entries().len() {
        // A message stored in canonical form is re-indented straight from the line's text.
        if !llm {
            if let Some(raw) = plan.entry_message_raw(pos) {
                text.clear();
                if transcode::transcode_pretty_requiring(&raw, 2, "content", &mut text) {
                    out.frame(if first { b"\n    " } else { b",\n    " })?;
                    first = false;
                    out.json(&text)?;
                    continue;
                }
            }
        }
        for message in plan.entry_messages(pos)? {
            let Some(message) = converted(message, llm) else {
                continue;
            };
            out.frame(if first { b"\n    " } else { b",\n    " })?;
            first = false;
            // JSON text has no raw newlines inside strings, so re-indenting lines is exact.
            let text = json::stringify_pretty(&message);
            out.json(&text.replace('\n', "\n    "))?;
        }
    }
    out.frame(if first { b"]\n}\n" } else { b"\n  ]\n}\n" })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_is_one_line_per_message_and_the_count() {
        let doc = serde_json::json!({
            "leafId": "e2",
            "messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}],
        });
        let text = document_text(&doc);
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.ends_with("2 messages at leaf e2 · the messages in full: --format json (the default when stdout is not a terminal)\n"), "{text}");
        assert!(document_text(&serde_json::json!({})).starts_with("0 messages at leaf (none)"));
    }
}
