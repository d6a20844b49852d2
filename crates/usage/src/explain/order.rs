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

/// One request flattened in cache order.
#[derive(Debug, Clone, Default)]
pub struct CacheOrder {
    /// Every segment's text, concatenated.
    pub text: String,
    /// `(segment, end offset in text)` in order.
    pub segments: Vec<(Segment, usize)>,
    /// Declared tools: `(name, JSON.stringify(declaration))`, in order.
    pub tools: Vec<(String, String)>,
}

impl CacheOrder {
    /// Flattens an assembled payload of `api` for `provider/model`.
    pub fn of(api: Api, provider: &str, model: &str, payload: &Value) -> CacheOrder {
        let mut b = Builder::default();
        b.push_text(Segment::Model, &format!("{provider}/{model}\n"));
        let p = payload;
        match api {
            Api::AnthropicMessages => {
                b.push_list(Segment::Tools, &p["tools"]);
                b.push_list(Segment::System, &p["system"]);
                b.push_value(Segment::Thinking, &p["thinking"]);
                b.push_value(Segment::Thinking, &p["output_config"]);
                b.push_list(Segment::Messages, &p["messages"]);
                b.tools(&p["tools"]);
            }
            Api::BedrockConverseStream => {
                b.push_list(Segment::Tools, &p["toolConfig"]["tools"]);
                b.push_list(Segment::System, &p["system"]);
                b.push_value(Segment::Thinking, &p["additionalModelRequestFields"]);
                b.push_list(Segment::Messages, &p["messages"]);
                b.tools(&p["toolConfig"]["tools"]);
            }
            Api::OpenAiResponses | Api::AzureOpenAiResponses | Api::OpenAiCodexResponses => {
                b.push_value(Segment::Instructions, &p["instructions"]);
                b.push_list(Segment::Tools, &p["tools"]);
                b.push_leading_system(&p["input"]);
                b.tools(&p["tools"]);
            }
            Api::OpenAiCompletions | Api::MistralConversations => {
                b.push_list(Segment::Tools, &p["tools"]);
                b.push_leading_system(&p["messages"]);
                b.tools(&p["tools"]);
            }
            Api::GoogleGenerativeAi | Api::GoogleVertex => {
                b.push_value(Segment::System, &p["config"]["systemInstruction"]);
                b.push_list(Segment::Tools, &p["config"]["tools"]);
                b.push_list(Segment::Messages, &p["contents"]);
                b.tools(&p["config"]["tools"]);
            }
            Api::PiMessages => {
                b.push_list(Segment::Tools, &p["context"]["tools"]);
                b.push_leading_system(&p["context"]["messages"]);
                b.tools(&p["context"]["tools"]);
            }
        }
        b.0
    }

    /// The segment holding byte offset `at` (`None` at or past the end).
    pub fn segment_at(&self, at: usize) -> Option<Segment> {
        self.segments
            .iter()
            .find(|(_, end)| at < *end)
            .map(|(s, _)| *s)
    }

    /// The text of one segment (empty when absent).
    pub fn segment_text(&self, seg: Segment) -> &str {
        let mut start = 0;
        for (s, end) in &self.segments {
            if *s == seg {
                return &self.text[start..*end];
            }
            start = *end;
        }
        ""
    }
}

#[derive(Default)]
struct Builder(CacheOrder);

impl Builder {
    fn push_text(&mut self, seg: Segment, text: &str) {
        let o = &mut self.0;
        o.text.push_str(text);
        match o.segments.last_mut() {
            Some((s, end)) if *s == seg => *end = o.text.len(),
            _ => o.segments.push((seg, o.text.len())),
        }
    }

    fn push_value(&mut self, seg: Segment, v: &Value) {
        match v {
            Value::Null => {}
            Value::String(s) => {
                let mut s = s.clone();
                s.push('\n');
                self.push_text(seg, &s);
            }
            other => {
                // Most elements carry no marker: stringify them without a copy.
                let mut s = if has_cache_markers(other) {
                    json::stringify(&strip_cache_markers(other))
                } else {
                    json::stringify(other)
                };
                s.push('\n');
                self.push_text(seg, &s);
            }
        }
    }

    fn push_list(&mut self, seg: Segment, v: &Value) {
        match v {
            Value::Array(items) => {
                for item in items.iter().filter(|i| !is_cache_point(i)) {
                    self.push_value(seg, item);
                }
            }
            other => self.push_value(seg, other),
        }
    }

    /// Leading items with role `system`/`developer` as [`Segment::System`], the rest as messages.
    fn push_leading_system(&mut self, v: &Value) {
        let Some(items) = v.as_array() else {
            self.push_value(Segment::Messages, v);
            return;
        };
        let lead = items
            .iter()
            .take_while(|m| matches!(m["role"].as_str(), Some("system" | "developer")))
            .count();
        for item in &items[..lead] {
            self.push_value(Segment::System, item);
        }
        for item in &items[lead..] {
            self.push_value(Segment::Messages, item);
        }
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
        let segs: Vec<_> = o.segments.iter().map(|(s, _)| *s).collect();
        assert_eq!(
            segs,
            [
                Segment::Model,
                Segment::Tools,
                Segment::System,
                Segment::Messages
            ]
        );
        assert!(!o.text.contains("cache_control"));
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
        assert!(!o.text.contains("cachePoint"));
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
        assert_eq!(o.segment_at(o.text.len() - 1), Some(Segment::Messages));
        assert_eq!(o.segment_at(o.text.len()), None);
        assert_eq!(approx_tokens(0), 0);
        assert_eq!(approx_tokens(1), 1);
        assert_eq!(approx_tokens(9), 3);
    }
}
