//! `forge-replay cache explain SESSION`: why the prompt cache broke, request by request.
//!
//! The diagnosis lives in `forge_replay_usage::explain`, its plot data in
//! `forge_replay_report::usage::explain_plot`; this command prints it (text table or JSON).

use forge_replay_report::plot::plot_session;
use forge_replay_report::usage::explain_plot;
use forge_replay_usage::explain::{self, ExplainOptions, Retention};

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
        let mut data = explain_plot(&explanation);
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
            let mut text = explanation.to_json_text();
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
