//! `forge-replay usage`: prompt-cache usage of one session (pi-forge's semantics) or a corpus.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use forge_replay_model::json::{f64_to_value, stringify_pretty};
use forge_replay_report::plot::{
    self, BreakMarker, CorpusPlot, ModelBar, NestedPoint, RequestPoint, SessionPlot,
};
use forge_replay_report::table::Table;
use forge_replay_session::Session;
use forge_replay_usage::breaks::{BreakInput, BreakSums};
use forge_replay_usage::corpus::{parse_day, Corpus, CorpusPricing, Filter, GroupBy};
use forge_replay_usage::explain::{self, usd, CauseCost, ExplainOptions};
use forge_replay_usage::pricing::{Price, Pricer, Unpriced};
use forge_replay_usage::report::{
    nested_price, nested_rows, CorpusReport, FiltersView, GroupView, NestedRow, NestedView,
    PricingView, ReportedView, SessionPricing, TotalsView, UnpricedView,
};
use forge_replay_usage::totals::rate_json;
use forge_replay_usage::{
    format_rate, format_totals_rate, request_rows, session_branch, summarize, NestedReport,
    NestedTotals, RequestRow, Role, Totals,
};
use serde_json::{json, Map, Value};

use crate::args::{Format, UsageArgs};
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: UsageArgs) -> anyhow::Result<Exit> {
    let threshold = match args.min_hit_rate {
        None => None,
        Some(r) if r.is_finite() && (0.0..=100.0).contains(&r) => {
            Some(if r > 1.0 { r / 100.0 } else { r })
        }
        Some(r) => {
            out::error!("--min-hit-rate {r} is not a rate (0..1, or a percentage up to 100)");
            return Ok(Exit::BadInput);
        }
    };
    match (&args.corpus, &args.session) {
        (Some(_), Some(_)) => {
            out::error!("give either a SESSION file or --corpus, not both");
            Ok(Exit::BadInput)
        }
        (Some(dirs), None) => run_corpus(&args, dirs.clone(), threshold),
        (None, Some(session)) => run_session(&args, session, threshold),
        (None, None) => {
            out::error!("give a SESSION file or --corpus [DIR...]");
            Ok(Exit::BadInput)
        }
    }
}

/// A table for people: box-drawn on a terminal, plain columns when stdout is not one.
pub(crate) fn render_table(t: &Table) -> String {
    if std::io::stdout().is_terminal() {
        t.to_text()
    } else {
        t.to_plain()
    }
}

/// `1 file`, `2 files` (counts are doubles in the usage model).
fn plural(n: f64, one: &str, many: &str) -> String {
    format!("{} {}", num(n), if n == 1.0 { one } else { many })
}

/// A rate cell of a CSV export: the fraction (`0.865`), empty when undefined.
fn rate_number(rate: Option<f64>) -> String {
    rate.map(forge_replay_model::json::format_f64)
        .unwrap_or_default()
}

/// A totals row's rate in a CSV export: empty when nothing was sent or no cache data.
fn totals_rate_number(t: &Totals) -> String {
    if t.no_cache_data() {
        String::new()
    } else {
        rate_number(t.hit_rate())
    }
}

fn num(v: f64) -> String {
    // Token counts: integers print without decimals; fractional counts as JavaScript would.
    forge_replay_model::json::format_f64(v)
}

fn cost(v: f64) -> String {
    format!("${v:.2}")
}

/// Prints text (a table) or, with `json`, a JSON document, redacted, ending with a newline.
fn print(text: &str, json: bool) -> anyhow::Result<()> {
    let mut stdout = Out::stdout();
    let mut text = text.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if json {
        stdout.json(&text)?;
    } else {
        stdout.text(&text)?;
    }
    stdout.flush()?;
    Ok(())
}

fn out(text: &str) -> anyhow::Result<()> {
    print(text, false)
}

fn out_json(text: &str) -> anyhow::Result<()> {
    print(text, true)
}

/// The threshold check: `{min, rate, passed}`. An undefined rate (nothing sent, or no cache data)
/// cannot show the minimum is met, so it fails.
fn check_threshold(min: f64, t: &Totals) -> (bool, Value, String) {
    let rate = if t.no_cache_data() {
        None
    } else {
        t.hit_rate()
    };
    let passed = rate.is_some_and(|r| r >= min);
    let shown = if t.no_cache_data() {
        "no cache data".to_owned()
    } else {
        format_rate(rate)
    };
    let mut m = Map::new();
    m.insert("min".into(), f64_to_value(min));
    m.insert("rate".into(), rate_json(rate));
    m.insert("passed".into(), Value::Bool(passed));
    let message = format!(
        "cache hit rate {shown} {} minimum {}",
        if passed { "meets" } else { "is below" },
        format_rate(Some(min))
    );
    (passed, Value::Object(m), message)
}

// ---------------------------------------------------------------------------------------------
// One session

fn run_session(args: &UsageArgs, path: &Path, threshold: Option<f64>) -> anyhow::Result<Exit> {
    let (session, diagnostics) = match Session::open(path) {
        Ok(x) => x,
        Err(e) => {
            // With its cause (the operating system's reason), as every other command prints it.
            out::error!("{:#}", anyhow::Error::from(e));
            return Ok(Exit::BadInput);
        }
    };
    let findings: Vec<_> = diagnostics.iter().filter(|d| d.is_finding()).collect();
    for d in &findings {
        out::note!("{}", d.display(session.path()));
    }
    // Usage is what the session recorded, read the same way for every release; the release is
    // said (and checked against --pi).
    let release = match args.pi.for_session(&session) {
        Ok(r) => r,
        Err(e) => {
            out::error!("{e:#}");
            return Ok(Exit::BadInput);
        }
    };
    let catalog = forge_replay_wire::Catalog::builtin(release);
    let leaf = match session.resolve_leaf(args.leaf.leaf.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            out::error!("{}: {e}", path.display());
            return Ok(Exit::BadInput);
        }
    };
    let branch_path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let records = match session_branch(&session, &branch_path) {
        Ok(r) => r,
        Err(e) => {
            out::error!("{e}");
            return Ok(Exit::BadInput);
        }
    };
    let branch: Vec<_> = records.iter().collect();
    let view = summarize(&branch);
    let rows = request_rows(&branch);
    let nested = nested_rows(&branch);
    let pricer = Pricer::of(catalog);
    let pricing = SessionPricing::build(&rows, &nested, &pricer);
    // Usage fields of the wrong type and malformed nested reports, with file:line.
    let mut usage_findings: Vec<(u32, String)> = Vec::new();
    for e in &records {
        let Some(m) = &e.message else { continue };
        for msg in m.usage_problems.messages() {
            usage_findings.push((e.line, msg));
        }
        if let Some(NestedReport::Invalid(why)) = &m.nested {
            usage_findings.push((
                e.line,
                format!("malformed nested report ignored (invalidCalls): {why}"),
            ));
        }
    }
    for (line, msg) in &usage_findings {
        out::note!("{}:{line}: {msg}", path.display());
    }
    let leaf_id = leaf.and_then(|l| session.entry(l).id()).map(str::to_owned);
    let session_id = session.header().id().to_owned();
    let check = threshold.map(|min| check_threshold(min, &view.main_session));

    let format = Format::or_default(args.format);
    match format {
        Format::Json => {
            let mut v = match view.to_json() {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            v.insert("hitRates".into(), view.hit_rates_json());
            let mut combined = Map::new();
            combined.insert("turn".into(), view.combined_turn().to_json());
            combined.insert("session".into(), view.combined_session().to_json());
            v.insert("combined".into(), Value::Object(combined));
            v.insert("pricing".into(), serde_json::to_value(&pricing)?);
            v.insert(
                "source".into(),
                json!({
                    "file": path.display().to_string(),
                    "sessionId": session_id,
                    "leaf": leaf_id,
                    "pathEntries": branch_path.len(),
                    "entries": session.entry_count(),
                    "diagnostics": findings.iter().map(|d| json!({"line": d.line, "severity": d.severity.as_str(), "code": d.code, "message": d.message})).collect::<Vec<_>>(),
                    "findings": usage_findings.iter().map(|(l, m)| json!({"line": l, "message": m})).collect::<Vec<_>>(),
                }),
            );
            if args.requests {
                v.insert(
                    "requests".into(),
                    Value::Array(rows.iter().map(|r| request_json(r, &pricer)).collect()),
                );
                v.insert(
                    "nestedReports".into(),
                    Value::Array(nested.iter().map(|n| nested_json(n, &pricer)).collect()),
                );
            }
            if let Some((_, t, _)) = &check {
                v.insert("threshold".into(), t.clone());
            }
            out_json(&stringify_pretty(&Value::Object(v)))?;
        }
        fmt => {
            let machine = fmt == Format::Csv;
            let table = if args.requests {
                requests_table(&rows, &pricer, machine)
            } else {
                summary_table(&view, machine)
            };
            match fmt {
                Format::Csv => out(&table.to_csv())?,
                Format::Md => out(&table.to_markdown())?,
                _ => {
                    let mut text = format!(
                        "session {session_id} · leaf {} · {} entries on the path",
                        leaf_id.as_deref().unwrap_or("—"),
                        branch_path.len()
                    );
                    if !findings.is_empty() {
                        text.push_str(&format!(
                            " · {} (see stderr)",
                            plural(findings.len() as f64, "finding", "findings")
                        ));
                    }
                    text.push('\n');
                    text.push_str(&render_table(&table));
                    text.push('\n');
                    if !args.requests {
                        let n = &view.nested_session;
                        if n.is_empty() {
                            text.push_str("nested tools: no data\n");
                        } else {
                            text.push_str(&format!(
                                "nested tools: {} calls reported no cache data; {} malformed reports ignored\n",
                                num(n.cache_unknown_calls),
                                num(n.invalid_calls)
                            ));
                        }
                        text.push_str("Current-branch conversation requests only; excludes warming and summaries. Zero cache counts may mean the provider did not report caching.\n");
                    }
                    text.push_str(&pricing_line(
                        &pricing.totals,
                        &pricing.release,
                        &pricing.unpriced,
                    ));
                    out(&text)?;
                }
            }
        }
    }
    if let Some(file) = &args.plot {
        let title = out::text(&format!(
            "{session_id} — {} requests on the active path",
            rows.len()
        ))
        .into_owned();
        let breaks = session_breaks(&session, catalog, args.leaf.leaf.clone(), &rows);
        let mut data = session_plot(title, &rows, breaks);
        data.nested = nested_points(&branch);
        data.cumulative = true;
        plot::plot_session(&data, file).with_context(|| format!("plotting {}", file.display()))?;
        out::note!("wrote {}", file.display());
    }
    if let Some((passed, _, message)) = check {
        out::note!("{message}");
        if !passed {
            return Ok(Exit::Findings);
        }
    }
    Ok(Exit::Ok)
}

/// `recorded $X · pi-ai 0.87.1 prices $Y (N requests) …`.
fn pricing_line(p: &PricingView, release: &str, unpriced: &[UnpricedView]) -> String {
    let mut s = format!(
        "cost: recorded {} · pi-ai {release} prices {} for {} requests",
        cost(p.recorded),
        cost(p.priced),
        num(p.priced_requests)
    );
    if p.priced_requests > 0.0 {
        if p.disagrees {
            s.push_str(&format!(
                " (recorded {} for them: DISAGREES beyond rounding)",
                cost(p.recorded_of_priced)
            ));
        } else {
            s.push_str(" (agrees with the recorded cost)");
        }
    }
    if p.nested_priced_calls > 0.0 {
        s.push_str(&format!(
            " · nested reports {} ({} priced)",
            cost(p.nested_priced),
            num(p.nested_priced_calls)
        ));
    }
    s.push('\n');
    for u in unpriced {
        s.push_str(&format!(
            "not priced: {} requests: {}\n",
            num(u.requests),
            u.reason
        ));
    }
    s
}

/// The confirmed breaks of the session (cache explain), as markers on the usage rows; none when
/// the requests cannot be replayed (a warning says why).
fn session_breaks(
    session: &Session,
    catalog: &forge_replay_wire::Catalog,
    leaf: Option<String>,
    rows: &[RequestRow],
) -> Vec<BreakMarker> {
    let mut opts = ExplainOptions::new(catalog);
    opts.leaf = leaf;
    match explain::explain(session, &opts) {
        Ok(e) => e
            .breaks
            .iter()
            .filter_map(|b| {
                let at = rows
                    .iter()
                    .position(|r| r.entry_id.as_deref() == Some(b.entry_id.as_str()))?;
                Some(BreakMarker {
                    request: at,
                    label: b.cause.name().to_owned(),
                })
            })
            .collect(),
        Err(e) => {
            out::note!(
                "forge-replay: warning: no break markers: {}",
                crate::cmd::error_chain(&e)
            );
            Vec::new()
        }
    }
}

/// Nested reports with cache counts along the branch, placed after the main requests before
/// them.
fn nested_points(branch: &[&forge_replay_usage::EntryRecord]) -> Vec<NestedPoint> {
    let mut before = 0usize;
    let mut out = Vec::new();
    for e in branch {
        let Some(m) = &e.message else { continue };
        if m.request.is_some() {
            before += 1;
        }
        if m.role != Role::ToolResult {
            continue;
        }
        if let Some(t) = m.nested.and_then(|n| n.known_totals()) {
            out.push(NestedPoint {
                after: before,
                requests: t.requests,
                input: t.input,
                cache_read: t.cache_read,
                cache_write: t.cache_write,
            });
        }
    }
    out
}

/// The session plot's data; `breaks` lets a cache diagnosis mark requests.
pub fn session_plot(title: String, rows: &[RequestRow], breaks: Vec<BreakMarker>) -> SessionPlot {
    SessionPlot {
        title,
        requests: rows
            .iter()
            .map(|r| RequestPoint {
                input: r.totals.input,
                output: r.totals.output,
                cache_read: r.totals.cache_read,
                cache_write: r.totals.cache_write,
            })
            .collect(),
        nested: Vec::new(),
        cumulative: false,
        breaks,
    }
}

fn price_json(p: &Result<Price, Unpriced>) -> (Value, Value) {
    match p {
        Ok(p) => (serde_json::to_value(p).unwrap_or(Value::Null), Value::Null),
        Err(why) => (Value::Null, Value::String(why.to_string())),
    }
}

fn request_json(r: &RequestRow, pricer: &Pricer<'_>) -> Value {
    let mut m = Map::new();
    m.insert("index".into(), json!(r.index));
    m.insert("entryId".into(), json!(r.entry_id));
    m.insert("line".into(), json!(r.line));
    m.insert("timestamp".into(), json!(r.timestamp));
    m.insert("provider".into(), json!(r.provider));
    m.insert("model".into(), json!(r.model));
    m.insert("api".into(), json!(r.api));
    m.insert("stopReason".into(), json!(r.stop_reason));
    m.insert("usage".into(), r.totals.to_json());
    m.insert("cost".into(), f64_to_value(r.cost));
    let (priced, unpriced) = price_json(&r.price(pricer));
    m.insert("priced".into(), priced);
    if !unpriced.is_null() {
        m.insert("unpriced".into(), unpriced);
    }
    m.insert("hitRate".into(), rate_json(r.totals.hit_rate()));
    m.insert("cumulative".into(), r.cumulative.to_json());
    m.insert(
        "cumulativeHitRate".into(),
        rate_json(r.cumulative.hit_rate()),
    );
    m.insert("inTurn".into(), json!(r.in_turn));
    Value::Object(m)
}

fn nested_json(n: &NestedRow, pricer: &Pricer<'_>) -> Value {
    let mut m = Map::new();
    m.insert("entryId".into(), json!(n.entry_id));
    m.insert("line".into(), json!(n.line));
    let (status, report) = match n.report {
        NestedReport::Invalid(why) => ("invalid", json!({"reason": why})),
        NestedReport::Valid(u) => {
            let mut t = json!({"requests": f64_to_value(u.requests), "input": f64_to_value(u.input), "output": f64_to_value(u.output)});
            if let (Some((r, w)), Value::Object(o)) = (u.cache, &mut t) {
                o.insert("cacheRead".into(), f64_to_value(r));
                o.insert("cacheWrite".into(), f64_to_value(w));
            }
            (
                if u.cache.is_some() {
                    "valid"
                } else {
                    "cache-unknown"
                },
                t,
            )
        }
    };
    m.insert("status".into(), json!(status));
    m.insert("report".into(), report);
    m.insert("provider".into(), json!(n.provider));
    m.insert("model".into(), json!(n.model));
    match nested_price(n, pricer) {
        None => {
            m.insert("priced".into(), Value::Null);
        }
        Some(p) => {
            let (priced, unpriced) = price_json(&p);
            m.insert("priced".into(), priced);
            if !unpriced.is_null() {
                m.insert("unpriced".into(), unpriced);
            }
        }
    }
    m.insert("inTurn".into(), json!(n.in_turn));
    Value::Object(m)
}

fn totals_cells(label: &str, t: &Totals, count: String, machine: bool) -> Vec<String> {
    let mut row = vec![
        label.to_owned(),
        if machine {
            totals_rate_number(t)
        } else {
            format_totals_rate(t)
        },
        count,
        num(t.input),
        num(t.cache_read),
        num(t.cache_write),
        num(t.output),
    ];
    if machine {
        // `calls` is a column of its own in CSV (empty for main and combined rows).
        row.insert(3, String::new());
    }
    row
}

/// The session summary table; `machine` (CSV): numeric cells only, snake-case headers, the
/// nested call count in its own column.
fn summary_table(view: &forge_replay_usage::SessionCacheUsage, machine: bool) -> Table {
    let mut t = if machine {
        Table::new([
            "scope",
            "hit_rate",
            "requests",
            "calls",
            "input",
            "cache_read",
            "cache_write",
            "output",
        ])
    } else {
        Table::new([
            "",
            "hit rate",
            "requests",
            "input",
            "cacheRead",
            "cacheWrite",
            "output",
        ])
        .numeric(1..7)
    };
    match &view.last_request {
        Some(l) => t.push(totals_cells(
            "main · last request",
            l,
            num(l.requests),
            machine,
        )),
        None if machine => t.push(["main · last request", "", "0", "", "", "", "", ""]),
        None => t.push(["main · last request", "—", "0", "", "", "", ""]),
    }
    t.push(totals_cells(
        "main · this turn",
        &view.main_turn,
        num(view.main_turn.requests),
        machine,
    ));
    t.push(totals_cells(
        "main · session",
        &view.main_session,
        num(view.main_session.requests),
        machine,
    ));
    let nested = |label: &str, n: &NestedTotals| {
        if machine {
            let mut row = totals_cells(label, &n.totals, num(n.totals.requests), true);
            row[3] = num(n.calls);
            if n.is_empty() {
                row[1] = String::new();
            }
            return row;
        }
        let mut row = totals_cells(
            label,
            &n.totals,
            format!(
                "{} ({} {})",
                num(n.totals.requests),
                num(n.calls),
                if n.calls == 1.0 { "call" } else { "calls" }
            ),
            false,
        );
        if n.is_empty() {
            row[1] = "no data".into();
        }
        row
    };
    t.push(nested("nested · this turn", &view.nested_turn));
    t.push(nested("nested · session", &view.nested_session));
    t.push(totals_cells(
        "combined · this turn",
        &view.combined_turn(),
        num(view.combined_turn().requests),
        machine,
    ));
    t.push(totals_cells(
        "combined · session",
        &view.combined_session(),
        num(view.combined_session().requests),
        machine,
    ));
    t
}

/// Pi's `toISOString()` timestamp as RFC 3339 UTC with milliseconds (`2026-01-02T03:04:05.678Z`),
/// whatever form the session wrote; as written when it cannot be read.
fn rfc3339(ts: &str) -> String {
    forge_replay_usage::corpus::timestamp_ms(ts)
        .map(forge_replay_usage::corpus::format_timestamp)
        .unwrap_or_else(|| ts.to_owned())
}

/// One row per request; `machine` (CSV): provider and model in columns of their own, RFC 3339
/// timestamps, rates as fractions, costs as plain numbers.
fn requests_table(rows: &[RequestRow], pricer: &Pricer<'_>, machine: bool) -> Table {
    if machine {
        let mut t = Table::new([
            "index",
            "entry",
            "timestamp",
            "provider",
            "model",
            "input",
            "cache_read",
            "cache_write",
            "output",
            "hit_rate",
            "cumulative_hit_rate",
            "cost",
            "priced",
        ]);
        for r in rows {
            t.push([
                r.index.to_string(),
                r.entry_id.clone().unwrap_or_default(),
                r.timestamp.as_deref().map(rfc3339).unwrap_or_default(),
                r.provider.clone().unwrap_or_default(),
                r.model.clone().unwrap_or_default(),
                num(r.totals.input),
                num(r.totals.cache_read),
                num(r.totals.cache_write),
                num(r.totals.output),
                totals_rate_number(&r.totals),
                totals_rate_number(&r.cumulative),
                forge_replay_model::json::format_f64(r.cost),
                r.price(pricer)
                    .map(|p| forge_replay_model::json::format_f64(p.total))
                    .unwrap_or_default(),
            ]);
        }
        return t;
    }
    let mut t = Table::new([
        "#",
        "entry",
        "time",
        "model",
        "input",
        "cacheRead",
        "cacheWrite",
        "output",
        "hit rate",
        "cumulative",
        "cost",
        "priced",
    ])
    .numeric([0, 4, 5, 6, 7, 8, 9, 10, 11]);
    for r in rows {
        let model = match (&r.provider, &r.model) {
            (Some(p), Some(m)) => format!("{p}/{m}"),
            (None, Some(m)) => m.clone(),
            _ => String::new(),
        };
        let priced = match r.price(pricer) {
            Ok(p) => usd(p.total),
            Err(_) => "not priced".to_owned(),
        };
        t.push([
            (r.index + 1).to_string(),
            r.entry_id.clone().unwrap_or_default(),
            r.timestamp.clone().unwrap_or_default(),
            model,
            num(r.totals.input),
            num(r.totals.cache_read),
            num(r.totals.cache_write),
            num(r.totals.output),
            format_totals_rate(&r.totals),
            format_totals_rate(&r.cumulative),
            usd(r.cost),
            priced,
        ]);
    }
    t
}

// ---------------------------------------------------------------------------------------------
// Corpus

/// Fewer files than this are read in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 200;

fn default_sessions_dir() -> Option<PathBuf> {
    forge_replay_session::dirs::pi_sessions_dir()
}

fn run_corpus(
    args: &UsageArgs,
    mut dirs: Vec<PathBuf>,
    threshold: Option<f64>,
) -> anyhow::Result<Exit> {
    if dirs.is_empty() {
        match default_sessions_dir() {
            Some(d) => dirs.push(d),
            None => {
                out::error!("no sessions directory (set PI_CODING_AGENT_DIR or HOME, or pass DIR)");
                return Ok(Exit::BadInput);
            }
        }
    }
    let by = match args.by.as_deref() {
        None => GroupBy::Model,
        Some(s) => match GroupBy::parse(s) {
            Some(b) => b,
            None => {
                out::error!("--by {s}: expected session, project, model, provider, api or day");
                return Ok(Exit::BadInput);
            }
        },
    };
    let day = |flag: &str, v: &Option<String>| -> Result<Option<i32>, String> {
        match v {
            None => Ok(None),
            Some(s) => parse_day(s)
                .map(Some)
                .ok_or(format!("{flag} {s}: expected YYYY-MM-DD or YYYYMMDD")),
        }
    };
    let (since, until) = match (day("--since", &args.since), day("--until", &args.until)) {
        (Ok(s), Ok(u)) => (s, u),
        (Err(m), _) | (_, Err(m)) => {
            out::error!("{m}");
            return Ok(Exit::BadInput);
        }
    };
    let filter = Filter {
        since,
        until,
        model: args.model_filter.clone(),
        project: args.project.clone(),
    };
    // Progress on stderr, only on a terminal (set up at the first report, when the total is known).
    let bar: std::sync::OnceLock<indicatif::ProgressBar> = std::sync::OnceLock::new();
    let on_terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if !on_terminal || total < PROGRESS_MIN_FILES {
            return;
        }
        let b = bar.get_or_init(|| {
            let pb = indicatif::ProgressBar::new(total as u64);
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} files read {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            pb
        });
        b.set_position(done as u64);
    };
    // Each session is priced with the catalog of the release that wrote it, unless --pi (or
    // FORGE_REPLAY_PI) names one for all.
    let pricing = match args.pi.requested() {
        Ok(Some((r, _))) => CorpusPricing::Release(r),
        Ok(None) => CorpusPricing::Detected,
        Err(e) => {
            out::error!("{e:#}");
            return Ok(Exit::BadInput);
        }
    };
    // The incremental index (unless --no-cache): the same corpus, reading only what changed.
    let cache_dir = if args.no_cache {
        None
    } else {
        args.cache
            .clone()
            .or_else(forge_replay_usage::index::default_cache_dir)
    };
    let mut corpus = match &cache_dir {
        None => Corpus::scan_with_reporting(&dirs, &pricing, &progress),
        Some(dir) => {
            let (corpus, stats) = Corpus::scan_indexed_reporting(&dirs, &pricing, dir, &progress);
            if let Some(why) = stats.rebuilt.as_deref().filter(|w| *w != "absent") {
                out::note!(
                    "forge-replay: note: {}: usage index {why}; rebuilt",
                    stats.path.display()
                );
            }
            if let Some(e) = &stats.write_error {
                out::note!(
                    "forge-replay: warning: usage index not saved ({e}); the results are complete"
                );
            }
            corpus
        }
    };
    if let Some(b) = bar.get() {
        b.finish_and_clear();
    }
    if corpus.files.is_empty() && !corpus.walk_errors.is_empty() {
        for (p, m) in &corpus.walk_errors {
            out::error!("cannot read {}: {m}", p.display());
        }
        return Ok(Exit::BadInput);
    }
    if corpus.files.is_empty() {
        // Not an error (the report is empty, exit 0; a --min-hit-rate fails), but say why.
        let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        out::note!(
            "forge-replay: warning: no session files (*.jsonl) under {}: nothing to count (Pi writes its sessions to $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)",
            shown.join(", ")
        );
    }
    let df = corpus.frame(&filter)?;
    let groups = corpus.group(&df, by, &filter)?;
    let report = CorpusReport::build(
        &corpus,
        &filter,
        FiltersView {
            since: args.since.clone(),
            until: args.until.clone(),
            model: args.model_filter.clone(),
            project: args.project.clone(),
        },
        by,
        &groups,
    );
    // `cache explain` opens the files: before their paths are redacted.
    let breaks = args.breaks.then(|| corpus_breaks(&corpus, &filter));
    // Filters, groups and the report saw the real strings; the exports written from here on are
    // redacted (paths, session ids, projects, models), and so is everything printed (`out`).
    if out::redacting() {
        corpus.redact_strings();
    }

    if let Some(p) = &args.csv {
        corpus
            .write_csv(&df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.json {
        corpus
            .write_ndjson(&df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.parquet {
        let parts = corpus
            .write_parquet_dataset(&df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!(
            "wrote {} under {}",
            plural(parts.len() as f64, "partition", "partitions"),
            p.display()
        );
    }
    drop(df);
    if let Some(p) = &args.plot {
        plot::plot_corpus(&corpus_plot(&report), p)
            .with_context(|| format!("plotting {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    let main = Totals {
        requests: report.totals.totals.requests,
        input: report.totals.totals.input,
        output: report.totals.totals.output,
        cache_read: report.totals.totals.cache_read,
        cache_write: report.totals.totals.cache_write,
    };
    let check = threshold.map(|min| check_threshold(min, &main));

    let format = Format::or_default(args.format);
    match format {
        Format::Json => {
            let mut v = match serde_json::to_value(&report)? {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            if let Some(b) = &breaks {
                v.insert("breaks".into(), b.to_json());
            }
            if let Some((_, t, _)) = &check {
                v.insert("threshold".into(), t.clone());
            }
            out_json(&stringify_pretty(&Value::Object(v)))?;
        }
        fmt => {
            let table = groups_table(&report, fmt == Format::Csv);
            match fmt {
                Format::Csv => out(&table.to_csv())?,
                Format::Md => {
                    let mut text = table.to_markdown();
                    if let Some(b) = &breaks {
                        text.push('\n');
                        text.push_str(&breaks_table(b).to_markdown());
                    }
                    out(&text)?
                }
                _ => {
                    let mut text = format!(
                        "{} · {} ({}) · {}",
                        plural(report.files as f64, "file", "files"),
                        plural(report.sessions as f64, "session", "sessions"),
                        plural(report.forks as f64, "fork", "forks"),
                        plural(report.totals.totals.requests, "request", "requests")
                    );
                    if report.subagent_files > 0 {
                        text.push_str(&format!(
                            " · {}",
                            plural(
                                report.subagent_files as f64,
                                "sub-agent file",
                                "sub-agent files"
                            )
                        ));
                    }
                    text.push('\n');
                    text.push_str(&render_table(&table));
                    text.push('\n');
                    text.push_str(&corpus_notes(&report));
                    if let Some(b) = &breaks {
                        text.push('\n');
                        text.push_str(&breaks_text(b));
                    }
                    out(&text)?;
                }
            }
        }
    }
    // On stderr unless JSON was asked for (the document lists them).
    if args.format != Some(Format::Json) {
        for b in report.bad_lines.iter().take(50) {
            out::note!(
                "{}:{}: skipped malformed line: {}",
                b.file,
                b.line,
                b.message
            );
        }
        if report.bad_lines.len() > 50 {
            out::note!("… {} more malformed lines", report.bad_lines.len() - 50);
        }
        for f in report.findings.iter().take(50) {
            out::note!("{}:{}: {}", f.file, f.line, f.message);
        }
        if report.findings.len() > 50 {
            out::note!(
                "… {} more findings (all of them: --format json, `findings`)",
                report.findings.len() - 50
            );
        }
        for u in &report.unreadable {
            out::note!("{}: unreadable: {}", u.file, u.message);
        }
        for n in &report.not_session_files {
            match n.line {
                Some(l) => out::note!("{}:{l}: skipped: {}", n.file, n.message),
                None => out::note!("{}: skipped: {}", n.file, n.message),
            }
        }
        if report.not_sessions > 0 {
            out::note!(
                "{} (named above)",
                if report.not_sessions == 1 {
                    "1 file is not a Pi session".to_owned()
                } else {
                    format!("{} files are not Pi sessions", report.not_sessions)
                }
            );
        }
        if let Some(b) = &breaks {
            for (f, m) in &b.failures {
                out::note!("{}: not explained: {m}", f.display());
            }
        }
    }
    if let Some((passed, _, message)) = check {
        out::note!("{message}");
        if !passed {
            return Ok(Exit::Findings);
        }
    }
    Ok(Exit::Ok)
}

/// `cache explain` on every Pi session of the corpus (sub-agent sessions included), summed.
fn corpus_breaks(corpus: &Corpus, filter: &Filter) -> BreakSums {
    let inputs: Vec<BreakInput> = corpus
        .files
        .iter()
        .filter(|f| f.session_id.is_some() && f.error.is_none())
        .map(|f| BreakInput {
            path: f.path.clone(),
            project: corpus.dicts.projects[f.project as usize].clone(),
            // The release that priced its requests: the one that wrote it, or --pi.
            release: Some(f.release),
        })
        .filter(|i| {
            filter
                .project
                .as_deref()
                .is_none_or(|p| i.project.contains(p))
        })
        .collect();
    let keep = |provider: &str, model: &str, time: Option<f64>| {
        let model_ok = filter
            .model
            .as_deref()
            .is_none_or(|f| model.contains(f) || format!("{provider}/{model}") == f);
        let day = time.map(|t| (t / 86_400_000.0).floor() as i32);
        model_ok
            && filter.since.is_none_or(|s| day.is_some_and(|d| d >= s))
            && filter.until.is_none_or(|u| day.is_some_and(|d| d <= u))
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} sessions explained {elapsed}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let opts = ExplainOptions::new(forge_replay_wire::Catalog::builtin(
        forge_replay_model::release::PiRelease::DEFAULT,
    ));
    let sums = forge_replay_usage::breaks::corpus_breaks(&inputs, &opts, &keep, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    sums
}

fn cause_cells(label: String, c: &CauseCost) -> Vec<String> {
    vec![
        label,
        c.breaks.to_string(),
        num(c.resent_tokens),
        usd(c.billed),
        usd(c.extra),
        c.unpriced_breaks.to_string(),
    ]
}

fn breaks_table(b: &BreakSums) -> Table {
    let mut t = Table::new([
        "re-billed by cache breaks",
        "breaks",
        "re-sent tokens",
        "billed",
        "above cache hits",
        "not priced",
    ])
    .numeric(1..6);
    for (cause, c) in &b.by_cause {
        t.push(cause_cells(format!("cause · {}", cause.name()), c));
    }
    for (model, c) in &b.by_model {
        t.push(cause_cells(format!("model · {model}"), c));
    }
    for (project, c) in &b.by_project {
        t.push(cause_cells(format!("project · {project}"), c));
    }
    t.push(cause_cells("total".to_owned(), &b.total));
    t
}

fn breaks_text(b: &BreakSums) -> String {
    let mut text = format!(
        "cache breaks: {} explained ({} without cache data), {}\n",
        plural(b.sessions as f64, "session", "sessions"),
        b.no_cache_data,
        plural(b.total.breaks as f64, "confirmed break", "confirmed breaks")
    );
    text.push_str(&render_table(&breaks_table(b)));
    text.push('\n');
    if !b.failures.is_empty() {
        text.push_str(&format!(
            "{} not be explained (see stderr)\n",
            if b.failures.len() == 1 {
                "1 session could".to_owned()
            } else {
                format!("{} sessions could", b.failures.len())
            }
        ));
    }
    text
}

/// Main vs nested per group (the chosen `--by`), the largest 40 groups when there are more.
fn corpus_plot(report: &CorpusReport) -> CorpusPlot {
    let mut groups: Vec<&GroupView> = report.groups.iter().collect();
    let total = groups.len();
    if total > 40 {
        groups.sort_by(|a, b| {
            b.combined
                .requests
                .partial_cmp(&a.combined.requests)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        groups.truncate(40);
        groups.sort_by(|a, b| a.key.cmp(&b.key));
    }
    let rate = |t: &TotalsView| if t.no_cache_data { None } else { t.hit_rate };
    let bars = groups
        .iter()
        .map(|g| ModelBar {
            label: if g.key.is_empty() {
                "(none)".to_owned()
            } else {
                g.key.clone()
            },
            hit_rate: rate(&g.main),
            requests: g.main.requests,
            nested_hit_rate: rate(&g.nested.totals),
            nested_calls: g.nested.calls,
        })
        .collect();
    let mut title = format!(
        "Cache hit rate by {}: main vs nested — {} sessions, {} requests, {} nested calls",
        report.by,
        report.sessions,
        num(report.totals.totals.requests),
        num(report.nested.totals.calls)
    );
    if total > 40 {
        title.push_str(&format!(" (40 largest of {total} groups)"));
    }
    CorpusPlot { title, bars }
}

fn rate_cell(t: &TotalsView) -> String {
    if t.no_cache_data {
        "no cache data".to_owned()
    } else {
        format_rate(t.hit_rate)
    }
}

/// `hit rate 61.0%`, or `no cache data` (never `hit rate no cache data`).
fn rate_phrase(t: &TotalsView) -> String {
    if t.no_cache_data {
        "no cache data".to_owned()
    } else {
        format!("hit rate {}", format_rate(t.hit_rate))
    }
}

fn nested_rate_cell(n: &NestedView) -> String {
    if n.calls + n.cache_unknown_calls + n.invalid_calls == 0.0 {
        "no data".to_owned()
    } else if n.calls == 0.0 {
        "no cache data".to_owned()
    } else {
        rate_cell(&n.totals)
    }
}

fn priced_cell(p: &PricingView) -> String {
    let mut s = if p.priced_requests > 0.0 {
        cost(p.priced)
    } else {
        "—".to_owned()
    };
    if p.unpriced_requests > 0.0 {
        s.push_str(&format!(" ({} unpriced)", num(p.unpriced_requests)));
    }
    if p.disagrees {
        s.push_str(" ≠");
    }
    s
}

/// The corpus groups as CSV cells: numbers only (rates as fractions, costs in dollars).
fn groups_csv(report: &CorpusReport) -> Table {
    let mut t = Table::new([
        report.by,
        "requests",
        "abandoned",
        "hit_rate",
        "nested_calls",
        "nested_hit_rate",
        "subagent_requests",
        "combined_hit_rate",
        "input",
        "cache_read",
        "cache_write",
        "output",
        "cost",
        "priced",
        "unpriced_requests",
        "price_disagrees",
    ]);
    let rate = |t: &TotalsView| {
        if t.no_cache_data {
            String::new()
        } else {
            rate_number(t.hit_rate)
        }
    };
    let nested_rate = |n: &NestedView| {
        if n.calls == 0.0 {
            String::new()
        } else {
            rate(&n.totals)
        }
    };
    let f = forge_replay_model::json::format_f64;
    let priced = |p: &PricingView| {
        if p.priced_requests > 0.0 {
            f(p.priced)
        } else {
            String::new()
        }
    };
    for g in &report.groups {
        t.push([
            g.key.clone(),
            num(g.main.requests),
            num(g.abandoned_requests),
            rate(&g.main),
            num(g.nested.calls + g.nested.cache_unknown_calls + g.nested.invalid_calls),
            nested_rate(&g.nested),
            num(g.subagents.requests),
            rate(&g.combined),
            num(g.combined.input),
            num(g.combined.cache_read),
            num(g.combined.cache_write),
            num(g.combined.output),
            f(g.cost),
            priced(&g.pricing),
            num(g.pricing.unpriced_requests),
            g.pricing.disagrees.to_string(),
        ]);
    }
    let n = &report.nested.totals;
    t.push([
        "total".to_owned(),
        num(report.totals.totals.requests),
        num(report.abandoned.requests),
        rate(&report.totals.totals),
        num(n.calls + n.cache_unknown_calls + n.invalid_calls),
        nested_rate(n),
        num(report.subagents.totals.requests),
        rate(&report.combined),
        num(report.combined.input),
        num(report.combined.cache_read),
        num(report.combined.cache_write),
        num(report.combined.output),
        f(report.totals.cost),
        priced(&report.pricing.totals),
        num(report.pricing.totals.unpriced_requests),
        report.pricing.totals.disagrees.to_string(),
    ]);
    t
}

fn groups_table(report: &CorpusReport, machine: bool) -> Table {
    if machine {
        return groups_csv(report);
    }
    let mut t = Table::new([
        report.by,
        "requests",
        "abandoned",
        "hit rate",
        "nested calls",
        "nested hit",
        "sub-agent req",
        "combined hit",
        "input",
        "cacheRead",
        "cacheWrite",
        "output",
        "cost",
        "priced",
    ])
    .numeric(1..14);
    for g in &report.groups {
        let nested_calls = g.nested.calls + g.nested.cache_unknown_calls + g.nested.invalid_calls;
        t.push([
            if g.key.is_empty() {
                "(none)".to_owned()
            } else {
                g.key.clone()
            },
            num(g.main.requests),
            num(g.abandoned_requests),
            rate_cell(&g.main),
            num(nested_calls),
            nested_rate_cell(&g.nested),
            num(g.subagents.requests),
            rate_cell(&g.combined),
            num(g.combined.input),
            num(g.combined.cache_read),
            num(g.combined.cache_write),
            num(g.combined.output),
            cost(g.cost),
            priced_cell(&g.pricing),
        ]);
    }
    let n = &report.nested.totals;
    t.push([
        "total".to_owned(),
        num(report.totals.totals.requests),
        num(report.abandoned.requests),
        rate_cell(&report.totals.totals),
        num(n.calls + n.cache_unknown_calls + n.invalid_calls),
        nested_rate_cell(n),
        num(report.subagents.totals.requests),
        rate_cell(&report.combined),
        num(report.combined.input),
        num(report.combined.cache_read),
        num(report.combined.cache_write),
        num(report.combined.output),
        cost(report.totals.cost),
        priced_cell(&report.pricing.totals),
    ]);
    t
}

/// The lines under the groups table: branches, forks, nested, sub-agents, pricing.
fn corpus_notes(report: &CorpusReport) -> String {
    let mut text = format!(
        "active path: {}, {} · abandoned branches: {}, {}\n",
        plural(report.active.requests, "request", "requests"),
        rate_phrase(&report.active),
        plural(report.abandoned.requests, "request", "requests"),
        rate_phrase(&report.abandoned)
    );
    if report.fork_copies.requests > 0.0 {
        text.push_str(&format!(
            "fork copies counted once: {} duplicate requests ({} cacheRead tokens) not counted again\n",
            num(report.fork_copies.requests),
            num(report.fork_copies.cache_read)
        ));
    }
    let n = &report.nested;
    if n.totals.calls + n.totals.cache_unknown_calls + n.totals.invalid_calls == 0.0 {
        text.push_str("nested tools: no data\n");
    } else {
        text.push_str(&format!(
            "nested tools: {} ({}, {}; active path {}, abandoned {}), {} reported no cache data, {} malformed reports ignored",
            plural(n.totals.calls, "call", "calls"),
            plural(n.totals.totals.requests, "request", "requests"),
            match nested_rate_cell(&n.totals) {
                r if r.ends_with('%') || r == "\u{2014}" => format!("hit rate {r}"),
                r => r,
            },
            num(n.active.calls),
            num(n.abandoned.calls),
            num(n.totals.cache_unknown_calls),
            num(n.totals.invalid_calls),
        ));
        if n.fork_copies.calls + n.fork_copies.cache_unknown_calls + n.fork_copies.invalid_calls
            > 0.0
        {
            text.push_str(&format!(
                "; {} fork copies not counted again",
                num(n.fork_copies.calls
                    + n.fork_copies.cache_unknown_calls
                    + n.fork_copies.invalid_calls)
            ));
        }
        text.push('\n');
    }
    let s = &report.subagents;
    if !s.files.is_empty() {
        let kinds = |k: &str| s.files.iter().filter(|f| f.kind == k).count();
        text.push_str(&format!(
            "sub-agent files: {} fork, {} run, {} transcript ({} without a scanned parent) · {} calls counted, {} found again in another child file, {} already counted by a nested report\n",
            kinds("fork"),
            kinds("run"),
            kinds("transcript"),
            s.files.iter().filter(|f| f.parent.is_none()).count(),
            num(s.totals.requests),
            num(s.copies.requests),
            num(s.covered.requests),
        ));
        if !s.reconciliation.is_empty() {
            let mut t = Table::new([
                "nested report",
                "status",
                "reported req",
                "found req",
                "reported in+cr+cw",
                "found in+cr+cw",
                "child files",
            ])
            .numeric(2..7);
            let prompt = |r: &ReportedView| match (r.input, r.cache_read, r.cache_write) {
                (Some(i), Some(cr), Some(cw)) => num(i + cr + cw),
                (Some(i), _, _) => format!("{} (+ cache unknown)", num(i)),
                _ => "—".to_owned(),
            };
            for r in &s.reconciliation {
                t.push([
                    format!("{}:{}", short_path(&r.file), r.line),
                    r.status.to_owned(),
                    r.reported.requests.map_or("—".to_owned(), num),
                    num(r.found.requests),
                    prompt(&r.reported),
                    num(r.found.input + r.found.cache_read + r.found.cache_write),
                    r.children.len().to_string(),
                ]);
            }
            text.push_str("reconciliation (nested reports vs the calls found in the child files they name):\n");
            text.push_str(&render_table(&t));
            text.push('\n');
        }
    }
    let p = &report.pricing;
    text.push_str(&pricing_line(&p.totals, &p.release, &p.unpriced));
    for u in &p.nested_unpriced {
        text.push_str(&format!(
            "nested reports not priced: {}: {}\n",
            num(u.requests),
            u.reason
        ));
    }
    if !report.findings.is_empty() {
        text.push_str(&format!(
            "{} usage findings (wrong-typed usage fields, malformed nested reports) listed on stderr\n",
            report.findings.len()
        ));
    }
    text
}

/// The last two components of a path (a session file and its folder).
fn short_path(p: &str) -> String {
    let parts: Vec<&str> = p.rsplitn(3, ['/', '\\']).collect();
    if parts.len() >= 2 {
        format!("{}/{}", parts[1], parts[0])
    } else {
        p.to_owned()
    }
}
