//! `forge-replay usage`: prompt-cache usage of one session (pi-forge's semantics) or a corpus.
//!
//! The numbers are `forge_replay_usage` (`session_report` for one session, `corpus` and
//! `report` for a corpus, `breaks` for `--breaks`); the tables and notes are
//! `forge_replay_report::usage`. This module maps arguments, prints and picks the exit code.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use forge_replay_model::json::stringify_pretty;
use forge_replay_report::plot;
use forge_replay_report::table::TableStyle;
use forge_replay_report::usage as render;
use forge_replay_session::Session;
use forge_replay_usage::breaks::{self, BreakSums};
use forge_replay_usage::corpus::{parse_day, Corpus, CorpusPricing, Filter, GroupBy};
use forge_replay_usage::explain::{self, ExplainOptions};
use forge_replay_usage::report::{CorpusReport, FiltersView};
use forge_replay_usage::session_report::{parse_min_rate, SessionUsage, Threshold};
use forge_replay_usage::Totals;
use serde_json::{Map, Value};

use crate::args::{Format, UsageArgs};
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: UsageArgs) -> anyhow::Result<Exit> {
    let threshold = match args.min_hit_rate {
        None => None,
        Some(r) => match parse_min_rate(r) {
            Some(min) => Some(min),
            None => {
                out::error!("--min-hit-rate {r} is not a rate (0..1, or a percentage up to 100)");
                return Ok(Exit::BadInput);
            }
        },
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

/// Box-drawn tables on a terminal, plain columns when stdout is not one.
fn style() -> TableStyle {
    if std::io::stdout().is_terminal() {
        TableStyle::Boxed
    } else {
        TableStyle::Plain
    }
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

/// Says the threshold's verdict on stderr: exit 1 when it is not met.
fn verdict(check: Option<Threshold>) -> Exit {
    match check {
        Some(t) => {
            out::note!("{}", t.message);
            if t.passed {
                Exit::Ok
            } else {
                Exit::Findings
            }
        }
        None => Exit::Ok,
    }
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
    let usage = match SessionUsage::build(&session, leaf, catalog) {
        Ok(u) => u,
        Err(e) => {
            out::error!("{e}");
            return Ok(Exit::BadInput);
        }
    };
    for (line, msg) in &usage.findings {
        out::note!("{}:{line}: {msg}", path.display());
    }
    let check = threshold.map(|min| Threshold::check(min, &usage.view.main_session));
    match Format::or_default(args.format) {
        Format::Json => {
            let file = path.display().to_string();
            let doc = usage.to_json(&file, &findings, args.requests, check.as_ref());
            print(&stringify_pretty(&doc), true)?;
        }
        Format::Csv => print(
            &render::session_table(&usage, args.requests, true).to_csv(),
            false,
        )?,
        Format::Md => print(
            &render::session_table(&usage, args.requests, false).to_markdown(),
            false,
        )?,
        _ => print(
            &render::session_text(&usage, args.requests, findings.len(), style()),
            false,
        )?,
    }
    if let Some(file) = &args.plot {
        let title = out::text(&format!(
            "{} — {} requests on the active path",
            usage.session_id,
            usage.rows.len()
        ))
        .into_owned();
        let mut opts = ExplainOptions::new(catalog);
        opts.leaf = args.leaf.leaf.clone();
        // The confirmed breaks as markers; none when the requests cannot be replayed.
        let breaks = match explain::explain(&session, &opts) {
            Ok(e) => render::break_markers(&e, &usage.rows),
            Err(e) => {
                out::note!(
                    "forge-replay: warning: no break markers: {}",
                    crate::cmd::error_chain(&e)
                );
                Vec::new()
            }
        };
        let mut data = render::session_plot(title, &usage.rows, breaks);
        data.nested = render::nested_points(&usage.nested);
        data.cumulative = true;
        plot::plot_session(&data, file).with_context(|| format!("plotting {}", file.display()))?;
        out::note!("wrote {}", file.display());
    }
    Ok(verdict(check))
}

// ---------------------------------------------------------------------------------------------
// Corpus

/// Fewer files than this are read in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 200;

fn progress_style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
}

fn run_corpus(
    args: &UsageArgs,
    mut dirs: Vec<PathBuf>,
    threshold: Option<f64>,
) -> anyhow::Result<Exit> {
    if dirs.is_empty() {
        match forge_replay_session::dirs::pi_sessions_dir() {
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
            pb.set_style(progress_style("{bar:30} {pos}/{len} files read {elapsed}"));
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
    // The request frame only for the row exports; the report's groups come straight from the
    // requests (the same sums, without the frame's memory and time).
    let exports = args.csv.is_some() || args.json.is_some() || args.parquet.is_some();
    let df = if exports {
        Some(corpus.frame(&filter)?)
    } else {
        None
    };
    let groups = corpus.group_rows(by, &filter);
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

    if let (Some(p), Some(df)) = (&args.csv, &df) {
        corpus
            .write_csv(df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let (Some(p), Some(df)) = (&args.json, &df) {
        corpus
            .write_ndjson(df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let (Some(p), Some(df)) = (&args.parquet, &df) {
        let parts = corpus
            .write_parquet_dataset(df, &filter, p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!(
            "wrote {} under {}",
            render::plural(parts.len() as f64, "partition", "partitions"),
            p.display()
        );
    }
    drop(df);
    if let Some(p) = &args.plot {
        plot::plot_corpus(&render::corpus_plot(&report), p)
            .with_context(|| format!("plotting {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    let t = &report.totals.totals;
    let main = Totals {
        requests: t.requests,
        input: t.input,
        output: t.output,
        cache_read: t.cache_read,
        cache_write: t.cache_write,
    };
    let check = threshold.map(|min| Threshold::check(min, &main));

    match Format::or_default(args.format) {
        Format::Json => {
            let mut v = match serde_json::to_value(&report)? {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            if let Some(b) = &breaks {
                v.insert("breaks".into(), b.to_json());
            }
            if let Some(t) = &check {
                v.insert("threshold".into(), t.json.clone());
            }
            print(&stringify_pretty(&Value::Object(v)), true)?;
        }
        Format::Csv => print(&render::groups_table(&report, true).to_csv(), false)?,
        Format::Md => print(&render::corpus_markdown(&report, breaks.as_ref()), false)?,
        _ => print(
            &render::corpus_text(&report, breaks.as_ref(), style()),
            false,
        )?,
    }
    // On stderr unless JSON was asked for (the document lists them).
    if args.format != Some(Format::Json) {
        corpus_notes(&report, breaks.as_ref());
    }
    Ok(verdict(check))
}

/// The corpus's malformed lines, findings, unreadable and skipped files, on stderr.
fn corpus_notes(report: &CorpusReport, breaks: Option<&BreakSums>) {
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
    if let Some(b) = breaks {
        for (f, m) in &b.failures {
            out::note!("{}: not explained: {m}", f.display());
        }
    }
}

/// `cache explain` on every Pi session of the corpus (sub-agent sessions included), summed, with
/// a progress bar on a terminal.
fn corpus_breaks(corpus: &Corpus, filter: &Filter) -> BreakSums {
    let inputs = breaks::corpus_inputs(corpus, filter);
    let keep = |provider: &str, model: &str, time: Option<f64>| {
        breaks::filter_keeps(filter, provider, model, time)
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        pb.set_style(progress_style(
            "{bar:30} {pos}/{len} sessions explained {elapsed}",
        ));
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
    let sums = breaks::corpus_breaks(&inputs, &opts, &keep, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    sums
}
