//! `forge-replay context --format text`: one line per message (position, role, a short
//! description), written as the messages come ([`Lines`]).

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
