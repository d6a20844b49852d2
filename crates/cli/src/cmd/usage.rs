//! `forge-replay usage`: prompt-cache usage of one session (pi-forge's semantics) or a corpus.
//!
//! The numbers are `forge_replay_usage` (`session_report` for one session, `corpus_run` for a
//! corpus: its scan, filters, exports and `--breaks`); the tables, notes and what each format
//! prints are `forge_replay_report::usage`. This module maps arguments, prints and picks the
//! exit code.

use std::path::{Path, PathBuf};

use anyhow::Context;
use forge_replay_report::plot;
use forge_replay_report::table::TableStyle;
use forge_replay_report::usage as render;
use forge_replay_session::Session;
use forge_replay_usage::corpus::GroupBy;
use forge_replay_usage::corpus_run::{CorpusRequest, Exports};
use forge_replay_usage::explain::{self, ExplainOptions};
use forge_replay_usage::session_report::{SessionUsage, Threshold};

use crate::args::{Format, UsageArgs};
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

/// Refuses a `--plot` that cannot be drawn, before anything is printed or written.
fn check_plot(file: Option<&Path>) -> anyhow::Result<()> {
    file.map_or(Ok(()), |file| {
        plot::check_path(file).with_context(|| format!("plotting {}", file.display()))
    })
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
    check_plot(args.plot.as_deref())?;
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
    // Said by its message alone (its causes are already part of the message).
    let usage = SessionUsage::build(&session, leaf, catalog).map_err(|e| anyhow::anyhow!("{e}"))?;
    for (line, msg) in &usage.findings {
        out::note!("{}:{line}: {msg}", path.display());
    }
    let check = threshold.map(|min| Threshold::check(min, &usage.view.main_session));
    let (format, file) = (Format::or_default(args.format), path.display().to_string());
    let printed = render::session_output(
        &usage,
        format,
        &file,
        &findings,
        args.requests,
        check.as_ref(),
        TableStyle::for_stdout(),
    );
    out::print(&printed)?;
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
    dirs: Vec<PathBuf>,
    threshold: Option<f64>,
) -> anyhow::Result<Exit> {
    let request = CorpusRequest {
        dirs,
        since: args.since.clone(),
        until: args.until.clone(),
        model: args.model_filter.clone(),
        project: args.project.clone(),
        by: args.by.unwrap_or(GroupBy::Model),
        breaks: args.breaks,
        threshold,
        exports: Exports {
            csv: args.csv.clone(),
            json: args.json.clone(),
            parquet: args.parquet.clone(),
        },
        // Each session is priced with the catalog of the release that wrote it, unless --pi (or
        // FORGE_REPLAY_PI) names one for all.
        release: args.pi.requested()?.map(|(r, _)| r),
        // The incremental index (unless --no-cache): the same corpus, reading only what changed.
        cache_dir: match args.no_cache {
            true => None,
            false => args
                .cache
                .clone()
                .or_else(forge_replay_usage::index::default_cache_dir),
        },
        // Everything printed is redacted by `out`; the exports are written from redacted strings.
        redact: out::redacting(),
    };
    let dirs = request.dirs()?;
    // Every output is checked before the corpus is read, so a bad one never comes after
    // another was written.
    request.exports.check()?;
    check_plot(args.plot.as_deref())?;
    // Progress on stderr, only on a terminal (set up at the first report, when the total is known).
    let bar = out::LazyBar::new(
        "{bar:30} {pos}/{len} files read {elapsed}",
        PROGRESS_MIN_FILES,
    );
    let scan = request.scan(&dirs, &|done, total| bar.set(done, total));
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
    let run = request.build(scan.corpus, &|done, total| explain_bar.set(done, total));
    explain_bar.finish();
    let mut run = run?;
    run.write_exports(&request.exports, &mut |line| out::note!("{line}"))?;
    if let Some(p) = &args.plot {
        plot::plot_corpus(&render::corpus_plot(&run.report), p)
            .with_context(|| format!("plotting {}", p.display()))?;
        out::note!("wrote {}", p.display());
    }
    out::print(&render::corpus_output(
        &run,
        Format::or_default(args.format),
        TableStyle::for_stdout(),
    )?)?;
    // On stderr unless JSON was asked for (the document lists them).
    if args.format != Some(Format::Json) {
        for line in render::corpus_diagnostics(&run.report, run.breaks.as_ref()) {
            out::note!("{line}");
        }
    }
    Ok(verdict(run.check))
}
