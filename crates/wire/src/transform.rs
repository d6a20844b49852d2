//! The shared message transform (pi-ai `api/transform-messages.js`), used by every API except
//! pi-messages:
//!
//! 1. `null` content becomes `[]`; images become placeholder text for models without image input.
//! 2. Thinking from another model becomes text (empty thinking is dropped; redacted thinking is
//!    dropped; from 1.3, [`Change::CrossModelThinkingDropped`], all of it is dropped), tool calls
//!    from another model lose `thoughtSignature` and get the API's id normalizer (tool results
//!    follow the new ids).
//! 3. Errored and aborted assistant messages are dropped.
//! 4. Orphaned tool calls get a synthetic `"No result provided"` error result; system messages
//!    between a tool call and its results are held back until the results are in.

use crate::js::Field;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use forge_replay_model::release::{Change, PiRelease};
use serde_json::{Map, Value};

use crate::js;
use crate::model::Model;

/// Placeholder for user images on models without image input.
pub const NON_VISION_USER_IMAGE_PLACEHOLDER: &str =
    "(image omitted: model does not support images)";
/// Placeholder for tool-result images on models without image input.
pub const NON_VISION_TOOL_IMAGE_PLACEHOLDER: &str =
    "(tool image omitted: model does not support images)";

/// Placeholder for the images of an error tool result (1.3, [`Change::ErrorToolImagesSplit`]).
pub const ERROR_TOOL_IMAGE_PLACEHOLDER: &str = "(image attached after the tool results)";

/// An error tool result's images, split out ([`split_error_tool_result_images`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorImages {
    /// The result's content with its images replaced by the placeholder.
    pub content: Vec<Value>,
    /// The caption sent before the images.
    pub caption: String,
    /// The image blocks.
    pub images: Vec<Value>,
}

/// `splitErrorToolResultImages(msg)` (1.3): for an error result with images, its content with
/// the images replaced, and the caption and images to send after the turn's results.
pub fn split_error_tool_result_images(msg: &Value) -> Option<ErrorImages> {
    if !js::truthy(msg.field("isError")) {
        return None;
    }
    let content = js::arr(msg, "content");
    let images: Vec<Value> = content
        .iter()
        .filter(|b| b.field("type").and_then(Value::as_str) == Some("image"))
        .cloned()
        .collect();
    if images.is_empty() {
        return None;
    }
    Some(ErrorImages {
        content: replace_images(content, ERROR_TOOL_IMAGE_PLACEHOLDER),
        caption: format!(
            "Images from the error result of tool call {} ({}):",
            js::to_string(msg.field("toolCallId")),
            js::to_string(msg.field("toolName"))
        ),
        images,
    })
}

/// A per-API tool-call id normalizer: `(id, target model, source assistant message) → id`. The
/// id is the tool call's `id` field as it is (absent, `null` or a non-string in a malformed
/// context): each normalizer records the `TypeError` of its first string method (see
/// [`js::str_or_fault`]), as pi-ai's throws.
pub type IdNormalizer<'a> = &'a dyn Fn(Option<&Value>, &Model, &Value) -> String;

fn replace_images(content: &[Value], placeholder: &str) -> Vec<Value> {
    let mut out = Vec::with_capacity(content.len());
    let mut previous_was_placeholder = false;
    for block in content {
        if block.field("type").and_then(Value::as_str) == Some("image") {
            if !previous_was_placeholder {
                out.push(js::obj!([
                    ("type", js::s("text")),
                    ("text", js::s(placeholder)),
                ]));
            }
            previous_was_placeholder = true;
            continue;
        }
        out.push(block.clone());
        previous_was_placeholder = block.field("text").and_then(Value::as_str) == Some(placeholder);
    }
    out
}

/// Whether an assistant message came from the target model (`provider`, `api` and `model` equal).
pub fn is_same_model(msg: &Value, model: &Model) -> bool {
    js::str_of(msg, "provider") == Some(model.provider())
        && js::str_of(msg, "api") == Some(model.api_name())
        && js::str_of(msg, "model") == Some(model.id())
}

/// The `TypeError` `transformMessages` (or, for `null` blocks, the first step after it that reads
/// `block.type`) throws on a malformed transcript, if any: a `null` content block,
/// `content.flatMap` on an assistant message whose content is a string, number or object, and
/// `block.thinking.trim()` on a non-string thinking it would convert or keep (from 1.3 only
/// same-model thinking is trimmed: another model's is dropped first).
pub fn type_error(release: PiRelease, messages: &[&Value], model: &Model) -> Option<String> {
    let drops_foreign = release.has(Change::CrossModelThinkingDropped);
    const NULL_BLOCK: &str = "Cannot read properties of null (reading 'type')";
    for m in messages {
        let role = m.field("role").and_then(Value::as_str);
        let blocks = match (role, m.field("content")) {
            (Some("assistant"), None | Some(Value::Null)) => continue,
            (Some("assistant"), Some(Value::Array(b))) => b,
            (Some("assistant"), Some(_)) => {
                return Some("assistantMsg.content.flatMap is not a function".into())
            }
            // `block.type` of a `null` block: the image downgrade, the converters, contentText.
            (Some("system" | "user" | "toolResult"), Some(Value::Array(b))) => {
                if b.iter().any(Value::is_null) {
                    return Some(NULL_BLOCK.into());
                }
                continue;
            }
            _ => continue,
        };
        for b in blocks {
            if b.is_null() {
                return Some(NULL_BLOCK.into());
            }
            // `!block.thinking || block.thinking.trim() === ""`, unless the block is kept as it
            // is first (redacted, or same-model with a signature).
            let thinking = b.field("thinking");
            if !js::truthy(thinking)
                || thinking.is_some_and(Value::is_string)
                || b.field("type").and_then(Value::as_str) != Some("thinking")
                || js::truthy(b.field("redacted"))
                || (js::truthy(b.field("thinkingSignature")) && is_same_model(m, model))
                || (drops_foreign && !is_same_model(m, model))
            {
                continue;
            }
            return Some("block.thinking.trim is not a function".into());
        }
    }
    None
}

/// `transformMessages(messages, model, normalizeToolCallId)`.
pub fn transform_messages(
    release: PiRelease,
    messages: &[&Value],
    model: &Model,
    normalize_id: Option<IdNormalizer<'_>>,
) -> Vec<Value> {
    transform_messages_cow(release, messages.iter().copied(), model, normalize_id)
        .into_iter()
        .map(Cow::into_owned)
        .collect()
}

fn has_image(content: Option<&Value>) -> bool {
    content.and_then(Value::as_array).is_some_and(|c| {
        c.iter()
            .any(|b| b.field("type").and_then(Value::as_str) == Some("image"))
    })
}

/// Whether the first pass changes this message (otherwise it is passed through borrowed).
fn changes(
    msg: &Value,
    model: &Model,
    vision: bool,
    id_map: &HashMap<String, String>,
    has_normalizer: bool,
) -> bool {
    let Some(m) = msg.as_object() else {
        return false;
    };
    if m.field("content").is_none_or(Value::is_null) {
        return true;
    }
    match m.field("role").and_then(Value::as_str).unwrap_or("") {
        "user" => !vision && has_image(m.field("content")),
        "toolResult" => {
            if !vision && (has_image(m.field("content")) || !m["content"].is_array()) {
                return true;
            }
            let id = m.field("toolCallId").and_then(Value::as_str).unwrap_or("");
            id_map
                .get(id)
                .is_some_and(|n| !n.is_empty() && n.as_str() != id)
        }
        "assistant" => {
            if !is_same_model(msg, model) {
                // Thinking becomes text, text loses its signature, tool calls are normalized.
                let blocks = m
                    .field("content")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or(&[]);
                return !blocks.is_empty() || has_normalizer;
            }
            m.field("content")
                .and_then(Value::as_array)
                .is_some_and(|blocks| {
                    blocks.iter().any(|b| {
                        b.field("type").and_then(Value::as_str) == Some("thinking")
                            && !js::truthy(b.field("redacted"))
                            && !js::truthy(b.field("thinkingSignature"))
                            && (!js::truthy(b.field("thinking"))
                                || b.field("thinking")
                                    .and_then(Value::as_str)
                                    .is_some_and(|t| js::trim(t).is_empty()))
                    })
                })
        }
        _ => false,
    }
}

/// [`transform_messages`] without copying the messages it leaves unchanged. `messages` is any
/// sequence of borrowed messages (a slice, or e.g. the non-system messages of a transcript).
pub fn transform_messages_cow<'a, I>(
    release: PiRelease,
    messages: I,
    model: &Model,
    normalize_id: Option<IdNormalizer<'_>>,
) -> Vec<Cow<'a, Value>>
where
    I: IntoIterator<Item = &'a Value>,
{
    transform_messages_tracked(release, messages, model, normalize_id).0
}

/// [`transform_messages_cow`], and the index of the first message whose tool calls were given
/// new ids (`None`: none were). Up to that message the transform keeps no state past a user
/// message: the messages after a user message before it transform the same on their own (what
/// a resumed assembly relies on).
pub(crate) fn transform_messages_tracked<'a, I>(
    release: PiRelease,
    messages: I,
    model: &Model,
    normalize_id: Option<IdNormalizer<'_>>,
) -> (Vec<Cow<'a, Value>>, Option<usize>)
where
    I: IntoIterator<Item = &'a Value>,
{
    let mut first_renamed: Option<usize> = None;
    let mut id_map: HashMap<String, String> = HashMap::new();
    let vision = model.supports_images();
    let drops_foreign_thinking = release.has(Change::CrossModelThinkingDropped);

    let messages = messages.into_iter();
    let mut transformed: Vec<Cow<'a, Value>> = Vec::with_capacity(messages.size_hint().0);
    for (at, original) in messages.enumerate() {
        if !changes(original, model, vision, &id_map, normalize_id.is_some()) {
            transformed.push(Cow::Borrowed(original));
            continue;
        }
        // One copy per changed message; everything below edits it in place.
        let mut msg = original.clone();
        let Some(m) = msg.as_object_mut() else {
            transformed.push(Cow::Owned(msg));
            continue;
        };
        if m.field("content").is_none_or(Value::is_null) {
            m.insert("content".into(), Value::Array(Vec::new()));
        }
        let role = m
            .field("role")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if !vision && (role == "user" || role == "toolResult") {
            let placeholder = if role == "user" {
                NON_VISION_USER_IMAGE_PLACEHOLDER
            } else {
                NON_VISION_TOOL_IMAGE_PLACEHOLDER
            };
            match m.field("content") {
                Some(Value::Array(c)) => {
                    let c = replace_images(c, placeholder);
                    m.insert("content".into(), Value::Array(c));
                }
                // `for (const block of content)` iterates a string by code point: each
                // character becomes a "block" (a string, without `type` or `text`).
                Some(Value::String(t)) if role == "toolResult" => {
                    let chars = t.chars().map(|c| Value::String(c.to_string())).collect();
                    m.insert("content".into(), Value::Array(chars));
                }
                _ if role == "toolResult" => {
                    m.insert("content".into(), Value::Array(Vec::new()));
                }
                _ => {}
            }
        }
        match role.as_str() {
            "toolResult" => {
                let id = m.field("toolCallId").and_then(Value::as_str).unwrap_or("");
                if let Some(n) = id_map.get(id).filter(|n| !n.is_empty() && n.as_str() != id) {
                    m.insert("toolCallId".into(), js::s(n.clone()));
                }
            }
            "assistant" => {
                let same = is_same_model(original, model);
                let blocks = match m.get_mut("content") {
                    Some(Value::Array(c)) => std::mem::take(c),
                    _ => Vec::new(),
                };
                let mut content = Vec::with_capacity(blocks.len());
                for mut block in blocks {
                    let ty = block.field("type").and_then(Value::as_str).unwrap_or("");
                    match ty {
                        "thinking" => {
                            if !same && drops_foreign_thinking {
                                continue;
                            }
                            if js::truthy(block.field("redacted")) {
                                if same {
                                    content.push(block);
                                }
                                continue;
                            }
                            if same && js::truthy(block.field("thinkingSignature")) {
                                content.push(block);
                                continue;
                            }
                            let thinking = block.field("thinking");
                            let empty = !js::truthy(thinking)
                                || thinking
                                    .and_then(Value::as_str)
                                    .is_some_and(|t| js::trim(t).is_empty());
                            if empty {
                                continue;
                            }
                            if same {
                                content.push(block);
                            } else {
                                let text = block
                                    .as_object_mut()
                                    .and_then(|b| b.shift_remove("thinking"))
                                    .unwrap_or(Value::Null);
                                content.push(js::obj!([("type", js::s("text")), ("text", text)]));
                            }
                        }
                        "text" => {
                            if same {
                                content.push(block);
                            } else {
                                let mut t = Map::new();
                                t.insert("type".into(), js::s("text"));
                                if let Some(v) =
                                    block.as_object_mut().and_then(|b| b.shift_remove("text"))
                                {
                                    t.insert("text".into(), v);
                                }
                                content.push(Value::Object(t));
                            }
                        }
                        "toolCall" => {
                            if !same {
                                if let Some(b) = block.as_object_mut() {
                                    if js::truthy(b.field("thoughtSignature")) {
                                        js::delete(b, "thoughtSignature");
                                    }
                                    if let Some(norm) = normalize_id {
                                        let raw = b.field("id");
                                        let id =
                                            raw.and_then(Value::as_str).unwrap_or("").to_string();
                                        let n = norm(raw, model, original);
                                        if n != id {
                                            first_renamed.get_or_insert(at);
                                            id_map.insert(id, n.clone());
                                            b.insert("id".into(), js::s(n));
                                        }
                                    }
                                }
                            }
                            content.push(block);
                        }
                        _ => content.push(block),
                    }
                }
                m.insert("content".into(), Value::Array(content));
            }
            _ => {}
        }
        transformed.push(Cow::Owned(msg));
    }

    // Second pass: synthetic results for orphaned tool calls. Pending calls are read from their
    // assistant message in `result` (by index) and answered results are the indices of tool
    // results pushed since, so nothing is copied or hashed per message.
    let mut result: Vec<Cow<'a, Value>> = Vec::with_capacity(transformed.len());
    let mut pending: Option<usize> = None;
    let mut existing: Vec<usize> = Vec::new();
    let mut held: Vec<Cow<'a, Value>> = Vec::new();
    let close = |result: &mut Vec<Cow<'a, Value>>,
                 pending: &mut Option<usize>,
                 existing: &mut Vec<usize>,
                 held: &mut Vec<Cow<'a, Value>>| {
        if let Some(at) = pending.take() {
            let answered_id = |j: &usize| js::str_of(&result[*j], "toolCallId").unwrap_or("");
            // Many results: a set; the usual one or two: compared in place.
            let large = existing.len() > 16;
            let set: HashSet<&str> = if large {
                existing.iter().map(answered_id).collect()
            } else {
                HashSet::new()
            };
            let missing: Vec<(Option<Value>, Option<Value>)> = tool_calls(&result[at])
                .filter(|b| {
                    let id = b.field("id").and_then(Value::as_str).unwrap_or("");
                    if large {
                        !set.contains(id)
                    } else {
                        !existing.iter().any(|j| answered_id(j) == id)
                    }
                })
                .map(|b| (b.field("id").cloned(), b.field("name").cloned()))
                .collect();
            for (id, name) in missing {
                let (no_id, no_name) = (id.is_none(), name.is_none());
                let mut synthetic = js::obj!([
                    ("role", js::s("toolResult")),
                    ("toolCallId", id.unwrap_or(Value::Null)),
                    ("toolName", name.unwrap_or(Value::Null)),
                    (
                        "content",
                        Value::Array(vec![js::obj!([
                            ("type", js::s("text")),
                            ("text", js::s("No result provided")),
                        ])]),
                    ),
                    ("isError", Value::Bool(true)),
                    ("timestamp", Value::from(0)),
                ]);
                // A call without `id` or `name`: those keys are undefined in pi-ai's object.
                if let Value::Object(m) = &mut synthetic {
                    if no_id {
                        js::delete(m, "toolCallId");
                    }
                    if no_name {
                        js::delete(m, "toolName");
                    }
                }
                result.push(Cow::Owned(synthetic));
            }
            existing.clear();
        }
        result.append(held);
    };
    for msg in transformed {
        match msg.field("role").and_then(Value::as_str).unwrap_or("") {
            "assistant" => {
                close(&mut result, &mut pending, &mut existing, &mut held);
                let stop = js::str_of(&msg, "stopReason");
                if matches!(stop, Some("error") | Some("aborted")) {
                    continue;
                }
                if tool_calls(&msg).next().is_some() {
                    pending = Some(result.len());
                    existing.clear();
                }
                result.push(msg);
            }
            "toolResult" => {
                existing.push(result.len());
                result.push(msg);
            }
            "system" => {
                if pending.is_none() {
                    result.push(msg);
                } else {
                    held.push(msg);
                }
            }
            "user" => {
                close(&mut result, &mut pending, &mut existing, &mut held);
                result.push(msg);
            }
            _ => result.push(msg),
        }
    }
    close(&mut result, &mut pending, &mut existing, &mut held);
    (result, first_renamed)
}

/// The `toolCall` blocks of an assistant message.
fn tool_calls(msg: &Value) -> impl Iterator<Item = &Value> {
    js::arr(msg, "content")
        .iter()
        .filter(|b| b.field("type").and_then(Value::as_str) == Some("toolCall"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The transcript as the builders take it.
    fn refs(messages: &[Value]) -> Vec<&Value> {
        messages.iter().collect()
    }

    fn model() -> Model {
        Model::from_value(json!({"id":"m","api":"anthropic-messages","provider":"p","baseUrl":"u","input":["text"]})).unwrap()
    }

    #[test]
    fn drops_errors_and_synthesizes_results() {
        let msgs = vec![
            json!({"role":"user","content":[{"type":"image","data":"x","mimeType":"image/png"},{"type":"image","data":"y","mimeType":"image/png"}]}),
            json!({"role":"assistant","api":"a","provider":"q","model":"o","stopReason":"toolUse","content":[
                {"type":"thinking","thinking":"hmm"},{"type":"thinking","thinking":"  "},
                {"type":"toolCall","id":"a|b","name":"bash","arguments":{},"thoughtSignature":"s"}]}),
            json!({"role":"system","content":"late"}),
            json!({"role":"assistant","stopReason":"error","content":[]}),
            json!({"role":"user","content":"next"}),
        ];
        let norm = |id: Option<&Value>, _: &Model, _: &Value| {
            id.and_then(Value::as_str).unwrap_or("").replace('|', "_")
        };
        let out = transform_messages(PiRelease::V0_87_1, &refs(&msgs), &model(), Some(&norm));
        assert_eq!(
            out[0]["content"],
            json!([{"type":"text","text":NON_VISION_USER_IMAGE_PLACEHOLDER}])
        );
        assert_eq!(
            out[1]["content"],
            json!([{"type":"text","text":"hmm"},{"type":"toolCall","id":"a_b","name":"bash","arguments":{}}])
        );
        assert_eq!(out[2]["role"], "toolResult");
        assert_eq!(out[2]["toolCallId"], "a_b");
        assert_eq!(out[3]["content"], "late");
        assert_eq!(out[4]["content"], "next");
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn many_results_find_their_calls() {
        // More results than the in-place comparison handles: the set path.
        let calls: Vec<Value> = (0..20)
            .map(|i| json!({"type":"toolCall","id":format!("c{i}"),"name":"read","arguments":{}}))
            .collect();
        let mut msgs = vec![
            json!({"role":"assistant","api":"anthropic-messages","provider":"p",
            "model":"m","stopReason":"toolUse","content":calls}),
        ];
        for i in (0..20).filter(|i| *i != 7) {
            msgs.push(
                json!({"role":"toolResult","toolCallId":format!("c{i}"),"toolName":"read",
                "content":[],"isError":false}),
            );
        }
        msgs.push(json!({"role":"user","content":"next"}));
        let out = transform_messages(PiRelease::V0_87_1, &refs(&msgs), &model(), None);
        assert_eq!(out.len(), 22);
        assert_eq!(out[20]["toolCallId"], "c7");
        assert_eq!(out[20]["isError"], true);
        assert_eq!(out[21]["content"], "next");
    }
}
