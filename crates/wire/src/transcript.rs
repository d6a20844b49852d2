//! System-message replay (pi-ai `utils/transcript.js` and `utils/text.js`).
//!
//! Messages are JSON values shaped as pi-ai's `Message`. Sections are patched by name with
//! JavaScript `Map` semantics: updating a name keeps its position, `null` deletes it, and a name
//! deleted and added again goes to the end. Tools follow the same rules per message, removals
//! first.

use crate::js::Field;
use std::borrow::{Borrow, Cow};

use forge_replay_model::json::{js_key_order, stringify};
use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::js;

/// `contentText(content, separator)`: a string as is, else the text blocks joined.
pub fn content_text(content: Option<&Value>, separator: &str) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            let mut first = true;
            for b in blocks {
                if b.field("type").and_then(Value::as_str) == Some("text") {
                    if !first {
                        out.push_str(separator);
                    }
                    first = false;
                    out.push_str(&text_of(b.field("text")));
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// A JavaScript value converted with `String(v)` for joins and template strings
/// (`undefined`/`null` join as "", an object as `[object Object]`).
fn text_of(v: Option<&Value>) -> String {
    js::join_element(v).into_owned()
}

/// Non-null section values of a message, in JavaScript property order.
fn section_entries(message: &Value) -> Vec<(&String, &Value)> {
    match message.field("sections").and_then(Value::as_object) {
        Some(m) => js_key_order(m),
        None => Vec::new(),
    }
}

/// The key under which [`string_tool_lists_as_arrays`] keeps a string tool list's text for the
/// token estimate (which stringifies the list as it was).
pub const TOOL_LIST_TEXT_SUFFIX: &str = "\u{0}text";

/// The transcript with the messages `odd` picks rewritten by `fix` (given the message's object),
/// or `None` when it picks none, so the usual well-formed transcript is not copied.
/// `messages[..from]` are known to be ones `odd` does not pick (an earlier request had them).
fn rewrite_messages(
    messages: &[&Value],
    from: usize,
    odd: impl Fn(&Value) -> bool,
    fix: impl Fn(&mut Map<String, Value>),
) -> Option<Vec<Value>> {
    if !messages[from..].iter().any(|m| odd(m)) {
        return None;
    }
    Some(
        messages
            .iter()
            .map(|&m| {
                let mut out = m.clone();
                if let (true, Value::Object(o)) = (odd(m), &mut out) {
                    fix(o);
                }
                out
            })
            .collect(),
    )
}

/// The transcript with every system message's string `toolsAdded`/`toolsRemoved` replaced by
/// what `for (const tool of list)` iterates: one string per code point (each a "tool" without a
/// name), or `None` when no message has one. The original string stays under
/// `<key>` + [`TOOL_LIST_TEXT_SUFFIX`] for the token estimate. `messages[..from]` are known to
/// have none.
pub fn string_tool_lists_as_arrays(messages: &[&Value], from: usize) -> Option<Vec<Value>> {
    const KEYS: [&str; 2] = ["toolsAdded", "toolsRemoved"];
    let odd = |m: &Value| {
        is_system(m)
            && KEYS
                .iter()
                .any(|k| m.field(k).is_some_and(Value::is_string))
    };
    rewrite_messages(messages, from, odd, |o| {
        for k in KEYS {
            if let Some(Value::String(s)) = o.get(k).cloned() {
                let chars = s.chars().map(|c| Value::String(c.to_string())).collect();
                o.insert(k.into(), Value::Array(chars));
                o.insert(format!("{k}{TOOL_LIST_TEXT_SUFFIX}"), Value::String(s));
            }
        }
    })
}

/// The transcript with every system message's string or array `sections` replaced by the object
/// `Object.entries` sees (`"ab"` → `{"0": "a", "1": "b"}`, one entry per UTF-16 unit), or `None`
/// when no message has such sections. `messages[..from]` are known to have none.
pub fn sections_as_objects(messages: &[&Value], from: usize) -> Option<Vec<Value>> {
    let odd = |m: &Value| {
        is_system(m)
            && matches!(
                m.field("sections"),
                Some(Value::String(_) | Value::Array(_))
            )
    };
    rewrite_messages(messages, from, odd, |o| {
        let entries: Map<String, Value> = match o.get("sections") {
            Some(Value::String(s)) => js::utf16_units(s)
                .enumerate()
                .map(|(i, u)| (i.to_string(), js::s(js::from_utf16(&[u]))))
                .collect(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v.clone()))
                .collect(),
            _ => Map::new(),
        };
        o.insert("sections".into(), Value::Object(entries));
    })
}

/// `getSystemMessageText(message)`: content, then non-null sections, empty parts dropped,
/// joined with a blank line.
pub fn system_message_text(message: &Value) -> String {
    let mut parts = vec![content_text(message.field("content"), "\n")];
    for (_, v) in section_entries(message) {
        // `parts.filter((part) => part.length > 0)`: only non-empty strings and arrays have a
        // length (a number or an object section is dropped).
        match v {
            Value::String(_) | Value::Array(_) => parts.push(text_of(Some(v))),
            _ => {}
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

/// `renderSystemMessageUpdate(message)`: the text of a later system message.
pub fn render_system_message_update(message: &Value) -> String {
    let mut parts = Vec::new();
    let text = content_text(message.field("content"), "\n");
    if !text.is_empty() {
        parts.push(text);
    }
    for (name, v) in section_entries(message) {
        if v.is_null() {
            parts.push(format!("Removed system prompt section \"{name}\"."));
        } else {
            parts.push(format!(
                "Updated system prompt section \"{name}\":\n\n{}",
                text_of(Some(v))
            ));
        }
    }
    parts.join("\n\n")
}

/// Whether a message has role `system`.
pub fn is_system(m: &Value) -> bool {
    m.field("role").and_then(Value::as_str) == Some("system")
}

/// The role of a message.
pub fn role(m: &Value) -> &str {
    m.field("role").and_then(Value::as_str).unwrap_or("")
}

/// A tool's `name` as a JavaScript `Map` key: keys of different types stay apart (`undefined`,
/// `null`, `""` and `5` are four keys), as SameValueZero keeps them.
pub fn tool_key(t: &Value) -> String {
    match t.field("name") {
        Some(Value::String(s)) => format!("s{s}"),
        None => "u".into(),
        Some(other) => format!("v{}", stringify(other)),
    }
}

/// The system messages of a transcript (owned or borrowed messages).
fn systems<M: Borrow<Value>>(messages: &[M]) -> impl Iterator<Item = &Value> {
    messages.iter().map(Borrow::borrow).filter(|m| is_system(m))
}

/// `getInitialSystemMessage(messages)`.
pub fn initial_system_message<M: Borrow<Value>>(messages: &[M]) -> Option<&Value> {
    messages
        .first()
        .map(Borrow::borrow)
        .filter(|m| is_system(m))
}

/// `withoutInitialSystemMessage(messages)`.
pub fn without_initial_system_message<M: Borrow<Value>>(messages: &[M]) -> &[M] {
    if initial_system_message(messages).is_some() {
        &messages[1..]
    } else {
        messages
    }
}

/// An insertion-ordered map with JavaScript `Map` delete/set semantics, borrowing its values
/// (tool lists are short: a linear scan beats hashing, and nothing is copied until the end).
#[derive(Default)]
struct OrderedMap<'a> {
    entries: Vec<(String, &'a Value)>,
}

impl<'a> OrderedMap<'a> {
    fn get(&self, k: &str) -> Option<&'a Value> {
        self.entries.iter().find(|(n, _)| n == k).map(|(_, v)| *v)
    }
    fn set(&mut self, k: String, v: &'a Value) {
        match self.entries.iter_mut().find(|(n, _)| *n == k) {
            Some(e) => e.1 = v,
            None => self.entries.push((k, v)),
        }
    }
    fn delete(&mut self, k: &str) {
        if let Some(at) = self.entries.iter().position(|(n, _)| n == k) {
            self.entries.remove(at);
        }
    }
    fn values(self) -> Vec<&'a Value> {
        self.entries.into_iter().map(|(_, v)| v).collect()
    }
}

/// `getCurrentTools(messages)`: the tools after every delta, in Map order.
pub fn current_tools<M: Borrow<Value>>(messages: &[M]) -> Vec<Value> {
    current_tool_refs(messages).into_iter().cloned().collect()
}

/// [`current_tools`] without copying the tool objects.
pub fn current_tool_refs<M: Borrow<Value>>(messages: &[M]) -> Vec<&Value> {
    let mut tools = OrderedMap::default();
    for m in systems(messages) {
        for t in js::arr(m, "toolsRemoved") {
            tools.delete(&tool_key(t));
        }
        for t in js::arr(m, "toolsAdded") {
            tools.set(tool_key(t), t);
        }
    }
    tools.values()
}

/// `getCurrentSystemMessage(messages)`: every system message replayed into one.
pub fn current_system_message<M: Borrow<Value>>(messages: &[M]) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections = OrderedMap::default();
    // `timestamp ??= message.timestamp`: None is undefined, Some(None) is null.
    let mut timestamp: Option<Option<Value>> = None;
    for m in systems(messages) {
        if !matches!(timestamp, Some(Some(_))) {
            timestamp = match m.field("timestamp") {
                None => None,
                Some(Value::Null) => Some(None),
                Some(v) => Some(Some(v.clone())),
            };
        }
        let text = content_text(m.field("content"), "\n");
        if !text.is_empty() {
            content.push(text);
        }
        for (name, v) in section_entries(m) {
            if v.is_null() {
                sections.delete(name);
            } else {
                sections.set(name.clone(), v);
            }
        }
    }
    let tools = current_tools(messages);
    if timestamp.is_none() && tools.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), js::s("system"));
    out.insert("content".into(), js::s(content.join("\n\n")));
    if !sections.entries.is_empty() {
        let sections: Map<String, Value> = sections
            .entries
            .into_iter()
            .map(|(k, v)| (k, v.clone()))
            .collect();
        out.insert("sections".into(), Value::Object(sections));
    }
    if !tools.is_empty() {
        out.insert("toolsAdded".into(), Value::Array(tools));
    }
    out.insert(
        "timestamp".into(),
        timestamp.flatten().unwrap_or(Value::from(0)),
    );
    Some(Value::Object(out))
}

/// `getCurrentSystemPrompt(messages)`.
pub fn current_system_prompt<M: Borrow<Value>>(messages: &[M]) -> String {
    current_system_message(messages)
        .map(|m| system_message_text(&m))
        .unwrap_or_default()
}

/// `collapseSystemMessages`: the replayed system message first, then every non-system message
/// (a copy; the builders use [`collapse_system_messages_cow`]).
pub fn collapse_system_messages(messages: &[&Value]) -> Vec<Value> {
    let head = current_system_message(messages);
    let mut out = Vec::with_capacity(messages.len() + 1);
    out.extend(head);
    out.extend(messages.iter().filter(|m| !is_system(m)).copied().cloned());
    out
}

/// [`collapse_system_messages`] without copying: the replayed system message (owned) first, then
/// every non-system message borrowed.
pub fn collapse_system_messages_cow<'a>(messages: &[&'a Value]) -> Vec<Cow<'a, Value>> {
    let head = current_system_message(messages);
    let mut out = Vec::with_capacity(messages.len() + 1);
    out.extend(head.map(Cow::Owned));
    out.extend(
        messages
            .iter()
            .filter(|m| !is_system(m))
            .map(|&m| Cow::Borrowed(m)),
    );
    out
}

/// [`resolve_transcript`] without copying: borrowed as is when mid-conversation system messages
/// are supported, else [`collapse_system_messages_cow`].
pub fn resolve_transcript_cow<'a>(
    messages: &[&'a Value],
    supports_mid_convo: bool,
) -> Vec<Cow<'a, Value>> {
    if supports_mid_convo {
        messages.iter().map(|&m| Cow::Borrowed(m)).collect()
    } else {
        collapse_system_messages_cow(messages)
    }
}

/// `resolveTranscript`: the messages as they are when mid-conversation system messages are
/// supported, else collapsed; only the replayed system message is built, the others are
/// borrowed ([`resolve_transcript_cow`]).
pub fn resolve_transcript<'a>(
    messages: &[&'a Value],
    supports_mid_convo: bool,
) -> Vec<Cow<'a, Value>> {
    resolve_transcript_cow(messages, supports_mid_convo)
}

/// `toToolDeclaration(tool)`: `{name, description, parameters, constrainedSampling?}`.
pub fn to_tool_declaration(tool: &Value) -> Value {
    let mut m = Map::new();
    if let Some(v) = tool.field("name") {
        m.insert("name".into(), v.clone());
    }
    if let Some(v) = tool.field("description") {
        m.insert("description".into(), v.clone());
    }
    if let Some(v) = tool.field("parameters") {
        m.insert("parameters".into(), v.clone());
    }
    if let Some(v) = tool.field("constrainedSampling") {
        m.insert("constrainedSampling".into(), v.clone());
    }
    Value::Object(m)
}

/// `declarationsEqual(left, right)`.
pub fn declarations_equal(a: &Value, b: &Value) -> bool {
    stringify(&to_tool_declaration(a)) == stringify(&to_tool_declaration(b))
}

/// `getDeclaredTools(messages)`: every declaration, by name, in first-declaration order (the
/// latest definition wins).
pub fn declared_tools<M: Borrow<Value>>(messages: &[M]) -> Vec<Value> {
    declared_tool_refs(messages).into_iter().cloned().collect()
}

/// [`declared_tools`] without copying the tool objects.
pub fn declared_tool_refs<M: Borrow<Value>>(messages: &[M]) -> Vec<&Value> {
    let mut defs = OrderedMap::default();
    for m in systems(messages) {
        for t in js::arr(m, "toolsAdded") {
            defs.set(tool_key(t), t);
        }
    }
    defs.values()
}

/// `hasToolRedefinitions(messages)`.
pub fn has_tool_redefinitions<M: Borrow<Value>>(messages: &[M]) -> bool {
    let mut declared = OrderedMap::default();
    for m in systems(messages) {
        for t in js::arr(m, "toolsAdded") {
            let name = tool_key(t);
            if let Some(prev) = declared.get(&name) {
                // toToolDeclaration's `JSON.parse(JSON.stringify(tool.parameters))` throws on
                // a tool without parameters.
                if prev.field("parameters").is_none() || t.field("parameters").is_none() {
                    js::fault(|| "\"undefined\" is not valid JSON".into());
                    return true;
                }
                if !declarations_equal(prev, t) {
                    return true;
                }
            }
            declared.set(name, t);
        }
    }
    false
}

/// `hasNonAdditiveToolChanges(messages)`.
pub fn has_non_additive_tool_changes<M: Borrow<Value>>(messages: &[M]) -> bool {
    let mut declared = std::collections::HashSet::new();
    for m in systems(messages) {
        if !js::arr(m, "toolsRemoved").is_empty() {
            return true;
        }
        for t in js::arr(m, "toolsAdded") {
            if !declared.insert(tool_key(t)) {
                return true;
            }
        }
    }
    false
}

/// The `anchorsAdditions` half of [`resolve_transcript_tools`] (without building the tool list).
pub fn anchors_tool_additions<M: Borrow<Value>>(messages: &[M], supports_additions: bool) -> bool {
    supports_additions && !has_non_additive_tool_changes(messages)
}

/// How a transport can express tool changes inside the transcript (1.6's `resolveTranscriptTools`
/// `support` argument; `getResponsesToolSupport` for the Responses family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSupport {
    /// Nothing in place: the request's tools are the current tool set.
    None,
    /// Additions anchored at system messages; removals and redefinitions fold into the request.
    Additions,
    /// Every declaration in place (1.6 Responses `additional_tools` items), none at the top.
    Changes,
}

/// `resolveTranscriptTools(messages, support)`'s result: the request's top-level tools, and how
/// many leading system messages are folded into them (system messages from that index on
/// declare their tools in place).
#[derive(Debug, Clone, Default)]
pub struct TranscriptTools {
    /// `requestTools`.
    pub request_tools: Vec<Value>,
    /// `foldedSystemMessages`.
    pub folded_system_messages: usize,
}

/// The index among the system messages of the last one with a removal or a same-name
/// redeclaration (`findLastNonAdditiveToolChange`).
fn last_non_additive_tool_change<M: Borrow<Value>>(messages: &[M]) -> Option<usize> {
    let mut declared = std::collections::HashSet::new();
    let mut last = None;
    for (index, m) in systems(messages).enumerate() {
        if !js::arr(m, "toolsRemoved").is_empty() {
            last = Some(index);
        }
        for t in js::arr(m, "toolsAdded") {
            if !declared.insert(tool_key(t)) {
                last = Some(index);
            }
        }
    }
    last
}

/// `resolveTranscriptTools(messages, support)` of `release`. Before 1.6
/// ([`Change::TranscriptToolsFoldAtLastChange`]) a removal or redefinition anywhere turns
/// anchoring off (every system message folded, the current tools at the top) and
/// [`ToolSupport::Changes`] does not exist (it acts as additions).
pub fn transcript_tools<M: Borrow<Value>>(
    release: PiRelease,
    messages: &[M],
    support: ToolSupport,
) -> TranscriptTools {
    let system_count = systems(messages).count();
    if !release.has(Change::TranscriptToolsFoldAtLastChange) {
        let (request_tools, anchors) =
            resolve_transcript_tools(messages, support != ToolSupport::None);
        let folded_system_messages = if anchors {
            usize::from(initial_system_message(messages).is_some())
        } else {
            system_count
        };
        return TranscriptTools {
            request_tools,
            folded_system_messages,
        };
    }
    match support {
        ToolSupport::None => TranscriptTools {
            request_tools: current_tools(messages),
            folded_system_messages: system_count,
        },
        ToolSupport::Changes => TranscriptTools::default(),
        ToolSupport::Additions => {
            let initial = usize::from(initial_system_message(messages).is_some());
            let folded = initial.max(last_non_additive_tool_change(messages).map_or(0, |i| i + 1));
            let folded_messages: Vec<&Value> = systems(messages).take(folded).collect();
            TranscriptTools {
                request_tools: current_tools(&folded_messages),
                folded_system_messages: folded,
            }
        }
    }
}

/// `resolveTranscriptTools(messages, supportsToolAdditions)` → `(requestTools, anchorsAdditions)`.
pub fn resolve_transcript_tools<M: Borrow<Value>>(
    messages: &[M],
    supports_additions: bool,
) -> (Vec<Value>, bool) {
    let anchors = anchors_tool_additions(messages, supports_additions);
    let tools = if anchors {
        initial_system_message(messages)
            .map(|m| js::arr(m, "toolsAdded").to_vec())
            .unwrap_or_default()
    } else {
        current_tools(messages)
    };
    (tools, anchors)
}

/// V8's `TypeError` for `for (const x of value ?? [])` over a value that is not iterable.
fn not_iterable(v: &Value) -> Option<String> {
    let what = match v {
        Value::Null | Value::Array(_) | Value::String(_) => return None,
        Value::Object(_) => "object".to_string(),
        Value::Number(_) => format!("number {}", stringify(v)),
        Value::Bool(b) => format!("boolean {b}"),
    };
    Some(format!(
        "{what} is not iterable (cannot read property Symbol(Symbol.iterator))"
    ))
}

/// The `TypeError` of `contentText(content)` for a system message's content, if any: a content
/// that is neither a string nor an array has no `filter`.
pub fn content_text_error(content: Option<&Value>) -> Option<String> {
    match content {
        None => Some("Cannot read properties of undefined (reading 'filter')".into()),
        Some(Value::Null) => Some("Cannot read properties of null (reading 'filter')".into()),
        Some(Value::String(_) | Value::Array(_)) => None,
        Some(_) => Some("content.filter is not a function".into()),
    }
}

/// The `TypeError` pi-ai's shared transcript steps throw on a malformed transcript, if any, in
/// the order pi-ai meets them: replaying system messages reads every message's `role` (a `null`
/// message), runs `contentText` on each system message's content (missing, or neither a string
/// nor an array) and iterates its `toolsRemoved` then `toolsAdded` (an object or a number is not
/// iterable). Every API but pi-messages replays system messages.
pub fn transcript_type_error(messages: &[&Value]) -> Option<String> {
    for m in messages {
        if m.is_null() {
            return Some("Cannot read properties of null (reading 'role')".into());
        }
        if m.field("role").and_then(Value::as_str) == Some("system") {
            if let Some(e) = content_text_error(m.field("content")) {
                return Some(e);
            }
            for key in ["toolsRemoved", "toolsAdded"] {
                if let Some(e) = m.field(key).and_then(not_iterable) {
                    return Some(e);
                }
            }
        }
    }
    None
}

/// Errors from [`normalize_context`].
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ContextError {
    /// JSON path of the offending value (`$.context.messages[2].role`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// Whether `normalizeContext` would prepend a system message (a non-empty `systemPrompt` or
/// `tools`).
pub fn needs_initial_message(context: &Value) -> bool {
    context
        .field("systemPrompt")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
        || has_length(context.field("tools"))
}

/// `value !== undefined && value.length > 0` for a tool list: a non-empty array or string (a
/// string is iterated character by character later).
fn has_length(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        _ => false,
    }
}

/// [`normalize_context`] without a copy when it would return the transcript as it is:
/// `normalizeContext` only prepends a message when there is a systemPrompt or tools.
pub fn normalized_messages(context: &Value) -> Result<Cow<'_, [Value]>, ContextError> {
    match context.get("messages") {
        Some(Value::Array(m)) if !needs_initial_message(context) => Ok(Cow::Borrowed(m)),
        _ => normalize_context(context).map(Cow::Owned),
    }
}

/// pi-ai's `normalizeContext(context)`: folds `systemPrompt` and `tools` into a leading system
/// message (`{role:"system", content, toolsAdded?, timestamp:0}`) and returns the transcript.
pub fn normalize_context(context: &Value) -> Result<Vec<Value>, ContextError> {
    let Some(ctx) = context.as_object() else {
        return Err(ContextError {
            path: "$.context".into(),
            message: "must be an object".into(),
        });
    };
    let messages = match ctx.field("messages") {
        Some(Value::Array(a)) => a,
        _ => {
            return Err(ContextError {
                path: "$.context.messages".into(),
                message: "must be an array".into(),
            })
        }
    };
    let prompt = ctx.field("systemPrompt").filter(|v| !v.is_null());
    let has_prompt = prompt
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    let tools = ctx.field("tools").filter(|v| !v.is_null());
    let has_tools = has_length(tools);
    let mut out = Vec::with_capacity(messages.len() + 1);
    if has_prompt || has_tools {
        let mut m = Map::new();
        m.insert("role".into(), js::s("system"));
        m.insert(
            "content".into(),
            prompt.cloned().unwrap_or_else(|| js::s("")),
        );
        if has_tools {
            m.insert("toolsAdded".into(), tools.cloned().unwrap_or(Value::Null));
        }
        m.insert("timestamp".into(), Value::from(0));
        out.push(Value::Object(m));
    }
    out.extend(messages.iter().cloned());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sys(content: &str, sections: Value, added: &[&str], removed: &[&str]) -> Value {
        json!({
            "role": "system", "content": content, "sections": sections,
            "toolsAdded": added.iter().map(|n| json!({"name": n, "description": n, "parameters": {}})).collect::<Vec<_>>(),
            "toolsRemoved": removed.iter().map(|n| json!({"name": n})).collect::<Vec<_>>(),
            "timestamp": 5
        })
    }

    #[test]
    fn tool_additions_fold_up_to_the_last_removal_from_1_6() {
        let tool = |n: &str| json!({"name": n, "parameters": {"type": "object"}});
        let messages = vec![
            json!({"role": "system", "content": "s", "toolsAdded": [tool("a"), tool("b")]}),
            json!({"role": "user", "content": "u"}),
            json!({"role": "system", "content": "", "toolsAdded": [tool("c")]}),
            json!({"role": "system", "content": "", "toolsRemoved": [tool("a")]}),
            json!({"role": "system", "content": "", "toolsAdded": [tool("d")]}),
        ];
        let names = |t: &TranscriptTools| {
            t.request_tools
                .iter()
                .map(|x| x["name"].as_str().unwrap_or("").to_string())
                .collect::<Vec<_>>()
        };
        let new = transcript_tools(PiRelease::V1_6_0, &messages, ToolSupport::Additions);
        assert_eq!(names(&new), ["b", "c"]);
        assert_eq!(new.folded_system_messages, 3);
        let old = transcript_tools(PiRelease::V1_3_0, &messages, ToolSupport::Additions);
        assert_eq!(names(&old), ["b", "c", "d"]);
        assert_eq!(old.folded_system_messages, 4);
        let changes = transcript_tools(PiRelease::V1_6_0, &messages, ToolSupport::Changes);
        assert!(changes.request_tools.is_empty());
        assert_eq!(changes.folded_system_messages, 0);
        let none = transcript_tools(PiRelease::V1_6_0, &messages, ToolSupport::None);
        assert_eq!(names(&none), ["b", "c", "d"]);
    }

    #[test]
    fn replay_patches_sections_in_map_order() {
        let msgs = vec![
            sys(
                "",
                json!({"preamble": "P", "tools": "T", "cwd": "C"}),
                &["read", "bash"],
                &[],
            ),
            json!({"role": "user", "content": "hi", "timestamp": 6}),
            sys(
                "Extra.",
                json!({"cwd": null, "skills": "S", "tools": "T2"}),
                &["grep"],
                &["bash"],
            ),
        ];
        let cur = current_system_message(&msgs).unwrap();
        assert_eq!(system_message_text(&cur), "Extra.\n\nP\n\nT2\n\nS");
        let names: Vec<_> = current_tools(&msgs)
            .iter()
            .map(|t| t["name"].clone())
            .collect();
        assert_eq!(names, vec![json!("read"), json!("grep")]);
        assert_eq!(cur["timestamp"], json!(5));
        assert_eq!(
            render_system_message_update(&msgs[2]),
            "Extra.\n\nRemoved system prompt section \"cwd\".\n\nUpdated system prompt section \"skills\":\n\nS\n\nUpdated system prompt section \"tools\":\n\nT2"
        );
        assert!(has_non_additive_tool_changes(&msgs));
        assert!(!has_tool_redefinitions(&msgs));
        let collapsed = collapse_system_messages(&msgs.iter().collect::<Vec<_>>());
        assert_eq!(collapsed.len(), 2);
    }

    #[test]
    fn deleted_section_readded_goes_last() {
        let msgs = vec![
            sys("", json!({"a": "1", "b": "2"}), &[], &[]),
            sys("", json!({"a": null}), &[], &[]),
            sys("", json!({"a": "3"}), &[], &[]),
        ];
        let cur = current_system_message(&msgs).unwrap();
        assert_eq!(system_message_text(&cur), "2\n\n3");
    }

    #[test]
    fn redefinition_is_detected() {
        let msgs = vec![
            json!({"role":"system","content":"","toolsAdded":[{"name":"a","description":"x","parameters":{}}]}),
            json!({"role":"system","content":"","toolsAdded":[{"name":"a","description":"y","parameters":{}}]}),
        ];
        assert!(has_tool_redefinitions(&msgs));
        let (tools, anchors) = resolve_transcript_tools(&msgs, true);
        assert!(!anchors);
        assert_eq!(tools[0]["description"], "y");
    }

    #[test]
    fn normalize_prepends_prompt_and_tools() {
        let ctx = json!({"systemPrompt": "S", "tools": [{"name": "t"}], "messages": [{"role": "user", "content": "x"}]});
        let msgs = normalize_context(&ctx).unwrap();
        assert_eq!(
            stringify(&msgs[0]),
            r#"{"role":"system","content":"S","toolsAdded":[{"name":"t"}],"timestamp":0}"#
        );
        let msgs = normalize_context(&json!({"systemPrompt": "", "messages": []})).unwrap();
        assert!(msgs.is_empty());
        assert!(normalize_context(&json!({"messages": 3})).is_err());
    }
}
