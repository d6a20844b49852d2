//! One module per subcommand. Each exposes `run(args) -> anyhow::Result<Exit>`; an error it
//! returns is said once by [`crate::run`] (`forge-replay: error: …`, exit 2).

use std::borrow::Cow;
use std::path::Path;

use forge_replay_session::Session;
use forge_replay_wire::Catalog;

use crate::args::{CacheCommand, CapabilityCommand, Cli, Command, ReportCommand};
use crate::release::PiArg;
use crate::Exit;

pub mod assemble;
pub mod cache;
pub mod capabilities;
pub mod check;
pub mod context;
pub mod diff;
pub mod docs;
pub mod gen_corpus;
pub mod models;
pub mod releases;
pub mod replay;
pub mod report;
pub mod report_session;
pub mod scenario;
pub mod tree;
pub mod upgrade;
pub mod usage;
pub mod validate;
pub mod verify;

/// At most this many diagnostics of one code are said on stderr by [`open_session`].
const MAX_PER_CODE: usize = 20;

/// Opens a session and says its warnings and errors (not notes) on stderr, at most
/// [`MAX_PER_CODE`] per code. Shared by every command that reads one session.
pub(crate) fn open_session(path: &Path) -> anyhow::Result<Session> {
    let (session, diags) = Session::open(path)?;
    say_findings(path, &diags);
    Ok(session)
}

/// Says the warnings and errors (not notes) of reading the session at `path` on stderr, at most
/// [`MAX_PER_CODE`] per code.
pub(crate) fn say_findings(path: &Path, diags: &[forge_replay_session::Diagnostic]) {
    let lines = forge_replay_session::diag::finding_lines(path, diags, MAX_PER_CODE);
    lines.iter().for_each(|l| crate::out::note!("{l}"));
}

/// [`open_session`], and the catalog of the release it follows (`--pi`, else the one the
/// session shows, said on stderr) with `--catalog` layered on top.
pub(crate) fn open_with_catalog(
    path: &Path,
    catalog: Option<&Path>,
    pi: &PiArg,
) -> anyhow::Result<(Session, Cow<'static, Catalog>)> {
    let session = open_session(path)?;
    let release = pi.for_session(&session)?;
    Ok((
        session,
        forge_replay_engine::catalog::load(release, catalog)?,
    ))
}

/// Runs the parsed command.
pub fn dispatch(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        Command::Context(a) => context::run(a),
        Command::Tree(a) => tree::run(a),
        Command::Check(a) => check::run(a),
        Command::Assemble(a) => assemble::run(a),
        Command::Models(a) => models::run(a),
        Command::Capabilities(a) => capabilities::run(a),
        Command::Capability(CapabilityCommand::Validate(a)) => validate::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Scenario(a) => scenario::run(a),
        Command::Usage(a) => usage::run(a),
        Command::Cache(CacheCommand::Explain(a)) => cache::run(a),
        Command::GenCorpus(a) => gen_corpus::run(a),
        Command::Report(ReportCommand::Providers(a)) => report::run(a),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a),
        Command::Report(ReportCommand::Session(a)) => report_session::run(a),
        Command::Releases(a) => releases::run(a),
        Command::Upgrade(a) => upgrade::run(a),
    }
}
