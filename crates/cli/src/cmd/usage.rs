//! `forge-replay usage`: prompt-cache usage of one session (pi-forge's semantics) or a corpus.

use std::path::{Path, PathBuf};

use anyhow::Context;
use forge_replay_model::json::{f64_to_value, stringify_pretty};
use forge_replay_report::plot::{
    self, BreakMarker, CorpusPlot, ModelBar, RequestPoint, SessionPlot,
};
use forge_replay_report::table::Table;
use forge_replay_session::Session;
use forge_replay_usage::corpus::{parse_day, Corpus, Filter, Group, GroupBy};
use forge_replay_usage::totals::rate_json;
use forge_replay_usage::{
    format_rate, format_totals_rate, request_rows, session_branch, summarize, NestedTotals,
    RequestRow, Totals,
};
use serde_json::{json, Map, Value};

use crate::args::{UsageArgs, UsageFormat};
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
            out::error!("{e}");
            return Ok(Exit::BadInput);
        }
    };
    let findings: Vec<_> = diagnostics.iter().filter(|d| d.is_finding()).collect();
    for d in &findings {
        out::note!("{}", d.display(session.path()));
    }
    // Usage is what the session recorded, read the same way for every release; the release is
    // said (and checked against --pi).
    if let Err(e) = args.pi.for_session(&session) {
        out::error!("{e:#}");
        return Ok(Exit::BadInput);
    }
    let leaf = match session.resolve_leaf(args.leaf.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            out::error!("{}: {e}", path.display());
            return Ok(Exit::BadInput);
        }
    };
    let branch_path = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let records = session_branch(&session, &branch_path);
    let branch: Vec<_> = records.iter().collect();
    let view = summarize(&branch);
    let rows = request_rows(&branch);
    let leaf_id = leaf.and_then(|l| session.entry(l).id()).map(str::to_owned);
    let session_id = session.header().id().to_owned();
    let check = threshold.map(|min| check_threshold(min, &view.main_session));

    match args.format {
        UsageFormat::Json => {
            let mut v = match view.to_json() {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            v.insert("hitRates".into(), view.hit_rates_json());
            let mut combined = Map::new();
            combined.insert("turn".into(), view.combined_turn().to_json());
            combined.insert("session".into(), view.combined_session().to_json());
            v.insert("combined".into(), Value::Object(combined));
            v.insert(
                "source".into(),
                json!({
                    "file": path.display().to_string(),
                    "sessionId": session_id,
                    "leaf": leaf_id,
                    "pathEntries": branch_path.len(),
                    "entries": session.entries().len(),
                    "diagnostics": findings.iter().map(|d| json!({"line": d.line, "severity": d.severity.as_str(), "code": d.code, "message": d.message})).collect::<Vec<_>>(),
                }),
            );
            if args.requests {
                v.insert(
                    "requests".into(),
                    Value::Array(rows.iter().map(request_json).collect()),
                );
            }
            if let Some((_, t, _)) = &check {
                v.insert("threshold".into(), t.clone());
            }
            out_json(&stringify_pretty(&Value::Object(v)))?;
        }
        fmt => {
            let table = if args.requests {
                requests_table(&rows)
            } else {
                summary_table(&view)
            };
            match fmt {
                UsageFormat::Csv => out(&table.to_csv())?,
                UsageFormat::Md => out(&table.to_markdown())?,
                _ => {
                    let mut text = format!(
                        "session {session_id} · leaf {} · {} entries on the path",
                        leaf_id.as_deref().unwrap_or("—"),
                        branch_path.len()
                    );
                    if !findings.is_empty() {
                        text.push_str(&format!(" · {} findings (see stderr)", findings.len()));
                    }
                    text.push('\n');
                    text.push_str(&table.to_text());
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
        plot::plot_session(&session_plot(title, &rows, Vec::new()), file)
            .with_context(|| format!("plotting {}", file.display()))?;
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
        breaks,
    }
}

fn request_json(r: &RequestRow) -> Value {
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
    m.insert("hitRate".into(), rate_json(r.totals.hit_rate()));
    m.insert("cumulative".into(), r.cumulative.to_json());
    m.insert(
        "cumulativeHitRate".into(),
        rate_json(r.cumulative.hit_rate()),
    );
    m.insert("inTurn".into(), json!(r.in_turn));
    Value::Object(m)
}

fn totals_cells(label: &str, t: &Totals, count: String) -> Vec<String> {
    vec![
        label.to_owned(),
        format_totals_rate(t),
        count,
        num(t.input),
        num(t.cache_read),
        num(t.cache_write),
        num(t.output),
    ]
}

fn summary_table(view: &forge_replay_usage::SessionCacheUsage) -> Table {
    let mut t = Table::new([
        "",
        "hit rate",
        "requests",
        "input",
        "cacheRead",
        "cacheWrite",
        "output",
    ])
    .numeric(1..7);
    match &view.last_request {
        Some(l) => t.push(totals_cells("main · last request", l, num(l.requests))),
        None => t.push(["main · last request", "—", "0", "", "", "", ""]),
    }
    t.push(totals_cells(
        "main · this turn",
        &view.main_turn,
        num(view.main_turn.requests),
    ));
    t.push(totals_cells(
        "main · session",
        &view.main_session,
        num(view.main_session.requests),
    ));
    let nested = |label: &str, n: &NestedTotals| {
        let mut row = totals_cells(
            label,
            &n.totals,
            format!("{} ({} calls)", num(n.totals.requests), num(n.calls)),
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
    ));
    t.push(totals_cells(
        "combined · session",
        &view.combined_session(),
        num(view.combined_session().requests),
    ));
    t
}

fn requests_table(rows: &[RequestRow]) -> Table {
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
    ])
    .numeric([0, 4, 5, 6, 7, 8, 9]);
    for r in rows {
        let model = match (&r.provider, &r.model) {
            (Some(p), Some(m)) => format!("{p}/{m}"),
            (None, Some(m)) => m.clone(),
            _ => String::new(),
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
        ]);
    }
    t
}

// ---------------------------------------------------------------------------------------------
// Corpus

fn default_sessions_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("PI_CODING_AGENT_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("sessions"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pi/agent/sessions"))
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
    let mut corpus = Corpus::scan(&dirs);
    if corpus.files.is_empty() && !corpus.walk_errors.is_empty() {
        for (p, m) in &corpus.walk_errors {
            out::error!("cannot read {}: {m}", p.display());
        }
        return Ok(Exit::BadInput);
    }
    let df = corpus.frame(&filter)?;
    let mut groups = corpus.group(&df, by)?;
    // Filters and groups saw the real strings; everything shown or exported from here on is
    // redacted (paths, session ids, projects, models).
    if out::redacting() {
        corpus.redact_strings();
        for g in &mut groups {
            g.key = out::text(&g.key).into_owned();
        }
    }
    let mut all = Totals::default();
    let mut active = Totals::default();
    let mut abandoned = Totals::default();
    let mut total_cost = 0.0;
    for r in corpus.filtered(&filter) {
        let t = r.totals();
        all.add(&t);
        total_cost += r.cost;
        if r.active {
            active.add(&t);
        } else {
            abandoned.add(&t);
        }
    }

    if let Some(p) = &args.csv {
        corpus
            .write_csv(&df, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.json {
        corpus
            .write_ndjson(&df, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.parquet {
        let parts = corpus
            .write_parquet_dataset(&df, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {} partitions under {}", parts.len(), p.display());
    }
    if let Some(p) = &args.plot {
        let models = if by == GroupBy::Model {
            groups.clone()
        } else {
            corpus.group(&df, GroupBy::Model)?
        };
        let bars = models
            .iter()
            .map(|g| ModelBar {
                label: out::text(&g.key).into_owned(),
                hit_rate: if g.totals.no_cache_data() {
                    None
                } else {
                    g.totals.hit_rate()
                },
                requests: g.totals.requests,
            })
            .collect();
        let title = format!(
            "Cache hit rate by model — {} sessions, {} requests",
            corpus.sessions(),
            num(all.requests)
        );
        plot::plot_corpus(&CorpusPlot { title, bars }, p)
            .with_context(|| format!("plotting {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }

    let bad: Vec<(String, u32, String)> = corpus
        .files
        .iter()
        .flat_map(|f| {
            f.bad_lines
                .iter()
                .map(move |b| (f.path.display().to_string(), b.line, b.message.clone()))
        })
        .collect();
    let unreadable: Vec<(String, String)> = corpus
        .files
        .iter()
        .filter_map(|f| {
            f.error
                .as_ref()
                .map(|e| (f.path.display().to_string(), e.clone()))
        })
        .chain(
            corpus
                .walk_errors
                .iter()
                .map(|(p, m)| (p.display().to_string(), m.clone())),
        )
        .collect();
    // Files that are not Pi sessions, named with the reason (the rule `usage FILE` applies).
    let rejected: Vec<(String, Option<u32>, String)> = corpus
        .files
        .iter()
        .filter(|f| f.error.is_none() && f.session_id.is_none())
        .map(|f| {
            let (line, reason) = f
                .not_session
                .as_ref()
                .map_or((None, String::new()), |n| (n.line, n.reason.clone()));
            (f.path.display().to_string(), line, reason)
        })
        .collect();
    let not_sessions = rejected.len();
    let check = threshold.map(|min| check_threshold(min, &all));

    match args.format {
        UsageFormat::Json => {
            let tot = |t: &Totals, c: Option<f64>| {
                let mut v = t.to_json();
                if let (Value::Object(m), Some(c)) = (&mut v, c) {
                    m.insert("cost".into(), f64_to_value(c));
                }
                if let Value::Object(m) = &mut v {
                    m.insert("hitRate".into(), rate_json(t.hit_rate()));
                    m.insert("noCacheData".into(), Value::Bool(t.no_cache_data()));
                }
                v
            };
            let mut v = Map::new();
            v.insert("files".into(), json!(corpus.files.len()));
            v.insert("sessions".into(), json!(corpus.sessions()));
            v.insert("forks".into(), json!(corpus.forks()));
            v.insert("notSessions".into(), json!(not_sessions));
            v.insert(
                "notSessionFiles".into(),
                Value::Array(
                    rejected
                        .iter()
                        .map(|(f, l, m)| json!({"file": f, "line": l, "message": m}))
                        .collect(),
                ),
            );
            v.insert("by".into(), json!(by.name()));
            v.insert(
                "filters".into(),
                json!({"since": args.since, "until": args.until, "model": args.model_filter, "project": args.project}),
            );
            v.insert("totals".into(), tot(&all, Some(total_cost)));
            v.insert("active".into(), tot(&active, None));
            v.insert("abandoned".into(), tot(&abandoned, None));
            v.insert("forkCopies".into(), tot(&corpus.fork_copies, None));
            v.insert(
                "groups".into(),
                Value::Array(
                    groups
                        .iter()
                        .map(|g| {
                            let mut o = Map::new();
                            o.insert("key".into(), json!(g.key));
                            if let Value::Object(m) = tot(&g.totals, Some(g.cost)) {
                                o.extend(m);
                            }
                            o.insert(
                                "abandonedRequests".into(),
                                f64_to_value(g.abandoned_requests),
                            );
                            Value::Object(o)
                        })
                        .collect(),
                ),
            );
            v.insert(
                "badLines".into(),
                Value::Array(
                    bad.iter()
                        .map(|(f, l, m)| json!({"file": f, "line": l, "message": m}))
                        .collect(),
                ),
            );
            v.insert(
                "unreadable".into(),
                Value::Array(
                    unreadable
                        .iter()
                        .map(|(f, m)| json!({"file": f, "message": m}))
                        .collect(),
                ),
            );
            if let Some((_, t, _)) = &check {
                v.insert("threshold".into(), t.clone());
            }
            out_json(&stringify_pretty(&Value::Object(v)))?;
        }
        fmt => {
            let table = groups_table(by, &groups, &all, total_cost);
            match fmt {
                UsageFormat::Csv => out(&table.to_csv())?,
                UsageFormat::Md => out(&table.to_markdown())?,
                _ => {
                    let mut text = format!(
                        "{} files · {} sessions ({} forks) · {} requests\n",
                        corpus.files.len(),
                        corpus.sessions(),
                        corpus.forks(),
                        num(all.requests)
                    );
                    text.push_str(&table.to_text());
                    text.push('\n');
                    text.push_str(&format!(
                        "active path: {} requests, hit rate {} · abandoned branches: {} requests, hit rate {}\n",
                        num(active.requests),
                        format_totals_rate(&active),
                        num(abandoned.requests),
                        format_totals_rate(&abandoned)
                    ));
                    if corpus.fork_copies.requests > 0.0 {
                        text.push_str(&format!(
                            "fork copies counted once: {} duplicate requests ({} cacheRead tokens) not counted again\n",
                            num(corpus.fork_copies.requests),
                            num(corpus.fork_copies.cache_read)
                        ));
                    }
                    out(&text)?;
                }
            }
        }
    }
    for (f, l, m) in bad.iter().take(if args.format == UsageFormat::Json {
        0
    } else {
        50
    }) {
        out::note!("{f}:{l}: skipped malformed line: {m}");
    }
    if bad.len() > 50 && args.format != UsageFormat::Json {
        out::note!("… {} more malformed lines", bad.len() - 50);
    }
    if args.format != UsageFormat::Json {
        for (f, m) in &unreadable {
            out::note!("{f}: unreadable: {m}");
        }
        for (f, l, m) in &rejected {
            match l {
                Some(l) => out::note!("{f}:{l}: skipped: {m}"),
                None => out::note!("{f}: skipped: {m}"),
            }
        }
        if not_sessions > 0 {
            out::note!("{not_sessions} files are not Pi sessions (named above)");
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

fn groups_table(by: GroupBy, groups: &[Group], all: &Totals, total_cost: f64) -> Table {
    let mut t = Table::new([
        by.name(),
        "requests",
        "abandoned",
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "hit rate",
        "cost",
    ])
    .numeric(1..9);
    for g in groups {
        t.push([
            g.key.clone(),
            num(g.totals.requests),
            num(g.abandoned_requests),
            num(g.totals.input),
            num(g.totals.output),
            num(g.totals.cache_read),
            num(g.totals.cache_write),
            format_totals_rate(&g.totals),
            cost(g.cost),
        ]);
    }
    let abandoned: f64 = groups.iter().map(|g| g.abandoned_requests).sum();
    t.push([
        "total".to_owned(),
        num(all.requests),
        num(abandoned),
        num(all.input),
        num(all.output),
        num(all.cache_read),
        num(all.cache_write),
        format_totals_rate(all),
        cost(total_cost),
    ]);
    t
}
