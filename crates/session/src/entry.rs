//! One session line: its raw JSON text (kept verbatim) plus a cheap typed head.

use forge_replay_model::json;
use forge_replay_model::session::{EntryType, TypedEntry};
use serde_json::Value;

use crate::head::{Head, MessageHead, MessageShape};

/// A tree entry: every line after the header that Pi keeps.
///
/// The raw line is kept as read (after UTF-8 decoding), so [`Entry::raw`] written back is the same
/// JSON. [`Entry::value`] parses it on demand; the accessors read fields captured while reading.
#[derive(Debug, Clone)]
pub struct Entry {
    pub(crate) line: u64,
    /// Position among the lines Pi parses (header = 0); used by the v1 migration.
    pub(crate) ordinal: u32,
    pub(crate) raw: Box<str>,
    pub(crate) head: Head,
    pub(crate) entry_type: EntryType,
    /// False for a line whose JSON is not an object (Pi keeps it as a field-less entry).
    pub(crate) is_object: bool,
}

impl Entry {
    /// 1-based line number in the file.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The line's JSON text as read (`JSON.stringify` of [`Entry::value`] gives Pi's bytes).
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Parses the whole entry (lone surrogates kept, key order preserved).
    pub fn value(&self) -> Result<Value, json::ParseError> {
        json::parse(&self.raw)
    }

    /// A typed view of the entry, for known types.
    pub fn typed(&self) -> Result<Option<TypedEntry>, json::ParseError> {
        if matches!(
            self.entry_type,
            EntryType::Unknown(_) | EntryType::Missing | EntryType::Session
        ) {
            return Ok(None);
        }
        let v = self.value()?;
        Ok(serde_json::from_value(v).ok())
    }

    pub fn entry_type(&self) -> &EntryType {
        &self.entry_type
    }

    /// Whether the line is a JSON object (Pi keeps other truthy JSON values as entries too).
    pub fn is_object(&self) -> bool {
        self.is_object
    }

    /// `id` when it is a string.
    pub fn id(&self) -> Option<&str> {
        self.head.id.as_ref().and_then(Value::as_str)
    }

    /// The raw `id` value (`None` when absent).
    pub fn id_value(&self) -> Option<&Value> {
        self.head.id.as_ref()
    }

    /// The raw `parentId` value (`None` when absent).
    pub fn parent_id_value(&self) -> Option<&Value> {
        self.head.parent_id.as_ref()
    }

    /// `parentId` when it is a string.
    pub fn parent_id(&self) -> Option<&str> {
        self.head.parent_id.as_ref().and_then(Value::as_str)
    }

    /// For `message` entries: `message.role` when it is a string.
    pub fn role(&self) -> Option<&str> {
        self.head.message.as_deref().and_then(|m| m.role.as_deref())
    }

    pub(crate) fn message_head(&self) -> Option<&MessageHead> {
        self.head.message.as_deref()
    }

    pub(crate) fn message_shape(&self) -> MessageShape {
        self.head
            .message
            .as_ref()
            .map_or(MessageShape::Missing, |m| m.shape)
    }

    /// `message` entry with role `system`.
    pub fn is_system_message(&self) -> bool {
        self.entry_type == EntryType::Message && self.role() == Some("system")
    }

    /// `message` entry with role `assistant`.
    pub fn is_assistant_message(&self) -> bool {
        self.entry_type == EntryType::Message && self.role() == Some("assistant")
    }

    /// `targetId` of a `context_edit` or `label` (raw value).
    pub fn target_id_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.target_id.as_ref())
    }

    /// `label` of a `label` entry (raw value).
    pub fn label_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.label.as_ref())
    }

    /// `firstKeptEntryId` of a `compaction` (raw value).
    pub fn first_kept_entry_id_value(&self) -> Option<&Value> {
        self.head
            .fields()
            .and_then(|f| f.first_kept_entry_id.as_ref())
    }

    /// `thinkingLevel` of a `thinking_level_change` (raw value).
    pub fn thinking_level_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.thinking_level.as_ref())
    }

    /// `provider` of a `model_change` / `usage` entry (raw value).
    pub fn provider_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.provider.as_ref())
    }

    /// `modelId` of a `model_change` (raw value).
    pub fn model_id_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.model_id.as_ref())
    }

    /// `name` of a `session_info` (raw value).
    pub fn name_value(&self) -> Option<&Value> {
        self.head.fields().and_then(|f| f.name.as_ref())
    }

    /// For assistant messages: `message.provider` and `message.model` (raw values).
    pub fn assistant_model(&self) -> Option<(Option<&Value>, Option<&Value>)> {
        let m = self.message_head()?;
        (self.is_assistant_message()).then_some((m.provider.as_ref(), m.model.as_ref()))
    }

    /// `summary` is truthy (branch summaries with an empty summary contribute nothing).
    pub fn summary_is_truthy(&self) -> bool {
        self.head.summary_truthy
    }
}
