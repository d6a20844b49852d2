//! `forge-replay usage`: prompt-cache usage of one session (pi-forge's semantics) or a corpus.
//!
//! The numbers are `forge_replay_usage` (`session_report` for one session, `corpus` and
//! `report` for a corpus, `breaks` for `--breaks`); the tables and notes are
//! `forge_replay_report::usage`. This module maps arguments, prints and picks the exit code.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use forge_replay_report::plot;
use forge_replay_report::table::TableStyle;
use forge_replay_report::usage as render;
use forge_replay_session::Session;
use forge_replay_usage::corpus::{CorpusPricing, Filter, GroupBy};
use forge_replay_usage::corpus_run::{CorpusOptions, CorpusRun, CorpusScan};
use forge_replay_usage::explain::{self, ExplainOptions};
use forge_replay_usage::report::FiltersView;
use forge_replay_usage::session_report::{SessionUsage, Threshold};

use crate::args::{Format, UsageArgs};
use crate::cmd::said;
use crate::out;
use crate::Exit;

pub fn run(args: UsageArgs) -> anyhow::Result<Exit> {
    // clap has checked the rate (a fraction) and that exactly one of SESSION and --corpus is given.
    let threshold = args.min_hit_rate;
    match &args.session {
        Some(session) => run_session(&args, session, threshold),
        None => run_corpus(&args, args.corpus.clone().unwrap_or_default(), threshold),
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

/// Prints text (a table), redacted, ending with a newline.
fn print(text: &str) -> std::io::Result<()> {
    match text.ends_with('\n') {
        true => out::print_text(text),
        false => out::print_text(&format!("{text}\n")),
    }
}

/// Says the threshold's verdict on stderr: exit 1 when it is not met.
fn verdict(check: Option<Threshold>) -> Exit {
    check.map_or(Exit::Ok, |t| {
        out::note!("{}", t.message);
        Exit::findings_if(!t.passed)
    })
}

// ---------------------------------------------------------------------------------------------
// One session

fn run_session(args: &UsageArgs, path: &Path, threshold: Option<f64>) -> anyhow::Result<Exit> {
    // A bad --plot is refused before the report is printed.
    if let Some(file) = &args.plot {
        plot::check_path(file).with_context(|| format!("plotting {}", file.display()))?;
    }
    let (session, diagnostics) = Session::open(path)?;
    let findings: Vec<_> = diagnostics.iter().filter(|d| d.is_finding()).collect();
    for d in &findings {
        out::note!("{}", d.display(session.path()));
    }
    // Usage is what the session recorded, read the same way for every release; the release is
    // said (and checked against --pi).
    let release = args.pi.for_session(&session)?;
    let catalog = forge_replay_wire::Catalog::builtin(release);
    let leaf = session
        .resolve_leaf(args.leaf.leaf.as_deref())
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let usage = SessionUsage::build(&session, leaf, catalog).map_err(said)?;
    for (line, msg) in &usage.findings {
        out::note!("{}:{line}: {msg}", path.display());
    }
    let check = threshold.map(|min| Threshold::check(min, &usage.view.main_session));
    match Format::or_default(args.format) {
        Format::Json => {
            let file = path.display().to_string();
            let doc = usage.to_json(&file, &findings, args.requests, check.as_ref());
            out::print_json(&doc)?;
        }
        Format::Csv => print(&render::session_table(&usage, args.requests, true).to_csv())?,
        Format::Md => print(&render::session_table(&usage, args.requests, false).to_markdown())?,
        _ => print(&render::session_text(
            &usage,
            args.requests,
            findings.len(),
            style(),
        ))?,
    }
    if let Some(file) = &args.plot {
        let mut opts = ExplainOptions::new(catalog);
        opts.leaf = args.leaf.leaf.clone();
        // The confirmed breaks as markers; none when the requests cannot be replayed.
        let explained = explain::explain(&session, &opts)
            .inspect_err(|e| {
                let why = forge_replay_model::error::chain(e);
                out::note!("forge-replay: warning: no break markers: {why}");
            })
            .ok();
        let shown = |t: &str| out::text(t).into_owned();
        let data = render::session_usage_plot(&usage, explained.as_ref(), &shown);
        plot::plot_session(&data, file).with_context(|| format!("plotting {}", file.display()))?;
        out::note!("wrote {}", file.display());
    }
    Ok(verdict(check))
}

// ---------------------------------------------------------------------------------------------
// Corpus

/// Fewer files than this are read in about a second: no progress bar.
const PROGRESS_MIN_FILES: usize = 200;

fn run_corpus(
    args: &UsageArgs,
    mut dirs: Vec<PathBuf>,
    threshold: Option<f64>,
) -> anyhow::Result<Exit> {
    if dirs.is_empty() {
        dirs.push(
            forge_replay_session::dirs::pi_sessions_dir().ok_or_else(|| {
                anyhow::anyhow!(
                    "no sessions directory (set PI_CODING_AGENT_DIR or HOME, or pass DIR)"
                )
            })?,
        );
    }
    // Every output is checked before the corpus is read, so a bad one never comes after
    // another was written.
    for p in [&args.csv, &args.json].into_iter().flatten() {
        forge_replay_io::check_file_target(p)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    if let Some(p) = &args.parquet {
        forge_replay_usage::corpus::check_parquet_target(p)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    if let Some(p) = &args.plot {
        plot::check_path(p).with_context(|| format!("plotting {}", p.display()))?;
    }
    let by = args.by.unwrap_or(GroupBy::Model);
    let (since, until) = (
        args.since.as_ref().map(|d| d.day),
        args.until.as_ref().map(|d| d.day),
    );
    let filter = Filter {
        since,
        until,
        model: args.model_filter.clone(),
        project: args.project.clone(),
    };
    // Progress on stderr, only on a terminal (set up at the first report, when the total is known).
    let bar = out::LazyBar::new(
        "{bar:30} {pos}/{len} files read {elapsed}",
        PROGRESS_MIN_FILES,
    );
    let progress = |done: usize, total: usize| bar.set(done, total);
    // Each session is priced with the catalog of the release that wrote it, unless --pi (or
    // FORGE_REPLAY_PI) names one for all.
    let pricing = match args.pi.requested()? {
        Some((r, _)) => CorpusPricing::Release(r),
        None => CorpusPricing::Detected,
    };
    // The incremental index (unless --no-cache): the same corpus, reading only what changed.
    let cache_dir = if args.no_cache {
        None
    } else {
        args.cache
            .clone()
            .or_else(forge_replay_usage::index::default_cache_dir)
    };
    let scan = CorpusScan::scan(&dirs, &pricing, cache_dir.as_deref(), &progress);
    for line in scan.index.iter().flat_map(render::index_notes) {
        out::note!("{line}");
    }
    bar.finish();
    if let Some(errors) = scan.unreadable() {
        for (p, m) in errors {
            out::error!("cannot read {}: {m}", p.display());
        }
        return Ok(Exit::BadInput);
    }
    if scan.is_empty() {
        // Not an error (the report is empty, exit 0; a --min-hit-rate fails), but say why.
        out::note!("{}", render::no_session_files_warning(&dirs));
    }
    // `cache explain` on every session for --breaks, with a progress bar on a terminal.
    let explain_bar = out::LazyBar::new("{bar:30} {pos}/{len} sessions explained {elapsed}", 0);
    let explain_progress = |done: usize, total: usize| explain_bar.set(done, total);
    let options = CorpusOptions {
        filter,
        filters_view: FiltersView {
            since: args.since.as_ref().map(|d| d.text.clone()),
            until: args.until.as_ref().map(|d| d.text.clone()),
            model: args.model_filter.clone(),
            project: args.project.clone(),
        },
        by,
        breaks: args.breaks,
        threshold,
        exports: args.csv.is_some() || args.json.is_some() || args.parquet.is_some(),
        // Everything printed is redacted by `out`; the exports are written from redacted strings.
        redact: out::redacting(),
    };
    let run = CorpusRun::build(scan.corpus, options, &explain_progress);
    explain_bar.finish();
    let mut run = run?;

    if let Some(p) = &args.csv {
        run.write_csv(p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.json {
        run.write_ndjson(p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    if let Some(p) = &args.parquet {
        let parts = run
            .write_parquet_dataset(p)
            .with_context(|| format!("writing {}", p.display()))?;
        out::note!(
            "wrote {} under {}",
            render::plural(parts.len() as f64, "partition", "partitions"),
            p.display()
        );
    }
    run.release_frame();
    if let Some(p) = &args.plot {
        plot::plot_corpus(&render::corpus_plot(&run.report), p)
            .with_context(|| format!("plotting {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    let (report, breaks) = (&run.report, run.breaks.as_ref());
    match Format::or_default(args.format) {
        Format::Json => out::print_json(&run.to_json()?)?,
        Format::Csv => print(&render::groups_table(report, true).to_csv())?,
        Format::Md => print(&render::corpus_markdown(report, breaks))?,
        _ => print(&render::corpus_text(report, breaks, style()))?,
    }
    // On stderr unless JSON was asked for (the document lists them).
    if args.format != Some(Format::Json) {
        for line in render::corpus_diagnostics(report, breaks) {
            out::note!("{line}");
        }
    }
    Ok(verdict(run.check))
}
