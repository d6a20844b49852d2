//! The session report (`forge-replay report session`): one self-contained HTML page for post-hoc
//! analysis of one session.
//!
//! [`build`] turns library results into a typed page model, [`SessionReport`]:
//!
//! * the usage records of the active path (`forge_replay_usage::session_branch`) give each
//!   request its main usage, Pi's persisted cost and the nested (`forgeNestedUsage`) reports of
//!   its tool results, plus the running totals;
//! * the cache diagnosis (`forge_replay_usage::explain`) gives each request its kept prefix and
//!   each confirmed cache break its [`Cause`] and detail;
//! * a replay of the path (`forge_replay_engine::replay`) gives each request's payload, redacted
//!   and compared with the previous one by the structural diff engine
//!   (`forge_replay_engine::diff`);
//! * the session tree ([`TreeItem`]) with the active path marked, branches, labels, compactions
//!   and model changes.
//!
//! [`html::render`] writes the page: inline CSS, an inline script that draws the charts from the
//! page's embedded JSON data, and inline SVG; no network, no external asset, no clock, so the same
//! session always gives the same bytes. Everything taken from the session is redacted
//! ([`redact_text`], `forge_replay_wire::redact` for payloads) and HTML-escaped.

pub mod html;
pub mod json;
mod tree;

use std::borrow::Cow;

use forge_replay_engine::diff::{self, RenderOptions};
use forge_replay_engine::replay::{self, ReplayOptions};
use forge_replay_model::error::chain as error_chain;
use forge_replay_session::{Diagnostic, ProjectError, Session};
use forge_replay_usage::explain::{self, Cause, ExplainOptions, Retention};
use forge_replay_usage::{session_branch, summarize, NestedTotals, Role, Totals};
use forge_replay_wire::Catalog;
use serde_json::Value;

pub use tree::{TreeItem, TreeKind, TreeRow};

/// Every break cause, in the order the legend lists them.
pub const CAUSES: [Cause; 8] = [
    Cause::ToolChange,
    Cause::SystemFold,
    Cause::ThinkingChange,
    Cause::CapabilityUpdate,
    Cause::ModelSwitch,
    Cause::Compaction,
    Cause::TtlExpired,
    Cause::Unexplained,
];

/// What a cause means, for the legend.
pub fn cause_description(c: Cause) -> &'static str {
    match c {
        Cause::ToolChange => "the tool list changed (a tool removed, added or redeclared)",
        Cause::SystemFold => {
            "a mid-conversation system message was folded into the leading system prompt"
        }
        Cause::ThinkingChange => "the thinking level changed",
        Cause::CapabilityUpdate => "pi-forge capability text moved or was rewritten",
        Cause::ModelSwitch => "another provider or model: prompt caches are per model",
        Cause::Compaction => "a compaction replaced the history with a summary",
        Cause::TtlExpired => "more time than the cache TTL passed between the requests",
        Cause::Unexplained => "the request kept the previous prefix; the provider still missed",
    }
}

/// The colour of a cause (Okabe–Ito palette, readable for colour-blind readers; dark enough for
/// white text).
pub fn cause_colour(c: Cause) -> &'static str {
    match c {
        Cause::ToolChange => "#c85200",
        Cause::SystemFold => "#a1487f",
        Cause::ThinkingChange => "#b27300",
        Cause::CapabilityUpdate => "#2f7fb8",
        Cause::ModelSwitch => "#0b5d9e",
        Cause::Compaction => "#00805c",
        Cause::TtlExpired => "#8a7a00",
        Cause::Unexplained => "#6b6b6b",
    }
}

/// Changes of one request's diff printed at most (the rest are counted).
pub const MAX_DIFF_CHANGES: usize = 24;
/// Characters of one request's rendered diff kept at most.
pub const MAX_DIFF_CHARS: usize = 8_000;

/// Settings of [`build`].
#[derive(Debug, Clone)]
pub struct ReportOptions<'c> {
    /// Entry id of the leaf (default: the last entry, as Pi does on load).
    pub leaf: Option<String>,
    pub catalog: &'c Catalog,
    pub retention: Retention,
    /// Redact secrets in payloads by key (the default; `--no-redact` turns it off). Credential
    /// shapes in the rendered page's text are redacted by the caller's output step.
    pub redact: bool,
}

impl<'c> ReportOptions<'c> {
    pub fn new(catalog: &'c Catalog) -> Self {
        ReportOptions {
            leaf: None,
            catalog,
            retention: Retention::Short,
            redact: true,
        }
    }
}

/// Errors of [`build`].
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: cannot select the leaf")]
    Leaf {
        path: String,
        #[source]
        source: ProjectError,
    },
    /// An entry of the path could not be read again (the file changed since it was opened).
    #[error("{path}: cannot read the active path")]
    Path {
        path: String,
        #[source]
        source: ProjectError,
    },
}

/// The page model of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReport {
    /// The session file as given.
    pub file: String,
    pub session_id: String,
    pub cwd: Option<String>,
    /// The leaf the active path ends at.
    pub leaf_id: Option<String>,
    pub retention: &'static str,
    pub entries: usize,
    pub path_entries: usize,
    pub leaves: usize,
    pub summary: Summary,
    pub requests: Vec<RequestView>,
    pub breaks: Vec<BreakView>,
    pub tree: Vec<TreeItem>,
    /// No request on the path reported any cache count.
    pub no_cache_data: bool,
    /// What the reader should know: diagnostics of the file, a replay that stopped early.
    pub notes: Vec<String>,
    /// How many of the first [`SessionReport::notes`] are the file's diagnostics (the rest are
    /// about the replay).
    pub findings: usize,
}

impl SessionReport {
    /// The page as `json` (`JSON.stringify(doc, null, 2)` and a newline, [`json::to_json`]) or
    /// HTML ([`html::render`]).
    pub fn render(&self, json: bool) -> String {
        if json {
            forge_replay_model::json::stringify_pretty(&json::to_json(self)) + "\n"
        } else {
            html::render(self)
        }
    }

    /// What writing the page to `path` wrote: `wrote PATH (9 requests, 2 cache breaks)`.
    pub fn wrote(&self, path: &std::path::Path) -> String {
        use forge_replay_model::text::count;
        format!(
            "wrote {} ({}, {})",
            path.display(),
            count(self.requests.len(), "request", "requests"),
            count(self.breaks.len(), "cache break", "cache breaks")
        )
    }
}

/// Session totals on the active path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub main: Totals,
    pub nested: NestedTotals,
    pub combined: Totals,
    /// The sum of Pi's persisted `usage.cost.total`.
    pub cost: f64,
    /// `provider/model` in order of first use.
    pub models: Vec<String>,
}

/// One request (assistant entry) of the active path.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestView {
    /// 0-based, as `replay` and `cache explain` number them.
    pub index: usize,
    pub entry_id: String,
    pub line: u64,
    pub provider: String,
    pub model: String,
    pub api: Option<String>,
    /// The thinking level the request was assembled with (`off` when none).
    pub thinking: Option<String>,
    pub stop_reason: Option<String>,
    pub timestamp: Option<String>,
    /// Reported main usage; `None` when the request reported none (aborted, failed).
    pub usage: Option<Totals>,
    /// Whether this provider/model reports cache counts anywhere on the path.
    pub cache_reported: bool,
    /// The nested usage reports of this request's tool results.
    pub nested: NestedTotals,
    /// Running main totals up to and including this request.
    pub cumulative: Totals,
    /// Running nested totals up to and including this request.
    pub cumulative_nested: Totals,
    /// Pi's persisted `usage.cost.total`.
    pub cost: f64,
    pub cumulative_cost: f64,
    /// Share of the previous request's flattened prefix this one kept.
    pub kept_percent: Option<f64>,
    /// Where this request first differs from the previous one in the provider's cache order.
    pub diverged_at: Option<&'static str>,
    pub gap_seconds: Option<f64>,
    /// Index into [`SessionReport::breaks`].
    pub break_index: Option<usize>,
    pub diff: RequestDiff,
}

impl RequestView {
    /// The main hit rate, `None` when nothing was sent or the model reports no cache data.
    pub fn hit_rate(&self) -> Option<f64> {
        self.usage
            .and_then(|u| u.hit_rate())
            .filter(|_| self.cache_reported)
    }

    /// The hit rate of this request's nested reports (`None` without reports with cache counts).
    pub fn nested_hit_rate(&self) -> Option<f64> {
        (self.nested.calls > 0.0)
            .then(|| self.nested.totals.hit_rate())
            .flatten()
    }

    /// `provider/model`.
    pub fn model_name(&self) -> String {
        format!("{}/{}", self.provider, self.model)
    }
}

/// The structural diff of a request's payload against the previous request's.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestDiff {
    /// The first request of the path.
    First,
    /// The replay could not rebuild this request (or one before it).
    Unavailable(String),
    Changes {
        added: usize,
        removed: usize,
        changed: usize,
        first_path: Option<String>,
        /// `forge-replay diff`'s text (at most [`MAX_DIFF_CHANGES`] changes).
        text: String,
    },
}

/// A confirmed cache break.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakView {
    pub request: usize,
    pub entry_id: String,
    pub previous: String,
    pub cause: Cause,
    pub detail: String,
    /// Previous request's prompt tokens (what a full hit would read).
    pub expected: f64,
    pub cache_read: f64,
}

/// Text from the session on its way into the page. The page as a whole goes through the output
/// redaction step (`forge_replay_model::redact::text`, via the CLI) after rendering, so this is the
/// identity; payloads are redacted by key while the model is built (see [`ReportOptions::redact`]).
pub fn redact_text(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

fn owned(s: &str) -> String {
    redact_text(s).into_owned()
}

/// Builds the page model of the path to `opts.leaf`. `diagnostics` are the reader's, listed as
/// notes. A request the replay cannot rebuild does not fail the report: the diagnosis and diffs
/// stop there and a note says why.
pub fn build(
    session: &Session,
    diagnostics: &[Diagnostic],
    opts: &ReportOptions<'_>,
) -> Result<SessionReport, ReportError> {
    let file = session.path().display().to_string();
    let leaf = session
        .resolve_leaf(opts.leaf.as_deref())
        .map_err(|source| ReportError::Leaf {
            path: file.clone(),
            source,
        })?;
    let path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let records = session_branch(session, &path).map_err(|source| ReportError::Path {
        path: file.clone(),
        source,
    })?;
    let branch: Vec<_> = records.iter().collect();
    let view = summarize(&branch);

    let mut notes: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.is_finding())
        .map(|d| owned(&d.display(session.path()).to_string()))
        .collect();
    let findings = notes.len();

    // Requests: every assistant entry on the path, with its usage and nested reports.
    let mut requests: Vec<RequestView> = Vec::new();
    let mut models: Vec<String> = Vec::new();
    let mut cumulative = Totals::default();
    let mut cumulative_cost = 0.0;
    // Nested reports before the first request belong to it.
    let mut pending_nested = NestedTotals::default();
    for (pos, &i) in path.iter().enumerate() {
        let entry = session.entry(i);
        let record = &records[pos];
        if entry.is_assistant_message() {
            let message = record.message.as_ref();
            let usage = message.and_then(|m| m.request);
            let meta = message.and_then(|m| m.meta.as_deref());
            let text = |f: fn(&forge_replay_usage::RequestMeta) -> &Option<Box<str>>| {
                meta.and_then(|m| f(m).as_deref()).map(owned)
            };
            let (provider, model) = match entry.assistant_model() {
                Some((p, m)) => (value_text(p), value_text(m)),
                None => (String::new(), String::new()),
            };
            let cost = meta.map_or(0.0, |m| m.cost);
            if let Some(u) = &usage {
                cumulative.add(u);
            }
            cumulative_cost += cost;
            let name = format!("{provider}/{model}");
            if !models.contains(&name) {
                models.push(name);
            }
            requests.push(RequestView {
                index: requests.len(),
                entry_id: owned(entry.id().unwrap_or_default()),
                line: entry.line(),
                provider,
                model,
                api: text(|m| &m.api),
                thinking: None,
                stop_reason: text(|m| &m.stop_reason),
                timestamp: text(|m| &m.timestamp),
                usage,
                cache_reported: false,
                nested: std::mem::take(&mut pending_nested),
                cumulative,
                cumulative_nested: Totals::default(),
                cost,
                cumulative_cost,
                kept_percent: None,
                diverged_at: None,
                gap_seconds: None,
                break_index: None,
                diff: RequestDiff::First,
            });
        } else if let Some(m) = &record.message {
            if let (Role::ToolResult, Some(report)) = (m.role, &m.nested) {
                match requests.last_mut() {
                    Some(r) => report.add_to(&mut r.nested),
                    None => report.add_to(&mut pending_nested),
                }
            }
        }
    }

    // Which provider/models report cache counts anywhere on the path (the rule `cache explain`
    // applies), from the usage itself so requests after a replay that stopped keep it too.
    let mut reporting: Vec<(String, String)> = Vec::new();
    for r in &requests {
        if r.usage
            .is_some_and(|u| u.cache_read > 0.0 || u.cache_write > 0.0)
        {
            let key = (r.provider.clone(), r.model.clone());
            if !reporting.contains(&key) {
                reporting.push(key);
            }
        }
    }
    let mut cumulative_nested = Totals::default();
    for r in &mut requests {
        r.cache_reported = reporting
            .iter()
            .any(|(p, m)| *p == r.provider && *m == r.model);
        cumulative_nested.add(&r.nested.totals);
        r.cumulative_nested = cumulative_nested;
    }

    // The cache diagnosis: kept prefix, cause of each confirmed break.
    let mut breaks = Vec::new();
    let mut no_cache_data = view.main_session.no_cache_data();
    let mut eopts = ExplainOptions::new(opts.catalog);
    eopts.leaf = opts.leaf.clone();
    eopts.retention = opts.retention;
    let mut explain_stopped = None;
    match explain::explain(session, &eopts) {
        Ok(e) => {
            no_cache_data = e.no_cache_data;
            for row in &e.requests {
                let Some(r) = requests.get_mut(row.index) else {
                    continue;
                };
                r.thinking = Some(row.thinking.clone());
                r.kept_percent = row.kept_percent;
                r.diverged_at = row.diverged_at.map(|s| s.name());
                r.gap_seconds = row.gap_seconds;
                r.break_index = row.break_index;
            }
            breaks = e
                .breaks
                .iter()
                .map(|b| BreakView {
                    request: b.request,
                    entry_id: owned(&b.entry_id),
                    previous: owned(&b.previous),
                    cause: b.cause,
                    detail: owned(&b.detail),
                    expected: b.expected,
                    cache_read: b.cache_read,
                })
                .collect();
            explain_stopped = e.stopped.as_deref().map(owned);
        }
        Err(e) => notes.push(format!(
            "no cache diagnosis: {}",
            redact_text(&error_chain(&e))
        )),
    }

    // Each request's payload against the previous one.
    let mut ropts = ReplayOptions::new(opts.catalog);
    ropts.leaf = opts.leaf.clone();
    let mut prev: Option<Value> = None;
    let mut rebuilt = 0;
    let replayed = replay::replay_each(session, &ropts, |r| {
        let payload = if opts.redact {
            forge_replay_model::redact::redact_value(&r.payload)
        } else {
            r.payload.clone()
        };
        if let (Some(p), Some(view)) = (&prev, requests.get_mut(r.index)) {
            view.diff = request_diff(p, &payload);
        }
        prev = Some(payload);
        rebuilt = r.index + 1;
        Ok(())
    });
    if let Err(e) = replayed {
        let why = owned(&error_chain(&e));
        for r in requests.iter_mut().skip(rebuilt) {
            r.diff = RequestDiff::Unavailable(why.clone());
        }
        notes.push(format!(
            "request {rebuilt} and later could not be rebuilt, so they have no diff{}: {why}",
            if explain_stopped.is_some() {
                " and no cache diagnosis"
            } else {
                ""
            }
        ));
    } else if let Some(why) = explain_stopped {
        notes.push(format!(
            "the cache diagnosis stopped before the leaf: {why}"
        ));
    }

    let tree = tree::build(session, &path, leaf);
    let combined = view.combined_session();
    Ok(SessionReport {
        file: owned(&file),
        session_id: owned(session.header().id()),
        cwd: session.header().cwd().map(owned),
        leaf_id: leaf.and_then(|l| session.entry(l).id()).map(owned),
        retention: opts.retention.name(),
        entries: session.entries().len(),
        path_entries: path.len(),
        leaves: session.tree().leaves().count(),
        summary: Summary {
            main: view.main_session,
            nested: view.nested_session,
            combined,
            cost: cumulative_cost,
            models: models.iter().map(|m| owned(m)).collect(),
        },
        requests,
        breaks,
        tree,
        no_cache_data,
        notes,
        findings,
    })
}

fn value_text(v: Option<&Value>) -> String {
    owned(&forge_replay_session::describe::str_or_json(v))
}

/// The diff of two redacted payloads, rendered as `forge-replay diff` prints it.
fn request_diff(prev: &Value, cur: &Value) -> RequestDiff {
    let d = diff::diff(prev, cur);
    let count = |op: &str| d.changes.iter().filter(|c| c.op() == op).count();
    let mut text = diff::render_text(
        &d,
        RenderOptions {
            color: false,
            max_changes: MAX_DIFF_CHANGES,
        },
    );
    if text.chars().count() > MAX_DIFF_CHARS {
        let cut = text
            .char_indices()
            .nth(MAX_DIFF_CHARS)
            .map_or(text.len(), |(i, _)| i);
        let cut = text[..cut].rfind('\n').map_or(cut, |n| n + 1);
        text.truncate(cut);
        text.push_str("… (cut here; `forge-replay replay --out DIR` writes every request)\n");
    }
    RequestDiff::Changes {
        added: count("added"),
        removed: count("removed"),
        changed: count("changed"),
        first_path: d.first_path().map(owned),
        text: owned(&text),
    }
}

#[cfg(test)]
mod tests;
