//! One session line, as the session's compact index describes it.

use std::borrow::Cow;

use forge_replay_model::json;
use forge_replay_model::session::EntryType;
use serde_json::Value;

use crate::error::ProjectError;
use crate::head::{Fields, MessageShape};
use crate::index::{flag, Extra, Rec, RereadError, NONE, SLOT_ABSENT, SLOT_KEY, SLOT_NULL};
use crate::session::Session;

/// A tree entry: every line after the header that Pi keeps.
///
/// A cheap handle (`Copy`) on the session's index: the accessors read fields captured while
/// reading. The line's text is not held in memory; [`Entry::raw`] and [`Entry::value`] read it
/// again from the file (an error if the file changed since it was opened).
#[derive(Clone, Copy)]
pub struct Entry<'s> {
    pub(crate) session: &'s Session,
    pub(crate) index: usize,
}

impl std::fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("index", &self.index)
            .field("line", &self.line())
            .field("type", self.entry_type())
            .field("id", &self.id_value())
            .finish()
    }
}

impl<'s> Entry<'s> {
    fn rec(&self) -> &'s Rec {
        &self.session.recs[self.index]
    }

    fn has(&self, bit: u16) -> bool {
        self.rec().flags & bit != 0
    }

    fn extra(&self) -> Option<&'s Extra> {
        let e = self.rec().extra;
        (e != NONE).then(|| &self.session.extras[e as usize])
    }

    pub(crate) fn fields(&self) -> Option<&'s Fields> {
        self.extra().and_then(|x| x.fields.as_deref())
    }

    /// Position of the entry in [`Session::entries`].
    pub fn index(&self) -> usize {
        self.index
    }

    /// 1-based line number in the file.
    pub fn line(&self) -> u64 {
        u64::from(self.rec().line)
    }

    /// The line's JSON text as read (`JSON.stringify` of [`Entry::value`] gives Pi's bytes),
    /// read again from the file.
    pub fn raw(&self) -> Result<Cow<'s, str>, ProjectError> {
        let s = self.session;
        s.source.read(self.rec()).map_err(|e| match e {
            RereadError::Changed => ProjectError::Changed {
                path: s.path.clone(),
                line: self.line(),
            },
            RereadError::Io(source) => ProjectError::Reread {
                path: s.path.clone(),
                line: self.line(),
                source,
            },
        })
    }

    /// Parses the whole entry (lone surrogates kept, key order preserved).
    pub fn value(&self) -> Result<Value, ProjectError> {
        let raw = self.raw()?;
        json::parse(&raw).map_err(|source| ProjectError::Parse {
            path: self.session.path.clone(),
            line: self.line(),
            source,
        })
    }

    pub fn entry_type(&self) -> &'s EntryType {
        &self.session.types[self.rec().ty as usize]
    }

    /// Whether the line is a JSON object (Pi keeps other truthy JSON values as entries too).
    pub fn is_object(&self) -> bool {
        self.has(flag::OBJECT)
    }

    fn key(&self, slot: u32) -> Option<&'s str> {
        (slot >= SLOT_KEY).then(|| self.session.keys.get(slot - SLOT_KEY))
    }

    fn slot_value(&self, slot: u32, string: bool, odd: Option<&Value>) -> Option<Value> {
        match slot {
            SLOT_ABSENT => None,
            SLOT_NULL => Some(Value::Null),
            _ if string => Some(Value::String(
                self.key(slot).unwrap_or_default().to_string(),
            )),
            _ => Some(odd.cloned().unwrap_or(Value::Null)),
        }
    }

    /// `id` when it is a string.
    pub fn id(&self) -> Option<&'s str> {
        if self.has(flag::ID_STRING) {
            self.key(self.rec().id)
        } else {
            None
        }
    }

    /// The raw `id` value (`None` when absent).
    pub fn id_value(&self) -> Option<Value> {
        let odd = self.extra().and_then(|x| x.odd_id.as_ref());
        self.slot_value(self.rec().id, self.has(flag::ID_STRING), odd)
    }

    /// The raw `parentId` value (`None` when absent).
    pub fn parent_id_value(&self) -> Option<Value> {
        let odd = self.extra().and_then(|x| x.odd_parent.as_ref());
        self.slot_value(self.rec().parent, self.has(flag::PARENT_STRING), odd)
    }

    /// `parentId` when it is a string.
    pub fn parent_id(&self) -> Option<&'s str> {
        if self.has(flag::PARENT_STRING) {
            self.key(self.rec().parent)
        } else {
            None
        }
    }

    /// Whether the entry's `id` equals `v` (JSON equality, as the projection compares ids).
    pub fn id_is(&self, v: Option<&Value>) -> bool {
        match (self.rec().id, v) {
            (SLOT_ABSENT, None) => true,
            (SLOT_ABSENT, Some(_)) | (_, None) => false,
            (SLOT_NULL, Some(v)) => v.is_null(),
            (_, Some(Value::String(s))) => self.id() == Some(s.as_str()),
            (_, Some(v)) => {
                !self.has(flag::ID_STRING)
                    && self.extra().and_then(|x| x.odd_id.as_ref()) == Some(v)
            }
        }
    }

    /// A JavaScript `Map` key for the id: the string itself, `"\0" + JSON` for other values,
    /// `"\u{1}undefined"` when absent.
    pub(crate) fn id_map_key(&self) -> Cow<'s, str> {
        match self.rec().id {
            SLOT_ABSENT => Cow::Borrowed("\u{1}undefined"),
            SLOT_NULL => Cow::Borrowed("\u{0}null"),
            slot => Cow::Borrowed(self.key(slot).unwrap_or_default()),
        }
    }

    /// The interned key of the id (`None` when absent or `null`).
    pub(crate) fn id_key(&self) -> Option<u32> {
        let slot = self.rec().id;
        (slot >= SLOT_KEY).then(|| slot - SLOT_KEY)
    }

    /// For `message` entries: `message.role` when it is a string.
    pub fn role(&self) -> Option<&'s str> {
        let r = self.rec().role;
        (r != NONE).then(|| self.session.roles.get(r))
    }

    pub(crate) fn message_shape(&self) -> MessageShape {
        match (self.rec().flags & flag::SHAPE_MASK) >> flag::SHAPE_SHIFT {
            1 => MessageShape::Null,
            2 => MessageShape::NotObject,
            3 => MessageShape::Object,
            _ => MessageShape::Missing,
        }
    }

    /// `message` entry with role `system`.
    pub fn is_system_message(&self) -> bool {
        *self.entry_type() == EntryType::Message && self.role() == Some("system")
    }

    /// `message` entry with role `assistant`.
    pub fn is_assistant_message(&self) -> bool {
        *self.entry_type() == EntryType::Message && self.role() == Some("assistant")
    }

    /// `targetId` of a `context_edit` or `label` (raw value).
    pub fn target_id_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.target_id.as_ref())
    }

    /// `label` of a `label` entry (raw value).
    pub fn label_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.label.as_ref())
    }

    /// `firstKeptEntryId` of a `compaction` (raw value).
    pub fn first_kept_entry_id_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.first_kept_entry_id.as_ref())
    }

    /// `thinkingLevel` of a `thinking_level_change` (raw value).
    pub fn thinking_level_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.thinking_level.as_ref())
    }

    /// `provider` of a `model_change` / `usage` entry (raw value).
    pub fn provider_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.provider.as_ref())
    }

    /// `modelId` of a `model_change` (raw value).
    pub fn model_id_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.model_id.as_ref())
    }

    /// `name` of a `session_info` (raw value).
    pub fn name_value(&self) -> Option<&'s Value> {
        self.fields().and_then(|f| f.name.as_ref())
    }

    /// For assistant messages: `message.provider` and `message.model` (raw values).
    pub fn assistant_model(&self) -> Option<(Option<&'s Value>, Option<&'s Value>)> {
        if !self.is_assistant_message() {
            return None;
        }
        let x = self.extra();
        Some((
            x.and_then(|x| x.provider.as_ref()),
            x.and_then(|x| x.model.as_ref()),
        ))
    }

    /// `summary` is truthy (branch summaries with an empty summary contribute nothing).
    pub fn summary_is_truthy(&self) -> bool {
        self.has(flag::SUMMARY_TRUTHY)
    }

    /// `systemMessage` is truthy.
    pub(crate) fn system_message_is_truthy(&self) -> bool {
        self.has(flag::SYSTEM_MESSAGE_TRUTHY)
    }

    /// `replacement` is present and `null`.
    pub(crate) fn replacement_is_null(&self) -> bool {
        self.has(flag::REPLACEMENT_NULL)
    }

    /// `replacement` is present.
    pub(crate) fn has_replacement(&self) -> bool {
        self.has(flag::HAS_REPLACEMENT)
    }
}
