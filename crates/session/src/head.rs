//! One fast pass over a line: the fields the tree and the projection need, without building the
//! whole JSON value. Everything else is skipped with [`IgnoredAny`] (still fully validated, so a
//! line that scans here also parses with [`forge_replay_model::json::parse`]).

use std::fmt;

use forge_replay_model::session::EntryType;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// Top-level keys we recognise (one bit each in [`Head::keys`]).
pub(crate) const TOP_KEYS: [&str; 31] = [
    "type",
    "id",
    "parentId",
    "timestamp",
    "message",
    "provider",
    "modelId",
    "thinkingLevel",
    "summary",
    "firstKeptEntryId",
    "tokensBefore",
    "details",
    "usage",
    "fromHook",
    "systemMessage",
    "fromId",
    "customType",
    "data",
    "content",
    "display",
    "targetId",
    "replacement",
    "label",
    "name",
    "kind",
    "model",
    "note",
    "version",
    "cwd",
    "parentSession",
    "firstKeptEntryIndex",
];

/// Message keys we recognise (one bit each in [`MessageHead::keys`]).
pub(crate) const MESSAGE_KEYS: [&str; 35] = [
    "role",
    "content",
    "sections",
    "toolsAdded",
    "toolsRemoved",
    "timestamp",
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
    "toolCallId",
    "toolName",
    "details",
    "isError",
    "command",
    "output",
    "exitCode",
    "cancelled",
    "truncated",
    "fullOutputPath",
    "excludeFromContext",
    "customType",
    "display",
    "summary",
    "fromId",
    "tokensBefore",
];

/// Bit for a name in a key table.
pub(crate) fn key_bit(table: &[&str], name: &str) -> u64 {
    table
        .iter()
        .position(|k| *k == name)
        .map_or(0, |i| 1u64 << i)
}

/// What a line parsed to.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// A JSON object.
    Object(Box<Head>),
    /// A value JavaScript treats as false (`null`, `false`, `0`, `""`): Pi skips the line.
    Falsy(&'static str),
    /// Any other non-object value: Pi keeps it as an entry without fields.
    Other(&'static str),
}

/// The shape of an entry's `message` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MessageShape {
    /// No `message` key.
    #[default]
    Missing,
    /// `message: null`.
    Null,
    /// A non-object, non-null value.
    NotObject,
    /// An object.
    Object,
}

/// The cheap view of a `message` field.
#[derive(Debug, Clone, Default)]
pub struct MessageHead {
    pub shape: MessageShape,
    /// `role` when it is a string.
    pub role: Option<Box<str>>,
    /// `provider` (assistant messages: part of the session's model).
    pub provider: Option<Value>,
    /// `model` (assistant messages).
    pub model: Option<Value>,
    /// Recognised keys present ([`MESSAGE_KEYS`] bits).
    pub keys: u64,
    /// Keys outside [`MESSAGE_KEYS`].
    pub other_keys: Vec<Box<str>>,
}

/// Fields only some entry types have (boxed: most entries are messages and have none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub provider: Option<Value>,
    pub model_id: Option<Value>,
    pub thinking_level: Option<Value>,
    pub first_kept_entry_id: Option<Value>,
    pub first_kept_entry_index: Option<Value>,
    pub target_id: Option<Value>,
    pub label: Option<Value>,
    pub name: Option<Value>,
    pub version: Option<Value>,
    /// Header v4 marker (`kind`), and `v`.
    pub kind: Option<Value>,
    pub v: Option<Value>,
}

/// The cheap view of one entry line.
#[derive(Debug, Clone, Default)]
pub struct Head {
    /// `type` when it is a string.
    pub type_name: Option<Box<str>>,
    pub id: Option<Value>,
    pub parent_id: Option<Value>,
    pub message: Option<Box<MessageHead>>,
    pub fields: Option<Box<Fields>>,
    /// JavaScript truthiness of `summary`.
    pub summary_truthy: bool,
    /// JavaScript truthiness of `systemMessage`.
    pub system_message_truthy: bool,
    /// `replacement` is present and `null`.
    pub replacement_null: bool,
    /// Recognised keys present ([`TOP_KEYS`] bits).
    pub keys: u64,
    /// Keys outside [`TOP_KEYS`] (plus `v`).
    pub other_keys: Vec<Box<str>>,
}

impl Head {
    pub fn fields(&self) -> Option<&Fields> {
        self.fields.as_deref()
    }

    fn fields_mut(&mut self) -> &mut Fields {
        self.fields.get_or_insert_with(Box::default)
    }

    pub fn entry_type(&self) -> EntryType {
        match &self.type_name {
            Some(t) => EntryType::from_name(t),
            None => EntryType::Missing,
        }
    }
}

/// Scans one line.
pub(crate) fn scan(line: &str) -> Result<Parsed, forge_replay_model::json::ParseError> {
    forge_replay_model::json::parse_as::<ParsedDe>(line).map(|p| p.0)
}

struct ParsedDe(Parsed);

impl<'de> Deserialize<'de> for ParsedDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopVisitor).map(ParsedDe)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Parsed, E> {
        Ok(Parsed::Falsy("null"))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Parsed, E> {
        Ok(if v {
            Parsed::Other("true")
        } else {
            Parsed::Falsy("false")
        })
    }
    fn visit_u64<E>(self, v: u64) -> Result<Parsed, E> {
        Ok(if v == 0 {
            Parsed::Falsy("0")
        } else {
            Parsed::Other("a number")
        })
    }
    fn visit_i64<E>(self, v: i64) -> Result<Parsed, E> {
        Ok(if v == 0 {
            Parsed::Falsy("0")
        } else {
            Parsed::Other("a number")
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Parsed, E> {
        Ok(if v == 0.0 || v.is_nan() {
            Parsed::Falsy("0")
        } else {
            Parsed::Other("a number")
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Parsed, E> {
        Ok(if v.is_empty() {
            Parsed::Falsy("\"\"")
        } else {
            Parsed::Other("a string")
        })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Parsed::Other("an array"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut h = Head::default();
        while let Some(key) = map.next_key::<Key>()? {
            let Key(idx, other) = key;
            match idx {
                Some(i) => h.keys |= 1 << i,
                None => {
                    if let Some(name) = other {
                        if &*name == "v" {
                            h.fields_mut().v = Some(map.next_value()?);
                            continue;
                        }
                        h.other_keys.push(name);
                    }
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            }
            match TOP_KEYS[idx.unwrap_or_default()] {
                "type" => h.type_name = map.next_value::<MaybeStr>()?.0,
                "id" => h.id = Some(map.next_value()?),
                "parentId" => h.parent_id = Some(map.next_value()?),
                "message" => h.message = Some(Box::new(map.next_value::<MessageDe>()?.0)),
                "provider" => h.fields_mut().provider = Some(map.next_value()?),
                "modelId" => h.fields_mut().model_id = Some(map.next_value()?),
                "thinkingLevel" => h.fields_mut().thinking_level = Some(map.next_value()?),
                "firstKeptEntryId" => h.fields_mut().first_kept_entry_id = Some(map.next_value()?),
                "firstKeptEntryIndex" => {
                    h.fields_mut().first_kept_entry_index = Some(map.next_value()?)
                }
                "targetId" => h.fields_mut().target_id = Some(map.next_value()?),
                "label" => h.fields_mut().label = Some(map.next_value()?),
                "name" => h.fields_mut().name = Some(map.next_value()?),
                "version" => h.fields_mut().version = Some(map.next_value()?),
                "kind" => h.fields_mut().kind = Some(map.next_value()?),
                "summary" => h.summary_truthy = map.next_value::<Truthy>()?.0,
                "systemMessage" => h.system_message_truthy = map.next_value::<Truthy>()?.0,
                "replacement" => {
                    h.replacement_null = map.next_value::<Option<IgnoredAny>>()?.is_none();
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Parsed::Object(Box::new(h)))
    }
}

/// A map key: its index in [`TOP_KEYS`] or [`MESSAGE_KEYS`], or its name when unknown.
struct Key(Option<usize>, Option<Box<str>>);

struct KeySeed(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(KeyVisitor(self.0))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        KeySeed(&TOP_KEYS).deserialize(d)
    }
}

struct KeyVisitor(&'static [&'static str]);

impl Visitor<'_> for KeyVisitor {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match self.0.iter().position(|k| *k == v) {
            Some(i) => Key(Some(i), None),
            None => Key(None, Some(v.into())),
        })
    }
}

/// A string, or `None` for any other value.
struct MaybeStr(Option<Box<str>>);

impl<'de> Deserialize<'de> for MaybeStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(MaybeStr(Some(s.into_boxed_str()))),
            _ => Ok(MaybeStr(None)),
        }
    }
}

/// JavaScript truthiness of a value, without keeping it.
struct Truthy(bool);

impl<'de> Deserialize<'de> for Truthy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TruthyVisitor)
    }
}

struct TruthyVisitor;

impl<'de> Visitor<'de> for TruthyVisitor {
    type Value = Truthy;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Truthy, E> {
        Ok(Truthy(false))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Truthy, E> {
        Ok(Truthy(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Truthy, E> {
        Ok(Truthy(v != 0.0 && !v.is_nan()))
    }
    fn visit_str<E>(self, v: &str) -> Result<Truthy, E> {
        Ok(Truthy(!v.is_empty()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Truthy, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Truthy(true))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Truthy, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Truthy(true))
    }
}

struct MessageDe(MessageHead);

impl<'de> Deserialize<'de> for MessageDe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MessageVisitor).map(MessageDe)
    }
}

struct MessageVisitor;

impl MessageVisitor {
    fn shape(shape: MessageShape) -> MessageHead {
        MessageHead {
            shape,
            ..MessageHead::default()
        }
    }
}

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = MessageHead;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::Null))
    }
    fn visit_bool<E>(self, _: bool) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_u64<E>(self, _: u64) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_i64<E>(self, _: i64) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_f64<E>(self, _: f64) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_str<E>(self, _: &str) -> Result<MessageHead, E> {
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MessageHead, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Self::shape(MessageShape::NotObject))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MessageHead, A::Error> {
        let mut m = Self::shape(MessageShape::Object);
        while let Some(Key(idx, other)) = map.next_key_seed(KeySeed(&MESSAGE_KEYS))? {
            let Some(i) = idx else {
                if let Some(name) = other {
                    m.other_keys.push(name);
                }
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            m.keys |= 1 << i;
            match MESSAGE_KEYS[i] {
                "role" => m.role = map.next_value::<MaybeStr>()?.0,
                "provider" => m.provider = Some(map.next_value()?),
                "model" => m.model = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_fields_in_any_order_with_duplicates() {
        let Parsed::Object(h) = scan(
            r#"{"message":{"model":"m","role":"assistant","provider":"p","zz":1},"id":"a","type":"x","type":"message","parentId":null,"extra":[1,{"a":2}]}"#,
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(h.entry_type(), EntryType::Message);
        assert_eq!(h.id, Some(Value::from("a")));
        assert_eq!(h.parent_id, Some(Value::Null));
        let m = h.message.unwrap();
        assert_eq!(m.role.as_deref(), Some("assistant"));
        assert_eq!(m.other_keys, vec!["zz".into()]);
        assert_eq!(h.other_keys, vec!["extra".into()]);
    }

    #[test]
    fn falsy_and_other_values() {
        assert!(matches!(scan("null").unwrap(), Parsed::Falsy(_)));
        assert!(matches!(scan(" 0 ").unwrap(), Parsed::Falsy(_)));
        assert!(matches!(scan("\"\"").unwrap(), Parsed::Falsy(_)));
        assert!(matches!(scan("[1]").unwrap(), Parsed::Other(_)));
        assert!(matches!(scan("12").unwrap(), Parsed::Other(_)));
        assert!(scan("{").unwrap_err().eof);
    }

    #[test]
    fn lone_surrogates_scan() {
        assert!(matches!(
            scan(r#"{"type":"message","message":{"role":"user","content":"\ud800"}}"#).unwrap(),
            Parsed::Object(_)
        ));
    }
}
