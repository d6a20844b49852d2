//! `forge-replay report providers`: the provider-support report (Markdown or HTML), built and
//! rendered by `forge_replay_report::provider`.
//!
//! Exit codes: 0 written; 1 written, but some `--sessions` files could not be read (they are
//! listed in the report); 2 bad input (unreadable catalog, a `--sessions` path that does not
//! exist, unwritable output).

use forge_replay_report::provider::render::{render_with_plots, Format};
use forge_replay_report::provider::{self, cache, catalog_facts, ProbeSet, WireAssembler};
use forge_replay_session::dirs::paths_or_pi_sessions;

use crate::args::{Format as FormatArg, ReportProvidersArgs};
use crate::out;
use crate::Exit;

pub fn run(args: ReportProvidersArgs) -> anyhow::Result<Exit> {
    let release = args.pi.or_default()?;
    let catalog = forge_replay_engine::catalog::load(release, args.catalog.path())?;
    let user = args.catalog.path().map(|p| p.display().to_string());
    let sessions = match &args.sessions {
        None => Vec::new(),
        Some(given) => paths_or_pi_sessions(given)?,
    };
    if let Some(s) = sessions.iter().find(|s| !s.exists()) {
        anyhow::bail!("--sessions {}: no such file or directory", s.display());
    }
    if !sessions.is_empty() && cache::no_session_files(&sessions) {
        // Not an error (the report has no measured section), but say why.
        let shown: Vec<String> = sessions.iter().map(|d| d.display().to_string()).collect();
        out::note!(
            "forge-replay: warning: --sessions {}: no session files (*.jsonl) in it; the report has no measured cache behaviour",
            shown.join(" ")
        );
    }
    let facts = catalog_facts(&catalog, user);
    let probes = ProbeSet::builtin()?;
    let cache = (!sessions.is_empty()).then(|| cache::analyze(&sessions, &facts.models));
    let report = provider::build(facts, probes, &WireAssembler { catalog: &catalog }, cache);
    let format = match args.format {
        FormatArg::Html => Format::Html,
        _ => Format::Markdown,
    };
    let rendered = render_with_plots(&report, format, args.out.as_deref())?;
    match &args.out {
        Some(path) => {
            rendered.write(path, &|text| out::text(text).into_owned())?;
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
            let mut stdout = out::stdout();
            stdout.frame(out::text(&rendered.text).as_bytes())?;
            stdout.flush()?;
        }
    }
    let unreadable = report
        .cache
        .as_ref()
        .is_some_and(|c| !c.unreadable.is_empty());
    Ok(Exit::findings_if(unreadable))
}
