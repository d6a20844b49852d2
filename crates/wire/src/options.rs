//! `streamSimple` common steps (pi-ai `api/simple-options.js`, `utils/estimate.js`) and the
//! environment variables pi-ai reads.
//!
//! Options are JSON objects, as in JavaScript: `streamSimple` builds the object it hands to
//! `stream`, and an absent key is `undefined`.

use crate::js::Field;
use std::collections::BTreeMap;

use forge_replay_model::release::{Change, PiRelease};

use forge_replay_model::json::stringify;
use serde_json::{Map, Value};

use crate::js;
use crate::model::Model;
use crate::transcript::system_message_text;

/// Tokens kept free below the context window.
pub const CONTEXT_SAFETY_TOKENS: f64 = 4096.0;
/// Characters per estimated token (0.87.1).
pub const CHARS_PER_TOKEN: f64 = 4.0;
/// Characters per estimated token from 1.3 ([`Change::CharsPerToken35`]).
pub const CHARS_PER_TOKEN_1_3: f64 = 3.5;

/// `CHARS_PER_TOKEN` of `release` (`utils/estimate.js`).
pub fn chars_per_token(release: PiRelease) -> f64 {
    if release.has(Change::CharsPerToken35) {
        CHARS_PER_TOKEN_1_3
    } else {
        CHARS_PER_TOKEN
    }
}
/// Characters an image counts as.
pub const ESTIMATED_IMAGE_CHARS: f64 = 4800.0;
/// Tokens always left for the answer when a thinking budget shares the response ceiling.
pub const MIN_ANSWER_TOKENS: f64 = 1024.0;

/// Environment variables visible to pi-ai: `options.env` first, then the process environment
/// (for us: the case's `env` map; the real process environment is never read).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    /// An environment from name/value pairs.
    pub fn new(vars: BTreeMap<String, String>) -> Self {
        Env { vars }
    }

    /// The value of a variable, if set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// All variables.
    pub fn vars(&self) -> &BTreeMap<String, String> {
        &self.vars
    }
}

/// `getProviderEnvValue(name, options.env)`: `env?.[name] || process.env[name] || undefined`.
pub fn provider_env_value<'a>(
    name: &str,
    options: &'a Map<String, Value>,
    env: &'a Env,
) -> Option<&'a str> {
    let scoped = js::get(options.field("env"), name)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    scoped.or_else(|| env.var(name).filter(|s| !s.is_empty()))
}

/// `calculateContextTokens(usage)`.
fn usage_tokens(usage: Option<&Value>) -> f64 {
    let n = |k: &str| js::get(usage, k).and_then(js::as_f64).unwrap_or(0.0);
    let total = n("totalTokens");
    if total != 0.0 && !total.is_nan() {
        total
    } else {
        n("input") + n("output") + n("cacheRead") + n("cacheWrite")
    }
}

/// V8's `TypeError` text for reading `prop` of `undefined` or `null`.
fn read_error(v: Option<&Value>, prop: &str) -> Option<String> {
    match v {
        None => Some(format!(
            "Cannot read properties of undefined (reading '{prop}')"
        )),
        Some(Value::Null) => Some(format!("Cannot read properties of null (reading '{prop}')")),
        Some(_) => None,
    }
}

/// `value.length` as a number in arithmetic: a string's UTF-16 length, an array's length, else
/// `undefined` (NaN once added); reading it on `undefined`/`null` is V8's `TypeError`.
fn js_length<const COUNT: bool>(v: Option<&Value>) -> Result<f64, String> {
    if let Some(e) = read_error(v, "length") {
        return Err(e);
    }
    if !COUNT {
        return Ok(0.0);
    }
    Ok(match v {
        Some(Value::String(s)) => js::len(s) as f64,
        Some(Value::Array(a)) => a.len() as f64,
        Some(Value::Object(o)) => o.field("length").and_then(js::as_f64).unwrap_or(f64::NAN),
        _ => f64::NAN,
    })
}

/// `estimateTextAndImageContentChars(content)`.
fn text_and_image_chars<const COUNT: bool>(content: Option<&Value>) -> Result<f64, String> {
    match content {
        Some(Value::String(s)) => Ok(if COUNT { js::len(s) as f64 } else { 0.0 }),
        // `for (const block of content)`; blocks are objects (checked when a case is parsed).
        Some(Value::Array(blocks)) => {
            let mut chars = 0.0;
            for b in blocks {
                if b.is_null() {
                    return Err("Cannot read properties of null (reading 'type')".into());
                }
                chars += if b.field("type").and_then(Value::as_str) == Some("text") {
                    js_length::<COUNT>(b.field("text"))?
                } else {
                    ESTIMATED_IMAGE_CHARS
                };
            }
            Ok(chars)
        }
        _ => Err("content is not iterable".into()),
    }
}

fn text_tokens(len: usize, cpt: f64) -> f64 {
    (len as f64 / cpt).ceil()
}

/// `estimateToolsTokens(tools)`: `!tools || tools.length === 0` counts nothing.
fn tools_tokens(tools: Option<&Value>, cpt: f64) -> f64 {
    match tools {
        Some(Value::Array(a)) if a.is_empty() => 0.0,
        Some(v) if js::truthy(Some(v)) => text_tokens(js::len(&stringify(v)), cpt),
        _ => 0.0,
    }
}

/// `estimateMessageTokens(message)`, with JavaScript's arithmetic (a non-string text adds NaN)
/// and V8's `TypeError` where pi-ai's code throws. `COUNT = false` only looks for the error
/// (what [`estimate_type_error`] needs) and counts nothing.
fn message_tokens<const COUNT: bool>(message: &Value, cpt: f64) -> Result<f64, String> {
    if message.is_null() {
        return Err("Cannot read properties of null (reading 'role')".into());
    }
    match message.field("role").and_then(Value::as_str) {
        Some("system") => {
            if let Some(e) = crate::transcript::content_text_error(message.field("content")) {
                return Err(e);
            }
            // A string tool list counts as the string it was (see
            // `transcript::string_tool_lists_as_arrays`).
            let list = |k: &str| {
                message
                    .field(&format!("{k}{}", crate::transcript::TOOL_LIST_TEXT_SUFFIX))
                    .or_else(|| message.field(k))
            };
            if !COUNT {
                return Ok(0.0);
            }
            Ok(text_tokens(js::len(&system_message_text(message)), cpt)
                + tools_tokens(list("toolsAdded"), cpt)
                + tools_tokens(list("toolsRemoved"), cpt))
        }
        Some("user") | Some("toolResult") => {
            Ok((text_and_image_chars::<COUNT>(message.field("content"))? / cpt).ceil())
        }
        _ => {
            let mut chars = 0.0;
            match message.field("content") {
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        if b.is_null() {
                            return Err("Cannot read properties of null (reading 'type')".into());
                        }
                        match b.field("type").and_then(Value::as_str) {
                            Some("text") => chars += js_length::<COUNT>(b.field("text"))?,
                            Some("thinking") => chars += js_length::<COUNT>(b.field("thinking"))?,
                            _ => {
                                chars += js_length::<COUNT>(b.field("name"))?;
                                if !COUNT {
                                    continue;
                                }
                                // safeJsonStringify: undefined → "undefined"
                                chars += match b.field("arguments") {
                                    None => "undefined".len() as f64,
                                    Some(v) => js::len(&stringify(v)) as f64,
                                };
                            }
                        }
                    }
                }
                // A string iterates its characters; a character has no `type`, so its
                // `name.length` is read (an empty string iterates nothing).
                Some(Value::String(s)) if s.is_empty() => {}
                Some(Value::String(_)) => {
                    return Err("Cannot read properties of undefined (reading 'length')".into())
                }
                _ => return Err("message.content is not iterable".into()),
            }
            Ok((chars / cpt).ceil())
        }
    }
}

/// `estimateMessageTokens(message)` (NaN where pi-ai's arithmetic is NaN; 0 where it throws).
pub fn estimate_message_tokens(message: &Value) -> f64 {
    message_tokens::<true>(message, CHARS_PER_TOKEN).unwrap_or(0.0)
}

/// The first loop of pi-ai's `estimateContextTokens`, one message at a time: the latest
/// message timestamp so far and the last assistant usage that applies. A later request whose
/// transcript starts with the same messages resumes it from the state after them
/// ([`crate::Resume`]) instead of reading them again.
#[derive(Debug, Clone, Copy)]
pub struct ContextFold {
    latest_prefix: f64,
    usage: Option<(f64, usize)>,
}

impl Default for ContextFold {
    fn default() -> Self {
        ContextFold {
            latest_prefix: f64::NEG_INFINITY,
            usage: None,
        }
    }
}

impl ContextFold {
    /// Reads message `i` of the transcript; the `TypeError` pi-ai throws there, if any (the fold
    /// is then left as it was before the message).
    pub fn step(&mut self, i: usize, m: &Value) -> Result<(), String> {
        if m.is_null() {
            return Err("Cannot read properties of null (reading 'role')".into());
        }
        let ts = m.field("timestamp").and_then(js::as_f64);
        if m.field("role").and_then(Value::as_str) == Some("assistant") {
            // `assistant.timestamp >= latestPrefixTimestamp` (undefined compares false, NaN too).
            let applies = ts.is_some_and(|t| t >= self.latest_prefix);
            let stop = js::str_of(m, "stopReason");
            if applies && stop != Some("aborted") && stop != Some("error") {
                let usage = m.field("usage");
                if let Some(e) = read_error(usage, "totalTokens") {
                    return Err(e);
                }
                let tokens = usage_tokens(usage);
                if tokens > 0.0 {
                    self.usage = Some((tokens, i));
                }
            }
        }
        // Math.max with undefined yields NaN, which then poisons every comparison.
        self.latest_prefix = match ts {
            Some(t) if !self.latest_prefix.is_nan() => self.latest_prefix.max(t),
            _ => f64::NAN,
        };
        Ok(())
    }

    /// The first loop over every message of `messages`, or the `TypeError` it throws.
    fn over(messages: &[&Value]) -> Result<ContextFold, String> {
        let mut fold = ContextFold::default();
        for (i, m) in messages.iter().enumerate() {
            fold.step(i, m)?;
        }
        Ok(fold)
    }

    /// The estimate of `messages`, every one of which this fold has read: the last usage that
    /// applies plus the messages after it (all of them without one).
    fn total<const COUNT: bool>(&self, messages: &[&Value], cpt: f64) -> Result<f64, String> {
        let (base, rest) = match self.usage {
            Some((tokens, index)) => (tokens, &messages[index + 1..]),
            None => (0.0, messages),
        };
        let mut total = base;
        for m in rest {
            total += message_tokens::<COUNT>(m, cpt)?;
        }
        Ok(total)
    }
}

/// `estimateContextTokens(context).tokens`, or V8's `TypeError` text where pi-ai throws.
fn context_tokens<const COUNT: bool>(messages: &[&Value], cpt: f64) -> Result<f64, String> {
    ContextFold::over(messages)?.total::<COUNT>(messages, cpt)
}

/// `estimateContextTokens(context).tokens` (NaN where pi-ai's is NaN).
pub fn estimate_context_tokens(release: PiRelease, messages: &[&Value]) -> f64 {
    context_tokens::<true>(messages, chars_per_token(release)).unwrap_or(f64::NAN)
}

/// The `TypeError` pi-ai's `estimateContextTokens` throws, if any: a `null` message, an
/// assistant message whose usage would be read but is missing, a content that is not iterable
/// (missing, `null`, a number or an object where blocks are iterated), a text block without
/// `text`, or an assistant-like message (any role other than system, user and toolResult) with
/// string content. `streamSimple` of every API except pi-messages runs this estimate, so pi-ai
/// refuses such a context with V8's message.
pub fn estimate_type_error(messages: &[&Value]) -> Option<String> {
    context_tokens::<false>(messages, CHARS_PER_TOKEN).err()
}

/// `estimateContextTokens` of one request's transcript, whose first loop ([`ContextFold`]) is
/// read once, for every use the request makes of it: the refusal check of `streamSimple`
/// ([`ContextEstimate::type_error`]) and the max-tokens clamps ([`ContextEstimate::tokens`],
/// computed at most once).
#[derive(Debug)]
pub struct ContextEstimate<'a> {
    release: PiRelease,
    messages: &'a [&'a Value],
    /// The first loop over every message, or the `TypeError` it threw.
    fold: Result<ContextFold, String>,
    tokens: std::cell::OnceCell<f64>,
}

impl<'a> ContextEstimate<'a> {
    /// The estimate of `messages`, read from the first.
    pub fn new(release: PiRelease, messages: &'a [&'a Value]) -> Self {
        ContextEstimate::with_fold(release, messages, ContextFold::over(messages))
    }

    /// The estimate of `messages`, given the first loop's result over all of them.
    pub(crate) fn with_fold(
        release: PiRelease,
        messages: &'a [&'a Value],
        fold: Result<ContextFold, String>,
    ) -> Self {
        ContextEstimate {
            release,
            messages,
            fold,
            tokens: std::cell::OnceCell::new(),
        }
    }

    /// `estimateContextTokens(context).tokens` (NaN where pi-ai's is NaN).
    pub fn tokens(&self) -> f64 {
        *self.tokens.get_or_init(|| match &self.fold {
            Ok(fold) => fold
                .total::<true>(self.messages, chars_per_token(self.release))
                .unwrap_or(f64::NAN),
            Err(_) => f64::NAN,
        })
    }

    /// [`estimate_type_error`] of the transcript.
    pub fn type_error(&self) -> Option<String> {
        match &self.fold {
            Ok(fold) => fold.total::<false>(self.messages, CHARS_PER_TOKEN).err(),
            Err(e) => Some(e.clone()),
        }
    }
}

/// `clampMaxTokensToContext(model, context, maxTokens)`.
pub fn clamp_max_tokens_to_context(
    release: PiRelease,
    model: &Model,
    estimate: &ContextEstimate<'_>,
    max_tokens: f64,
) -> f64 {
    let window = model.context_window();
    if window <= 0.0 {
        return max_tokens.max(1.0);
    }
    let input = estimate.tokens();
    if !release.has(Change::ClampRatioMargin) {
        let available = window - input - CONTEXT_SAFETY_TOKENS;
        return js::math_min(max_tokens, js::math_max(1.0, available));
    }
    // 1.6: a margin of 15% of the input (at least the fixed 4,096) while that leaves 32,768
    // tokens of output; otherwise the fixed margin, with output capped at 32,768.
    let margin = js::math_max(CONTEXT_SAFETY_TOKENS, (input * CONTEXT_SAFETY_RATIO).ceil());
    let mut room = window - input - margin;
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN {
        room = js::math_min(
            MIN_OUTPUT_WITH_RATIO_MARGIN,
            window - input - CONTEXT_SAFETY_TOKENS,
        );
    }
    js::math_min(max_tokens, js::math_max(1.0, room))
}

/// `CONTEXT_SAFETY_RATIO` (1.6, [`Change::ClampRatioMargin`]).
pub const CONTEXT_SAFETY_RATIO: f64 = 0.15;

/// `MIN_OUTPUT_WITH_RATIO_MARGIN` (1.6, [`Change::ClampRatioMargin`]).
pub const MIN_OUTPUT_WITH_RATIO_MARGIN: f64 = 32768.0;

/// `DEFAULT_THINKING_BUDGETS`.
pub const DEFAULT_THINKING_BUDGETS: [(&str, f64); 4] = [
    ("minimal", 1024.0),
    ("low", 2048.0),
    ("medium", 8192.0),
    ("high", 16384.0),
];

/// `clampReasoning(effort)`: `xhigh` and `max` become `high`.
pub fn clamp_reasoning(level: &str) -> &str {
    if level == "xhigh" || level == "max" {
        "high"
    } else {
        level
    }
}

/// `thinkingBudgetForLevel(level, customBudgets)`: the value of `{...DEFAULT_THINKING_BUDGETS,
/// ...customBudgets}[clampReasoning(level)]` as it is (a custom budget may be any JSON value).
pub fn thinking_budget_value(level: &str, custom: Option<&Value>) -> Option<Value> {
    let level = clamp_reasoning(level);
    if let Some(v) = js::get(custom, level) {
        return Some(v.clone());
    }
    DEFAULT_THINKING_BUDGETS
        .iter()
        .find(|(l, _)| *l == level)
        .map(|(_, b)| js::num(*b))
}

/// `thinkingBudgetForLevel(level, customBudgets)` as a number in arithmetic (`Number(…)`; NaN
/// when the level has no budget).
pub fn thinking_budget_for_level(level: &str, custom: Option<&Value>) -> f64 {
    js::to_number(thinking_budget_value(level, custom).as_ref())
}

/// `adjustMaxTokensForThinking(base, modelMax, level, custom)` → `(maxTokens, thinkingBudget)`,
/// with JavaScript's `+` (a string budget concatenates: `64000 + "500"` is `"64000500"`, which
/// `Math.min` then reads as a number).
pub fn adjust_max_tokens_for_thinking(
    base: Option<f64>,
    model_max: f64,
    level: &str,
    custom: Option<&Value>,
) -> (f64, f64) {
    let raw = thinking_budget_value(level, custom);
    let mut budget = js::to_number(raw.as_ref());
    let max_tokens = match base {
        None => model_max,
        Some(b) => {
            let sum = match &raw {
                Some(v @ (Value::String(_) | Value::Array(_) | Value::Object(_))) => {
                    js::string_to_number(&format!(
                        "{}{}",
                        js::to_string(Some(&js::num(b))),
                        js::to_string(Some(v))
                    ))
                }
                _ => b + budget,
            };
            js::math_min(sum, model_max)
        }
    };
    if max_tokens <= budget {
        budget = js::math_min(budget, js::math_max(0.0, max_tokens - MIN_ANSWER_TOKENS));
    }
    (max_tokens, budget)
}

/// The sampling parameters a request uses: 0.87.1 `{...model.samplingParams,
/// ...options.samplingParams}`; from 1.3 ([`Change::SamplingByThinkingLevel`])
/// `resolveSamplingParams(model, level, requestParams)`, with
/// `model.samplingParamsByThinkingLevel[clampThinkingLevel(model, level)]` between the two.
/// `None` when every source is falsy (`undefined` in pi-ai). `level` is the thinking level as
/// pi-ai reads it (`undefined`/`null` count as `"off"`).
pub fn resolve_sampling_params(
    release: PiRelease,
    model: &Model,
    level: Option<&Value>,
    request: Option<&Value>,
) -> Option<Value> {
    fn truthy(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| js::truthy(Some(v)))
    }
    let model_params = truthy(model.get("samplingParams"));
    let request = truthy(request);
    let by_level = if release.has(Change::SamplingByThinkingLevel) {
        let level = match level {
            None | Some(Value::Null) => "off",
            Some(Value::String(s)) => s.as_str(),
            // Not a thinking level: clampThinkingLevel returns the first supported one.
            Some(_) => "",
        };
        let clamped = clamp_thinking_level(model, level);
        truthy(js::get(
            model.get("samplingParamsByThinkingLevel"),
            &clamped,
        ))
    } else {
        None
    };
    if model_params.is_none() && by_level.is_none() && request.is_none() {
        return None;
    }
    let mut merged = Map::new();
    for src in [model_params, by_level, request].into_iter().flatten() {
        if let Some(m) = src.as_object() {
            for (k, v) in m {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
    Some(Value::Object(merged))
}

/// `buildBaseOptions(model, context, options)`: the keys `stream` reads, with `maxTokens`
/// clamped to the context window. Undefined values are left out.
pub fn build_base_options(
    release: PiRelease,
    model: &Model,
    estimate: &ContextEstimate<'_>,
    options: &Map<String, Value>,
) -> Map<String, Value> {
    let mut base = Map::new();
    let copy = |base: &mut Map<String, Value>, key: &str| {
        if let Some(v) = options.get(key) {
            base.insert(key.to_string(), v.clone());
        }
    };
    copy(&mut base, "temperature");
    if let Some(sampling) = resolve_sampling_params(
        release,
        model,
        options.field("reasoning"),
        options.field("samplingParams"),
    ) {
        base.insert("samplingParams".into(), sampling);
    }
    // `options.maxTokens ?? model.maxTokens`, coerced by `Math.min`/`Math.max` (a string
    // `"1000"` is 1000, `true` 1, a `null` model maxTokens 0).
    let requested = match options.field("maxTokens").filter(|v| !v.is_null()) {
        Some(v) => js::to_number(Some(v)),
        None => model.max_tokens_number(),
    };
    base.insert(
        "maxTokens".into(),
        js::num(clamp_max_tokens_to_context(
            release, model, estimate, requested,
        )),
    );
    for key in [
        "signal",
        "telemetryContext",
        "apiKey",
        "fetch",
        "transport",
        "cacheRetention",
        "sessionId",
        "headers",
        "onPayload",
        "onResponse",
        "timeoutMs",
        "websocketConnectTimeoutMs",
        "maxRetries",
        "maxRetryDelayMs",
        "metadata",
        "env",
    ] {
        copy(&mut base, key);
    }
    // 1.6 passes the request identity on ([`Change::IdentityAttributionHeaders`]).
    if release.has(Change::IdentityAttributionHeaders) {
        copy(&mut base, "identity");
    }
    base
}

/// Anthropic-style `resolveCacheRetention`: the explicit value, else `"long"` when
/// `PI_CACHE_RETENTION=long`, else `"short"`.
pub fn resolve_cache_retention(options: &Map<String, Value>, env: &Env) -> String {
    if let Some(v) = options.field("cacheRetention") {
        if js::truthy(Some(v)) {
            return match v {
                Value::String(s) => s.clone(),
                other => stringify(other),
            };
        }
    }
    if provider_env_value("PI_CACHE_RETENTION", options, env) == Some("long") {
        "long".into()
    } else {
        "short".into()
    }
}

/// Thinking levels in pi-ai's order (`EXTENDED_THINKING_LEVELS`).
pub const EXTENDED_THINKING_LEVELS: [&str; 7] =
    ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/// `getSupportedThinkingLevels(model)`.
pub fn supported_thinking_levels(model: &Model) -> Vec<&'static str> {
    if !model.reasoning() {
        return vec!["off"];
    }
    EXTENDED_THINKING_LEVELS
        .into_iter()
        .filter(|level| {
            let mapped = model.thinking_level(level);
            if matches!(mapped, Some(Value::Null)) {
                return false;
            }
            if *level == "xhigh" || *level == "max" {
                return mapped.is_some();
            }
            true
        })
        .collect()
}

/// `clampThinkingLevel(model, level)`.
pub fn clamp_thinking_level(model: &Model, level: &str) -> String {
    let available = supported_thinking_levels(model);
    if available.contains(&level) {
        return level.to_string();
    }
    let first = available.first().copied().unwrap_or("off").to_string();
    let Some(requested) = EXTENDED_THINKING_LEVELS.iter().position(|l| *l == level) else {
        return first;
    };
    for candidate in &EXTENDED_THINKING_LEVELS[requested..] {
        if available.contains(candidate) {
            return candidate.to_string();
        }
    }
    for candidate in EXTENDED_THINKING_LEVELS[..requested].iter().rev() {
        if available.contains(candidate) {
            return candidate.to_string();
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The transcript as the builders take it.
    fn refs(messages: &[Value]) -> Vec<&Value> {
        messages.iter().collect()
    }

    #[test]
    fn estimate_uses_last_usage_and_trailing_chars() {
        let msgs = vec![
            json!({"role":"user","content":"abcdefgh","timestamp":1}),
            json!({"role":"assistant","content":[],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"stopReason":"stop","timestamp":2}),
            json!({"role":"user","content":[{"type":"text","text":"abcde"},{"type":"image"}],"timestamp":3}),
        ];
        assert_eq!(
            estimate_context_tokens(PiRelease::V0_87_1, &refs(&msgs)),
            15.0 + ((5.0f64 + 4800.0) / 4.0).ceil()
        );
        // An older assistant after a newer prefix message does not count.
        let msgs = vec![
            json!({"role":"user","content":"abcd","timestamp":10}),
            json!({"role":"assistant","content":[{"type":"text","text":"xyzw"}],"usage":{"totalTokens":99},"stopReason":"stop","timestamp":2}),
        ];
        assert_eq!(
            estimate_context_tokens(PiRelease::V0_87_1, &refs(&msgs)),
            2.0
        );
    }

    #[test]
    fn clamp_keeps_a_ratio_margin_from_1_6() {
        let messages =
            vec![json!({"role": "user", "content": "x".repeat(100_000), "timestamp": 0})];
        let input = estimate_context_tokens(PiRelease::V1_6_0, &refs(&messages));
        assert!(input > 27_000.0, "{input}");
        let margin = (input * 0.15).ceil();
        let model = |window: f64| {
            Model::from_value(json!({"id":"m","api":"x","provider":"p","baseUrl":"u","contextWindow":window,"maxTokens":64000})).unwrap()
        };
        let roomy = model(input + 200_000.0);
        assert_eq!(
            clamp_max_tokens_to_context(
                PiRelease::V1_6_0,
                &roomy,
                &ContextEstimate::new(PiRelease::V1_6_0, &refs(&messages)),
                1e9
            ),
            200_000.0 - margin
        );
        assert_eq!(
            clamp_max_tokens_to_context(
                PiRelease::V1_3_0,
                &roomy,
                &ContextEstimate::new(PiRelease::V1_3_0, &refs(&messages)),
                1e9
            ),
            200_000.0 - 4096.0
        );
        // Nearly full: the fixed margin only, and never above the 32,768 floor.
        let tight = model(input + 20_000.0);
        assert_eq!(
            clamp_max_tokens_to_context(
                PiRelease::V1_6_0,
                &tight,
                &ContextEstimate::new(PiRelease::V1_6_0, &refs(&messages)),
                1e9
            ),
            20_000.0 - 4096.0
        );
        // 15% would leave less than 32,768, the fixed margin more: capped at 32,768.
        assert!(
            margin > 4096.0 + 100.0 && margin < 4096.0 + 200.0,
            "{margin}"
        );
        let ample = model(input + 4096.0 + 32_768.0 + 100.0);
        assert_eq!(
            clamp_max_tokens_to_context(
                PiRelease::V1_6_0,
                &ample,
                &ContextEstimate::new(PiRelease::V1_6_0, &refs(&messages)),
                1e9
            ),
            32_768.0
        );
    }

    #[test]
    fn clamp_and_budgets() {
        let m = Model::from_value(json!({"id":"m","api":"x","provider":"p","baseUrl":"u","contextWindow":10000,"maxTokens":64000})).unwrap();
        assert_eq!(
            clamp_max_tokens_to_context(
                PiRelease::V0_87_1,
                &m,
                &ContextEstimate::new(PiRelease::V0_87_1, &[]),
                64000.0
            ),
            10000.0 - 4096.0
        );
        assert_eq!(
            adjust_max_tokens_for_thinking(Some(1000.0), 64000.0, "medium", None),
            (9192.0, 8192.0)
        );
        assert_eq!(
            adjust_max_tokens_for_thinking(None, 2000.0, "xhigh", None),
            (2000.0, 976.0)
        );
        assert_eq!(
            thinking_budget_for_level("low", Some(&json!({"low": 5}))),
            5.0
        );
        assert!(thinking_budget_for_level("off", None).is_nan());
        // A string budget concatenates before Math.min reads it.
        assert_eq!(
            adjust_max_tokens_for_thinking(
                Some(64000.0),
                64000.0,
                "medium",
                Some(&json!({"medium": "500"}))
            ),
            (64000.0, 500.0)
        );
    }

    #[test]
    fn missing_usage_is_a_type_error() {
        let msgs = vec![
            json!({"role":"user","content":"a","timestamp":1}),
            json!({"role":"assistant","content":[],"stopReason":"stop","timestamp":2}),
        ];
        assert_eq!(
            estimate_type_error(&refs(&msgs)).as_deref(),
            Some("Cannot read properties of undefined (reading 'totalTokens')")
        );
        // Not read: errored, or older than an earlier message.
        let msgs = vec![
            json!({"role":"assistant","content":[],"stopReason":"error","timestamp":2}),
            json!({"role":"user","content":"a","timestamp":9}),
            json!({"role":"assistant","content":[],"stopReason":"stop","timestamp":3}),
        ];
        assert_eq!(estimate_type_error(&refs(&msgs)), None);
    }

    #[test]
    fn cache_retention_reads_env() {
        let env = Env::new([("PI_CACHE_RETENTION".to_string(), "long".to_string())].into());
        assert_eq!(resolve_cache_retention(&Map::new(), &env), "long");
        assert_eq!(
            resolve_cache_retention(&Map::new(), &Env::default()),
            "short"
        );
        let o = json!({"cacheRetention":"none"})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(resolve_cache_retention(&o, &env), "none");
    }
}
