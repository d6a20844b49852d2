//! A fast, borrowed parse of one session JSONL line that keeps only the fields usage analytics
//! needs.
//!
//! Full `serde_json::Value` trees per entry cost far more memory and time than the analysis itself;
//! this parser walks each line once with serde, skipping message content, and keeps ids, the parent
//! link, the role, the usage numbers and the `forgeNestedUsage` value. It follows JavaScript's
//! loose typing: a field of an unexpected type reads as absent instead of failing the line.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::nested::{NestedReport, FORGE_NESTED_USAGE_KEY};
use crate::totals::Totals;

/// A string field that reads as `None` for any non-string JSON value.
#[derive(Debug, Default, Clone)]
pub(crate) struct JsStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> JsStr<'a> {
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

macro_rules! ignore_scalars {
    ($out:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($out)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            drain_seq(seq)?;
            Ok($out)
        }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for JsStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = JsStr<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(JsStr(Some(Cow::Borrowed(v))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(JsStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(JsStr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(JsStr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(JsStr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(JsStr(None))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(JsStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(JsStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map)?;
                Ok(JsStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq)?;
                Ok(JsStr(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A JavaScript number field: `Some(f64)` for a JSON number, `None` for anything else.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct JsNum(pub Option<f64>);

impl JsNum {
    /// Forge's `tokenCount`: the value if it is a finite number > 0, else 0.
    pub fn token_count(self) -> f64 {
        match self.0 {
            Some(v) if v.is_finite() && v > 0.0 => v,
            _ => 0.0,
        }
    }
}

impl<'de> Deserialize<'de> for JsNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsNum;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(JsNum(None))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(JsNum(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(JsNum(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(JsNum(Some(v)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(JsNum(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(JsNum(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map)?;
                Ok(JsNum(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq)?;
                Ok(JsNum(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `usage` token field: absent, a JSON number, or present with another type (which pi-forge's
/// `tokenCount` counts as 0 and forge-replay lists as a finding).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) enum UsageNum {
    #[default]
    Absent,
    Num(f64),
    Other,
}

impl UsageNum {
    pub fn from_js(n: JsNum) -> UsageNum {
        match n.0 {
            Some(v) => UsageNum::Num(v),
            None => UsageNum::Other,
        }
    }

    /// Forge's `tokenCount`.
    pub fn token_count(self) -> f64 {
        match self {
            UsageNum::Num(v) => JsNum(Some(v)).token_count(),
            _ => 0.0,
        }
    }

    /// The [`UsageProblems`] bits of this field (`field` 0..4).
    fn problems(self, field: u8) -> u8 {
        match self {
            UsageNum::Other => 1 << field,
            UsageNum::Num(v) if v < 0.0 => 1 << (field + 4),
            _ => 0,
        }
    }
}

impl<'de> Deserialize<'de> for UsageNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        JsNum::deserialize(d).map(UsageNum::from_js)
    }
}

/// Usage fields of the wrong type or sign, as bits: `1 << field` when the field is present but
/// not a number, `1 << (field + 4)` when it is negative (fields: input, output, cacheRead,
/// cacheWrite). pi-forge counts such a field as 0.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct UsageProblems(pub u8);

impl UsageProblems {
    const FIELDS: [&'static str; 4] = ["input", "output", "cacheRead", "cacheWrite"];

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// One text per problem, e.g. `usage.cacheRead is not a number (counted as 0)`.
    pub fn messages(self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, f) in Self::FIELDS.iter().enumerate() {
            if self.0 & (1 << i) != 0 {
                out.push(format!("usage.{f} is not a number (counted as 0)"));
            }
            if self.0 & (1 << (i + 4)) != 0 {
                out.push(format!("usage.{f} is negative (counted as 0)"));
            }
        }
        out
    }
}

/// `Some(T)` when the JSON value is an object, `None` for anything else (JS `typeof === "object"`
/// checks; arrays read as objects without the wanted keys, so they are `None` as well).
#[derive(Debug, Clone)]
pub(crate) struct ObjOr<T>(pub Option<T>);

impl<T> Default for ObjOr<T> {
    fn default() -> Self {
        ObjOr(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = ObjOr<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| ObjOr(Some(t)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ObjOr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq)?;
                Ok(ObjOr(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `toolResult.details`: whether it is an object holding `forgeNestedUsage`, that value, and
/// what the same details say about the run that made the nested calls ([`NestedLink`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Details(pub Option<NestedReport>, pub Option<Box<NestedLink>>);

/// What a tool result carrying a nested report says about the run behind it, for pricing the
/// report and matching it with sub-agent files. Read from the shapes sub-agent tools write:
/// `details.response.model` `{provider, id}` and `details.response.runId` (pi-forge-subagents'
/// `forge_subagent`), `details.model` (`{provider, id}` or `"provider/id"`), `details.runId` and
/// `details.sessionFile` (pi-subagents).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct NestedLink {
    pub provider: Option<Box<str>>,
    pub model: Option<Box<str>>,
    pub run_id: Option<Box<str>>,
    pub session_file: Option<Box<str>>,
    /// The tool result entry's ISO `timestamp`.
    pub timestamp: Option<Box<str>>,
}

impl NestedLink {
    fn is_empty(&self) -> bool {
        self.provider.is_none()
            && self.model.is_none()
            && self.run_id.is_none()
            && self.session_file.is_none()
    }
}

/// A model named as `{provider, id}` or `"provider/id"`; other values name none.
#[derive(Debug, Default)]
struct ModelRef(Option<(Box<str>, Box<str>)>);

impl<'de> Deserialize<'de> for ModelRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ModelRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ModelRef(v.split_once('/').and_then(|(p, m)| {
                    (!p.is_empty() && !m.is_empty()).then(|| (Box::from(p), Box::from(m)))
                })))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut provider, mut id) = (None, None);
                while let Some(key) = map.next_key::<JsStr<'_>>()? {
                    match key.as_str() {
                        Some("provider") => {
                            provider = map.next_value::<JsStr<'_>>()?.0.map(Box::from)
                        }
                        Some("id") => id = map.next_value::<JsStr<'_>>()?.0.map(Box::from),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(ModelRef(provider.zip(id)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ModelRef(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ModelRef(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ModelRef(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ModelRef(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ModelRef(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq)?;
                Ok(ModelRef(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string value, `None` for any other JSON value.
#[derive(Debug, Default)]
struct OwnedStr(Option<String>);

impl<'de> Deserialize<'de> for OwnedStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        JsStr::deserialize(d).map(|s| OwnedStr(s.0.map(Cow::into_owned)))
    }
}

/// `details.response`: its `model` and `runId` (pi-forge-subagents' `AgentResponse`).
#[derive(Debug, Default)]
struct ResponseRef {
    model: ModelRef,
    run_id: Option<Box<str>>,
}

impl<'de> Deserialize<'de> for ResponseRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResponseRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut r = ResponseRef::default();
                while let Some(key) = map.next_key::<JsStr<'_>>()? {
                    match key.as_str() {
                        Some("model") => r.model = map.next_value()?,
                        Some("runId") => r.run_id = map.next_value::<JsStr<'_>>()?.0.map(Box::from),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(r)
            }
            ignore_scalars!(ResponseRef::default());
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Details {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Details;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut found = None;
                // The run the details name, captured raw and read afterwards, leniently: a value
                // serde refuses (a lone surrogate JSON.parse accepts) names nothing instead of
                // failing the line.
                let mut raw: [Option<Box<RawValue>>; 4] = Default::default();
                while let Some(key) = map.next_key::<JsStr<'_>>()? {
                    let slot = match key.as_str() {
                        Some(FORGE_NESTED_USAGE_KEY) => {
                            let value: serde_json::Value = map.next_value()?;
                            found = Some(NestedReport::from_value(&value));
                            continue;
                        }
                        Some("response") => 0,
                        Some("model") => 1,
                        Some("runId") => 2,
                        Some("sessionFile") => 3,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    raw[slot] = Some(map.next_value()?);
                }
                if found.is_none() {
                    return Ok(Details(None, None));
                }
                fn read<T: for<'x> Deserialize<'x> + Default>(v: &Option<Box<RawValue>>) -> T {
                    v.as_deref()
                        .and_then(|r| serde_json::from_str(r.get()).ok())
                        .unwrap_or_default()
                }
                let response: ResponseRef = read(&raw[0]);
                let direct: ModelRef = read(&raw[1]);
                let text = |v: &Option<Box<RawValue>>| -> Option<Box<str>> {
                    let s: OwnedStr = read(v);
                    s.0.map(Box::from)
                };
                let mut link = NestedLink {
                    run_id: text(&raw[2]).or(response.run_id),
                    session_file: text(&raw[3]),
                    ..NestedLink::default()
                };
                if let Some((p, m)) = response.model.0.or(direct.0) {
                    link.provider = Some(p);
                    link.model = Some(m);
                }
                let link = (!link.is_empty()).then(|| Box::new(link));
                Ok(Details(found, link))
            }
            ignore_scalars!(Details(None, None));
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawCost {
    #[serde(default)]
    pub total: JsNum,
    /// `totalFromProvider` is there (a release marker; the fast scanner only).
    #[serde(skip)]
    pub from_provider: bool,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawUsage {
    #[serde(default)]
    pub input: UsageNum,
    #[serde(default)]
    pub output: UsageNum,
    #[serde(default, rename = "cacheRead")]
    pub cache_read: UsageNum,
    #[serde(default, rename = "cacheWrite")]
    pub cache_write: UsageNum,
    /// Anthropic's 1 h share of `cacheWrite` (pi-ai's `Usage.cacheWrite1h`).
    #[serde(default, rename = "cacheWrite1h")]
    pub cache_write_1h: JsNum,
    #[serde(default)]
    pub cost: ObjOr<RawCost>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawMessage<'a> {
    #[serde(default, borrow)]
    pub role: JsStr<'a>,
    #[serde(default)]
    pub usage: ObjOr<RawUsage>,
    #[serde(default)]
    pub details: Details,
    #[serde(default, borrow)]
    pub model: JsStr<'a>,
    #[serde(default, borrow)]
    pub provider: JsStr<'a>,
    #[serde(default, borrow)]
    pub api: JsStr<'a>,
    #[serde(default, borrow, rename = "stopReason")]
    pub stop_reason: JsStr<'a>,
    /// `message.timestamp`: ms since the epoch, set by pi-ai when the message was made.
    #[serde(default)]
    pub timestamp: JsNum,
    #[serde(default, borrow, rename = "responseId")]
    pub response_id: JsStr<'a>,
    /// Release-marker keys seen (`crate::markers::KEY_*`; the fast scanner only: a line serde
    /// parses gets its markers from [`crate::markers::of_line`]).
    #[serde(skip)]
    pub keys: u8,
}

/// The fields of one JSONL line (header or entry) that usage analytics reads.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawLine<'a> {
    #[serde(default, borrow, rename = "type")]
    pub ty: JsStr<'a>,
    #[serde(default, borrow)]
    pub id: JsStr<'a>,
    #[serde(default, borrow, rename = "parentId")]
    pub parent_id: JsStr<'a>,
    #[serde(default, borrow)]
    pub timestamp: JsStr<'a>,
    #[serde(default, borrow)]
    pub message: ObjOr<RawMessage<'a>>,
    #[serde(default)]
    pub version: JsNum,
    #[serde(default, borrow)]
    pub cwd: JsStr<'a>,
    #[serde(default, borrow, rename = "parentSession")]
    pub parent_session: JsStr<'a>,
    /// pi-subagents' child transcript records (`*_transcript.jsonl`): `recordType` and `runId`.
    #[serde(default, borrow, rename = "recordType")]
    pub record_type: JsStr<'a>,
    #[serde(default, borrow, rename = "runId")]
    pub run_id: JsStr<'a>,
    /// `customType` (a release marker; the fast scanner only).
    #[serde(skip)]
    pub custom_type: JsStr<'a>,
}

/// Message role, as far as usage analytics cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    Other,
}

/// Request metadata of a usage-bearing assistant message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestMeta {
    /// The entry's ISO `timestamp`.
    pub timestamp: Option<Box<str>>,
    pub model: Option<Box<str>>,
    pub provider: Option<Box<str>>,
    pub api: Option<Box<str>>,
    pub stop_reason: Option<Box<str>>,
    /// `usage.cost.total` in USD when it is a finite number.
    pub cost: f64,
    /// `usage.cacheWrite1h` (pi-ai's `?? 0`: absent or not a number is 0).
    pub cache_write_1h: f64,
    /// `message.timestamp` (ms), when it is a number.
    pub message_time: Option<f64>,
    /// `message.responseId`.
    pub response_id: Option<Box<str>>,
}

/// A `type: "message"` entry with an object `message`.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRecord {
    pub role: Role,
    /// Forge's `requestUsage`: set for an assistant message with non-zero usage.
    pub request: Option<Totals>,
    /// For an assistant request: where and what it ran on.
    pub meta: Option<Box<RequestMeta>>,
    /// For a tool result whose `details` object has `forgeNestedUsage`.
    pub nested: Option<NestedReport>,
    /// For a tool result with a nested report: the entry time and the run the details name.
    pub nested_link: Option<Box<NestedLink>>,
    /// `usage` fields of the wrong type or sign (any role; counted as 0).
    pub usage_problems: UsageProblems,
}

/// One entry of a session file, reduced to what usage analytics needs.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRecord {
    /// 1-based line number in the file.
    pub line: u32,
    pub id: Option<Box<str>>,
    pub parent_id: Option<Box<str>>,
    /// `Some` for a message entry with an object `message`.
    pub message: Option<MessageRecord>,
    /// The release markers the line holds (bits of [`crate::markers::NAMES`]).
    pub markers: u16,
}

/// A parsed line: the session header, an entry, or a record of a pi-subagents child transcript
/// (`subagent-artifacts/<runId>_<agent>_transcript.jsonl`: no session header, one
/// `{version, recordType, runId, agent, …, timestamp, message}` object per line).
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Header(Header),
    Entry(EntryRecord),
    /// A transcript record: `recordType: "message"` records carry the child's message (with its
    /// usage); other records (`tool_start`, `stdout`, …) have none.
    Transcript {
        entry: EntryRecord,
        run_id: Option<String>,
        /// The record's `cwd`.
        cwd: Option<String>,
    },
}

/// The session header (`type: "session"` with a string `id`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    pub id: String,
    /// `version`; a missing version means 1.
    pub version: f64,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
}

fn boxed(s: &JsStr<'_>) -> Option<Box<str>> {
    s.as_str().map(Box::from)
}

/// Parses one non-blank JSONL line.
pub fn parse_line(text: &str, line: u32) -> Result<Line, serde_json::Error> {
    parse_line_with(text, line, true)
}

/// [`parse_line`]; `arguments_error`: whether to look for a tool call's `argumentsError`
/// marker (a file that already shows a marker at least as new need not).
pub(crate) fn parse_line_with(
    text: &str,
    line: u32,
    arguments_error: bool,
) -> Result<Line, serde_json::Error> {
    let mut raw = RawLine::default();
    if crate::fast::fill_raw_line(text, &mut raw) {
        // The markers nested deeper than the scanner looks: parse the few lines holding them.
        let deep = raw.message.0.as_ref().is_some_and(|m| {
            m.role.as_str() == Some("assistant")
                && (m.keys & crate::markers::KEY_DIAGNOSTICS != 0
                    || (arguments_error && crate::markers::may_hold_arguments_error(text)))
        });
        let summary_usage = matches!(raw.ty.as_str(), Some("compaction" | "branch_summary"))
            && memchr::memmem::find(text.as_bytes(), b"\"totalFromProvider\"").is_some();
        let mut parsed = line_from_raw(&mut raw, line);
        if deep || summary_usage {
            if let Line::Entry(e) | Line::Transcript { entry: e, .. } = &mut parsed {
                e.markers |= crate::markers::of_line(text);
            }
        }
        return Ok(parsed);
    }
    parse_line_serde(text, line)
}

/// [`parse_line`] by serde alone: the reference the fast scanner is tested against.
#[doc(hidden)]
pub fn parse_line_serde(text: &str, line: u32) -> Result<Line, serde_json::Error> {
    // `JSON.parse` accepts a lone surrogate (`"\ud800"`), serde_json refuses it: read the text
    // with stand-ins for them, as every Pi-exact parse does (`forge_replay_model::json`).
    let decoded = forge_replay_model::json::lone_surrogates_to_stand_ins(text);
    let mut raw = serde_json::from_str(&decoded)?;
    let mut parsed = line_from_raw(&mut raw, line);
    if let Line::Entry(e) | Line::Transcript { entry: e, .. } = &mut parsed {
        if crate::markers::may_hold(text) {
            e.markers = crate::markers::of_line(text);
        }
    }
    Ok(parsed)
}

/// Parses one non-blank JSONL line from its bytes, as Pi reads it: the file is decoded as UTF-8
/// with U+FFFD for invalid sequences before `JSON.parse`. A valid line (the usual case) is
/// checked once and parsed in place; only an invalid one is decoded into a copy.
pub fn parse_line_bytes(bytes: &[u8], line: u32) -> Result<Line, serde_json::Error> {
    parse_line_bytes_with(bytes, line, true)
}

/// [`parse_line_bytes`] with [`parse_line_with`]'s `arguments_error`.
pub(crate) fn parse_line_bytes_with(
    bytes: &[u8],
    line: u32,
    arguments_error: bool,
) -> Result<Line, serde_json::Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_line_with(text, line, arguments_error),
        Err(_) => parse_line_with(&String::from_utf8_lossy(bytes), line, arguments_error),
    }
}

fn line_from_raw(raw: &mut RawLine<'_>, line: u32) -> Line {
    let ty = raw.ty.as_str();
    // Message markers count on message entries and transcript message records, the
    // virtual-model state on custom entries (as `forge_replay_session::release::detect`).
    let is_message =
        ty == Some("message") || (ty.is_none() && raw.record_type.as_str() == Some("message"));
    let markers = match raw.message.0.as_ref() {
        Some(m) if is_message => crate::markers::of_keys(
            m.role.as_str(),
            m.keys,
            m.usage
                .0
                .as_ref()
                .and_then(|u| u.cost.0.as_ref())
                .is_some_and(|c| c.from_provider),
        ),
        _ => 0,
    } | if ty == Some("custom")
        && raw.custom_type.as_str() == Some(crate::markers::VIRTUAL_STATE_TYPE)
    {
        crate::markers::VIRTUAL_MODEL_STATE
    } else {
        0
    };
    if ty == Some("session") {
        if let Some(id) = raw.id.as_str() {
            return Line::Header(Header {
                id: id.to_owned(),
                version: raw.version.0.unwrap_or(1.0),
                timestamp: raw.timestamp.as_str().map(str::to_owned),
                cwd: raw.cwd.as_str().map(str::to_owned),
                parent_session: raw.parent_session.as_str().map(str::to_owned),
            });
        }
    }
    if ty.is_none() {
        if let Some(kind) = raw.record_type.as_str() {
            let message = match (kind, raw.message.0.as_mut()) {
                ("message", Some(m)) => Some(message_record(m, &raw.timestamp)),
                _ => None,
            };
            return Line::Transcript {
                entry: EntryRecord {
                    line,
                    id: None,
                    parent_id: None,
                    message,
                    markers,
                },
                run_id: raw.run_id.as_str().map(str::to_owned),
                cwd: raw.cwd.as_str().map(str::to_owned),
            };
        }
    }
    let message = match (ty, raw.message.0.as_mut()) {
        (Some("message"), Some(m)) => Some(message_record(m, &raw.timestamp)),
        _ => None,
    };
    Line::Entry(EntryRecord {
        line,
        id: boxed(&raw.id),
        parent_id: boxed(&raw.parent_id),
        message,
        markers,
    })
}

fn message_record(m: &mut RawMessage<'_>, timestamp: &JsStr<'_>) -> MessageRecord {
    let role = match m.role.as_str() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("toolResult") => Role::ToolResult,
        _ => Role::Other,
    };
    let mut record = MessageRecord {
        role,
        request: None,
        meta: None,
        nested: None,
        nested_link: None,
        usage_problems: UsageProblems::default(),
    };
    if let Some(u) = &m.usage.0 {
        record.usage_problems = UsageProblems(
            u.input.problems(0)
                | u.output.problems(1)
                | u.cache_read.problems(2)
                | u.cache_write.problems(3),
        );
    }
    match role {
        Role::Assistant => {
            if let Some(u) = &m.usage.0 {
                let t = Totals {
                    requests: 1.0,
                    input: u.input.token_count(),
                    output: u.output.token_count(),
                    cache_read: u.cache_read.token_count(),
                    cache_write: u.cache_write.token_count(),
                };
                if t.input + t.output + t.cache_read + t.cache_write > 0.0 {
                    record.request = Some(t);
                    let cost = u
                        .cost
                        .0
                        .as_ref()
                        .and_then(|c| c.total.0)
                        .filter(|c| c.is_finite())
                        .unwrap_or(0.0);
                    record.meta = Some(Box::new(RequestMeta {
                        timestamp: boxed(timestamp),
                        model: boxed(&m.model),
                        provider: boxed(&m.provider),
                        api: boxed(&m.api),
                        stop_reason: boxed(&m.stop_reason),
                        cost,
                        cache_write_1h: u.cache_write_1h.0.filter(|v| v.is_finite()).unwrap_or(0.0),
                        message_time: m.timestamp.0,
                        response_id: boxed(&m.response_id),
                    }));
                }
            }
        }
        Role::ToolResult => {
            record.nested = m.details.0.take();
            if record.nested.is_some() {
                let mut link = m.details.1.take().map_or_else(Default::default, |b| *b);
                link.timestamp = boxed(timestamp);
                record.nested_link = Some(Box::new(link));
            }
        }
        _ => {}
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> EntryRecord {
        match parse_line(text, 1).unwrap() {
            Line::Entry(e) => e,
            other => panic!("not an entry: {other:?}"),
        }
    }

    #[test]
    fn token_count_is_javascripts() {
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","usage":{"input":-5,"output":"7","cacheRead":1.5,"cacheWrite":null}}}"#,
        );
        let t = e.message.unwrap().request.unwrap();
        assert_eq!(
            (t.input, t.output, t.cache_read, t.cache_write),
            (0.0, 0.0, 1.5, 0.0)
        );
    }

    #[test]
    fn loose_types_read_as_absent() {
        let e = entry(r#"{"type":"message","id":7,"parentId":{"x":1},"message":[1,2]}"#);
        assert_eq!((e.id, e.parent_id, e.message), (None, None, None));
        let e = entry(r#"{"type":"message","id":"b","message":{"role":"assistant","usage":[1]}}"#);
        assert_eq!(e.message.unwrap().request, None);
        let e = entry(
            r#"{"type":"message","id":"b","message":{"role":"toolResult","details":[{"forgeNestedUsage":1}]}}"#,
        );
        assert_eq!(e.message.unwrap().nested, None);
    }

    #[test]
    fn nested_key_present_with_bad_value_is_invalid() {
        let e = entry(
            r#"{"type":"message","message":{"role":"toolResult","details":{"a":{"b":[1]},"forgeNestedUsage":null}}}"#,
        );
        assert!(e.message.unwrap().nested.is_some_and(|n| n.is_invalid()));
    }

    #[test]
    fn escaped_strings_are_owned() {
        let e = entry(r#"{"type":"message","id":"a\u0062","message":{"role":"us\u0065r"}}"#);
        assert_eq!(e.id.as_deref(), Some("ab"));
        assert_eq!(e.message.unwrap().role, Role::User);
    }

    #[test]
    fn lone_surrogates_read_as_json_parse_reads_them() {
        // JSON.parse accepts a lone surrogate: the line is an entry, its id holds the stand-in.
        let e = entry(r#"{"type":"message","id":"a\ud800","message":{"role":"user"}}"#);
        assert_eq!(e.id.as_deref(), Some("a\u{F0000}"));
        // The 1.3 `durationMs` marker of a tool result whose text holds a lone surrogate, on both
        // paths (fuzz/regressions/usage_scanner/crash-e30eae7d…).
        let text = r#"{"type":"message","id":"t","message":{"role":"toolResult","content":[{"type":"text","text":"\ude00"}],"durationMs":5}}"#;
        for parsed in [parse_line(text, 1), parse_line_serde(text, 1)] {
            match parsed.unwrap() {
                Line::Entry(e) => assert_eq!(e.markers, crate::markers::TOOL_RESULT_DURATION),
                other => panic!("not an entry: {other:?}"),
            }
        }
    }

    #[test]
    fn header_needs_a_string_id() {
        assert!(
            matches!(parse_line(r#"{"type":"session","version":3,"id":"x","cwd":"/p"}"#, 1).unwrap(), Line::Header(h) if h.cwd.as_deref() == Some("/p"))
        );
        assert!(matches!(
            parse_line(r#"{"type":"session","id":3}"#, 1).unwrap(),
            Line::Entry(_)
        ));
    }
}
