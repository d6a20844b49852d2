//! `forge-replay replay SESSION`: every request of a session rebuilt as the agent sent it.

use std::path::Path;

use forge_replay_engine::golden::model_slug;
use forge_replay_engine::replay::{self, AfterTree, ReplayOptions, Target, ThinkingSource};
use forge_replay_model::json;
use forge_replay_session::Session;
use forge_replay_wire::Catalog;
use serde_json::json;

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
    let mut summary =
        forge_replay_report::summary::Summary::new(!matches!(opts.target, Target::Recorded));
    // Requests are written as they are built: memory stays at one request, whatever the length.
    let result = if let Some(out_dir) = &args.out {
        // The directory is one set: staged beside the target, renamed in when complete.
        let mut set = forge_replay_io::DirSet::begin(out_dir, "replay")?;
        set.note("redacted", if out::redacting() { "true" } else { "false" });
        let mut index = Vec::new();
        let r = replay::replay_each(&session, &opts, |r| {
            forge_replay_io::path::check_component("entry id", &r.entry_id).map_err(|e| {
                std::io::Error::other(format!(
                    "{}:{}: {e}, so it cannot name a --out file",
                    args.session.display(),
                    r.line
                ))
            })?;
            note_once(&r);
            let name = format!(
                "{:03}-{}-{}.json",
                r.index,
                r.entry_id,
                model_slug(&format!("{}/{}", r.provider, r.model))
            );
            let mut text = String::new();
            r.write_pretty(0, &mut text);
            text.push('\n');
            set.write(&name, out::json(&text).as_bytes())
                .map_err(std::io::Error::other)?;
            index.push(json!({
                "file": name, "index": r.index, "entryId": r.entry_id, "api": r.api.name(),
                "provider": r.provider, "model": r.model,
            }));
            Ok(())
        });
        if r.is_ok() {
            let doc = json!({
                "session": args.session.to_string_lossy(),
                "redacted": out::redacting(),
                "requests": index,
            });
            let mut text = json::stringify_pretty(&doc);
            text.push('\n');
            set.write("index.json", out::json(&text).as_bytes())?;
            set.commit()?;
            out::note!(
                "wrote {} to {} (and index.json)",
                plural(index.len(), "request", "requests"),
                out_dir.display()
            );
        }
        r
    } else {
        let mut w = Out::stdout();
        let mut first = true;
        let mut text = String::new();
        let r = replay::replay_each(&session, &opts, |r| {
            note_once(&r);
            match format {
                Format::Text => {
                    summary.push(&r);
                    Ok(())
                }
                _ => {
                    // The same bytes as `JSON.stringify({requests}, null, 2)`, one request at a time.
                    w.frame(if first {
                        b"{\n  \"requests\": [\n"
                    } else {
                        b",\n"
                    })?;
                    first = false;
                    text.clear();
                    text.push_str("    ");
                    r.write_pretty(2, &mut text);
                    w.json(&text)
                }
            }
        });
        if r.is_ok() {
            if format == Format::Text {
                w.text(&summary.render())?;
                outln!(
                    w,
                    "full requests: --format json prints them (the default when stdout is not a terminal), --out DIR writes one file per request"
                )?;
            } else {
                w.frame(if first {
                    b"{\n  \"requests\": []\n}\n"
                } else {
                    b"\n  ]\n}\n"
                })?;
            }
        }
        w.flush()?;
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
