//! Typed views of Pi 0.87.1 session JSONL lines (`pi-coding-agent/dist/core/session-manager.js`).
//!
//! These are *views*: the session reader keeps each entry's raw JSON object, key order included,
//! so an entry written back is the same JSON. The types here give names to the fields Pi defines.
//! Fields whose shape Pi does not check (message payloads, `details`, `usage`, …) stay
//! [`serde_json::Value`]. Optional fields are `Option` and are absent in the JSON when `None`.
//! Unknown fields are collected in `extra` so nothing is lost when a view is built.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `CURRENT_SESSION_VERSION` in Pi 0.87.1.
pub const CURRENT_SESSION_VERSION: u32 = 3;

/// The `type` field of a session line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryType {
    /// `session`: the header (first line). Later `session` lines are ignored by Pi.
    Session,
    Message,
    ModelChange,
    ThinkingLevelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    ContextEdit,
    Label,
    SessionInfo,
    Usage,
    /// A `type` string Pi 0.87.1 does not define (kept, never projected).
    Unknown(String),
    /// No string `type` (absent, or not a string; or the line is not an object).
    Missing,
}

impl EntryType {
    /// Every entry type Pi 0.87.1 writes, header included.
    pub const KNOWN: [&'static str; 12] = [
        "session",
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "context_edit",
        "label",
        "session_info",
        "usage",
    ];

    /// Maps a `type` string to its variant.
    pub fn from_name(name: &str) -> Self {
        match name {
            "session" => Self::Session,
            "message" => Self::Message,
            "model_change" => Self::ModelChange,
            "thinking_level_change" => Self::ThinkingLevelChange,
            "compaction" => Self::Compaction,
            "branch_summary" => Self::BranchSummary,
            "custom" => Self::Custom,
            "custom_message" => Self::CustomMessage,
            "context_edit" => Self::ContextEdit,
            "label" => Self::Label,
            "session_info" => Self::SessionInfo,
            "usage" => Self::Usage,
            other => Self::Unknown(other.to_string()),
        }
    }

    /// The `type` string (`""` for [`EntryType::Missing`]).
    pub fn name(&self) -> &str {
        match self {
            Self::Session => "session",
            Self::Message => "message",
            Self::ModelChange => "model_change",
            Self::ThinkingLevelChange => "thinking_level_change",
            Self::Compaction => "compaction",
            Self::BranchSummary => "branch_summary",
            Self::Custom => "custom",
            Self::CustomMessage => "custom_message",
            Self::ContextEdit => "context_edit",
            Self::Label => "label",
            Self::SessionInfo => "session_info",
            Self::Usage => "usage",
            Self::Unknown(s) => s,
            Self::Missing => "",
        }
    }

    /// The fields Pi 0.87.1 writes for this type, besides `type`, `id`, `parentId`, `timestamp`.
    /// `None` for unknown types.
    pub fn known_fields(&self) -> Option<&'static [&'static str]> {
        Some(match self {
            Self::Session => &["version", "cwd", "parentSession"],
            Self::Message => &["message"],
            Self::ModelChange => &["provider", "modelId"],
            Self::ThinkingLevelChange => &["thinkingLevel"],
            Self::Compaction => &[
                "summary",
                "firstKeptEntryId",
                "tokensBefore",
                "details",
                "usage",
                "fromHook",
                "systemMessage",
            ],
            Self::BranchSummary => &["fromId", "summary", "details", "usage", "fromHook"],
            Self::Custom => &["customType", "data"],
            Self::CustomMessage => &["customType", "content", "display", "details"],
            Self::ContextEdit => &["targetId", "replacement"],
            Self::Label => &["targetId", "label"],
            Self::SessionInfo => &["name"],
            Self::Usage => &["kind", "provider", "model", "usage", "note"],
            Self::Unknown(_) | Self::Missing => return None,
        })
    }
}

impl std::fmt::Display for EntryType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing => f.write_str("(no type)"),
            other => f.write_str(other.name()),
        }
    }
}

/// The fields Pi 0.87.1 defines for a message of the given role (`role` included).
/// `None` for roles it does not define.
pub fn known_message_fields(role: &str) -> Option<&'static [&'static str]> {
    Some(match role {
        "system" => &[
            "role",
            "content",
            "sections",
            "toolsAdded",
            "toolsRemoved",
            "timestamp",
        ],
        "user" => &["role", "content", "timestamp"],
        "assistant" => &[
            "role",
            "content",
            "api",
            "provider",
            "model",
            "responseModel",
            "responseId",
            "providerThinkingLevel",
            "diagnostics",
            "usage",
            "stopReason",
            "deferred",
            "errorMessage",
            "rawStopReason",
            "endTurn",
            "timestamp",
        ],
        "toolResult" => &[
            "role",
            "toolCallId",
            "toolName",
            "content",
            "details",
            "usage",
            "isError",
            "timestamp",
        ],
        "bashExecution" => &[
            "role",
            "command",
            "output",
            "exitCode",
            "cancelled",
            "truncated",
            "fullOutputPath",
            "excludeFromContext",
            "timestamp",
        ],
        "custom" => &[
            "role",
            "customType",
            "content",
            "display",
            "details",
            "timestamp",
        ],
        "branchSummary" => &["role", "summary", "fromId", "timestamp"],
        "compactionSummary" => &["role", "summary", "tokensBefore", "timestamp"],
        _ => return None,
    })
}

/// A present field, `null` included (`Some(Value::Null)`); absent fields stay `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The header line: `{"type":"session","version":3,"id",...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub version: Option<Value>,
    pub id: String,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub cwd: Option<Value>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_session: Option<Value>,
    /// Fields Pi does not define.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in EntryType::KNOWN {
            assert_eq!(EntryType::from_name(name).name(), name);
        }
        assert_eq!(EntryType::from_name("future").name(), "future");
    }
}

// ---------------------------------------------------------------------------------------------
// What is a Pi session

/// One line as Pi's `loadEntriesFromFile` reads it before it has a header: blank lines
/// (JavaScript `trim()`), lines `JSON.parse` rejects and falsy values are skipped; the first
/// line left decides whether the file is a session ([`check_header`]).
#[derive(Debug)]
pub enum FirstLine {
    Blank,
    Invalid(crate::json::ParseError),
    /// `null`, `false`, `0` or `""`.
    Falsy(&'static str),
    Kept(Value),
}

/// Classifies one line (its text, decoded as Pi decodes files: UTF-8 with U+FFFD).
pub fn classify_line(text: &str) -> FirstLine {
    if crate::js::trim(text).is_empty() {
        return FirstLine::Blank;
    }
    match crate::json::parse(text) {
        Err(e) => FirstLine::Invalid(e),
        Ok(v) => match &v {
            Value::Null => FirstLine::Falsy("null"),
            Value::Bool(false) => FirstLine::Falsy("false"),
            Value::Number(n) if crate::json::number_to_f64(n) == 0.0 => FirstLine::Falsy("0"),
            Value::String(s) if s.is_empty() => FirstLine::Falsy("\"\""),
            _ => FirstLine::Kept(v),
        },
    }
}

/// Why the first kept line does not make a file a session forge-replay reads. One definition
/// for every reader: `usage FILE`, `usage --corpus`, `check`, `replay`, … (Pi's own test is
/// `type === "session"` with a string `id`; forge-replay also refuses versions it cannot read).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderProblem {
    #[error("the first JSON line must be a `session` header with a string `id`, found a JSON value that is not an object: {shown:?}")]
    NotAnObject { shown: String },
    #[error("the first JSON line must be a `session` header with a string `id`, found an entry of type {found:?}")]
    NotAHeader { found: String },
    #[error("the first JSON line must be a `session` header with a string `id`, found a `session` line without a string `id`")]
    NoStringId,
    #[error("unsupported session version {version}: forge-replay reads Pi 0.87.1 session files (version 3, and older versions migrated as Pi does)")]
    UnsupportedVersion {
        /// The version as written (`4`, or `v4 (kind "header")` for pi-agent-core's format).
        version: String,
    },
}

/// Checks the first kept value of a file (`text` is its line, shown when it is not an object).
pub fn check_header(value: &Value, text: &str) -> Result<(), HeaderProblem> {
    let Value::Object(o) = value else {
        let mut shown: String = text.chars().take(40).collect();
        if shown.len() < text.len() {
            shown.push('…');
        }
        return Err(HeaderProblem::NotAnObject { shown });
    };
    if o.get("kind").and_then(Value::as_str) == Some("header") {
        let v = o
            .get("v")
            .map_or_else(|| "?".to_string(), crate::json::stringify);
        return Err(HeaderProblem::UnsupportedVersion {
            version: format!("{v} (pi-agent-core's JSONL format, `kind: \"header\"`)"),
        });
    }
    match o.get("type").and_then(Value::as_str) {
        Some("session") => {}
        Some(other) => {
            return Err(HeaderProblem::NotAHeader {
                found: other.to_string(),
            })
        }
        None => {
            return Err(HeaderProblem::NotAHeader {
                found: String::new(),
            })
        }
    }
    if !o.get("id").is_some_and(Value::is_string) {
        return Err(HeaderProblem::NoStringId);
    }
    if let Some(v) = o.get("version") {
        if v.as_f64()
            .is_some_and(|n| n > f64::from(CURRENT_SESSION_VERSION))
        {
            return Err(HeaderProblem::UnsupportedVersion {
                version: crate::json::stringify(v),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod header_tests {
    use super::*;

    fn check(line: &str) -> Result<(), HeaderProblem> {
        match classify_line(line) {
            FirstLine::Kept(v) => check_header(&v, line),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn what_is_a_session() {
        check(r#"{"type":"session","version":3,"id":"a"}"#).unwrap();
        check(r#"{"type":"session","id":"a"}"#).unwrap();
        check(r#"{"type":"session","version":1,"id":"\ud800x"}"#).unwrap();
        assert!(matches!(
            check(r#"{"type":"session","version":99,"id":"a"}"#),
            Err(HeaderProblem::UnsupportedVersion { version }) if version == "99"
        ));
        assert!(matches!(
            check(r#"{"kind":"header","v":4}"#),
            Err(HeaderProblem::UnsupportedVersion { .. })
        ));
        assert!(matches!(
            check(r#"{"type":"message","id":"a"}"#),
            Err(HeaderProblem::NotAHeader { found }) if found == "message"
        ));
        assert_eq!(
            check(r#"{"type":"session","id":5}"#),
            Err(HeaderProblem::NoStringId)
        );
        assert!(matches!(check("5"), Err(HeaderProblem::NotAnObject { .. })));
        assert!(matches!(
            check("[1]"),
            Err(HeaderProblem::NotAnObject { .. })
        ));
        assert!(matches!(classify_line("  \t"), FirstLine::Blank));
        assert!(matches!(classify_line("{oops"), FirstLine::Invalid(_)));
        assert!(matches!(classify_line("0"), FirstLine::Falsy("0")));
        assert!(matches!(classify_line("\"\""), FirstLine::Falsy(_)));
        assert!(matches!(
            classify_line("\u{feff}{\"a\":1}"),
            FirstLine::Invalid(_)
        ));
    }
}
