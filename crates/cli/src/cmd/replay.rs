//! `forge-replay replay SESSION`: every request of a session rebuilt as the agent sent it, handed
//! to a `forge_replay_engine::sink` (JSON on stdout, `--out DIR`, or the text summary).

use std::path::Path;

use forge_replay_engine::replay::{self, AfterTree, ReplayOptions, Target, ThinkingSource};
use forge_replay_engine::sink::{replay_into, DirSink, JsonStream};
use forge_replay_report::summary::Summary;
use forge_replay_session::Session;
use forge_replay_wire::Catalog;

use crate::args::{AfterTreeArg, Format, PiArg, ReplayArgs};
use crate::cmd::error_chain;
use crate::out::{self, outln, Out};
use crate::Exit;

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The session and the catalog of the release a replay follows (`--pi`, else the one the
/// session shows, said on stderr); a failure is reported on stderr and gives exit 2.
pub(crate) fn open_with_catalog(
    session: &Path,
    catalog: Option<&Path>,
    pi: &PiArg,
) -> Result<(Session, std::borrow::Cow<'static, Catalog>), Exit> {
    let (session, diags) = Session::open(session).map_err(|e| {
        out::error!("{}", error_chain(&e));
        Exit::BadInput
    })?;
    // A truncated last line or a malformed entry is skipped as Pi skips it, and said so, as by
    // `tree`, `context` and `check`.
    crate::cmd::context::print_diagnostics(session.path(), &diags);
    let catalog = pi
        .for_session(&session)
        .and_then(|release| super::load_catalog(release, catalog))
        .map_err(|e| {
            out::error!("{e:#}");
            Exit::BadInput
        })?;
    Ok((session, catalog))
}

pub fn run(args: ReplayArgs) -> anyhow::Result<Exit> {
    let (session, catalog) = match open_with_catalog(&args.session, args.catalog.path(), &args.pi) {
        Ok(v) => v,
        Err(exit) => return Ok(exit),
    };
    let mut opts = ReplayOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.after_tree = match args.after_tree {
        AfterTreeArg::Live => AfterTree::Live,
        AfterTreeArg::Path => AfterTree::Path,
    };
    opts.hidden_declarations = args.hide_declarations.clone();
    if !opts.hidden_declarations.is_empty()
        && !catalog
            .release()
            .has(forge_replay_model::release::Change::AgentHiddenDeclarations)
    {
        out::note!(
            "forge-replay: warning: --hide-declarations has no effect on Pi {}: hidden declarations came with 1.3.0",
            catalog.release()
        );
    }
    // A request whose thinking level the session does not settle (a navigation left the last
    // change on another branch, and the response records none) is said once, with the other
    // reading.
    let note = |r: &replay::Request| {
        if let (ThinkingSource::Live { line: Some(at) }, Some(path)) =
            (&r.thinking.source, &r.thinking.path_level)
        {
            out::note!(
                "forge-replay: note: {}:{}: request {} uses thinking level {}, the live agent's (set on line {at}, on another branch: /tree navigation keeps it); its path says {path} (--after-tree path)",
                args.session.display(),
                r.line,
                r.index,
                r.thinking.level,
            );
        }
    };
    let mut noted = std::collections::HashSet::new();
    let mut note_once = |r: &replay::Request| {
        if noted.insert(r.index) {
            note(r);
        }
    };
    opts.target = if let Some(m) = &args.model {
        Target::Models(vec![m.clone()])
    } else if let Some(api) = &args.api {
        // clap accepts only the ten API names.
        match replay::representative_model(api, &catalog) {
            Some(m) => Target::Models(vec![m.to_string()]),
            None => anyhow::bail!("--api {api}: unknown API"),
        }
    } else if args.all_apis {
        Target::all_apis(&catalog)
    } else {
        Target::Recorded
    };
    let format = Format::or_default(args.format);
    // The summary compares each request's messages with the previous one's.
    opts.keep_transcript = format == Format::Text && args.out.is_none();
    // Requests are handed to the sink as they are built: memory stays at one request, whatever
    // the length.
    let result = if let Some(out_dir) = &args.out {
        let mut sink = DirSink::begin(out_dir, &args.session, out::json, out::redacting())?;
        let r = replay_into(&session, &opts, &mut sink, &mut note_once);
        if r.is_ok() {
            out::note!(
                "wrote {} to {} (and index.json)",
                plural(sink.count(), "request", "requests"),
                out_dir.display()
            );
        }
        r
    } else if format == Format::Text {
        let mut summary = Summary::new(!matches!(opts.target, Target::Recorded));
        let r = replay_into(&session, &opts, &mut summary, &mut note_once);
        if r.is_ok() {
            let mut w = Out::stdout();
            w.text(&summary.render())?;
            outln!(
                w,
                "full requests: --format json prints them (the default when stdout is not a terminal), --out DIR writes one file per request"
            )?;
            w.flush()?;
        }
        r
    } else {
        let mut sink =
            JsonStream::new(std::io::BufWriter::new(std::io::stdout().lock()), out::json);
        let r = replay_into(&session, &opts, &mut sink, &mut note_once);
        sink.flush()?;
        r
    };
    match result {
        Ok(()) => Ok(Exit::Ok),
        Err(replay::ReplayError::Sink(e)) => Err(e.into()),
        // The fault is the flag, not a line of the session.
        Err(replay::ReplayError::Target { model, source }) if args.model.is_some() => {
            out::error!("--model {model}: {}", error_chain(&*source));
            Ok(Exit::BadInput)
        }
        Err(replay::ReplayError::BadModel { model }) if args.model.is_some() => {
            out::error!("--model {model}: expected provider/id");
            Ok(Exit::BadInput)
        }
        Err(e) => {
            out::error!("{}", error_chain(&e));
            Ok(Exit::BadInput)
        }
    }
}
