//! `forge-replay replay SESSION`: every request of a session rebuilt as the agent sent it, handed
//! to a `forge_replay_engine::sink` (JSON on stdout, `--out DIR`, or the text summary).

use forge_replay_engine::replay::{self, ReplayOptions, Target};
use forge_replay_engine::sink::{replay_into, DirSink, JsonStream};
use forge_replay_report::summary::{Summary, ThinkingNotes};

use crate::args::{Format, ReplayArgs};
use crate::cmd::open_with_catalog;
use crate::out;
use crate::Exit;

pub fn run(args: ReplayArgs) -> anyhow::Result<Exit> {
    let (session, catalog) = open_with_catalog(&args.session, args.catalog.path(), &args.pi)?;
    let mut opts = ReplayOptions::new(&catalog);
    opts.leaf = args.leaf.leaf.clone();
    opts.after_tree = args.after_tree;
    opts.hidden_declarations = args.hide_declarations.clone();
    if let Some(why) = opts.hidden_declarations_ignored() {
        out::note!("forge-replay: warning: {why}");
    }
    // A request whose thinking level the session does not settle (a navigation left the last
    // change on another branch, and the response records none) is said once, with the other
    // reading.
    let mut notes = ThinkingNotes::new(&args.session);
    let mut note_once = |r: &replay::Request| notes.of(r).iter().for_each(|n| out::note!("{n}"));
    // clap accepts only the ten API names.
    let (model, api) = (args.model.as_deref(), args.api.as_deref());
    opts.target = Target::chosen(model, api, args.all_apis, &catalog)?;
    let format = Format::or_default(args.format);
    // The summary compares each request's messages with the previous one's.
    opts.hash_transcript = format == Format::Text && args.out.is_none();
    // Requests are handed to the sink as they are built: memory stays at one request, whatever
    // the length.
    let result = if let Some(out_dir) = &args.out {
        let mut sink = DirSink::begin(out_dir, &args.session, out::json, out::redacting())?;
        let r = replay_into(&session, &opts, &mut sink, &mut note_once);
        r.is_ok().then(|| out::note!("{}", sink.wrote()));
        r
    } else if format == Format::Text {
        let mut summary = Summary::new(!matches!(opts.target, Target::Recorded));
        let r = replay_into(&session, &opts, &mut summary, &mut note_once);
        if r.is_ok() {
            out::print_text(&summary.page())?;
        }
        r
    } else {
        let mut sink = JsonStream::new(std::io::BufWriter::new(out::Stdout::locked()), out::json);
        let r = replay_into(&session, &opts, &mut sink, &mut note_once);
        sink.flush()?;
        r
    };
    match result {
        Ok(()) => Ok(Exit::Ok),
        Err(replay::ReplayError::Sink(e)) => Err(e.into()),
        // The fault is the flag, not a line of the session.
        Err(e) => match e.target_fault().filter(|_| args.model.is_some()) {
            Some(fault) => {
                out::error!("--model {fault}");
                Ok(Exit::BadInput)
            }
            None => Err(e.into()),
        },
    }
}
