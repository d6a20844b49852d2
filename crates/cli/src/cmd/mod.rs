//! One module per subcommand. Each exposes `run(args) -> anyhow::Result<Exit>`.

use crate::args::{CacheCommand, CapabilityCommand, Cli, Command, ReportCommand};
use crate::Exit;
pub(crate) use forge_replay_model::error::chain as error_chain;

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

/// The paths given, or else Pi's own sessions directory (`$PI_CODING_AGENT_DIR/sessions`, else
/// `~/.pi/agent/sessions`; issue 18.5), as `usage --corpus` and `check` read it. A missing
/// directory is reported on stderr (exit 2).
pub(crate) fn paths_or_pi_sessions(
    paths: &[std::path::PathBuf],
) -> Result<Vec<std::path::PathBuf>, Exit> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    match forge_replay_session::dirs::pi_sessions_dir() {
        Some(d) if d.is_dir() => Ok(vec![d]),
        Some(d) => {
            crate::out::error!(
                "{}: Pi's sessions directory does not exist (set PI_CODING_AGENT_DIR, or give session files or directories)",
                d.display()
            );
            Err(Exit::BadInput)
        }
        None => {
            crate::out::error!("no sessions directory (set PI_CODING_AGENT_DIR or HOME, or give session files or directories)");
            Err(Exit::BadInput)
        }
    }
}

/// A release's built-in catalog, with a `--catalog` file layered on top.
pub(crate) fn load_catalog(
    release: forge_replay_model::release::PiRelease,
    path: Option<&std::path::Path>,
) -> anyhow::Result<std::borrow::Cow<'static, forge_replay_wire::Catalog>> {
    use forge_replay_wire::Catalog;
    Ok(match path {
        None => std::borrow::Cow::Borrowed(Catalog::builtin(release)),
        Some(p) => {
            let text = forge_replay_session::input::read_to_string(p)
                .map_err(|e| anyhow::anyhow!("{}: cannot read catalog: {e}", p.display()))?;
            std::borrow::Cow::Owned(Catalog::with_user_file(
                release,
                &text,
                &p.display().to_string(),
            )?)
        }
    })
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
