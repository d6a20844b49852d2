//! `forge-replay cache explain SESSION`: why the prompt cache broke, request by request.
//!
//! The diagnosis lives in `forge_replay_usage::explain`; this command prints it (text table or
//! JSON) and draws the optional plot through the report crate (report depends on usage, so the
//! plot call is made here).

use forge_replay_model::json;
use forge_replay_report::plot::{plot_session, BreakMarker, RequestPoint, SessionPlot};
use forge_replay_usage::explain::{self, ExplainOptions, Explanation, Retention};

use crate::args::{CacheExplainArgs, CacheRetention, Format, TextOrJson};
use crate::cmd::error_chain;
use crate::cmd::replay::open_with_catalog;
use crate::out::{self, Out};
use crate::Exit;

pub fn run(args: CacheExplainArgs) -> anyhow::Result<Exit> {
    let (session, catalog) = match open_with_catalog(&args.session, args.catalog.path(), &args.pi) {
        Ok(v) => v,
        Err(exit) => return Ok(exit),
    };
    let mut opts = ExplainOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.retention = match args.retention.retention {
        CacheRetention::Short => Retention::Short,
        CacheRetention::Long => Retention::Long,
    };
    let explanation = match explain::explain(&session, &opts) {
        Ok(e) => e,
        Err(e) => {
            out::error!("{}", error_chain(&e));
            return Ok(Exit::BadInput);
        }
    };
    if let Some(path) = &args.plot {
        let mut data = plot_data(&explanation);
        data.title = out::text(&data.title).into_owned();
        if let Err(e) = plot_session(&data, path) {
            out::error!("{}", error_chain(&e));
            return Ok(Exit::BadInput);
        }
        out::note!("wrote {}", path.display());
    }
    let mut w = Out::stdout();
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => {
            let mut text = json::stringify_pretty(&explanation.to_json());
            text.push('\n');
            w.json(&text)?;
        }
        TextOrJson::Text => w.text(&explanation.to_text())?,
    }
    w.flush()?;
    if let Some(why) = &explanation.stopped {
        out::error!("{why}");
        return Ok(Exit::BadInput);
    }
    Ok(Exit::Ok)
}

/// Hit rate per request with the confirmed breaks as labelled markers.
fn plot_data(e: &Explanation) -> SessionPlot {
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
