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

/// Fields every tree entry has. Pi does not validate them, so they are loose here too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryBase {
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<Value>,
    /// `null` for a root.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub parent_id: Option<Value>,
    /// ISO-8601 string.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub timestamp: Option<Value>,
}

/// A typed view of one tree entry, by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypedEntry {
    Message(MessageEntry),
    ModelChange(ModelChangeEntry),
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    Compaction(CompactionEntry),
    BranchSummary(BranchSummaryEntry),
    Custom(CustomEntry),
    CustomMessage(CustomMessageEntry),
    ContextEdit(ContextEditEntry),
    Label(LabelEntry),
    SessionInfo(SessionInfoEntry),
    Usage(UsageEntry),
}

macro_rules! entry_struct {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            #[serde(flatten)]
            pub base: EntryBase,
            $($(#[$fm])* pub $field: $ty,)*
            /// Fields Pi does not define for this type.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    };
}

entry_struct!(
    /// `message`: one AgentMessage (`system`, `user`, `assistant`, `toolResult`,
    /// `bashExecution`, `custom`, …).
    MessageEntry {
        #[serde(default)]
        message: Value,
    }
);
entry_struct!(
    /// `model_change`.
    ModelChangeEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        provider: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        model_id: Option<Value>,
    }
);
entry_struct!(
    /// `thinking_level_change`.
    ThinkingLevelChangeEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        thinking_level: Option<Value>,
    }
);
entry_struct!(
    /// `compaction`: the latest one on a path starts the context.
    CompactionEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        summary: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        first_kept_entry_id: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        tokens_before: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        usage: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        from_hook: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        system_message: Option<Value>,
    }
);
entry_struct!(
    /// `branch_summary`.
    BranchSummaryEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        from_id: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        summary: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        usage: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        from_hook: Option<Value>,
    }
);
entry_struct!(
    /// `custom`: extension state, never in context.
    CustomEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        custom_type: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    }
);
entry_struct!(
    /// `custom_message`: extension message that is in context (as role `custom`).
    CustomMessageEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        custom_type: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        content: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        display: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
    }
);
entry_struct!(
    /// `context_edit`: replaces (`{content}`) or omits (`null`) another entry's messages.
    ContextEditEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        target_id: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        replacement: Option<Value>,
    }
);
entry_struct!(
    /// `label`: an absent or empty `label` clears it.
    LabelEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        target_id: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        label: Option<Value>,
    }
);
entry_struct!(
    /// `session_info`: the session's display name.
    SessionInfoEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        name: Option<Value>,
    }
);
entry_struct!(
    /// `usage`: accounting only (e.g. `kind: "cache_warm"`).
    UsageEntry {
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        kind: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        provider: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        model: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        usage: Option<Value>,
        #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
        note: Option<Value>,
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_view_keeps_unknown_fields() {
        let v = crate::json::parse(
            r#"{"type":"label","id":"a","parentId":null,"timestamp":"t","targetId":"b","label":"x","extra":1}"#,
        )
        .unwrap();
        let typed: TypedEntry = serde_json::from_value(v).unwrap();
        let TypedEntry::Label(l) = typed else {
            panic!("not a label")
        };
        assert_eq!(l.label, Some(Value::from("x")));
        assert_eq!(l.extra.get("extra"), Some(&Value::from(1)));
    }

    #[test]
    fn names_round_trip() {
        for name in EntryType::KNOWN {
            assert_eq!(EntryType::from_name(name).name(), name);
        }
        assert_eq!(EntryType::from_name("future").name(), "future");
    }
}
