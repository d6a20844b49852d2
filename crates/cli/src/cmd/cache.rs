//! `forge-replay cache explain SESSION`: why the prompt cache broke, request by request.
//!
//! The diagnosis lives in `forge_replay_usage::explain`, its plot data in
//! `forge_replay_report::usage::explain_plot`; this command prints it (text table or JSON).

use forge_replay_report::plot::plot_session;
use forge_replay_report::usage::explain_plot;
use forge_replay_usage::explain::{self, ExplainOptions};

use crate::args::{CacheExplainArgs, Format, TextOrJson};
use crate::cmd::open_with_catalog;
use crate::out;
use crate::Exit;

pub fn run(args: CacheExplainArgs) -> anyhow::Result<Exit> {
    let (session, catalog) = open_with_catalog(&args.session, args.catalog.path(), &args.pi)?;
    let mut opts = ExplainOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.retention = args.retention.retention;
    let explanation = explain::explain(&session, &opts)?;
    if let Some(path) = &args.plot {
        let mut data = explain_plot(&explanation);
        data.title = out::text(&data.title).into_owned();
        plot_session(&data, path)?;
        out::note!("wrote {}", path.display());
    }
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Json => out::print_json_text(&(explanation.to_json_text() + "\n"))?,
        TextOrJson::Text => out::print_text(&explanation.to_text())?,
    }
    if let Some(why) = &explanation.stopped {
        out::error!("{why}");
        return Ok(Exit::BadInput);
    }
    Ok(Exit::Ok)
}
