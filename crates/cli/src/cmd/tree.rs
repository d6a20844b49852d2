//! `forge-replay tree`: a session's tree as a person reads it (`forge_replay_report::tree`).

use forge_replay_report::tree;
use forge_replay_session::describe::labels;

use crate::args::{Format, TextOrJson, TreeArgs};
use crate::cmd::open_session;
use crate::out;
use crate::Exit;

pub fn run(args: TreeArgs) -> anyhow::Result<Exit> {
    let session = open_session(&args.session)?;
    let labels = labels(&session);
    match Format::or_default(args.format).text_or_json() {
        TextOrJson::Text => out::print_text(&tree::text(&session, &labels))?,
        TextOrJson::Json => out::print_json(&tree::to_json(&session, &labels))?,
    }
    Ok(Exit::Ok)
}
