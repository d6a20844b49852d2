//! `forge-replay report providers`: the provider-support report (Markdown or HTML), built and
//! rendered by `forge_replay_report::provider`.
//!
//! Exit codes: 0 written; 1 written, but some `--sessions` files could not be read (they are
//! listed in the report); 2 bad input (unreadable catalog, a `--sessions` path that does not
//! exist, unwritable output).

use forge_replay_report::provider::render::render_with_plots;
use forge_replay_report::provider::{self, cache, catalog_facts, ProbeSet, WireAssembler};

use crate::args::ReportProvidersArgs;
use crate::out;
use crate::Exit;

pub fn run(args: ReportProvidersArgs) -> anyhow::Result<Exit> {
    let release = args.pi.or_default()?;
    let catalog = forge_replay_engine::catalog::load(release, args.catalog.path())?;
    let user = args.catalog.path().map(|p| p.display().to_string());
    let sessions = cache::sessions(args.sessions.as_deref())?;
    // Not an error (the report has no measured section), but say why.
    if let Some(warning) = cache::no_session_files_warning(&sessions) {
        out::note!("{warning}");
    }
    let facts = catalog_facts(&catalog, user);
    let probes = ProbeSet::builtin()?;
    let cache = (!sessions.is_empty()).then(|| cache::analyze(&sessions, &facts.models));
    let report = provider::build(facts, probes, &WireAssembler { catalog: &catalog }, cache);
    let rendered = render_with_plots(&report, args.format.into(), args.out.as_deref())?;
    match &args.out {
        Some(path) => {
            rendered.write(path, &|text| out::text(text).into_owned())?;
            // Every writer says what it wrote.
            out::note!("{}", rendered.wrote(path));
        }
        None => out::print_frame(out::text(&rendered.text).as_bytes())?,
    }
    let unreadable = report
        .cache
        .as_ref()
        .is_some_and(|c| !c.unreadable.is_empty());
    Ok(Exit::findings_if(unreadable))
}
