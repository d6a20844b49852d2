//! What `forge-replay usage` prints for people and spreadsheets: the session summary and
//! per-request tables, the corpus groups table and the notes under it, the cache-break costs, and
//! the data of the usage plots. The numbers come from `forge_replay_usage` (its views are
//! JavaScript doubles); these functions only lay them out.
//!
//! Tables are laid out in a [`TableStyle`]: box-drawn for a terminal, plain columns otherwise
//! (the caller knows which). Nothing here is redacted: the caller prints through its redaction
//! step.

use forge_replay_session::Diagnostic;
use forge_replay_usage::breaks::BreakSums;
use forge_replay_usage::corpus_run::CorpusRun;
use forge_replay_usage::explain::{usd, CauseCost, Explanation};
use forge_replay_usage::pricing::Pricer;
use forge_replay_usage::report::{
    CorpusReport, GroupView, NestedView, PricingView, ReportedView, TotalsView, UnpricedView,
};
use forge_replay_usage::session_report::{SessionUsage, Threshold};
use forge_replay_usage::{format_rate, format_totals_rate, NestedTotals, RequestRow, Totals};

use crate::format::{Format, Printed};
use crate::plot::{BreakMarker, CorpusPlot, ModelBar, NestedPoint, RequestPoint, SessionPlot};
use crate::table::{Table, TableStyle};

/// `1 file`, `2 files` (counts are doubles in the usage model).
pub fn plural(n: f64, one: &str, many: &str) -> String {
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
/// Nested reports with cache counts along the branch, placed after the main requests before
/// them.
pub fn nested_points(nested: &[forge_replay_usage::report::NestedRow]) -> Vec<NestedPoint> {
    nested
        .iter()
        .filter_map(|n| {
            let t = n.report.known_totals()?;
            Some(NestedPoint {
                after: n.requests_before,
                requests: t.requests,
                input: t.input,
                cache_read: t.cache_read,
                cache_write: t.cache_write,
            })
        })
        .collect()
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
pub fn summary_table(view: &forge_replay_usage::SessionCacheUsage, machine: bool) -> Table {
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
pub fn requests_table(rows: &[RequestRow], pricer: &Pricer<'_>, machine: bool) -> Table {
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
                r.entry_id.as_deref().unwrap_or_default().to_owned(),
                r.timestamp.as_deref().map(rfc3339).unwrap_or_default(),
                r.provider.as_deref().unwrap_or_default().to_owned(),
                r.model.as_deref().unwrap_or_default().to_owned(),
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
            (None, Some(m)) => m.to_string(),
            _ => String::new(),
        };
        let priced = match r.price(pricer) {
            Ok(p) => usd(p.total),
            Err(_) => "not priced".to_owned(),
        };
        t.push([
            (r.index + 1).to_string(),
            r.entry_id.as_deref().unwrap_or_default().to_owned(),
            r.timestamp.as_deref().unwrap_or_default().to_owned(),
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

pub fn breaks_table(b: &BreakSums) -> Table {
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

pub fn breaks_text(b: &BreakSums, style: TableStyle) -> String {
    let mut text = format!(
        "cache breaks: {} explained ({} without cache data), {}\n",
        plural(b.sessions as f64, "session", "sessions"),
        b.no_cache_data,
        plural(b.total.breaks as f64, "confirmed break", "confirmed breaks")
    );
    text.push_str(&breaks_table(b).render(style));
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
pub fn corpus_plot(report: &CorpusReport) -> CorpusPlot {
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

pub fn groups_table(report: &CorpusReport, machine: bool) -> Table {
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
pub fn corpus_notes(report: &CorpusReport, style: TableStyle) -> String {
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
            text.push_str(&t.render(style));
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

/// `usage SESSION` as text: the header line, the summary (or with `requests` the per-request)
/// table, the nested-tools and scope notes, and the pricing line. `findings`: how many reader
/// findings went to stderr.
pub fn session_text(
    u: &SessionUsage<'_>,
    requests: bool,
    findings: usize,
    style: TableStyle,
) -> String {
    let mut text = format!(
        "session {} · leaf {} · {} entries on the path",
        u.session_id,
        u.leaf_id.as_deref().unwrap_or("—"),
        u.path_entries
    );
    if findings > 0 {
        text.push_str(&format!(
            " · {} (see stderr)",
            plural(findings as f64, "finding", "findings")
        ));
    }
    text.push('\n');
    text.push_str(&session_table(u, requests, false).render(style));
    text.push('\n');
    if !requests {
        let n = &u.view.nested_session;
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
    let p = &u.pricing;
    text.push_str(&pricing_line(&p.totals, &p.release, &p.unpriced));
    text
}

/// What `usage SESSION` prints in `format`: the JSON document (naming `file`, with the
/// `findings` of reading it and the `check` of `--min-hit-rate`), the table as CSV or Markdown,
/// or the text, each ending with a newline.
pub fn session_output(
    u: &SessionUsage<'_>,
    format: Format,
    file: &str,
    findings: &[&Diagnostic],
    requests: bool,
    check: Option<&Threshold>,
    style: TableStyle,
) -> Printed {
    match format {
        Format::Json => Printed::Json(u.to_json(file, findings, requests, check)),
        Format::Csv => Printed::lines(session_table(u, requests, true).to_csv()),
        Format::Md => Printed::lines(session_table(u, requests, false).to_markdown()),
        _ => Printed::lines(session_text(u, requests, findings.len(), style)),
    }
}

/// What `usage --corpus` prints in `format`: the JSON document ([`CorpusRun::to_json`]), the
/// groups as CSV, the report as Markdown or as text, each ending with a newline.
pub fn corpus_output(
    run: &CorpusRun,
    format: Format,
    style: TableStyle,
) -> serde_json::Result<Printed> {
    let (report, breaks) = (&run.report, run.breaks.as_ref());
    Ok(match format {
        Format::Json => Printed::Json(run.to_json()?),
        Format::Csv => Printed::lines(groups_table(report, true).to_csv()),
        Format::Md => Printed::lines(corpus_markdown(report, breaks)),
        _ => Printed::lines(corpus_text(report, breaks, style)),
    })
}

/// The table of `usage SESSION`: the summary, or with `requests` one row per request;
/// `machine` (CSV) numbers only.
pub fn session_table(u: &SessionUsage<'_>, requests: bool, machine: bool) -> Table {
    if requests {
        requests_table(&u.rows, &u.pricer, machine)
    } else {
        summary_table(&u.view, machine)
    }
}

/// `usage --corpus` as text: the counts line, the groups table, the notes, and the cache-break
/// costs when they were computed.
pub fn corpus_text(report: &CorpusReport, breaks: Option<&BreakSums>, style: TableStyle) -> String {
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
    text.push_str(&groups_table(report, false).render(style));
    text.push('\n');
    text.push_str(&corpus_notes(report, style));
    if let Some(b) = breaks {
        text.push('\n');
        text.push_str(&breaks_text(b, style));
    }
    text
}

/// `usage --corpus --format md`: the groups table, and the cache-break costs after it.
pub fn corpus_markdown(report: &CorpusReport, breaks: Option<&BreakSums>) -> String {
    let mut text = groups_table(report, false).to_markdown();
    if let Some(b) = breaks {
        text.push('\n');
        text.push_str(&breaks_table(b).to_markdown());
    }
    text
}

/// The plot of `usage SESSION --plot`: hit rate per request with cumulative tokens, the nested
/// requests, and the breaks `explained` confirmed as markers (none when the requests could not
/// be replayed). `shown` is the caller's redaction of the title (it quotes the session id).
pub fn session_usage_plot(
    usage: &SessionUsage,
    explained: Option<&Explanation>,
    shown: &dyn Fn(&str) -> String,
) -> SessionPlot {
    let title = shown(&format!(
        "{} — {} requests on the active path",
        usage.session_id,
        usage.rows.len()
    ));
    let breaks = explained.map_or_else(Vec::new, |e| break_markers(e, &usage.rows));
    let mut data = session_plot(title, &usage.rows, breaks);
    data.nested = nested_points(&usage.nested);
    data.cumulative = true;
    data
}

/// The confirmed breaks of a cache diagnosis as markers on the usage rows of the same branch.
pub fn break_markers(e: &Explanation, rows: &[RequestRow]) -> Vec<BreakMarker> {
    e.breaks
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
        .collect()
}

/// The `cache explain --plot` data: hit rate per request with the confirmed breaks as labelled
/// markers.
pub fn explain_plot(e: &Explanation) -> SessionPlot {
    // The file name, with its directory when the file is a generic `session.jsonl`.
    let path = std::path::Path::new(&e.session);
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match path.parent().and_then(|p| p.file_name()) {
        Some(dir) if file == "session.jsonl" => format!("{}/{file}", dir.to_string_lossy()),
        _ => file,
    };
    SessionPlot {
        title: if e.no_cache_data {
            format!("Cache breaks: {name} (no cache data)")
        } else {
            format!("Cache breaks: {name}")
        },
        requests: e
            .requests
            .iter()
            .map(|r| {
                let u = r.usage.unwrap_or_default();
                RequestPoint {
                    input: u.input,
                    output: u.output,
                    cache_read: u.cache_read,
                    cache_write: u.cache_write,
                }
            })
            .collect(),
        nested: Vec::new(),
        cumulative: false,
        breaks: e
            .breaks
            .iter()
            .map(|b| BreakMarker {
                request: b.request,
                label: b.cause.name().to_string(),
            })
            .collect(),
    }
}

/// What the corpus's scan says on stderr: the malformed lines and findings (the first 50 of
/// each), unreadable and skipped files, and the sessions `--breaks` could not explain, one line
/// each.
pub fn corpus_diagnostics(report: &CorpusReport, breaks: Option<&BreakSums>) -> Vec<String> {
    const SHOWN: usize = 50;
    let mut lines = Vec::new();
    for b in report.bad_lines.iter().take(SHOWN) {
        lines.push(format!(
            "{}:{}: skipped malformed line: {}",
            b.file, b.line, b.message
        ));
    }
    if report.bad_lines.len() > SHOWN {
        lines.push(format!(
            "… {} more malformed lines",
            report.bad_lines.len() - SHOWN
        ));
    }
    for f in report.findings.iter().take(SHOWN) {
        lines.push(format!("{}:{}: {}", f.file, f.line, f.message));
    }
    if report.findings.len() > SHOWN {
        lines.push(format!(
            "… {} more findings (all of them: --format json, `findings`)",
            report.findings.len() - SHOWN
        ));
    }
    for u in &report.unreadable {
        lines.push(format!("{}: unreadable: {}", u.file, u.message));
    }
    for n in &report.not_session_files {
        lines.push(match n.line {
            Some(l) => format!("{}:{l}: skipped: {}", n.file, n.message),
            None => format!("{}: skipped: {}", n.file, n.message),
        });
    }
    if report.not_sessions > 0 {
        lines.push(format!(
            "{} (named above)",
            if report.not_sessions == 1 {
                "1 file is not a Pi session".to_owned()
            } else {
                format!("{} files are not Pi sessions", report.not_sessions)
            }
        ));
    }
    if let Some(b) = breaks {
        for (f, m) in &b.failures {
            lines.push(format!("{}: not explained: {m}", f.display()));
        }
    }
    lines
}

/// What the incremental index did, when it is worth saying: rebuilt (other than absent), or not
/// saved.
pub fn index_notes(stats: &forge_replay_usage::index::IndexStats) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(why) = stats.rebuilt.as_deref().filter(|w| *w != "absent") {
        lines.push(format!(
            "forge-replay: note: {}: usage index {why}; rebuilt",
            stats.path.display()
        ));
    }
    if let Some(e) = &stats.write_error {
        lines.push(format!(
            "forge-replay: warning: usage index not saved ({e}); the results are complete"
        ));
    }
    lines
}

/// The warning for a corpus without session files (not an error: the report is empty).
pub fn no_session_files_warning(dirs: &[std::path::PathBuf]) -> String {
    let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(
        "forge-replay: warning: no session files (*.jsonl) under {}: nothing to count (Pi writes its sessions to $PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions)",
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_paths_keep_the_folder_and_file() {
        assert_eq!(short_path("/a/b/c/s.jsonl"), "c/s.jsonl");
        assert_eq!(short_path("c\\s.jsonl"), "c/s.jsonl");
        assert_eq!(short_path("s.jsonl"), "s.jsonl");
    }

    #[test]
    fn plurals_and_costs() {
        assert_eq!(plural(1.0, "file", "files"), "1 file");
        assert_eq!(plural(2.0, "file", "files"), "2 files");
        assert_eq!(cost(1.005), "$1.00");
        assert_eq!(rate_number(None), "");
        assert_eq!(rate_number(Some(0.5)), "0.5");
    }

    fn empty_report(dir: &std::path::Path) -> CorpusReport {
        use forge_replay_usage::corpus::{Corpus, Filter, GroupBy};
        let corpus = Corpus::scan(&[dir.to_path_buf()]);
        let filter = Filter::default();
        let groups = corpus
            .group(&corpus.frame(&filter).unwrap(), GroupBy::Model, &filter)
            .unwrap();
        CorpusReport::build(
            &corpus,
            &filter,
            forge_replay_usage::report::FiltersView::default(),
            GroupBy::Model,
            &groups,
        )
    }

    #[test]
    fn corpus_diagnostics_show_fifty_of_each_then_count_the_rest() {
        use forge_replay_usage::report::{Finding, NotSessionView};
        let dir = tempfile::tempdir().unwrap();
        let mut report = empty_report(dir.path());
        assert!(corpus_diagnostics(&report, None).is_empty());
        report.bad_lines = (1..=52)
            .map(|line| Finding {
                file: "a.jsonl".into(),
                line,
                message: "bad".into(),
            })
            .collect();
        report.not_sessions = 1;
        report.not_session_files = vec![NotSessionView {
            file: "b.jsonl".into(),
            line: None,
            message: "no header".into(),
        }];
        let lines = corpus_diagnostics(&report, None);
        assert_eq!(lines.len(), 50 + 1 + 1 + 1);
        assert_eq!(lines[0], "a.jsonl:1: skipped malformed line: bad");
        assert_eq!(lines[50], "… 2 more malformed lines");
        assert_eq!(lines[51], "b.jsonl: skipped: no header");
        assert_eq!(lines[52], "1 file is not a Pi session (named above)");
    }

    #[test]
    fn the_corpus_output_follows_the_format() {
        use forge_replay_usage::corpus::GroupBy;
        use forge_replay_usage::corpus_run::{CorpusRequest, Exports};
        let dir = tempfile::tempdir().unwrap();
        let request = CorpusRequest {
            dirs: vec![dir.path().to_path_buf()],
            since: None,
            until: None,
            model: None,
            project: None,
            by: GroupBy::Model,
            breaks: false,
            threshold: None,
            exports: Exports::default(),
            release: None,
            cache_dir: None,
            redact: false,
        };
        let scan = request.scan(&request.dirs().unwrap(), &|_, _| {});
        let run = request.build(scan.corpus, &|_, _| {}).unwrap();
        let out = |f| corpus_output(&run, f, TableStyle::Plain).unwrap();
        assert!(matches!(out(Format::Json), Printed::Json(v) if v.is_object()));
        for f in [Format::Csv, Format::Md, Format::Text] {
            assert!(matches!(out(f), Printed::Text(t) if t.ends_with('\n')));
        }
    }

    #[test]
    fn index_notes_skip_a_first_build() {
        let mut stats = forge_replay_usage::index::IndexStats {
            path: "/c/usage.idx".into(),
            rebuilt: Some("absent".into()),
            ..Default::default()
        };
        assert!(index_notes(&stats).is_empty());
        stats.rebuilt = Some("corrupt".into());
        stats.write_error = Some("read-only".into());
        assert_eq!(
            index_notes(&stats),
            [
                "forge-replay: note: /c/usage.idx: usage index corrupt; rebuilt",
                "forge-replay: warning: usage index not saved (read-only); the results are complete",
            ]
        );
    }
}
