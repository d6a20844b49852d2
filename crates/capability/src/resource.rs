//! Capability resource codec (spec §1.2, §1.3): `parseCapability` with pi-forge's exact check
//! order, limits and diagnostics, and the canonical on-disk serializer.

use forge_replay_model::js;
use forge_replay_model::json;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::valid;

/// `CAPABILITY_TYPE`.
pub const CAPABILITY_TYPE: &str = "pi-forge.capability";
/// `MAX_CONTENT_LENGTH` (UTF-16 units).
pub const MAX_CONTENT_LENGTH: usize = 100_000;
/// `MAX_TOOL_ARRAY_LENGTH`.
pub const MAX_TOOL_ARRAY_LENGTH: usize = 256;
/// `MAX_TOOL_NAME_LENGTH` (UTF-16 units).
pub const MAX_TOOL_NAME_LENGTH: usize = 128;
/// `MAX_CAPABILITY_NAME_LENGTH` (UTF-16 units).
pub const MAX_CAPABILITY_NAME_LENGTH: usize = 1000;

const ROOT_FIELDS: [&str; 7] = [
    "schemaVersion",
    "type",
    "id",
    "name",
    "description",
    "content",
    "tools",
];

/// Diagnostic severity. The codec only produces errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
}

/// `{level, message, field?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub level: Level,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl Diagnostic {
    /// An error diagnostic.
    pub fn error(field: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            level: Level::Error,
            message: message.into(),
            field: field.map(str::to_string),
        }
    }
}

/// A tool patch: names added and removed, in order (duplicates preserved).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolPatch {
    pub add: Vec<String>,
    pub remove: Vec<String>,
}

impl ToolPatch {
    /// `{add, remove}` as JSON.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("add".into(), strings(&self.add));
        m.insert("remove".into(), strings(&self.remove));
        Value::Object(m)
    }

    /// True when neither list names a tool.
    pub fn is_empty(&self) -> bool {
        self.add.is_empty() && self.remove.is_empty()
    }
}

pub(crate) fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

/// A normalized capability resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capability {
    pub id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub content: String,
    pub tools: ToolPatch,
}

impl Capability {
    /// The fallback record for unusable input: empty content, no tools.
    pub fn fallback(id: &str) -> Self {
        Self {
            id: id.to_string(),
            name: None,
            description: None,
            content: String::new(),
            tools: ToolPatch::default(),
        }
    }

    /// The normalized object, in pi-forge's key order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("schemaVersion".into(), Value::from(1));
        m.insert("type".into(), Value::from(CAPABILITY_TYPE));
        m.insert("id".into(), Value::from(self.id.clone()));
        if let Some(n) = &self.name {
            m.insert("name".into(), Value::from(n.clone()));
        }
        if let Some(d) = &self.description {
            m.insert("description".into(), Value::from(d.clone()));
        }
        m.insert("content".into(), Value::from(self.content.clone()));
        m.insert("tools".into(), self.tools.to_value());
        Value::Object(m)
    }

    /// The canonical on-disk form: `JSON.stringify(capability, null, 2) + "\n"`.
    pub fn serialize(&self) -> String {
        let mut s = json::stringify_pretty(&self.to_value());
        s.push('\n');
        s
    }
}

/// A decoded capability plus its diagnostics; usable iff no error diagnostic.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub capability: Capability,
    pub diagnostics: Vec<Diagnostic>,
}

impl Decoded {
    /// No error diagnostic.
    pub fn is_usable(&self) -> bool {
        !self.diagnostics.iter().any(|d| d.level == Level::Error)
    }

    /// The first error message, if any.
    pub fn first_error(&self) -> Option<&str> {
        self.diagnostics
            .iter()
            .find(|d| d.level == Level::Error)
            .map(|d| d.message.as_str())
    }
}

/// Diagnostics de-duplicated on `(level, field ?? "", message)`, first occurrence kept.
#[derive(Debug, Default)]
pub(crate) struct Diags(pub Vec<Diagnostic>);

impl Diags {
    pub(crate) fn push(&mut self, field: Option<&str>, message: impl Into<String>) {
        let d = Diagnostic::error(field, message);
        let dup = self.0.iter().any(|e| {
            e.level == d.level
                && e.field.as_deref().unwrap_or("") == d.field.as_deref().unwrap_or("")
                && e.message == d.message
        });
        if !dup {
            self.0.push(d);
        }
    }
}

/// The tool-list validator (§1.3) with field name `field`; returns the valid names in order.
pub(crate) fn validate_tool_list(value: &Value, field: &str, diags: &mut Diags) -> Vec<String> {
    let Value::Array(items) = value else {
        diags.push(
            Some(field),
            format!("{field} must be an array of tool names."),
        );
        return Vec::new();
    };
    if items.len() > MAX_TOOL_ARRAY_LENGTH {
        diags.push(
            Some(field),
            format!(
                "{field} cannot exceed {MAX_TOOL_ARRAY_LENGTH} tools (got {}).",
                items.len()
            ),
        );
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let f = format!("{field}[{i}]");
        let msg = match item {
            Value::String(s) if s.is_empty() => {
                Some(format!("Tool name at index {i} cannot be empty."))
            }
            Value::String(s) if js::len(s) > MAX_TOOL_NAME_LENGTH => Some(format!(
                "Tool name at index {i} exceeds maximum length of {MAX_TOOL_NAME_LENGTH} characters."
            )),
            Value::String(s) if js::has_whitespace(s) => Some(format!(
                "Tool name at index {i} (\"{s}\") cannot contain whitespace."
            )),
            Value::String(s) if s.chars().any(valid::is_ascii_control) => Some(format!(
                "Tool name at index {i} cannot contain control characters."
            )),
            Value::String(s) if s.contains(['*', '?']) => Some(format!(
                "Tool name at index {i} (\"{s}\") cannot contain wildcard characters (* or ?)."
            )),
            Value::String(s) => {
                out.push(s.clone());
                None
            }
            _ => Some(format!("Tool name at index {i} must be a string.")),
        };
        if let Some(m) = msg {
            diags.push(Some(&f), m);
        }
    }
    out
}

/// `parseCapability(value, fallbackId)` on an already-parsed JSON value.
pub fn decode_capability(value: &Value, fallback_id: Option<&str>) -> Decoded {
    let mut diags = Diags::default();
    let Value::Object(root) = value else {
        diags.push(None, "Capability capability root must be a JSON object.");
        return Decoded {
            capability: Capability::fallback(fallback_id.unwrap_or("unknown")),
            diagnostics: diags.0,
        };
    };
    // JavaScript enumerates integer-like keys first.
    for (k, _) in json::js_key_order(root) {
        if !ROOT_FIELDS.contains(&k.as_str()) {
            diags.push(Some(k), format!("Unsupported capability field: {k}"));
        }
    }
    if !valid::is_one(root.get("schemaVersion")) {
        diags.push(Some("schemaVersion"), "schemaVersion must be 1.");
    }
    if root.get("type").and_then(Value::as_str) != Some(CAPABILITY_TYPE) {
        diags.push(Some("type"), "type must be \"pi-forge.capability\".");
    }
    let raw_id = root.get("id");
    let id_ok = matches!(raw_id, Some(Value::String(s)) if valid::is_resource_id(s));
    if !id_ok {
        diags.push(
            Some("id"),
            "Capability capability id must start with a letter or number and contain only letters, numbers, dots, underscores, and hyphens.",
        );
    }
    let id = match raw_id {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => fallback_id.unwrap_or("").to_string(),
    };
    let mut name = None;
    if let Some(n) = root.get("name") {
        match n {
            Value::String(s) if js::len(s) > MAX_CAPABILITY_NAME_LENGTH => diags.push(
                Some("name"),
                format!("name exceeds maximum length of {MAX_CAPABILITY_NAME_LENGTH} characters."),
            ),
            Value::String(s) => name = Some(s.clone()),
            _ => diags.push(Some("name"), "name must be a string when provided."),
        }
    }
    let mut description = None;
    if let Some(d) = root.get("description") {
        match d {
            Value::String(s) => description = Some(s.clone()),
            _ => diags.push(
                Some("description"),
                "description must be a string when provided.",
            ),
        }
    }
    let content_is_string;
    let content = match root.get("content") {
        Some(Value::String(s)) => {
            content_is_string = true;
            if js::len(s) > MAX_CONTENT_LENGTH {
                diags.push(
                    Some("content"),
                    format!("content exceeds maximum length of {MAX_CONTENT_LENGTH} characters."),
                );
            }
            s.clone()
        }
        _ => {
            content_is_string = false;
            diags.push(Some("content"), "content must be a string.");
            String::new()
        }
    };
    let mut tools = ToolPatch::default();
    if let Some(t) = root.get("tools") {
        match t {
            Value::Object(tm) => {
                for (k, _) in json::js_key_order(tm) {
                    if k != "add" && k != "remove" {
                        diags.push(
                            Some(&format!("tools.{k}")),
                            format!("Unsupported tools field: {k}"),
                        );
                    }
                }
                if let Some(a) = tm.get("add") {
                    tools.add = validate_tool_list(a, "tools.add", &mut diags);
                }
                if let Some(r) = tm.get("remove") {
                    tools.remove = validate_tool_list(r, "tools.remove", &mut diags);
                }
            }
            _ => diags.push(Some("tools"), "tools must be an object."),
        }
    }
    if content_is_string && js::trim(&content).is_empty() && tools.is_empty() {
        diags.push(
            None,
            "Capability capability must have non-empty content or at least one tool effect (add or remove).",
        );
    }
    Decoded {
        capability: Capability {
            id,
            name,
            description,
            content,
            tools,
        },
        diagnostics: diags.0,
    }
}

/// `parseCapability` on raw text: a JSON parse failure is a single fault diagnostic
/// `Failed to parse JSON: <message>` with the fallback capability.
///
/// The message after the prefix is V8's `JSON.parse` text (spec §9 marks it engine-specific);
/// [`forge_replay_model::js::json_parse_error`] reproduces Node 22's wording (its conformance table
/// checks every error kind against Node 22).
pub fn parse_capability(text: &str, fallback_id: &str) -> Decoded {
    match json::parse(text) {
        Ok(v) => decode_capability(&v, Some(fallback_id)),
        Err(e) => Decoded {
            capability: Capability::fallback(fallback_id),
            diagnostics: vec![Diagnostic::error(
                None,
                format!(
                    "Failed to parse JSON: {}",
                    js::json_parse_error(text)
                        .unwrap_or_else(|| format!("{} at column {}", e.message, e.column))
                ),
            )],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_of_normalized_value() {
        let d = decode_capability(
            &json!({"tools":{"remove":["b"]},"content":"x","id":"a","type":CAPABILITY_TYPE,"schemaVersion":1,"name":"N"}),
            None,
        );
        assert!(d.is_usable(), "{:?}", d.diagnostics);
        assert_eq!(
            json::stringify(&d.capability.to_value()),
            r#"{"schemaVersion":1,"type":"pi-forge.capability","id":"a","name":"N","content":"x","tools":{"add":[],"remove":["b"]}}"#
        );
    }
}
