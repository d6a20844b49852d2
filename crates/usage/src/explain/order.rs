//! Assembled requests flattened in the provider's prompt-cache order.
//!
//! A provider caches a prefix of the request *as it processes it*, which is not the JSON key order
//! of the payload. [`CacheOrder::of`] rebuilds that order per API as a list of [`Segment`]s, each a
//! string of the segment's elements (one `JSON.stringify`d element per line), so that the longest
//! common prefix of two requests ([`common_prefix`]) tells how much of the previous request a
//! cache could still serve, and in which segment the first difference lies.
//!
//! Per-API order (see `docs/usage.md`, "Cache-break diagnosis"):
//!
//! | API | order |
//! |---|---|
//! | `anthropic-messages` | model, `tools`, `system`, thinking (`thinking`, `output_config`), `messages` |
//! | `bedrock-converse-stream` | model, `toolConfig.tools`, `system`, `additionalModelRequestFields`, `messages` |
//! | Responses (`openai-responses`, `azure-openai-responses`, `openai-codex-responses`) | model, `instructions`, `tools`, leading system/developer `input` items, the other `input` items |
//! | `openai-completions`, `mistral-conversations` | model, `tools`, leading system/developer messages, the other messages |
//! | `google-generative-ai`, `google-vertex` | model, `config.systemInstruction`, `config.tools`, `contents` |
//! | `pi-messages` | model, `context.tools`, leading system messages, the other messages |
//!
//! Cache markers are not content: `cache_control` keys (Anthropic) and `{cachePoint}` blocks
//! (Bedrock) are removed before comparing, because the marker moves to the newest message on every
//! request while the cached prefix stays the same.

use std::rc::Rc;

use forge_replay_model::json;
use forge_replay_wire::api::Api;
use serde_json::Value;

/// A part of the request in cache order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Segment {
    /// `provider/model`: another model never shares a cache.
    Model,
    /// Instructions outside the message list (Codex `instructions`).
    Instructions,
    Tools,
    /// The system prompt (or the leading system/developer messages).
    System,
    /// Thinking configuration that Anthropic-style caches key on.
    Thinking,
    Messages,
}

impl Segment {
    pub fn name(self) -> &'static str {
        match self {
            Segment::Model => "model",
            Segment::Instructions => "instructions",
            Segment::Tools => "tools",
            Segment::System => "system",
            Segment::Thinking => "thinking",
            Segment::Messages => "messages",
        }
    }
}

/// One request flattened in cache order: its elements (each one `JSON.stringify`d element, or a
/// string, ending in a newline), with running byte and character counts, so that comparing two
/// requests costs the elements they share plus the text after the first difference, not the
/// whole of both texts.
#[derive(Debug, Clone, Default)]
pub struct CacheOrder {
    elements: Vec<Element>,
    /// The element of the payload's message list's first item (`messages`, `input`,
    /// `contents`), if it has one.
    list_at: Option<usize>,
    /// Declared tools: `(name, JSON.stringify(declaration))`, in order.
    pub tools: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
struct Element {
    segment: Segment,
    /// Shared with the request it was taken over from ([`CacheOrder::of_after`]): one pointer
    /// comparison tells that two elements are the same text.
    text: Rc<str>,
    /// Bytes and characters of this element and every one before it.
    bytes_end: usize,
    chars_end: usize,
}

/// What [`CacheOrder::of_after`] may take over: an earlier request of the same API, flattened,
/// and what is known of its payload.
#[derive(Debug, Clone, Copy)]
pub struct Earlier<'a> {
    pub order: &'a CacheOrder,
    /// The payload `order` was flattened from, when it was kept: an element whose value is the
    /// same is taken over.
    pub payload: Option<&'a Value>,
    /// How many leading items of the payload's message list are, unchanged, the earlier
    /// payload's (`Request::reuse`, `Reuse::kept_after`): they are taken over without a look.
    pub kept_messages: usize,
}

impl CacheOrder {
    /// Flattens an assembled payload of `api` for `provider/model`, from scratch.
    pub fn of(api: Api, provider: &str, model: &str, payload: &Value) -> CacheOrder {
        Self::of_after(api, provider, model, payload, None)
    }

    /// [`CacheOrder::of`], taking over from `earlier` (the previous request of the same API) the
    /// text of every element whose JSON value is the same as the earlier one at the same place
    /// ([`json::same_text`]: key order included, which `==` ignores but the text does not): a
    /// request that repeats its predecessor's messages stringifies only the ones that changed.
    /// The result is the same as [`CacheOrder::of`]'s.
    pub fn of_after(
        api: Api,
        provider: &str,
        model: &str,
        payload: &Value,
        earlier: Option<Earlier<'_>>,
    ) -> CacheOrder {
        let current = sources(api, payload);
        let kept = earlier.map_or(0, |e| e.kept_messages);
        let earlier_order = earlier.map(|e| e.order);
        let earlier = earlier.map(|e| (e.order, e.payload.map(|p| sources(api, p))));
        let mut b = Builder::default();
        // Source index of the message list's first item: source `k` of the list is its item
        // `k - list_start` when no item before it was skipped, which holds for the first `kept`
        // items (the same values in both requests).
        let list_start = current.iter().position(|(_, _, item)| item.is_some());
        b.0.list_at = list_start.map(|k| k + 1);
        let model_line = format!("{provider}/{model}\n");
        match earlier.as_ref().map(|(order, _)| order) {
            Some(order)
                if order
                    .elements
                    .first()
                    .is_some_and(|e| *e.text == *model_line) =>
            {
                b.take_over(order, 0)
            }
            _ => b.push_text(Segment::Model, model_line),
        }
        for (k, (segment, v, item)) in current.iter().enumerate() {
            // A kept item of the message list: the earlier element at the same place in its
            // list, by pointer.
            let kept_at = earlier_order.zip(list_start).and_then(|(order, start)| {
                item.filter(|&i| i < kept)?;
                let e = order.list_at? + (k - start);
                (order.elements.get(e)?.segment == *segment).then_some((order, e))
            });
            if let Some((order, e)) = kept_at {
                b.take_over(order, e);
                continue;
            }
            // Element 0 is the model line; source k is element k + 1.
            let Some((order, old)) = earlier.as_ref() else {
                b.push_text(*segment, element_text(v));
                continue;
            };
            let Some(e) = order.elements.get(k + 1).filter(|e| e.segment == *segment) else {
                b.push_text(*segment, element_text(v));
                continue;
            };
            match old {
                Some(old) => match old.get(k) {
                    Some((old_segment, old_v, _))
                        if old_segment == segment && json::same_text(old_v, v) =>
                    {
                        b.take_over(order, k + 1)
                    }
                    _ => b.push_text(*segment, element_text(v)),
                },
                // Without the earlier payload: the same text is shared, not stored twice.
                None => {
                    let text = element_text(v);
                    if *e.text == *text {
                        b.take_over(order, k + 1)
                    } else {
                        b.push_text(*segment, text)
                    }
                }
            }
        }
        b.tools(tool_list(api, payload));
        b.0
    }

    /// Bytes of the flattened text.
    pub fn len(&self) -> usize {
        self.elements.last().map_or(0, |e| e.bytes_end)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Characters of the flattened text.
    pub fn chars(&self) -> usize {
        self.elements.last().map_or(0, |e| e.chars_end)
    }

    /// The flattened text (every element, concatenated).
    pub fn text(&self) -> String {
        let mut s = String::with_capacity(self.len());
        for e in &self.elements {
            s.push_str(&e.text);
        }
        s
    }

    /// `(segment, end offset in the text)` of each run of elements of one segment, in order.
    pub fn segments(&self) -> Vec<(Segment, usize)> {
        let mut out: Vec<(Segment, usize)> = Vec::new();
        for e in &self.elements {
            match out.last_mut() {
                Some((s, end)) if *s == e.segment => *end = e.bytes_end,
                _ => out.push((e.segment, e.bytes_end)),
            }
        }
        out
    }

    /// The element holding byte offset `at` and the offset inside it (`None` at or past the end).
    fn element_at(&self, at: usize) -> Option<(usize, usize)> {
        let k = self.elements.partition_point(|e| e.bytes_end <= at);
        let e = self.elements.get(k)?;
        Some((k, at - (e.bytes_end - e.text.len())))
    }

    /// The segment holding byte offset `at` (`None` at or past the end).
    pub fn segment_at(&self, at: usize) -> Option<Segment> {
        self.element_at(at).map(|(k, _)| self.elements[k].segment)
    }

    /// Characters of the text before byte offset `at` (a character boundary).
    pub fn chars_before(&self, at: usize) -> usize {
        match self.element_at(at) {
            None => self.chars(),
            Some((k, off)) => {
                let e = &self.elements[k];
                e.chars_end - e.text.chars().count() + e.text[..off].chars().count()
            }
        }
    }

    /// The line of the text that holds byte offset `at` (without its newline; empty at the end).
    /// Every element ends with a newline, so a line never spans two elements.
    pub fn line_at(&self, at: usize) -> &str {
        let Some((k, off)) = self.element_at(at) else {
            return "";
        };
        let t = &self.elements[k].text;
        let start = t[..off].rfind('\n').map_or(0, |i| i + 1);
        let end = t[off..].find('\n').map_or(t.len(), |i| off + i);
        &t[start..end]
    }

    /// Length in bytes of the longest common prefix of this request's text and `other`'s, on a
    /// character boundary of this one: the shared leading elements are skipped (a pointer or
    /// an equal-text comparison each), the rest compared byte by byte up to the first difference.
    pub fn common_prefix(&self, other: &CacheOrder) -> usize {
        let same = self
            .elements
            .iter()
            .zip(&other.elements)
            .take_while(|(a, b)| Rc::ptr_eq(&a.text, &b.text) || a.text == b.text)
            .count();
        let skipped = same
            .checked_sub(1)
            .map_or(0, |k| self.elements[k].bytes_end);
        fn rest(o: &CacheOrder, from: usize) -> impl Iterator<Item = u8> + '_ {
            o.elements[from..]
                .iter()
                .flat_map(|e| e.text.as_bytes().iter().copied())
        }
        let n = skipped
            + rest(self, same)
                .zip(rest(other, same))
                .take_while(|(x, y)| x == y)
                .count();
        let mut n = n.min(self.len());
        // Back to a character boundary of this text.
        while let Some((k, off)) = self.element_at(n) {
            if self.elements[k].text.is_char_boundary(off) {
                break;
            }
            n -= 1;
        }
        n
    }

    /// How many elements this flattening shares (the same text, not a copy) with `other` at
    /// the same place: what [`CacheOrder::of_after`] took over.
    pub fn shared_elements(&self, other: &CacheOrder) -> usize {
        self.elements
            .iter()
            .zip(&other.elements)
            .filter(|(a, b)| Rc::ptr_eq(&a.text, &b.text))
            .count()
    }

    /// The text of one segment's first run (empty when absent).
    pub fn segment_text(&self, seg: Segment) -> String {
        let mut out = String::new();
        let mut started = false;
        for e in &self.elements {
            if e.segment == seg {
                started = true;
                out.push_str(&e.text);
            } else if started {
                break;
            }
        }
        out
    }
}

/// The payload's elements in cache order, with their segments (an absent or `null` part has
/// none; `{cachePoint}` list items are not elements).
/// One source: its segment, its value, and its index in the payload's message list when it is
/// an item of it.
type Source<'v> = (Segment, &'v Value, Option<usize>);

fn sources(api: Api, p: &Value) -> Vec<Source<'_>> {
    let mut out = Vec::new();
    fn one<'v>(out: &mut Vec<Source<'v>>, seg: Segment, v: &'v Value) {
        if !v.is_null() {
            out.push((seg, v, None));
        }
    }
    fn list<'v>(out: &mut Vec<Source<'v>>, seg: Segment, v: &'v Value) {
        match v {
            Value::Array(items) => {
                for item in items.iter().filter(|i| !is_cache_point(i)) {
                    one(out, seg, item);
                }
            }
            other => one(out, seg, other),
        }
    }
    /// The message list: [`list`], each item with its index.
    fn messages<'v>(out: &mut Vec<Source<'v>>, v: &'v Value) {
        match v {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !is_cache_point(item) && !item.is_null() {
                        out.push((Segment::Messages, item, Some(i)));
                    }
                }
            }
            other => one(out, Segment::Messages, other),
        }
    }
    /// Leading items with role `system`/`developer` as [`Segment::System`], the rest as messages.
    fn leading_system<'v>(out: &mut Vec<Source<'v>>, v: &'v Value) {
        let Some(items) = v.as_array() else {
            one(out, Segment::Messages, v);
            return;
        };
        let lead = items
            .iter()
            .take_while(|m| matches!(m["role"].as_str(), Some("system" | "developer")))
            .count();
        for item in &items[..lead] {
            one(out, Segment::System, item);
        }
        for item in &items[lead..] {
            one(out, Segment::Messages, item);
        }
    }
    match api {
        Api::AnthropicMessages => {
            list(&mut out, Segment::Tools, &p["tools"]);
            list(&mut out, Segment::System, &p["system"]);
            one(&mut out, Segment::Thinking, &p["thinking"]);
            one(&mut out, Segment::Thinking, &p["output_config"]);
            messages(&mut out, &p["messages"]);
        }
        Api::BedrockConverseStream => {
            list(&mut out, Segment::Tools, &p["toolConfig"]["tools"]);
            list(&mut out, Segment::System, &p["system"]);
            one(
                &mut out,
                Segment::Thinking,
                &p["additionalModelRequestFields"],
            );
            list(&mut out, Segment::Messages, &p["messages"]);
        }
        Api::OpenAiResponses | Api::AzureOpenAiResponses | Api::OpenAiCodexResponses => {
            one(&mut out, Segment::Instructions, &p["instructions"]);
            list(&mut out, Segment::Tools, &p["tools"]);
            leading_system(&mut out, &p["input"]);
        }
        Api::OpenAiCompletions | Api::MistralConversations => {
            list(&mut out, Segment::Tools, &p["tools"]);
            leading_system(&mut out, &p["messages"]);
        }
        Api::GoogleGenerativeAi | Api::GoogleVertex => {
            one(&mut out, Segment::System, &p["config"]["systemInstruction"]);
            list(&mut out, Segment::Tools, &p["config"]["tools"]);
            list(&mut out, Segment::Messages, &p["contents"]);
        }
        Api::PiMessages => {
            list(&mut out, Segment::Tools, &p["context"]["tools"]);
            leading_system(&mut out, &p["context"]["messages"]);
        }
    }
    out
}

/// The payload's tool list.
fn tool_list(api: Api, p: &Value) -> &Value {
    match api {
        Api::AnthropicMessages
        | Api::OpenAiResponses
        | Api::AzureOpenAiResponses
        | Api::OpenAiCodexResponses
        | Api::OpenAiCompletions
        | Api::MistralConversations => &p["tools"],
        Api::BedrockConverseStream => &p["toolConfig"]["tools"],
        Api::GoogleGenerativeAi | Api::GoogleVertex => &p["config"]["tools"],
        Api::PiMessages => &p["context"]["tools"],
    }
}

/// One element's text: a string as it is, anything else `JSON.stringify`d without cache
/// markers; then a newline.
fn element_text(v: &Value) -> String {
    match v {
        Value::String(s) => {
            let mut s = s.clone();
            s.push('\n');
            s
        }
        other => {
            // Most elements carry no marker: stringify them without a copy.
            let mut s = if has_cache_markers(other) {
                json::stringify(&strip_cache_markers(other))
            } else {
                json::stringify(other)
            };
            s.push('\n');
            s
        }
    }
}

#[derive(Default)]
struct Builder(CacheOrder);

impl Builder {
    fn push_text(&mut self, seg: Segment, text: String) {
        self.push_shared(seg, Rc::from(text));
    }

    fn push_shared(&mut self, segment: Segment, text: Rc<str>) {
        let chars = text.chars().count();
        self.push_counted(segment, text, chars);
    }

    /// Element `k` of `earlier`, shared, with its character count (not counted again).
    fn take_over(&mut self, earlier: &CacheOrder, k: usize) {
        let e = &earlier.elements[k];
        let before = k
            .checked_sub(1)
            .map_or(0, |p| earlier.elements[p].chars_end);
        self.push_counted(e.segment, e.text.clone(), e.chars_end - before);
    }

    fn push_counted(&mut self, segment: Segment, text: Rc<str>, chars: usize) {
        let (bytes, chars_before) = self
            .0
            .elements
            .last()
            .map_or((0, 0), |e| (e.bytes_end, e.chars_end));
        let element = Element {
            segment,
            bytes_end: bytes + text.len(),
            chars_end: chars_before + chars,
            text,
        };
        self.0.elements.push(element);
    }

    fn tools(&mut self, v: &Value) {
        let Some(items) = v.as_array() else { return };
        for t in items {
            if let Some(decls) = t["functionDeclarations"].as_array() {
                for d in decls {
                    self.tool(d);
                }
            } else {
                self.tool(t);
            }
        }
    }

    fn tool(&mut self, t: &Value) {
        let name = t["name"]
            .as_str()
            .or_else(|| t["function"]["name"].as_str())
            .or_else(|| t["toolSpec"]["name"].as_str())
            .unwrap_or("?");
        self.0
            .tools
            .push((name.to_string(), json::stringify(&strip_cache_markers(t))));
    }
}

fn is_cache_point(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.len() == 1 && m.contains_key("cachePoint"))
}

/// Whether `v` holds a `cache_control` key or a `{cachePoint}` element anywhere.
fn has_cache_markers(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| k == "cache_control" || has_cache_markers(v)),
        Value::Array(a) => a.iter().any(|i| is_cache_point(i) || has_cache_markers(i)),
        _ => false,
    }
}

/// A copy without `cache_control` keys and `{cachePoint}` array elements.
fn strip_cache_markers(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "cache_control")
                .map(|(k, v)| (k.clone(), strip_cache_markers(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|i| !is_cache_point(i))
                .map(strip_cache_markers)
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Length in bytes of the longest common prefix of `a` and `b`, on a character boundary.
pub fn common_prefix(a: &str, b: &str) -> usize {
    let n = a
        .as_bytes()
        .iter()
        .zip(b.as_bytes())
        .take_while(|(x, y)| x == y)
        .count();
    let mut n = n.min(a.len());
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// pi-forge's token estimate (`approxTokens`): `ceil(chars / 4)`, at least 1 for non-empty text.
pub fn approx_tokens(chars: usize) -> u64 {
    if chars == 0 {
        0
    } else {
        (chars as u64).div_ceil(4).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn anthropic_order_puts_tools_before_system_and_ignores_cache_control() {
        let a = json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}],
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "read", "input_schema": {}}]});
        let o = CacheOrder::of(Api::AnthropicMessages, "anthropic", "m", &a);
        let segs: Vec<_> = o.segments().iter().map(|(s, _)| *s).collect();
        assert_eq!(
            segs,
            [
                Segment::Model,
                Segment::Tools,
                Segment::System,
                Segment::Messages
            ]
        );
        assert!(!o.text().contains("cache_control"));
        assert_eq!(o.tools[0].0, "read");
        assert_eq!(
            o.segment_text(Segment::System),
            "{\"type\":\"text\",\"text\":\"sys\"}\n"
        );
    }

    #[test]
    fn bedrock_cache_points_are_dropped_and_google_tools_flattened() {
        let b = json!({"system": [{"text": "s"}, {"cachePoint": {"type": "default"}}], "messages": [],
            "toolConfig": {"tools": [{"toolSpec": {"name": "bash"}}]}});
        let o = CacheOrder::of(Api::BedrockConverseStream, "p", "m", &b);
        assert!(!o.text().contains("cachePoint"));
        assert_eq!(o.tools[0].0, "bash");
        let g = json!({"contents": [], "config": {"tools": [{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}]}});
        let o = CacheOrder::of(Api::GoogleGenerativeAi, "p", "m", &g);
        let names: Vec<_> = o.tools.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn common_prefix_stops_on_char_boundary_and_locates_segment() {
        assert_eq!(common_prefix("abé", "abè"), 2);
        assert_eq!(common_prefix("abc", "abcdef"), 3);
        let p = json!({"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "u"}], "tools": []});
        let o = CacheOrder::of(Api::OpenAiCompletions, "p", "m", &p);
        assert_eq!(o.segment_at(0), Some(Segment::Model));
        assert_eq!(o.segment_at(o.len() - 1), Some(Segment::Messages));
        assert_eq!(o.segment_at(o.len()), None);
        assert_eq!(approx_tokens(0), 0);
        assert_eq!(approx_tokens(1), 1);
        assert_eq!(approx_tokens(9), 3);
    }
}
