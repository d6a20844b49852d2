//! Cache-break diagnosis: why did the prompt cache stop hitting?
//!
//! [`explain`] replays every request on the root→leaf path with the replay engine (the assembled
//! request of each assistant entry, for its recorded provider/model), flattens each one in the
//! provider's cache order ([`order::CacheOrder`]) and compares it with the previous request that
//! reported usage:
//!
//! * **prefix kept**: the longest common prefix of the two flattened requests, as a share of the
//!   previous one, and the segment (model, tools, system, thinking, messages) where they first
//!   differ;
//! * **est. cacheable tokens**: pi-forge's `approxTokens` (`ceil(chars / 4)`) of that prefix;
//! * **confirmed break**: the reported `cacheRead` is below half of the previous request's prompt
//!   (`input + cacheRead + cacheWrite`), and the request's provider/model reports cache data in
//!   this session at all;
//! * **cause** ([`Cause`]), from the divergence segment, the request metadata and the entries
//!   between the two requests (model changes, compactions, thinking-level changes, pi-forge
//!   capability entries, system messages), and the time gap against the cache TTL.
//!
//! The result ([`Explanation`]) renders as a text table ([`Explanation::to_text`]) or stable JSON
//! ([`Explanation::to_json`]).

pub mod order;

use std::collections::HashMap;
use std::fmt::Write as _;

use forge_replay_engine::replay::{self, ReplayError, ReplayOptions};
use forge_replay_model::error::chain as error_chain;
use forge_replay_model::json::f64_to_value;
use forge_replay_model::release::{Change, PiRelease};
use forge_replay_session::{EntryType, Session};
use forge_replay_wire::{Api, Catalog};
use serde_json::{json, Map, Value};

use crate::pricing::{ModelPrices, Pricer, Unpriced};

use order::{approx_tokens, CacheOrder, Earlier, Segment};

/// A break is confirmed when `cacheRead < CONFIRM_RATIO × previous prompt`.
pub const CONFIRM_RATIO: f64 = 0.5;

/// Every cause, in the order reports list them.
pub const CAUSES: [Cause; 8] = [
    Cause::ModelSwitch,
    Cause::ToolChange,
    Cause::SystemFold,
    Cause::Compaction,
    Cause::ThinkingChange,
    Cause::CapabilityUpdate,
    Cause::TtlExpired,
    Cause::Unexplained,
];

/// Which cache retention the session ran with (pi-ai: `short` unless `PI_CACHE_RETENTION=long`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Retention {
    #[default]
    Short,
    Long,
}

impl Retention {
    pub fn name(self) -> &'static str {
        match self {
            Retention::Short => "short",
            Retention::Long => "long",
        }
    }

    /// The TTL when the catalog model has no `promptCache` entry: 5 min short, 1 h long.
    pub fn default_ttl_seconds(self) -> f64 {
        match self {
            Retention::Short => 300.0,
            Retention::Long => 3600.0,
        }
    }
}

/// `--retention short|long`.
impl forge_replay_model::choice::Choice for Retention {
    const ALL: &'static [Retention] = &[Retention::Short, Retention::Long];

    fn name(self) -> &'static str {
        Retention::name(self)
    }

    fn help(self) -> Option<&'static str> {
        Some(match self {
            Retention::Short => "Pi's default (`PI_CACHE_RETENTION` unset): 5 minutes",
            Retention::Long => "`PI_CACHE_RETENTION=long`: 1 hour where the provider offers it",
        })
    }
}

/// Settings of [`explain`].
#[derive(Debug, Clone)]
pub struct ExplainOptions<'c> {
    pub leaf: Option<String>,
    pub catalog: &'c Catalog,
    pub retention: Retention,
}

impl<'c> ExplainOptions<'c> {
    pub fn new(catalog: &'c Catalog) -> Self {
        ExplainOptions {
            leaf: None,
            catalog,
            retention: Retention::Short,
        }
    }
}

/// Why a confirmed break happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// Another provider or model: caches are per model.
    ModelSwitch,
    /// The tool list changed (removal, addition outside the native anchors, redeclaration).
    ToolChange,
    /// A mid-conversation system message folded into the leading prompt (model not flagged
    /// `supportsMidConvoSystemMessages`): the system prompt was rewritten.
    SystemFold,
    /// A compaction replaced the history.
    Compaction,
    /// The thinking level changed (thinking configuration or replayed thinking blocks differ).
    ThinkingChange,
    /// pi-forge capability entries between the requests moved or rewrote projected text.
    CapabilityUpdate,
    /// More time than the cache TTL passed between the requests.
    TtlExpired,
    Unexplained,
}

impl Cause {
    pub fn name(self) -> &'static str {
        match self {
            Cause::ModelSwitch => "model-switch",
            Cause::ToolChange => "tool-change",
            Cause::SystemFold => "system-fold",
            Cause::Compaction => "compaction",
            Cause::ThinkingChange => "thinking-change",
            Cause::CapabilityUpdate => "capability-update",
            Cause::TtlExpired => "ttl-expired",
            Cause::Unexplained => "unexplained",
        }
    }
}

/// Reported usage of one request (pi-forge's `tokenCount` per field).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// `usage.cacheWrite1h` (the 1 h share of `cache_write`; 0 when absent).
    pub cache_write_1h: f64,
}

impl Usage {
    /// `input + cacheRead + cacheWrite`.
    pub fn prompt(&self) -> f64 {
        self.input + self.cache_read + self.cache_write
    }

    pub fn hit_rate(&self) -> Option<f64> {
        crate::hit_rate(self.input, self.cache_read, self.cache_write)
    }

    fn has_cache(&self) -> bool {
        self.cache_read > 0.0 || self.cache_write > 0.0
    }
}

/// One replayed request and its comparison with the previous reported one.
#[derive(Debug, Clone)]
pub struct RequestRow {
    pub index: usize,
    pub entry_id: String,
    pub line: u64,
    pub api: String,
    pub provider: String,
    pub model: String,
    /// The thinking level passed as `reasoning` (`off` when absent).
    pub thinking: String,
    /// `message.timestamp` (ms).
    pub timestamp: Option<f64>,
    /// `None` when the request reported no usage (aborted or failed before counting).
    pub usage: Option<Usage>,
    /// Entry id of the request compared with (the previous one with usage).
    pub previous: Option<String>,
    /// Characters of the flattened request.
    pub chars: usize,
    /// Characters of the previous request still a prefix of this one.
    pub kept_chars: usize,
    /// `kept_chars / previous chars × 100`.
    pub kept_percent: Option<f64>,
    /// Where this request first differs from the previous one (`None`: the previous request is a
    /// prefix of this one).
    pub diverged_at: Option<Segment>,
    /// `approxTokens(kept_chars)`.
    pub cacheable_tokens: u64,
    /// Seconds since the previous request.
    pub gap_seconds: Option<f64>,
    /// Whether this request's provider/model reports cache counts anywhere in the session.
    pub cache_reported: bool,
    /// Index into [`Explanation::breaks`].
    pub break_index: Option<usize>,
}

/// A confirmed cache break.
#[derive(Debug, Clone)]
pub struct Break {
    pub request: usize,
    pub entry_id: String,
    pub previous: String,
    pub cause: Cause,
    pub detail: String,
    /// Previous request's prompt tokens (what a full hit would read).
    pub expected: f64,
    pub cache_read: f64,
    /// What the break cost ([`BreakCost`]).
    pub cost: BreakCost,
}

/// The tokens a break sent again at full price and what they cost.
///
/// The prefix cached before is the previous request's prompt (`expected`); of it, this request
/// could have read `min(expected, prompt)` from the cache and read `cacheRead`. The rest was
/// **re-sent**: written to the cache again (up to this request's `cacheWrite`) or sent as
/// uncached input. Its price uses this request's rates (`calculateCost`'s tier for its prompt;
/// 1 h writes at twice the input rate, in the request's `cacheWrite1h` share).
#[derive(Debug, Clone, PartialEq)]
pub struct BreakCost {
    pub resent_tokens: f64,
    /// Re-sent tokens billed as cache writes.
    pub rewritten: f64,
    /// Re-sent tokens billed as uncached input.
    pub uncached: f64,
    /// The price of the re-sent tokens, or why they have none.
    pub price: Result<ResentPrice, Unpriced>,
}

/// USD of a break's re-sent tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResentPrice {
    /// What the re-sent tokens were billed (write and input rates).
    pub billed: f64,
    /// What reading them from the cache would have cost.
    pub as_hits: f64,
}

impl ResentPrice {
    /// `billed − as_hits`: the money the break lost.
    pub fn extra(&self) -> f64 {
        self.billed - self.as_hits
    }
}

impl BreakCost {
    /// The cost of a break at `current` after a previous prompt of `expected` tokens.
    pub fn of(expected: f64, current: &Usage, prices: Result<&ModelPrices, Unpriced>) -> BreakCost {
        let readable = expected.min(current.prompt());
        let resent_tokens = (readable - current.cache_read).max(0.0);
        let rewritten = resent_tokens.min(current.cache_write);
        let uncached = resent_tokens - rewritten;
        let price = prices.map(|p| {
            let rates = p.rates_for(current.prompt());
            let long_share = if current.cache_write > 0.0 {
                (current.cache_write_1h / current.cache_write).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let long = rewritten * long_share;
            let short = rewritten - long;
            ResentPrice {
                billed: (rates.cache_write * short
                    + rates.input * 2.0 * long
                    + rates.input * uncached)
                    / 1_000_000.0,
                as_hits: rates.cache_read * resent_tokens / 1_000_000.0,
            }
        });
        BreakCost {
            resent_tokens,
            rewritten,
            uncached,
            price,
        }
    }
}

/// The breaks of one cause, summed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CauseCost {
    pub breaks: usize,
    pub resent_tokens: f64,
    /// Over the priced breaks.
    pub billed: f64,
    pub extra: f64,
    pub unpriced_breaks: usize,
}

impl CauseCost {
    pub fn add(&mut self, c: &BreakCost) {
        self.breaks += 1;
        self.resent_tokens += c.resent_tokens;
        match &c.price {
            Ok(p) => {
                self.billed += p.billed;
                self.extra += p.extra();
            }
            Err(_) => self.unpriced_breaks += 1,
        }
    }

    pub fn merge(&mut self, o: &CauseCost) {
        self.breaks += o.breaks;
        self.resent_tokens += o.resent_tokens;
        self.billed += o.billed;
        self.extra += o.extra;
        self.unpriced_breaks += o.unpriced_breaks;
    }

    /// `{breaks, resent, billed, extra, unpricedBreaks}`.
    pub fn to_json(&self) -> Value {
        json!({
            "breaks": self.breaks,
            "resent": num(self.resent_tokens),
            "billed": num(self.billed),
            "extra": num(self.extra),
            "unpricedBreaks": self.unpriced_breaks,
        })
    }
}

/// The diagnosis of one session path.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub session: String,
    pub leaf_id: Option<String>,
    pub retention: Retention,
    pub requests: Vec<RequestRow>,
    pub breaks: Vec<Break>,
    /// No request on the path reported any cache count.
    pub no_cache_data: bool,
    /// Why the replay stopped before the leaf (the rows cover the requests before it).
    pub stopped: Option<String>,
}

/// Errors of [`explain`].
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    #[error("{path}: cannot replay the requests")]
    Replay {
        path: String,
        #[source]
        source: Box<ReplayError>,
    },
}

/// What happened on the path between two requests.
#[derive(Debug, Default)]
struct Between {
    compactions: Vec<String>,
    thinking: Vec<String>,
    model_changes: Vec<String>,
    capability: Vec<String>,
    /// System messages (sections, content or tool changes) written between the requests.
    system: Vec<String>,
    /// `usage` entries of kind `cache_warm` (Pi's cache warming replayed the last request to
    /// refresh its cache): provider, model and the entry's time (ms), in path order.
    warms: Vec<(String, String, Option<f64>)>,
}

impl Between {
    /// The last cache warm of this provider/model, and how many there were.
    fn last_warm(&self, provider: &str, model: &str) -> Option<(Option<f64>, usize)> {
        let of = |(p, m, _): &&(String, String, Option<f64>)| p == provider && m == model;
        let last = self.warms.iter().rev().find(of)?;
        Some((last.2, self.warms.iter().filter(of).count()))
    }
}

/// The previous reported request, kept while the next one is replayed.
struct Prev {
    entry_id: String,
    pos: usize,
    provider: String,
    model: String,
    thinking: String,
    timestamp: Option<f64>,
    usage: Usage,
    order: CacheOrder,
}

/// Replays the path and diagnoses every cache break the reported usage confirms.
///
/// Each request is flattened taking over the previous request's elements where its payload is
/// the same ([`CacheOrder::of_after`]) and compared with the previous reported one element by
/// element ([`CacheOrder::common_prefix`]), so the diagnosis adds to the replay work in
/// proportion to what changed between requests, not to their whole size.
pub fn explain(session: &Session, opts: &ExplainOptions<'_>) -> Result<Explanation, ExplainError> {
    explain_with(session, opts, true)
}

/// [`explain`] flattening every request from scratch ([`CacheOrder::of`]): the reference the
/// incremental path is tested against; the result is the same.
pub fn explain_reference(
    session: &Session,
    opts: &ExplainOptions<'_>,
) -> Result<Explanation, ExplainError> {
    explain_with(session, opts, false)
}

fn explain_with(
    session: &Session,
    opts: &ExplainOptions<'_>,
    incremental: bool,
) -> Result<Explanation, ExplainError> {
    let path_str = session.path().display().to_string();
    let replay_err = |source| ExplainError::Replay {
        path: path_str.clone(),
        source: Box::new(source),
    };
    let leaf = session
        .resolve_leaf(opts.leaf.as_deref())
        .map_err(|source| {
            replay_err(ReplayError::Leaf {
                path: session.path().to_path_buf(),
                source: Box::new(source),
            })
        })?;
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let pos_of: HashMap<usize, usize> = path.iter().enumerate().map(|(p, &i)| (i, p)).collect();

    // Which provider/models report cache counts anywhere on the path.
    let mut reporting: HashMap<(String, String), bool> = HashMap::new();
    for &i in &path {
        let e = session.entry(i);
        if !e.is_assistant_message() {
            continue;
        }
        let Ok(v) = e.value() else { continue };
        let m = &v["message"];
        let key = (
            m["provider"].as_str().unwrap_or_default().to_string(),
            m["model"].as_str().unwrap_or_default().to_string(),
        );
        let has = usage_of(m).is_some_and(|u| u.has_cache());
        *reporting.entry(key).or_default() |= has;
    }

    let pricer = Pricer::of(opts.catalog);
    let mut price_memo: HashMap<(String, String), Result<ModelPrices, Unpriced>> = HashMap::new();
    let mut ropts = ReplayOptions::new(opts.catalog);
    ropts.leaf = opts.leaf.clone();
    // Breaks are found in the payloads; the HTTP bodies are not read.
    ropts.wire_bodies = false;
    // The reference builds every request from scratch too.
    ropts.incremental = incremental;
    let mut rows: Vec<RequestRow> = Vec::new();
    let mut breaks: Vec<Break> = Vec::new();
    let mut prev: Option<Prev> = None;
    // The last request replayed: its API, flattening, payload (unless handed back for the next
    // request to be built in) and reuse token.
    let mut last: Option<(Api, CacheOrder, Option<Value>, u64)> = None;
    let replayed = replay::replay_each_recycling(session, &ropts, |r| {
        let idx = session.find(&r.entry_id);
        let pos = idx.and_then(|i| pos_of.get(&i).copied()).unwrap_or(0);
        let msg = idx
            .and_then(|i| session.entry(i).value().ok())
            .map(|v| v["message"].clone())
            .unwrap_or(Value::Null);
        let usage = usage_of(&msg);
        let timestamp = msg["timestamp"].as_f64();
        let thinking = r
            .options
            .get("reasoning")
            .and_then(Value::as_str)
            .unwrap_or("off")
            .to_string();
        // The previous request's elements are taken over where its payload is the same, so a
        // request costs the flattening of what changed (the result is `CacheOrder::of`'s).
        let earlier = last
            .as_ref()
            .filter(|(api, _, _, _)| incremental && *api == r.api)
            .map(|(_, order, payload, token)| Earlier {
                order,
                payload: payload.as_ref(),
                kept_messages: r.reuse.kept_after(*token),
            });
        let order = CacheOrder::of_after(r.api, &r.provider, &r.model, &r.payload, earlier);
        let cache_reported = reporting
            .get(&(r.provider.clone(), r.model.clone()))
            .copied()
            .unwrap_or(false);
        let mut row = RequestRow {
            index: r.index,
            entry_id: r.entry_id.clone(),
            line: r.line,
            api: r.api.name().to_string(),
            provider: r.provider.clone(),
            model: r.model.clone(),
            thinking: thinking.clone(),
            timestamp,
            usage,
            previous: None,
            chars: order.chars(),
            kept_chars: 0,
            kept_percent: None,
            diverged_at: None,
            cacheable_tokens: 0,
            gap_seconds: None,
            cache_reported,
            break_index: None,
        };
        if let Some(p) = &prev {
            let kept = p.order.common_prefix(&order);
            let prev_chars = p.order.chars();
            row.previous = Some(p.entry_id.clone());
            row.kept_chars = p.order.chars_before(kept);
            row.kept_percent =
                (prev_chars > 0).then(|| row.kept_chars as f64 * 100.0 / prev_chars as f64);
            row.diverged_at = p.order.segment_at(kept);
            row.cacheable_tokens = approx_tokens(row.kept_chars);
            row.gap_seconds = match (p.timestamp, timestamp) {
                (Some(a), Some(b)) => Some((b - a) / 1000.0),
                _ => None,
            };
            if let Some(u) = &usage {
                let expected = p.usage.prompt();
                if cache_reported && expected > 0.0 && u.cache_read < CONFIRM_RATIO * expected {
                    let between = collect_between(session, &path, p.pos, pos);
                    let ttl = ttl_seconds(opts, r.api, &r.provider, &r.model);
                    let (cause, detail) = diagnose(
                        p,
                        &row,
                        &order,
                        kept,
                        &between,
                        Clock {
                            ttl,
                            retention: opts.retention,
                            release: opts.catalog.release(),
                        },
                    );
                    row.break_index = Some(breaks.len());
                    let prices = prices_of(&pricer, &mut price_memo, &r.provider, &r.model);
                    breaks.push(Break {
                        request: r.index,
                        entry_id: r.entry_id.clone(),
                        previous: p.entry_id.clone(),
                        cause,
                        detail,
                        expected,
                        cache_read: u.cache_read,
                        cost: BreakCost::of(expected, u, prices.as_ref().map_err(Clone::clone)),
                    });
                }
            }
        }
        let api = r.api;
        let token = r.reuse.token;
        let (payload, back) = if token == 0 {
            (Some(r.payload), None)
        } else {
            (None, Some(r.payload))
        };
        if let Some(u) = usage {
            last = Some((api, order.clone(), payload, token));
            prev = Some(Prev {
                entry_id: r.entry_id.clone(),
                pos,
                provider: r.provider.clone(),
                model: r.model.clone(),
                thinking,
                timestamp,
                usage: u,
                order,
            });
        } else {
            last = Some((api, order, payload, token));
        }
        rows.push(row);
        Ok(back)
    });
    // A request that cannot be rebuilt ends the replay; what came before is still a diagnosis.
    let stopped = match replayed {
        Ok(()) => None,
        Err(e) if rows.is_empty() => return Err(replay_err(e)),
        Err(e) => Some(error_chain(&e)),
    };

    let no_cache_data = !reporting.values().any(|&b| b);
    Ok(Explanation {
        session: path_str,
        leaf_id: leaf.and_then(|l| session.entry(l).id().map(str::to_string)),
        retention: opts.retention,
        requests: rows,
        breaks,
        no_cache_data,
        stopped,
    })
}

/// The catalog prices of `provider/model`, looked up once per model.
fn prices_of<'m>(
    pricer: &Pricer<'_>,
    memo: &'m mut HashMap<(String, String), Result<ModelPrices, Unpriced>>,
    provider: &str,
    model: &str,
) -> &'m Result<ModelPrices, Unpriced> {
    memo.entry((provider.to_owned(), model.to_owned()))
        .or_insert_with(|| pricer.prices(Some(provider), Some(model)))
}

/// The request's usage, `None` unless it is a main request (pi-forge §6.2: some count > 0).
fn usage_of(msg: &Value) -> Option<Usage> {
    let u = msg.get("usage").filter(|u| u.is_object())?;
    let count = |k: &str| {
        u[k].as_f64()
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(0.0)
    };
    let usage = Usage {
        input: count("input"),
        output: count("output"),
        cache_read: count("cacheRead"),
        cache_write: count("cacheWrite"),
        cache_write_1h: u["cacheWrite1h"]
            .as_f64()
            .filter(|v| v.is_finite())
            .unwrap_or(0.0),
    };
    (usage.input + usage.output + usage.cache_read + usage.cache_write > 0.0).then_some(usage)
}

/// The cache TTL of a request: the catalog model's `promptCache` seconds for the retention, else
/// 24 h for long retention where pi-ai sends `prompt_cache_retention: "24h"` (OpenAI Responses and
/// Completions), else [`Retention::default_ttl_seconds`].
fn ttl_seconds(opts: &ExplainOptions<'_>, api: Api, provider: &str, model: &str) -> f64 {
    let from_catalog = opts
        .catalog
        .lookup(provider, model)
        .ok()
        .and_then(|m| m.get("promptCache"))
        .and_then(|pc| pc[opts.retention.name()].as_f64());
    from_catalog.unwrap_or(match (opts.retention, api) {
        (Retention::Long, Api::OpenAiResponses | Api::OpenAiCompletions) => 86_400.0,
        (r, _) => r.default_ttl_seconds(),
    })
}

/// Entries strictly between path positions `from` and `to`.
fn collect_between(session: &Session, path: &[usize], from: usize, to: usize) -> Between {
    let mut b = Between::default();
    for &i in path.iter().take(to).skip(from + 1) {
        let e = session.entry(i);
        let id = e.id().unwrap_or_default().to_string();
        match e.entry_type() {
            EntryType::Compaction => {
                let tokens = e
                    .value()
                    .ok()
                    .and_then(|v| v["tokensBefore"].as_f64())
                    .map(|t| format!(", tokensBefore {t}"))
                    .unwrap_or_default();
                b.compactions.push(format!("compaction {id}{tokens}"));
            }
            EntryType::ThinkingLevelChange => {
                let level = e
                    .thinking_level_value()
                    .and_then(Value::as_str)
                    .unwrap_or("?");
                b.thinking.push(level.to_string());
            }
            EntryType::ModelChange => {
                let p = e.provider_value().and_then(Value::as_str).unwrap_or("?");
                let m = e.model_id_value().and_then(Value::as_str).unwrap_or("?");
                b.model_changes.push(format!("{p}/{m}"));
            }
            EntryType::Custom => {
                let Ok(v) = e.value() else { continue };
                let ct = v["customType"].as_str().unwrap_or_default();
                if let Some(kind) = ct.strip_prefix("pi-forge-capability-") {
                    b.capability.push(capability_summary(kind, &v["data"]));
                }
            }
            EntryType::Message if e.is_system_message() => {
                let Ok(v) = e.value() else { continue };
                b.system.push(system_summary(&id, &v["message"]));
            }
            EntryType::Usage => {
                let Ok(v) = e.value() else { continue };
                if v["kind"] == "cache_warm" {
                    let at = v["timestamp"]
                        .as_str()
                        .map(forge_replay_model::js::date::parse)
                        .filter(|t| t.is_finite());
                    b.warms.push((
                        v["provider"].as_str().unwrap_or_default().to_string(),
                        v["model"].as_str().unwrap_or_default().to_string(),
                        at,
                    ));
                }
            }
            _ => {}
        }
    }
    b
}

fn capability_summary(kind: &str, data: &Value) -> String {
    match kind {
        "event" => {
            let op = data["op"].as_str().unwrap_or("?");
            let actor = data["actor"].as_str().unwrap_or("?");
            let name = data["snapshot"]["name"]
                .as_str()
                .or_else(|| data["activationId"].as_str());
            match name {
                Some(n) => format!("{op} {n:?} by {actor}"),
                None => format!("{op} by {actor}"),
            }
        }
        "tools" => "tool baseline".to_string(),
        "delivery" => "delivery anchor".to_string(),
        other => other.to_string(),
    }
}

fn system_summary(id: &str, m: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(s) = m["sections"].as_object() {
        let names: Vec<&str> = s.keys().map(String::as_str).collect();
        if !names.is_empty() {
            parts.push(format!("sections {}", names.join(", ")));
        }
    }
    let content = match &m["content"] {
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    if content {
        parts.push("content".to_string());
    }
    for (k, label) in [("toolsAdded", "+"), ("toolsRemoved", "-")] {
        if let Some(ts) = m[k].as_array() {
            let names: Vec<String> = ts
                .iter()
                .filter_map(|t| t["name"].as_str())
                .map(|n| format!("{label}{n}"))
                .collect();
            if !names.is_empty() {
                parts.push(format!("tools {}", names.join(" ")));
            }
        }
    }
    if parts.is_empty() {
        format!("system message {id}")
    } else {
        format!("system message {id} ({})", parts.join("; "))
    }
}

/// Tool-list difference between two requests, e.g. `removed bash, edit; redeclared read`.
fn tool_diff(prev: &CacheOrder, cur: &CacheOrder) -> String {
    let old: HashMap<&str, &str> = prev
        .tools
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_str()))
        .collect();
    let new: HashMap<&str, &str> = cur
        .tools
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_str()))
        .collect();
    let removed: Vec<&str> = prev
        .tools
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !new.contains_key(n))
        .collect();
    let added: Vec<&str> = cur
        .tools
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !old.contains_key(n))
        .collect();
    let redeclared: Vec<&str> = cur
        .tools
        .iter()
        .filter(|(n, d)| old.get(n.as_str()).is_some_and(|o| o != d))
        .map(|(n, _)| n.as_str())
        .collect();
    let mut parts = Vec::new();
    for (label, names) in [
        ("removed", removed),
        ("added", added),
        ("redeclared", redeclared),
    ] {
        if !names.is_empty() {
            parts.push(format!("{label} {}", names.join(", ")));
        }
    }
    if parts.is_empty() {
        "tool list reordered or rewritten".to_string()
    } else {
        parts.join("; ")
    }
}

/// What the TTL of a request is judged against.
#[derive(Debug, Clone, Copy)]
struct Clock {
    /// Seconds.
    ttl: f64,
    retention: Retention,
    /// The release replayed (its cache-warming default).
    release: PiRelease,
}

/// Names the cause of a confirmed break between `p` and the current request.
fn diagnose(
    p: &Prev,
    row: &RequestRow,
    cur: &CacheOrder,
    kept_bytes: usize,
    between: &Between,
    clock: Clock,
) -> (Cause, String) {
    let Clock {
        ttl,
        retention,
        release,
    } = clock;
    if p.provider != row.provider || p.model != row.model {
        let mut d = format!(
            "{}/{} → {}/{}",
            p.provider, p.model, row.provider, row.model
        );
        if let Some(m) = between.model_changes.last() {
            let _ = write!(d, " (model_change to {m})");
        }
        return (Cause::ModelSwitch, d);
    }
    let kept = row.kept_percent.unwrap_or(0.0);
    let gap = row.gap_seconds.unwrap_or(0.0);
    // Pi's cache warming replays the last request before the TTL ends (`usage` entries of kind
    // `cache_warm`): the clock runs from the last warm-up.
    let warm = between.last_warm(&row.provider, &row.model);
    let since_warm = match (warm, row.timestamp) {
        (Some((Some(w), _)), Some(now)) => Some(((now - w) / 1000.0).max(0.0)),
        _ => None,
    };
    let expired = since_warm.unwrap_or(gap) > ttl;
    let ttl_detail = || match (warm, since_warm) {
        (Some((_, n)), Some(since)) => format!(
            "{} since the last of {n} cache warm-up(s) ({} since the previous request) > {} TTL {}",
            human_seconds(since),
            human_seconds(gap),
            retention.name(),
            human_seconds(ttl)
        ),
        _ => {
            let mut d = format!(
                "{} since the previous request > {} TTL {}",
                human_seconds(gap),
                retention.name(),
                human_seconds(ttl)
            );
            if release.has(Change::AgentCacheWarmingIdle) {
                d.push_str(
                    "; no cache warm-up in between: idle warming (Pi's default since 1.5.1) refreshes for at most 30 min after a run, and only when a refresh is expected to save at least $0.05",
                );
            }
            d
        }
    };
    // The structure kept most of the prefix: only the clock explains a miss this large.
    if expired && (row.diverged_at.is_none() || kept >= CONFIRM_RATIO * 100.0) {
        return (Cause::TtlExpired, ttl_detail());
    }
    if let Some(c) = between.compactions.last() {
        return (Cause::Compaction, c.clone());
    }
    let cap = || {
        if between.capability.is_empty() {
            String::new()
        } else {
            format!(
                " after capability update ({})",
                between.capability.join(", ")
            )
        }
    };
    let structural = match row.diverged_at {
        None | Some(Segment::Model) => None,
        Some(Segment::Tools) => Some((
            Cause::ToolChange,
            format!("{}{}", tool_diff(&p.order, cur), cap()),
        )),
        Some(Segment::Instructions) | Some(Segment::System) => {
            if !between.system.is_empty() {
                Some((
                    Cause::SystemFold,
                    format!(
                        "{} folded into the leading system prompt",
                        between.system.join(", ")
                    ),
                ))
            } else if !between.capability.is_empty() {
                Some((
                    Cause::CapabilityUpdate,
                    format!(
                        "system prompt changed after {}",
                        between.capability.join(", ")
                    ),
                ))
            } else {
                Some((Cause::Unexplained, "system prompt changed".to_string()))
            }
        }
        Some(Segment::Thinking) | Some(Segment::Messages) => {
            if p.thinking != row.thinking || !between.thinking.is_empty() {
                let what = if row.diverged_at == Some(Segment::Thinking) {
                    "thinking configuration changed"
                } else {
                    "replayed messages changed"
                };
                Some((
                    Cause::ThinkingChange,
                    format!("thinking {} → {} ({what})", p.thinking, row.thinking),
                ))
            } else if !between.capability.is_empty() {
                Some((
                    Cause::CapabilityUpdate,
                    format!(
                        "{} differ after {}",
                        row.diverged_at.map_or("request", Segment::name),
                        between.capability.join(", ")
                    ),
                ))
            } else if is_capability_text(p.order.line_at(kept_bytes))
                || is_capability_text(cur.line_at(kept_bytes))
            {
                Some((
                    Cause::CapabilityUpdate,
                    "projected capability text moved: a pending (unanchored) update is appended \
                     after the newest messages on every request"
                        .to_string(),
                ))
            } else if !between.system.is_empty() {
                Some((
                    Cause::SystemFold,
                    format!("{} rewrote earlier messages", between.system.join(", ")),
                ))
            } else {
                Some((
                    Cause::Unexplained,
                    format!(
                        "{} differ from the previous request",
                        row.diverged_at.map_or("request", Segment::name)
                    ),
                ))
            }
        }
    };
    match structural {
        Some((Cause::Unexplained, _)) | None if expired => (Cause::TtlExpired, ttl_detail()),
        Some(found) => found,
        None => (
            Cause::Unexplained,
            match (warm, since_warm) {
                (Some((_, n)), Some(since)) => format!(
                    "the previous request is an unchanged prefix, and {n} cache warm-up(s) kept it within the TTL (the last {} before)",
                    human_seconds(since)
                ),
                _ => "the previous request is an unchanged prefix and the gap is within the TTL"
                    .to_string(),
            },
        ),
    }
}

/// The flattened element (line) holding byte offset `at`.
/// Text pi-forge's capability projection writes (native sections or fallback updates).
fn is_capability_text(element: &str) -> bool {
    element.contains("[pi-forge capability update]") || element.contains("forge-capability-")
}

/// `95 s`, `6 min 40 s`, `1 h 2 min`.
pub fn human_seconds(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s < 60 {
        format!("{s} s")
    } else if s < 3600 {
        if s % 60 == 0 {
            format!("{} min", s / 60)
        } else {
            format!("{} min {} s", s / 60, s % 60)
        }
    } else if s % 3600 == 0 {
        format!("{} h", s / 3600)
    } else {
        format!("{} h {} min", s / 3600, (s % 3600) / 60)
    }
}

fn num(v: f64) -> Value {
    f64_to_value(v)
}

/// One request row of [`Explanation::to_json`].
fn request_json(r: &RequestRow) -> Value {
    let mut m = Map::new();
    m.insert("index".into(), r.index.into());
    m.insert("entryId".into(), r.entry_id.clone().into());
    m.insert("line".into(), r.line.into());
    m.insert("api".into(), r.api.clone().into());
    m.insert("provider".into(), r.provider.clone().into());
    m.insert("model".into(), r.model.clone().into());
    m.insert("thinking".into(), r.thinking.clone().into());
    m.insert("timestamp".into(), r.timestamp.map_or(Value::Null, num));
    m.insert(
        "usage".into(),
        r.usage.map_or(Value::Null, |u| {
            json!({"input": num(u.input), "output": num(u.output),
                       "cacheRead": num(u.cache_read), "cacheWrite": num(u.cache_write)})
        }),
    );
    m.insert(
        "hitRate".into(),
        r.usage
            .and_then(|u| u.hit_rate())
            .filter(|_| r.cache_reported)
            .map_or(Value::Null, num),
    );
    m.insert("cacheReported".into(), r.cache_reported.into());
    m.insert(
        "previous".into(),
        r.previous.clone().map_or(Value::Null, Value::from),
    );
    m.insert("chars".into(), r.chars.into());
    m.insert("keptChars".into(), r.kept_chars.into());
    m.insert(
        "keptPercent".into(),
        r.kept_percent
            .map_or(Value::Null, |p| num((p * 10.0).round() / 10.0)),
    );
    m.insert(
        "divergedAt".into(),
        r.diverged_at.map_or(Value::Null, |s| s.name().into()),
    );
    m.insert("cacheableTokens".into(), r.cacheable_tokens.into());
    m.insert("gapSeconds".into(), r.gap_seconds.map_or(Value::Null, num));
    m.insert(
        "break".into(),
        r.break_index.map_or(Value::Null, Value::from),
    );
    Value::Object(m)
}

/// A member of the explanation's JSON document: a value, or the requests array.
enum Member {
    Value(Value),
    Requests,
}

impl Explanation {
    /// What the confirmed breaks re-billed, by cause (causes without breaks left out), and
    /// the total.
    pub fn rebilled(&self) -> (Vec<(Cause, CauseCost)>, CauseCost) {
        let mut by: HashMap<Cause, CauseCost> = HashMap::new();
        let mut total = CauseCost::default();
        for b in &self.breaks {
            by.entry(b.cause).or_default().add(&b.cost);
            total.add(&b.cost);
        }
        let list = CAUSES
            .iter()
            .filter_map(|c| by.remove(c).map(|v| (*c, v)))
            .collect();
        (list, total)
    }

    /// `{"session", "leafId", "retention", "noCacheData", "requests": [...], "breaks": [...],
    /// "rebilled": {total, byCause}, "stopped"}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        for (key, value) in self.members() {
            let value = match value {
                Member::Value(v) => v,
                Member::Requests => Value::Array(self.requests.iter().map(request_json).collect()),
            };
            m.insert(key.into(), value);
        }
        Value::Object(m)
    }

    /// [`Explanation::to_json`] as `JSON.stringify(…, null, 2)` text, written one request at a
    /// time: the same bytes as `json::stringify_pretty(&self.to_json())`, without holding the
    /// document as a tree (on a long session that tree is several times the text).
    pub fn to_json_text(&self) -> String {
        use forge_replay_model::json::{write_pretty_at, write_string};
        let newline = |out: &mut String, depth: usize| {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        };
        let mut out = String::new();
        out.push('{');
        for (i, (key, value)) in self.members().into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            newline(&mut out, 1);
            write_string(&mut out, key);
            out.push_str(": ");
            match value {
                Member::Value(v) => write_pretty_at(&mut out, &v, 1),
                Member::Requests if self.requests.is_empty() => out.push_str("[]"),
                Member::Requests => {
                    out.push('[');
                    for (k, r) in self.requests.iter().enumerate() {
                        if k > 0 {
                            out.push(',');
                        }
                        newline(&mut out, 2);
                        write_pretty_at(&mut out, &request_json(r), 2);
                    }
                    newline(&mut out, 1);
                    out.push(']');
                }
            }
        }
        newline(&mut out, 0);
        out.push('}');
        out
    }

    /// The members of the JSON document in order; the requests (most of it) are left to the
    /// writer.
    fn members(&self) -> Vec<(&'static str, Member)> {
        let breaks: Vec<Value> = self
            .breaks
            .iter()
            .map(|b| {
                let c = &b.cost;
                json!({
                    "request": b.request,
                    "entryId": b.entry_id,
                    "previous": b.previous,
                    "cause": b.cause.name(),
                    "detail": b.detail,
                    "expected": num(b.expected),
                    "cacheRead": num(b.cache_read),
                    "resent": num(c.resent_tokens),
                    "rewritten": num(c.rewritten),
                    "uncached": num(c.uncached),
                    "billed": c.price.as_ref().map_or(Value::Null, |p| num(p.billed)),
                    "extra": c.price.as_ref().map_or(Value::Null, |p| num(p.extra())),
                    "unpriced": c.price.as_ref().err().map(|e| e.to_string()),
                })
            })
            .collect();
        let (by, total) = self.rebilled();
        let by_cause: Vec<Value> = by
            .iter()
            .map(|(cause, c)| {
                let mut v = c.to_json();
                if let Value::Object(m) = &mut v {
                    m.insert("cause".into(), cause.name().into());
                }
                v
            })
            .collect();
        vec![
            ("session", Member::Value(self.session.clone().into())),
            (
                "leafId",
                Member::Value(self.leaf_id.clone().map_or(Value::Null, Value::from)),
            ),
            ("retention", Member::Value(self.retention.name().into())),
            ("noCacheData", Member::Value(self.no_cache_data.into())),
            ("requests", Member::Requests),
            ("breaks", Member::Value(Value::Array(breaks))),
            (
                "rebilled",
                Member::Value(json!({"total": total.to_json(), "byCause": by_cause})),
            ),
            (
                "stopped",
                Member::Value(self.stopped.clone().map_or(Value::Null, Value::from)),
            ),
        ]
    }

    /// The text table: one row per request, then a summary line.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "session {}", self.session);
        if self.no_cache_data {
            let _ = writeln!(
                out,
                "no cache data: the provider reported zero cacheRead and cacheWrite on every \
                 request, so breaks cannot be confirmed"
            );
        }
        let header = [
            "#",
            "entry",
            "model",
            "kept",
            "changed",
            "est. cacheable",
            "cacheRead",
            "hit",
            "re-sent",
            "break",
        ];
        let mut table: Vec<[String; 10]> = vec![header.map(str::to_string)];
        for r in &self.requests {
            let (cache_read, hit) = match (&r.usage, r.cache_reported) {
                (None, _) => ("no usage".to_string(), "\u{2014}".to_string()),
                (Some(_), false) => ("no cache data".to_string(), "\u{2014}".to_string()),
                (Some(u), true) => (fmt_tokens(u.cache_read), crate::format_rate(u.hit_rate())),
            };
            let kept = r
                .kept_percent
                .map_or("\u{2014}".to_string(), |p| format!("{p:.1}%"));
            let brk = match r.break_index.map(|i| &self.breaks[i]) {
                Some(b) => format!("{}: {}", b.cause.name(), b.detail),
                None => String::new(),
            };
            let resent = match r.break_index.map(|i| &self.breaks[i].cost) {
                Some(c) => match &c.price {
                    Ok(p) => format!("{} {}", fmt_tokens(c.resent_tokens), usd(p.billed)),
                    Err(_) => format!("{} (no price)", fmt_tokens(c.resent_tokens)),
                },
                None => String::new(),
            };
            table.push([
                r.index.to_string(),
                r.entry_id.clone(),
                format!("{}/{}", r.provider, r.model),
                kept,
                match (&r.previous, r.diverged_at) {
                    (None, _) => "\u{2014}".to_string(),
                    (Some(_), None) => "-".to_string(),
                    (Some(_), Some(seg)) => seg.name().to_string(),
                },
                if r.previous.is_some() {
                    r.cacheable_tokens.to_string()
                } else {
                    "\u{2014}".to_string()
                },
                cache_read,
                hit,
                resent,
                brk,
            ]);
        }
        let widths: Vec<usize> = (0..10)
            .map(|c| {
                table
                    .iter()
                    .map(|row| row[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in &table {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str("  ");
                }
                let pad = widths[c] - cell.chars().count();
                let right = matches!(c, 0 | 3 | 5 | 6 | 7 | 8);
                if c == 9 {
                    line.push_str(cell);
                } else if right {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad));
                }
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let _ = match self.breaks.len() {
            0 if self.no_cache_data => writeln!(out, "no confirmed breaks (no cache data)"),
            0 => writeln!(out, "no confirmed cache breaks"),
            1 => writeln!(out, "1 confirmed cache break"),
            n => writeln!(out, "{n} confirmed cache breaks"),
        };
        if !self.breaks.is_empty() {
            let (by, total) = self.rebilled();
            let parts: Vec<String> = by
                .iter()
                .map(|(cause, c)| format!("{} {}", cause.name(), cause_cost_text(c)))
                .collect();
            let _ = writeln!(
                out,
                "re-billed by cache breaks: {} ({} tokens re-sent; {} more than cache hits) — {}",
                usd(total.billed),
                fmt_tokens(total.resent_tokens),
                usd(total.extra),
                parts.join(", ")
            );
            if total.unpriced_breaks > 0 {
                let _ = writeln!(
                    out,
                    "{} not priced: their model is not in the pi-ai catalog of the replay's release",
                    forge_replay_model::text::count(total.unpriced_breaks, "break", "breaks")
                );
            }
        }
        // The cause is the caller's error line (stderr): said once, on one stream.
        if self.stopped.is_some() {
            let _ = writeln!(
                out,
                "stopped before the leaf: the rows above are the requests before the error"
            );
        }
        out
    }
}

/// `$1.23`, or `$0.0042` below a cent.
pub fn usd(v: f64) -> String {
    if v != 0.0 && v.abs() < 0.01 {
        format!("${v:.4}")
    } else {
        format!("${v:.2}")
    }
}

fn cause_cost_text(c: &CauseCost) -> String {
    let mut s = usd(c.billed);
    if c.unpriced_breaks > 0 {
        let _ = write!(s, " (+{} unpriced)", c.unpriced_breaks);
    }
    s
}

fn fmt_tokens(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use forge_replay_model::release::PiRelease;
    use std::path::PathBuf;

    #[test]
    fn retentions_are_named_and_said() {
        use forge_replay_model::choice::Choice;
        assert_eq!(
            Retention::named("long", Retention::ALL),
            Some(Retention::Long)
        );
        assert!(Choice::help(Retention::Short).is_some_and(|h| h.contains("5 minutes")));
    }

    fn fixture(name: &str) -> PathBuf {
        forge_replay_testkit::fixture("cache")
            .join(name)
            .join("session.jsonl")
    }

    fn run(name: &str) -> Explanation {
        let (session, _) = Session::open(fixture(name)).expect("fixture opens");
        explain(
            &session,
            &ExplainOptions::new(Catalog::builtin(PiRelease::V0_87_1)),
        )
        .expect("explains")
    }

    /// The causes of the confirmed breaks.
    fn causes(e: &Explanation) -> Vec<Cause> {
        e.breaks.iter().map(|b| b.cause).collect()
    }

    #[test]
    fn tool_removal_is_a_tool_change() {
        let e = run("tool-change");
        assert_eq!(causes(&e), [Cause::ToolChange]);
        assert_eq!(e.breaks[0].entry_id, "0000000c");
        assert!(e.breaks[0].detail.starts_with("removed bash, edit, write"));
        assert_eq!(e.requests[2].diverged_at, Some(Segment::Tools));
    }

    #[test]
    fn a_structural_change_the_usage_does_not_confirm_is_not_a_break() {
        let e = run("tool-change-unconfirmed");
        assert_eq!(e.requests[2].diverged_at, Some(Segment::Tools));
        assert!(e.breaks.is_empty());
        assert!(e.to_text().contains("no confirmed cache breaks"));
    }

    #[test]
    fn mid_conversation_system_patch_on_unflagged_model_is_a_fold() {
        let e = run("system-fold");
        assert_eq!(causes(&e), [Cause::SystemFold]);
        assert_eq!(e.requests[1].diverged_at, Some(Segment::System));
        assert!(e.breaks[0].detail.contains("sections style"));
    }

    #[test]
    fn provider_switch_is_a_model_switch() {
        let e = run("model-switch");
        assert_eq!(causes(&e), [Cause::ModelSwitch]);
        assert_eq!(e.requests[1].kept_percent, Some(0.0));
        assert!(e.breaks[0]
            .detail
            .starts_with("anthropic/claude-opus-4-8 → openai/gpt-5.5"));
    }

    #[test]
    fn compaction_is_named() {
        let e = run("compaction");
        assert_eq!(causes(&e), [Cause::Compaction]);
        assert!(e.breaks[0].detail.contains("tokensBefore 6100"));
    }

    #[test]
    fn thinking_level_change_is_named() {
        let e = run("thinking-change");
        assert_eq!(causes(&e), [Cause::ThinkingChange]);
        assert_eq!(e.requests[1].diverged_at, Some(Segment::Thinking));
        assert!(e.breaks[0].detail.starts_with("thinking low → high"));
    }

    #[test]
    fn pending_capability_update_moving_is_a_capability_update() {
        let e = run("capability-update");
        assert_eq!(causes(&e), [Cause::CapabilityUpdate]);
        assert_eq!(e.breaks[0].entry_id, "00000009");
    }

    #[test]
    fn gap_beyond_ttl_with_intact_prefix_is_ttl_expired() {
        let e = run("ttl");
        assert_eq!(causes(&e), [Cause::TtlExpired]);
        assert_eq!(e.requests[1].diverged_at, None);
        assert!(e.breaks[0].detail.contains("> short TTL 5 min"));
        // With long retention (1 h TTL) the same gap no longer explains the miss.
        let (session, _) = Session::open(fixture("ttl")).unwrap();
        let mut opts = ExplainOptions::new(Catalog::builtin(PiRelease::V0_87_1));
        opts.retention = Retention::Long;
        let long = explain(&session, &opts).unwrap();
        assert_eq!(causes(&long), [Cause::Unexplained]);
    }

    /// Pi's cache warming (`usage` entries of kind `cache_warm`) restarts the TTL clock: 10 min
    /// after the previous request but seconds after a warm-up, the TTL does not explain a miss.
    #[test]
    fn a_cache_warm_up_restarts_the_ttl_clock() {
        let e = run("ttl-warmed");
        assert_eq!(causes(&e), [Cause::Unexplained]);
        assert!(e.requests[1].gap_seconds.unwrap() > 600.0);
        assert!(
            e.breaks[0]
                .detail
                .contains("1 cache warm-up(s) kept it within the TTL"),
            "{}",
            e.breaks[0].detail
        );
        // Without the warm-up (the ttl fixture), the same gap is an expiry.
        assert_eq!(causes(&run("ttl")), [Cause::TtlExpired]);
    }

    /// A 1.6 session (idle warming by default) whose gap has no warm-up says why Pi did not warm.
    #[test]
    fn an_expiry_without_a_warm_up_names_idle_warming_from_1_6() {
        let (session, _) = Session::open(fixture("ttl")).unwrap();
        let detail = |release| {
            let e = explain(&session, &ExplainOptions::new(Catalog::builtin(release))).unwrap();
            assert_eq!(causes(&e), [Cause::TtlExpired], "{release}");
            e.breaks[0].detail.clone()
        };
        assert!(!detail(PiRelease::V0_87_1).contains("idle warming"));
        assert!(!detail(PiRelease::V1_3_0).contains("idle warming"));
        let d = detail(PiRelease::V1_6_0);
        assert!(
            d.contains("no cache warm-up in between: idle warming"),
            "{d}"
        );
    }

    #[test]
    fn intact_prefix_within_ttl_is_unexplained() {
        let e = run("unexplained");
        assert_eq!(causes(&e), [Cause::Unexplained]);
    }

    #[test]
    fn all_zero_cache_counts_report_no_cache_data() {
        let e = run("no-cache-data");
        assert!(e.no_cache_data);
        assert!(e.breaks.is_empty());
        assert!(e.to_text().contains("no cache data"));
        assert_eq!(e.to_json()["noCacheData"], true);
        assert!(e.requests.iter().all(|r| !r.cache_reported));
    }

    #[test]
    fn tour_names_four_causes_in_order() {
        let e = run("tour");
        let got: Vec<(usize, Cause)> = e.breaks.iter().map(|b| (b.request, b.cause)).collect();
        assert_eq!(
            got,
            [
                (2, Cause::ToolChange),
                (4, Cause::ThinkingChange),
                (5, Cause::Compaction),
                (7, Cause::TtlExpired)
            ]
        );
    }

    #[test]
    fn human_seconds_forms() {
        assert_eq!(human_seconds(59.4), "59 s");
        assert_eq!(human_seconds(300.0), "5 min");
        assert_eq!(human_seconds(602.0), "10 min 2 s");
        assert_eq!(human_seconds(3720.0), "1 h 2 min");
    }
}
