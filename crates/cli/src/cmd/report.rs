//! `forge-replay report providers`: the provider-support report (Markdown or HTML).
//!
//! Exit codes: 0 written; 1 written, but some `--sessions` files could not be read (they are
//! listed in the report); 2 bad input (unreadable catalog, a `--sessions` path that does not
//! exist, unwritable output).

use std::path::Path;

use anyhow::Context;
use forge_replay_report::provider::{
    self, cache, catalog_facts,
    render::{render, Format},
    ProbeSet, WireAssembler,
};
use forge_replay_wire::Catalog;

use crate::args::{Format as FormatArg, ReportProvidersArgs};
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: ReportProvidersArgs) -> anyhow::Result<Exit> {
    let release = args.pi.or_default()?;
    let user_catalog;
    let (catalog, user) = match &args.catalog.catalog {
        Some(path) => {
            let text = forge_replay_session::input::read_to_string(path)
                .with_context(|| format!("{}: cannot read catalog", path.display()))?;
            user_catalog = Catalog::with_user_file(release, &text, &path.display().to_string())?;
            (&user_catalog, Some(path.display().to_string()))
        }
        None => (Catalog::builtin(release), None),
    };
    let sessions = match &args.sessions {
        None => Vec::new(),
        Some(given) => match super::paths_or_pi_sessions(given) {
            Ok(p) => p,
            Err(exit) => return Ok(exit),
        },
    };
    for s in &sessions {
        if !s.exists() {
            anyhow::bail!("--sessions {}: no such file or directory", s.display());
        }
    }
    if !sessions.is_empty()
        && forge_replay_usage::corpus::find_session_files(&sessions)
            .0
            .is_empty()
    {
        // Not an error (the report has no measured section), but say why.
        let shown: Vec<String> = sessions.iter().map(|d| d.display().to_string()).collect();
        out::note!(
            "forge-replay: warning: --sessions {}: no session files (*.jsonl) in it; the report has no measured cache behaviour",
            shown.join(" ")
        );
    }
    let facts = catalog_facts(catalog, user);
    let probes = ProbeSet::builtin()?;
    let cache = (!sessions.is_empty()).then(|| cache::analyze(&sessions, &facts.models));
    let report = provider::build(facts, probes, &WireAssembler { catalog }, cache);

    let format = match args.format {
        FormatArg::Html => Format::Html,
        _ => Format::Markdown,
    };
    let stem = args
        .out
        .as_deref()
        .and_then(Path::file_stem)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "provider-support".to_string());
    // Markdown plots are side files, so they need --out; HTML embeds them.
    let plots = match (&report.cache, format, &args.out) {
        (Some(c), Format::Html, _) | (Some(c), Format::Markdown, Some(_)) => {
            cache::plots(c, &stem)?
        }
        _ => Vec::new(),
    };
    let rendered = render(&report, format, &plots);
    let text = out::text(&rendered.text);

    match &args.out {
        Some(path) => {
            forge_replay_io::write_atomic(path, text.as_bytes())?;
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            for (name, bytes) in &rendered.files {
                forge_replay_io::path::check_component("plot file name", name)?;
                let shown = out::text(&String::from_utf8_lossy(bytes)).into_owned();
                // SVG plots are text: redacted like the report (their labels come from sessions).
                let bytes = if std::str::from_utf8(bytes).is_ok() {
                    shown.as_bytes()
                } else {
                    bytes
                };
                forge_replay_io::write_atomic(&dir.join(name), bytes)?;
            }
            // Every writer says what it wrote.
            match rendered.files.len() {
                0 => out::note!("wrote {}", path.display()),
                n => out::note!(
                    "wrote {} and {n} plot file{} beside it",
                    path.display(),
                    if n == 1 { "" } else { "s" }
                ),
            }
        }
        None => {
            let mut stdout = Out::stdout();
            stdout.frame(text.as_bytes())?;
            stdout.flush()?;
        }
    }
    let unreadable = report
        .cache
        .as_ref()
        .is_some_and(|c| !c.unreadable.is_empty());
    Ok(if unreadable { Exit::Findings } else { Exit::Ok })
}
